"""Measure the strength levels: a round robin of levels 1-6 and a random player.

    .venv/bin/python -m tools.bench.levels                  # 200 games a pair
    .venv/bin/python -m tools.bench.levels --games 400 --json

Every pair plays ``--games`` games, colours alternating. Each level moves
by :func:`firmware_py.play.levels.choose` on the solver's exact column scores
(with the opening book; scores of a position are computed once per run).
Prints, per pair, wins / draws / losses of the first player, and an Elo
estimate per player (Bradley-Terry maximum likelihood, a draw half a win,
the random player at 0), and for each level how many score points it gave
away per move on average against the others. Exit status 1 when the levels
are not strictly ordered (each beats the one below it more often than it
loses to it, level 1 the random player) or when level 6 lost a game it could
have drawn or won (as Yellow against near-perfect play it may lose: Red wins
Connect Four with perfect play).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
import time

from c4game.board import Board
from cython_solver import Solver
from firmware_py.config import load_config
from firmware_py.play.levels import LEVELS, PERFECT, choose, level

RANDOM = "random"


class Scorer:
    """Exact column scores of positions, each searched once."""

    def __init__(self, solver: Solver) -> None:
        self.solver = solver
        self.cache: dict[tuple[int, int], list[int | None]] = {}

    def scores(self, board: Board) -> list[int | None]:
        key = board.bitboards()
        if key not in self.cache:
            self.cache[key] = self.solver.analyze(board)
        return self.cache[key]


def play_game(red: str, yellow: str, scorer: Scorer, rng: random.Random,
              given_away: dict[str, list[float]]) -> tuple[str, set[str]]:
    """One game: "R", "Y" or "draw", and the colours that stood at a draw or better
    (exact score >= 0) on some move of theirs."""
    board = Board.empty()
    held: set[str] = set()
    while not board.is_finished:
        player = red if board.to_move == "R" else yellow
        if player == RANDOM:
            column = rng.choice(board.legal_columns())
        else:
            scores = scorer.scores(board)
            column = choose(scores, board.n_discs, level(int(player)), rng)
            best = max(s for s in scores if s is not None)
            given_away[player].append(best - scores[column - 1])
            if best >= 0:
                held.add(board.to_move)
        board = board.play(column)
    return board.winner or "draw", held


def elo(players: list[str], results: dict[tuple[str, str], list[int]]) -> dict[str, float]:
    """Bradley-Terry ratings on the Elo scale (random = 0), by fixed-point iteration."""
    strength = {p: 1.0 for p in players}
    for _ in range(2000):
        new = {}
        for p in players:
            won = games = 0.0
            denominator = 0.0
            for (a, b), (w, d, lost) in results.items():
                if p not in (a, b):
                    continue
                other = b if p == a else a
                mine = w + d / 2 if p == a else lost + d / 2
                n = w + d + lost
                won += mine
                games += n
                denominator += n / (strength[p] + strength[other])
            new[p] = max(won, 0.5) / denominator if denominator else strength[p]
        scale = new[RANDOM]
        strength = {p: v / scale for p, v in new.items()}
    return {p: 400 * math.log10(v) for p, v in strength.items()}


def progress(done: int, total: int, started: float) -> None:
    width = 30
    filled = width * done // total
    rate = done / max(time.monotonic() - started, 1e-9)
    left = (total - done) / rate if rate else 0
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games, "
          f"{left:.0f} s left ", end="", file=sys.stderr, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per pair (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    solver = Solver.from_config(load_config(None).solver)
    scorer = Scorer(solver)
    players = [RANDOM] + [str(n) for n in sorted(LEVELS)]
    rng = random.Random(args.seed)
    results: dict[tuple[str, str], list[int]] = {}
    given_away: dict[str, list[float]] = {p: [] for p in players if p != RANDOM}
    pairs = list(itertools.combinations(players, 2))
    total, done, started = len(pairs) * args.games, 0, time.monotonic()
    perfect_lost = 0  # games level 6 lost from a position it could draw or win
    for a, b in pairs:
        tally = [0, 0, 0]  # a wins, draws, b wins
        for game in range(args.games):
            red, yellow = (a, b) if game % 2 == 0 else (b, a)
            outcome, held = play_game(red, yellow, scorer, rng, given_away)
            winner = red if outcome == "R" else yellow if outcome == "Y" else None
            loser_colour = {"R": "Y", "Y": "R"}.get(outcome)
            loser = {"R": red, "Y": yellow}.get(loser_colour or "")
            perfect_lost += loser == str(PERFECT) and loser_colour in held
            tally[0 if winner == a else 2 if winner == b else 1] += 1
            done += 1
            progress(done, total, started)
        results[(a, b)] = tally
    print(file=sys.stderr)
    ratings = elo(players, results)
    mean_given = {p: sum(v) / max(len(v), 1) for p, v in given_away.items()}
    ordered = all(results[(low, high)][2] > results[(low, high)][0]
                  for low, high in zip(players, players[1:], strict=False))
    if args.json:
        print(json.dumps({"games_per_pair": args.games,
                          "results": {f"{a}-{b}": t for (a, b), t in results.items()},
                          "elo": ratings, "given_away_per_move": mean_given,
                          "ordered": ordered, "perfect_lost": perfect_lost}, indent=2))
    else:
        print_table(players, results, ratings, mean_given, args.games)
        print(f"strictly ordered: {ordered}; games level 6 lost that it could have held: "
              f"{perfect_lost}; "
              f"{time.monotonic() - started:.0f} s")
    return 0 if ordered and perfect_lost == 0 else 1


def print_table(players: list[str], results: dict, ratings: dict, given: dict,
                games: int) -> None:
    print(f"{games} games per pair, colours alternating; row player's wins/draws/losses")
    print(f"{'':>8}" + "".join(f"{p:>12}" for p in players) + f"{'Elo':>8}{'given':>8}")
    for row in players:
        cells = []
        for col in players:
            if row == col:
                cells.append(f"{'-':>12}")
            elif (row, col) in results:
                w, d, lost = results[(row, col)]
                cells.append(f"{f'{w}/{d}/{lost}':>12}")
            else:
                w, d, lost = results[(col, row)]
                cells.append(f"{f'{lost}/{d}/{w}':>12}")
        extra = f"{given[row]:>8.2f}" if row in given else f"{'':>8}"
        print(f"{row:>8}" + "".join(cells) + f"{ratings[row]:>8.0f}" + extra)


if __name__ == "__main__":
    sys.exit(main())
