"""Developer tools, run from the repository root as modules (``tools/README.md``)."""
