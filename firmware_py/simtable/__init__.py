"""The simulated table: frame generators, the simulated camera, scripted games.

Used by ``c4pi demo``, ``c4pi render``, ``selftest``, the tests, the benchmarks
and training; never by the board reader (``docs/simtable.md``).
"""
