"""The game as every part of c4pi sees it: the board and its notation (``board``), the
SPEC §2 scores (``scores``), c4pi's one exception tree (``exc``) and its one way of
replacing a file it owns (``files``).

It imports nothing else of c4pi: the solver (``cython_solver``) and the appliance
(``firmware_py``) both build on it, and neither on the other's insides.
"""
