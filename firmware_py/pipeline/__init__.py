"""The live pipeline: frames → readings → stable boards → solver answers → speech.

* :mod:`.belief` — the one game filter: which board is on the table (pure);
* :mod:`.first_sight` — before the first board, the holes gravity proves empty;
* :mod:`.events` — events, effects and the view (values);
* :mod:`.reducer` — ``reduce(state, event, now)`` (pure);
* :mod:`.runtime` — the thin layer that runs effects (solver worker, announcer,
  display) and feeds frames through the reader.
"""
