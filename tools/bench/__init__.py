"""Benchmarks (``tools/bench/README.md``)."""
