"""Subcommands of ``c4pi``: one module each, registered in :mod:`firmware_py.cli`."""
