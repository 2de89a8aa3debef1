"""SPEC §3 framing and answers, against the spec's rules and the board model."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from c4game.board import Board
from c4game.exc import PositionError, ProtocolError
from c4game.scores import max_score, min_score, plies_to_end
from firmware_py.serial_link.protocol import (
    Accepted,
    FrameParser,
    Rejected,
    check_moves,
    decode_answer,
    encode_answer,
    query_bytes,
)

# 41 moves of a legal game without a four-in-a-row (found by random play-outs;
# test_digit_limit checks it with the board model).
FORTY_ONE = "46754231124237573576567573313566162421442"


def replies(stream: bytes) -> list[tuple[str, str]]:
    """(reply, moves) for every frame the parser completes in ``stream``."""
    return [(event.reply.decode(), event.moves) for event in FrameParser().feed(stream)]


def model_legal(moves: str) -> bool:
    """Reference validity from the board model (not the protocol's fast check)."""
    try:
        Board.from_moves(moves).require_playable()
    except PositionError:
        return False
    return True


def reference_frames(stream: bytes) -> list[tuple[str, str]]:
    """An independent reading of SPEC §3: split at every ``!``, scan each piece."""
    out = []
    for piece in stream.split(b"!")[1:]:
        digits = ""
        for byte in piece:
            char = chr(byte)
            if char in " \t\r\n\x0b\x0c":
                continue
            if char in "1234567":
                if len(digits) == 41:
                    out.append(("?", digits))
                    break
                digits += char
                continue
            out.append(("!" if char == "?" and model_legal(digits) else "?", digits))
            break
    return out


@pytest.mark.parametrize(("stream", "expected"), [
    (b"!427?", [("!", "427")]),
    (b"!?", [("!", "")]),
    (b"noise\r\n?!427?\r\n", [("!", "427")]),          # bytes outside frames ignored
    (b"! 4 2\t7\r\n?", [("!", "427")]),                 # white space inside ignored
    (b"!42!73?", [("!", "73")]),                        # '!' restarts the frame
    (b"!4x27?", [("?", "4")]),                          # bad byte: '?' at once, rest ignored
    (b"!48?!5?", [("?", "4"), ("!", "5")]),
    (b"!0?", [("?", "")]),
    (b"!4\x00?", [("?", "4")]),
    (b"!4444444?", [("?", "4444444")]),                 # column 4 full
    (b"!1212121?", [("?", "1212121")]),                 # Red's last move makes four
    (b"!12121212?", [("?", "12121212")]),               # a move after four-in-a-row
    (b"!123?!", [("!", "123")]),                        # an open frame yields nothing yet
    (b"??4?", []),
    (b"", []),
])
def test_framing_rules(stream: bytes, expected: list[tuple[str, str]]) -> None:
    assert replies(stream) == expected
    assert reference_frames(stream) == expected


def test_digit_limit() -> None:
    moves = FORTY_ONE
    assert len(moves) == 41 and model_legal(moves)
    assert replies(query_bytes(moves)) == [("!", moves)]
    # The 42nd digit ends the frame at once, before any '?'.
    parser = FrameParser()
    (event,) = parser.feed(b"!" + moves.encode() + b"1")
    assert isinstance(event, Rejected) and event.moves == moves and "41" in event.reason
    assert not parser.in_frame
    assert parser.feed(b"?") == []


def test_rejections_name_the_problem() -> None:
    (bad_byte,) = FrameParser().feed(b"!44x")
    assert "'x'" in bad_byte.reason and "0x78" in bad_byte.reason
    (full,) = FrameParser().feed(b"!4444444?")
    assert "column 4 is full" in full.reason and "move 7" in full.reason
    (won,) = FrameParser().feed(b"!12121212?")
    assert "Red" in won.reason and "move 7" in won.reason


def test_accepted_board_is_the_board_model() -> None:
    (event,) = FrameParser().feed(b"!4 4 3?")
    assert isinstance(event, Accepted)
    assert event.board == Board.from_moves("443")
    assert event.board.to_move == "Y"


def test_split_across_feeds() -> None:
    parser = FrameParser()
    events = []
    for byte in b"xx!4 2\r\n7?!5":
        events += parser.feed(bytes([byte]))
    events += parser.feed(b"55?")
    assert [(e.reply, e.moves) for e in events] == [(b"!", "427"), (b"!", "555")]


ALPHABET = st.sampled_from([b"!", b"?", b"1", b"2", b"3", b"4", b"5", b"6", b"7", b" ",
                            b"\r\n", b"\t", b"0", b"8", b"x", b"\x00", b"\xff", b"44444"])
streams = st.one_of(
    st.binary(max_size=200),
    st.lists(ALPHABET, max_size=120).map(b"".join),
)


@settings(max_examples=300, deadline=None)
@given(stream=streams, cuts=st.lists(st.integers(0, 200), max_size=8))
def test_parser_matches_reference_in_any_chunking(stream: bytes, cuts: list[int]) -> None:
    expected = reference_frames(stream)
    parser = FrameParser()
    got = []
    start = 0
    for cut in sorted(min(c, len(stream)) for c in cuts) + [len(stream)]:
        got += [(e.reply.decode(), e.moves) for e in parser.feed(stream[start:cut])]
        start = cut
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(moves=st.text(alphabet="12345677", max_size=44))
def test_fast_check_agrees_with_board_model(moves: str) -> None:
    board, reason = check_moves(moves)
    assert (board is not None) == model_legal(moves)
    if board is not None:
        assert board == Board.from_moves(moves) and board.moves == moves and reason == ""
    else:
        assert reason


def test_fast_check_on_test_set_positions(test_set_lines: list[str]) -> None:
    for moves in test_set_lines:
        board, _ = check_moves(moves)
        assert board == Board.from_moves(moves)


@pytest.fixture
def test_set_lines() -> list[str]:
    from .conftest import read_test_set

    return [m for name in ("end-easy", "begin-hard") for m, _ in read_test_set(name, 40)]


@pytest.mark.parametrize("n_discs", range(0, 42))
def test_answer_encoding_matches_spec(n_discs: int) -> None:
    for score in range(min_score(n_discs), max_score(n_discs) + 1):
        text = encode_answer(5, score, n_discs).decode()
        plies = plies_to_end(score, n_discs)
        assert len(text) == 4 and text[0] == "5"
        assert text[1] == ("+" if score > 0 else "-" if score < 0 else "=")
        assert int(text[2:]) == plies - 1                # plies after the recommended disc
        if score > 0:
            assert int(text[2:]) % 2 == 0                # '+' answers are even
        elif score < 0:
            assert int(text[2:]) % 2 == 1                # '-' answers are odd
        assert decode_answer(text, n_discs) == (5, score)


def test_answer_edge_cases() -> None:
    assert encode_answer(4, max_score(30), 30) == b"4+00"      # immediate win
    assert encode_answer(2, 0, 41) == b"2=00"                   # filling the last hole
    assert encode_answer(1, 0, 12) == b"1=29"


@pytest.mark.parametrize("bad", ["4+1", "8+00", "4*00", "4+0x", "4+01", "4-00", "4=05"])
def test_decode_rejects_malformed_or_impossible(bad: str) -> None:
    with pytest.raises(ProtocolError, match="answer"):
        decode_answer(bad, 30)
