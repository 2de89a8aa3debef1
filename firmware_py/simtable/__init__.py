"""The simulated table: the 2-D frame generator, the simulated camera, scripted games.

Used by ``c4pi demo``, ``c4pi render``, ``selftest``, the tests, the benchmarks
and training; never by the board reader (``docs/simtable.md``).
"""
