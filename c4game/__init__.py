"""The game as every part of c4pi sees it: the board and its notation (``board``), the
SPEC §2 scores (``scores``) and c4pi's one exception tree (``exc``).

It imports nothing else of c4pi: the solver (``cython_solver``) and the appliance
(``firmware_py``) both build on it, and neither on the other's insides.
"""
