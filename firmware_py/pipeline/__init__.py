"""The live pipeline: frames → readings → stable boards → solver answers → speech.

* :mod:`.voter` — stability voting (pure);
* :mod:`.events` — events, effects and the view (values);
* :mod:`.reducer` — ``reduce(state, event, now)`` (pure);
* :mod:`.runtime` — the thin layer that runs effects (solver worker, announcer,
  display) and feeds frames through the reader.
"""
