"""Every phrase c4pi says, and which clips make up each announcement.

A *clip* is one rendered phrase, named by a short key. Announcements are
tuples of clip names, played back to back with a short joining gap:

- move channel, normal speed: ``move-R-4`` "Red four";
- distance channel, 1.5x speed: ``wins-R`` "Red wins in" or ``draw-in``
  "Draw in", then a number ``n-13`` "13" (said "thirteen");
- before anyone has started (an empty board when either colour may start,
  SPEC §1) no colour is named: ``play-4`` "Play four", ``wins-first`` "First
  player wins in", ``wins-second`` "Second player wins in";
- finished games, normal speed: ``final-R`` "Red wins", ``final-Y``,
  ``final-draw`` "It's a draw";
- ``lost`` "Board not found" and ``startup`` "Connect four ready";
- opponent mode (the appliance plays a colour): ``i-play-4`` "I play four",
  ``wrong-column`` "Not that column", ``i-win`` "I win", ``you-win``
  "You win".

The player named in "wins in" is the winner: the side to move when the
outcome is ``+``, its opponent when it is ``-`` (SPEC §2 plies). A side to
move of ``None`` means nobody has started: the side to move is then the
first player, whichever colour it will be.
"""

from __future__ import annotations

from dataclasses import dataclass

from c4game.exc import PositionError

PLAYERS = ("R", "Y")
PLAYER_NAMES = {"R": "Red", "Y": "Yellow"}
ROLES = ("first", "second")  # the players of a game nobody has started yet
COLUMN_WORDS = ("one", "two", "three", "four", "five", "six", "seven")
MAX_PLIES = 42


@dataclass(frozen=True)
class Phrase:
    """One clip to render: its name, the text given to espeak-ng, and its speed."""

    name: str
    text: str
    fast: bool = False


def catalogue() -> tuple[Phrase, ...]:
    """Every phrase of the clip set, in a stable order."""
    phrases = [Phrase(f"move-{p}-{c}", f"{PLAYER_NAMES[p]} {COLUMN_WORDS[c - 1]}")
               for p in PLAYERS for c in range(1, 8)]
    phrases += [Phrase(f"wins-{p}", f"{PLAYER_NAMES[p]} wins in", fast=True) for p in PLAYERS]
    phrases += [Phrase(f"play-{c}", f"Play {COLUMN_WORDS[c - 1]}") for c in range(1, 8)]
    phrases += [Phrase(f"wins-{r}", f"{r.capitalize()} player wins in", fast=True)
                for r in ROLES]
    phrases.append(Phrase("draw-in", "Draw in", fast=True))
    phrases += [Phrase(f"n-{n}", str(n), fast=True) for n in range(1, MAX_PLIES + 1)]
    phrases += [Phrase(f"final-{p}", f"{PLAYER_NAMES[p]} wins") for p in PLAYERS]
    phrases.append(Phrase("final-draw", "It's a draw"))
    phrases.append(Phrase("lost", "Board not found"))
    phrases.append(Phrase("startup", "Connect four ready"))
    phrases += [Phrase(f"i-play-{c}", f"I play {COLUMN_WORDS[c - 1]}") for c in range(1, 8)]
    phrases.append(Phrase("wrong-column", "Not that column"))
    phrases.append(Phrase("i-win", "I win"))
    phrases.append(Phrase("you-win", "You win"))
    return tuple(phrases)


def opponent_move_clips(column: int, *, wrong_column: bool = False) -> tuple[str, ...]:
    """``I play four`` (after ``Not that column`` when a disc went elsewhere)."""
    if not isinstance(column, int) or not 1 <= column <= 7:
        raise PositionError(f"column {column!r} is not 1-7")
    return (("wrong-column",) if wrong_column else ()) + (f"i-play-{column}",)


def opponent_result_clips(appliance: str, winner: str | None) -> tuple[str, ...]:
    """``I win`` / ``You win`` / ``It's a draw`` for the appliance playing ``appliance``."""
    _check_player(appliance)
    if winner is None:
        return ("final-draw",)
    _check_player(winner)
    return ("i-win",) if winner == appliance else ("you-win",)


def _check_player(player: str) -> None:
    if player not in PLAYERS:
        raise PositionError(f"player {player!r} is not 'R' or 'Y'")


def move_clips(player: str | None, column: int) -> tuple[str, ...]:
    """``Red four``: the side to move and the column to play (``Play four`` for
    ``None``: nobody has started)."""
    if player is not None:
        _check_player(player)
    if not isinstance(column, int) or not 1 <= column <= 7:
        raise PositionError(f"column {column!r} is not 1-7")
    return (f"move-{player}-{column}",) if player is not None else (f"play-{column}",)


def distance_clips(player: str | None, outcome: str, plies: int) -> tuple[str, ...]:
    """``Red wins in 13`` / ``Draw in 20`` for the side to move ``player``
    (``First player wins in 41`` for ``None``: nobody has started).

    ``outcome`` is ``+``/``-``/``=`` for the side to move; ``plies`` counts the
    discs to the end, the recommended one included (odd for ``+``, even for
    ``-``, SPEC §2).
    """
    if player is not None:
        _check_player(player)
    if not isinstance(plies, int) or not 1 <= plies <= MAX_PLIES:
        raise PositionError(f"plies {plies!r} is not 1-{MAX_PLIES}")
    if outcome == "=":
        return ("draw-in", f"n-{plies}")
    if outcome not in ("+", "-"):
        raise PositionError(f"outcome {outcome!r} is not '+', '-' or '='")
    if (plies % 2 == 1) != (outcome == "+"):
        parity = "odd" if outcome == "+" else "even"
        raise PositionError(f"plies {plies} with outcome {outcome!r}: expected {parity} plies")
    if player is None:
        return (f"wins-{ROLES[0] if outcome == '+' else ROLES[1]}", f"n-{plies}")
    winner = player if outcome == "+" else other(player)
    return (f"wins-{winner}", f"n-{plies}")


def final_clips(winner: str | None) -> tuple[str, ...]:
    """``Red wins`` / ``Yellow wins`` / ``It's a draw`` (winner ``None``)."""
    if winner is None:
        return ("final-draw",)
    _check_player(winner)
    return (f"final-{winner}",)


def other(player: str) -> str:
    """The opponent of ``player``."""
    _check_player(player)
    return "Y" if player == "R" else "R"


def spoken_text(names: tuple[str, ...]) -> str:
    """The words of a clip sequence, e.g. ``Red wins in 13`` (for logs and ``c4pi say``)."""
    texts = {phrase.name: phrase.text for phrase in catalogue()}
    return " ".join(texts[name] for name in names)
