"""The QR code on the table's screen that opens the page on a phone.

Shown only where a phone can use it: the appliance serves the network
(``[hud] lan = true``), and only to the Pi's own screen (a loopback client),
because with a pairing code the QR code carries it (``?code=``): whoever
stands at the table may pair, a phone elsewhere on the network may not read
the code off the server. The address is the one the Pi's network uses to
reach others (no packet is sent to find it), else ``<host name>.local``.
The code is drawn by `segno <https://segno.readthedocs.io/>`_.
"""

from __future__ import annotations

import io
import socket
from dataclasses import dataclass

# TEST-NET-1 (RFC 5737): never routed, so a UDP "connect" only picks the interface.
PROBE_ADDRESS = ("192.0.2.1", 9)


@dataclass(frozen=True)
class PhoneLink:
    """What the screen shows: the address to type, and the QR code to scan."""

    shown: str  # the page's address, without the pairing code
    opened: str  # what the QR code opens (with ``?code=`` when there is one)

    def svg(self) -> bytes:
        """The QR code of :attr:`opened` as an SVG picture (black on white)."""
        import segno

        buffer = io.BytesIO()
        segno.make(self.opened, error="m").save(buffer, kind="svg", scale=8, border=2,
                                                dark="#000", light="#fff")
        return buffer.getvalue()


def lan_address() -> str:
    """This machine's address on its network, or ``<host name>.local`` without one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(PROBE_ADDRESS)
            address = probe.getsockname()[0]
    except OSError:
        address = ""
    if address and not address.startswith("127."):
        return address
    return f"{socket.gethostname()}.local"


def phone_link(host: str, port: int, pairing_code: str) -> PhoneLink:
    """The link for a phone to the page served on ``host``:``port``."""
    shown = f"http://{host}:{port}/"
    return PhoneLink(shown, f"{shown}?code={pairing_code}" if pairing_code else shown)
