"""The Arduino robot link (SPEC.md §3): protocol, transports and the serial service.

* :mod:`.protocol` — the pure frame parser and answer encoding,
* :mod:`.transport` — the :class:`~.transport.Port` interface, pyserial and in-memory ports,
* :mod:`.service` — :class:`~.service.SerialService`, acknowledging and answering queries,
* :mod:`.ptywire` — a virtual serial cable (two ptys) for demos, tests and benchmarks.
"""
