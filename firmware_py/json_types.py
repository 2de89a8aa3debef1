"""The type of a decoded JSON or TOML document (the screen's state, a request's body,
a config file): one alias, so the loose values are named in one place."""

from __future__ import annotations

from typing import Any

# Any: a JSON/TOML value (str, int, float, bool, None, list or object); each reader
# checks the values it takes (the config against its dataclasses, the HUD's guard).
JsonObject = dict[str, Any]
