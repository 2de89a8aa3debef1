"""c4pi: a Raspberry Pi appliance that sees a Connect Four board and plays it perfectly."""

__version__ = "0.1.0"
