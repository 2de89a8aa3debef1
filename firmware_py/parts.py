"""The optional parts of c4pi, and whether this install has them.

The plain package is the robot's solver: the solver, the opening book, the
serial link and the LED (``./setup.sh --robot``, which runs on 32-bit Pis
with 512 MB). The whole appliance (``./setup.sh``) adds the parts below; a
command that needs one this install leaves out says so in one line instead
of a traceback (:func:`needs_message`).
"""

from __future__ import annotations

import platform
import struct
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.util import find_spec

EX_UNAVAILABLE = 69  # sysexits: a part the command needs is not installed
WHOLE_APPLIANCE = "./setup.sh installs the whole appliance"
NOT_ON_32_BIT_ARM = ("the whole appliance needs 64-bit Raspberry Pi OS "
                     "(OpenCV and LiteRT publish nothing for 32-bit ARM)")


@dataclass(frozen=True)
class Part:
    """An optional part: its name, the modules it brings, what a person knows it as."""

    name: str
    modules: tuple[str, ...]
    known_as: str


PARTS: dict[str, Part] = {part.name: part for part in (
    Part("camera", ("cv2",), "OpenCV"),
    Part("speech", ("pyaudio",), "PyAudio"),
    Part("screen", ("aiohttp", "segno"), "aiohttp"),
)}


def installed(module: str) -> bool:
    """True when ``module`` can be imported here (without importing it); one already
    imported counts (a blocked one, ``None`` in :data:`sys.modules`, does not)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):  # a blocked or broken module counts as absent
        return False


def missing(parts: Iterable[str]) -> list[str]:
    """The names among ``parts`` that this install does not have."""
    return [name for name in parts
            if not all(installed(module) for module in PARTS[name].modules)]


def part_of_module(module: str | None) -> str | None:
    """The part that brings ``module`` (``"cv2.aruco"`` is the camera's), else None."""
    root = (module or "").split(".")[0]
    return next((part.name for part in PARTS.values() if root in part.modules), None)


def is_32_bit_arm(machine: str | None = None, pointer_bits: int | None = None) -> bool:
    """True on a 32-bit ARM userland (a 32-bit Pi OS, whose kernel may be 64-bit)."""
    machine = (machine if machine is not None else platform.machine()).lower()
    bits = pointer_bits if pointer_bits is not None else struct.calcsize("P") * 8
    return machine.startswith(("arm", "aarch64")) and bits == 32


def install_hint(machine: str | None = None, pointer_bits: int | None = None) -> str:
    """How to get the parts a robot-only install leaves out, on this machine."""
    return NOT_ON_32_BIT_ARM if is_32_bit_arm(machine, pointer_bits) else WHOLE_APPLIANCE


def needs_message(command: str, parts: Iterable[str]) -> str:
    """``c4pi read needs the camera part (OpenCV), not installed here: …``."""
    names = list(parts)
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    known = ", ".join(PARTS[name].known_as for name in names)
    plural = "part" if len(names) == 1 else "parts"
    return (f"c4pi {command} needs the {listed} {plural} ({known}), not installed here "
            f"(a robot-only install): {install_hint()}")
