"""What the owner can do about a frame the reader did not accept.

A reading's ``reason`` says what the reader saw (:class:`~.reading.Reading`);
:func:`remedy` turns it into one line of advice, the same as the README's
"When it does not work", for the screen and ``c4pi snapshot``. The first
rule whose words the reason holds decides; a reason no rule knows gets no
advice ("").
"""

from __future__ import annotations

import re

from firmware_py.vision.reading import FINISHED, OK

ACCEPTED = (OK, FINISHED)
RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"marker\(s\) visible|locate the grid too loosely|admit no plane fit"),
     "Show all four markers to the camera, flat and uncovered (c4pi snapshot --annotate "
     "shows which it finds)."),
    (re.compile(r"two lattices of holes"),
     "Only one board in view: move the second board, or a screen showing one, out of "
     "the picture."),
    (re.compile(r"lattice of holes|since the holes were found"),
     "Show the whole board to the camera, upright and uncovered; on a steep or cluttered "
     "view, stick on the four markers (c4pi markers)."),
    (re.compile(r"reprojection error"),
     "The markers are not where the sheet puts them: check each is flat, on its own "
     "corner, and the [vision] marker_size_pitch."),
    (re.compile(r"too small in the frame"), "Move the camera closer to the board."),
    (re.compile(r"picture has no colour"),
     "Use a colour camera ([camera] source), in daylight or white light; a NoIR camera "
     "needs an infrared-cut filter or good light."),
    (re.compile(r"partly outside the frame"),
     "Move the camera back or aim it so that the whole board, with a margin around it, "
     "is in the picture."),
    (re.compile(r"too dark, or washed out"),
     "Light the board evenly from the front; no lamp or window behind it or in view."),
    # frame_doubt.py: a disc read in one colour that looks like the discs read the other
    (re.compile(r"looks like this frame's discs read (red|yellow)"),
     "Discs that look alike were read as two colours (discs of an unusual colour: orange, "
     "pink, pale): run c4pi calibrate --discs, which learns your two colours."),
    # frame_doubt.py: a hole read empty that looks like the frame's sure discs
    (re.compile(r"looks like this frame's (red|yellow) discs"),
     "A hole read empty looks just like your discs (an unusual colour: pink, pale): run "
     "c4pi calibrate --discs; if that hole is empty, keep anything of a disc colour out of "
     "sight behind it."),
    # hidden.py: something lies over the hole itself
    (re.compile(r"something lies over it"),
     "A hand, a sleeve or a bright reflection is over those holes: take the hand away, or "
     "move a light that reflects on the board; nothing under it is read until they show."),
    (re.compile(r"CNN empty, colour (red|yellow)\)"),
     "Something behind the board shows a disc colour through a hole: take the discs out "
     "and run c4pi calibrate, or hang a plain cloth behind the board."),
    (re.compile(r"CNN (red|yellow), colour empty\)"),
     "If it names your discs of one colour, run c4pi calibrate --discs; if empty holes "
     "(a spare disc lying behind the board shows through one), keep spare discs out of "
     "sight behind the board, or take the discs out and run c4pi calibrate."),
    (re.compile(r"CNN (red|yellow), colour (red|yellow)\)"),
     "Light the board with white light; c4pi calibrate --discs learns your discs' colours."),
    # a hole the combined readers favour empty, a disc colour its rival, no reader named
    # (the ")" right after the colour: both readers lean empty): what the real photos of a
    # spare disc lying behind the board give (res_IMG_3988, res_IMG_3990)
    (re.compile(r"uncertain cells: .*\(empty [0-9.]+ or (red|yellow)\)"),
     "Keep spare discs (anything red or yellow) out of sight behind the board; if a disc "
     "is in that hole, light the board from the front."),
    (re.compile(r"uncertain cells"),
     "A hand, glare or a shadow is over those holes: light the board from the front."),
    (re.compile(r"parity|floating disc|both Red and Yellow|moved last|fours cannot|"
                r"no legal board is close"),
     "The board does not show a legal position: check the discs (one of the wrong colour, "
     "a player who moved twice) or what shows through the holes (c4pi calibrate)."),
)


def remedy(status: str, reason: str) -> str:
    """One line of advice for a reading's ``status`` and ``reason`` ("" for an
    accepted reading, or when no rule applies)."""
    if status in ACCEPTED:
        return ""
    for pattern, advice in RULES:
        if pattern.search(reason or ""):
            return advice
    return ""
