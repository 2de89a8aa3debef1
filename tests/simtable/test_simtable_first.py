"""The simulated table starts its games as [game] first allows (SPEC §1)."""

from __future__ import annotations

import itertools
import random

import pytest

from firmware_py.config import CameraConfig
from firmware_py.simtable.script import Reset, endless_games
from firmware_py.sources.factory import sim_source


def starters(rule: str, games: int = 6) -> list[str]:
    """Who starts games 2, 3, ... (each game's Reset says who starts the next)."""
    resets = (action for action in endless_games(random.Random(1), rule=rule)
              if isinstance(action, Reset))
    return [reset.first for reset in itertools.islice(resets, games)]


@pytest.mark.parametrize(("rule", "wanted"), [
    ("red", ["R"] * 6), ("yellow", ["Y"] * 6), ("either", ["Y", "R", "R", "Y", "R", "R"])])
def test_who_starts_each_simulated_game(rule: str, wanted: list[str]) -> None:
    assert starters(rule) == wanted


@pytest.mark.parametrize(("rule", "first"), [("red", "R"), ("yellow", "Y"), ("either", "R")])
def test_the_first_simulated_game_starts_as_the_rule_says(rule: str, first: str) -> None:
    camera = sim_source(CameraConfig(), fast=True, seed=0, first=rule)
    assert camera.start.first == first
    scripted = sim_source(CameraConfig(), fast=True, moves="44", first=rule)
    assert scripted.start.first == first
