"""The appliance process (``c4pi run`` and ``c4pi demo``)."""

from firmware_py.appliance.app import Appliance, Parts

__all__ = ["Appliance", "Parts"]
