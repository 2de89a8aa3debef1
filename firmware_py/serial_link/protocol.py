"""The robot protocol (SPEC.md §3) as a pure state machine: bytes in, events out.

>>> parser = FrameParser()
>>> [event.reply for event in parser.feed(b"noise\\r\\n!4 2 7?")]
[b'!']
>>> parser.feed(b"!44x")[0].reason
"invalid byte 'x' (0x78) after 2 digits"

No I/O and no threads here: :mod:`firmware_py.serial_link.service` feeds the
bytes it reads and writes each event's ``reply``; the answer that follows an
accepted query is :func:`encode_answer`.
"""

from __future__ import annotations

from dataclasses import dataclass

from c4game.board import HEIGHT, RED, WIDTH, YELLOW, Board, has_four
from c4game.exc import ProtocolError
from c4game.scores import max_score, min_score, serial_answer

START = ord("!")
END = ord("?")
ACCEPT = b"!"
REJECT = b"?"
DIGITS = frozenset(b"1234567")
WHITESPACE = frozenset(b" \t\r\n\x0b\x0c")
MAX_DIGITS = 41
ANSWER_LENGTH = 4


@dataclass(frozen=True)
class Accepted:
    """A valid query: acknowledge with ``!``, then send the answer for ``board``."""

    moves: str
    board: Board
    reply: bytes = ACCEPT


@dataclass(frozen=True)
class Rejected:
    """An invalid frame: acknowledge with ``?``; ``moves`` holds the digits received."""

    moves: str
    reason: str
    reply: bytes = REJECT


Event = Accepted | Rejected


class FrameParser:
    """Incremental SPEC §3 framing: call :meth:`feed` with whatever bytes arrived."""

    def __init__(self) -> None:
        self._in_frame = False
        self._digits = bytearray()

    @property
    def in_frame(self) -> bool:
        """True between a ``!`` and the end of its frame."""
        return self._in_frame

    def reset(self) -> None:
        """Forget a half-received frame (after the port was lost)."""
        self._in_frame = False
        self._digits.clear()

    def feed(self, data: bytes) -> list[Event]:
        """Consume ``data``; return the frames it completed, in order."""
        events: list[Event] = []
        for byte in data:
            event = self._byte(byte)
            if event is not None:
                events.append(event)
        return events

    def _byte(self, byte: int) -> Event | None:
        if byte == START:
            self._in_frame = True
            self._digits.clear()
            return None
        if not self._in_frame or byte in WHITESPACE:
            return None
        if byte in DIGITS:
            if len(self._digits) < MAX_DIGITS:
                self._digits.append(byte)
                return None
            return self._reject(f"more than {MAX_DIGITS} digits")
        if byte == END:
            self._in_frame = False
            moves = self._digits.decode("ascii")
            board, reason = check_moves(moves)
            if board is None:
                return Rejected(moves, reason)
            return Accepted(moves, board)
        shown = chr(byte) if 32 <= byte < 127 else "?"
        return self._reject(f"invalid byte {shown!r} (0x{byte:02x}) after "
                            f"{len(self._digits)} digits")

    def _reject(self, reason: str) -> Rejected:
        self._in_frame = False
        return Rejected(self._digits.decode("ascii"), reason)


# ---------------------------------------------------------------- positions

_STRIDE = HEIGHT + 1
_BOTTOM = [1 << (col * _STRIDE) for col in range(WIDTH)]
_TOP = [1 << (col * _STRIDE + HEIGHT - 1) for col in range(WIDTH)]


def check_moves(moves: str) -> tuple[Board, str] | tuple[None, str]:
    """Validate a query's moves in microseconds; ``(board, "")`` or ``(None, reason)``.

    Rejects a character other than 1-7, a move into a full column, a move
    after a four-in-a-row, and a sequence whose last move makes four (the game
    is over: there is nothing to answer).
    """
    mask = 0
    player_bits = [0, 0]  # Red, Yellow
    columns = [""] * WIDTH
    for index, char in enumerate(moves):
        if char not in "1234567":
            return None, f"invalid move {char!r} at move {index + 1}"
        col = ord(char) - 49
        if mask & _TOP[col]:
            return None, f"column {char} is full at move {index + 1}"
        new_mask = mask | (mask + _BOTTOM[col])
        side = index & 1
        player_bits[side] |= new_mask ^ mask
        mask = new_mask
        columns[col] += YELLOW if side else RED
        if has_four(player_bits[side]):
            return None, (f"game over: {'Yellow' if side else 'Red'} made four in a row "
                          f"at move {index + 1}")
    return Board(columns=tuple(columns), moves=moves), ""


def query_bytes(moves: str) -> bytes:
    """The frame a robot sends for ``moves``: ``!`` + digits + ``?``."""
    return b"!" + moves.encode("ascii") + b"?"


# ---------------------------------------------------------------- answers


def encode_answer(column: int, score: int, n_discs: int) -> bytes:
    """The 4-byte answer ``NxMM`` for the best ``column`` and the position's ``score``."""
    text = serial_answer(column, score, n_discs)
    if len(text) != ANSWER_LENGTH:
        raise ProtocolError(f"answer {text!r} is not {ANSWER_LENGTH} characters")
    return text.encode("ascii")


def decode_answer(answer: bytes | str, n_discs: int) -> tuple[int, int]:
    """``(column, score)`` from an answer to a position with ``n_discs`` played.

    The inverse of :func:`encode_answer`; raises :class:`ProtocolError` naming
    the answer when it is malformed or impossible for ``n_discs``.
    """
    text = answer.decode("ascii", "replace") if isinstance(answer, bytes) else answer
    if (len(text) != ANSWER_LENGTH or text[0] not in "1234567" or text[1] not in "+-="
            or not text[2:].isdigit()):
        raise ProtocolError(f"malformed answer {text!r}: expected NxMM, e.g. 4+12")
    column, sign, after = int(text[0]), text[1], int(text[2:])
    plies = after + 1
    if sign == "=":
        score, valid = 0, plies == 42 - n_discs
    elif sign == "+":
        score, valid = max_score(n_discs) - (plies + 1) // 2 + 1, plies % 2 == 1
    else:
        score, valid = -((42 - n_discs) // 2 - plies // 2 + 1), plies % 2 == 0
    in_range = min_score(n_discs) <= score <= max_score(n_discs)
    if not valid or not in_range or (score == 0) != (sign == "="):
        raise ProtocolError(f"answer {text!r} is impossible with {n_discs} discs played")
    return column, score
