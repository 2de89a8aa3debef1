"""The 3-D scene generator: frames ray-cast per pixel (``docs/simtable.md``).

A development tool beside the appliance's own 2-D generator
(:mod:`firmware_py.simtable.render`): training data (:mod:`tools.train`),
benchmarks (:mod:`tools.bench`) and tests use it; the appliance never does.
``python -m tools.scene MOVES -o FILE`` writes one frame.
"""
