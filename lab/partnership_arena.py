"""Duplicate four-player arena: one partnership's players against another's, on the same cards twice.

Each seeded deal is played twice with the partnerships swapped (the same cards, the same
first lead): once with player A's pair in seats 0 and 2, once in seats 1 and 3, player B's
pair in the other two.  What a pair of games says is A's margin with the luck of the cards
cancelled out.  Declarations and signals are on (a match to 31's table).  By default A is
PIMC with rollouts over ``--worlds`` worlds and B the rule player (the first runs); ``--a``
and ``--b`` name other players (:mod:`lab.partnership_players`: ``rules``, ``random``,
``level:master,ms250``, ``naive,ms250``, a mixed pair ``rules+level:master`` ...; the
``pimc_side`` of a saved game is A's side).  The summary also chains each series of deals
into matches to 31 (:func:`matches`).

    python -m lab.partnership_arena --pairs 300 --worlds 32 --jobs 2 --json lab/results/partnership/pimc32.json
    python -m lab.partnership_arena --pairs 40 --a level:master,ms250 --b rules --json lab/results/partnership/m.json
    python -m lab.partnership_arena --summary lab/results/partnership/pimc32.json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lab.arena import wilson
from lab.partnership_players import Player, player
from tressette.deal import shuffled_deck
from tressette.partnership import N_SEATS, PartnershipDeal, PartnershipOptions, view_of_partnership
from tressette.partnership.match import partnership_match_winner

MATCH_TARGET = 31
"""The target of the matches chained from the deals (a match to 31)."""


@dataclass(frozen=True, slots=True)
class Game:
    """One game of a pair: the PIMC partnership, both deal scores and card thirds, PIMC's thinking."""

    pair: int
    pimc_side: int
    score: tuple[int, int]
    thirds: tuple[int, int]
    moves: int
    think_s: float
    max_move_s: float


def deck_of(seed: int, pair: int) -> list[int]:
    """Return pair ``pair``'s deck in the series ``seed``."""
    return shuffled_deck(random.Random(f"partnership-arena:{seed}:{pair}"))


def default_a(worlds: int, read: bool) -> str:
    """Return the first runs' player A: PIMC with rollouts over ``worlds`` worlds (``read=False``: blind)."""
    return f"pimc{worlds}" + ("" if read else ",blind")


def play_game(seed: int, pair: int, pimc_side: int, worlds: int, read: bool = True,
              a: str | None = None, b: str = "rules") -> Game:
    """Play pair ``pair``'s deal with player ``a`` (default: PIMC over ``worlds`` worlds) for ``pimc_side``.

    ``read=False``: the default PIMC samples without what signals and declarations say.
    """
    deal = PartnershipDeal.from_deck(deck_of(seed, pair), pair % N_SEATS, PartnershipOptions())
    rng = random.Random(f"pimc:{seed}:{pair}:{pimc_side}")
    seats: list[Player] = [player(a or default_a(worlds, read), i // 2) if i % 2 == pimc_side
                           else player(b, i // 2) for i in range(N_SEATS)]
    moves, think, longest = 0, 0.0, 0.0
    while not deal.is_over:
        view = view_of_partnership(deal, deal.to_move)
        start = time.perf_counter()
        move = seats[deal.to_move](view, rng)
        spent = time.perf_counter() - start
        if deal.to_move % 2 == pimc_side:
            moves, think, longest = moves + 1, think + spent, max(longest, spent)
        deal.play_move(move, deal.to_move)
    out = deal.outcome()
    return Game(pair, pimc_side, out.score, out.points, moves, think, longest)


def play_pair(args: tuple[Any, ...]) -> list[Game]:
    """Play both games of a pair (for the process pool): seed, pair, worlds, read[, a, b]."""
    seed, pair, worlds, read, *players = args
    return [play_game(seed, pair, side, worlds, read, *players) for side in (0, 1)]


def matches(games: list[dict[str, Any]], target: int = MATCH_TARGET) -> dict[str, Any]:
    """Chain the deals into matches to ``target``: A's matches won of those finished, and its Wilson 95% CI.

    Each side's series (A in seats 0 and 2 in pair order, then A in seats 1 and 3) is cut into
    matches as a table would play them: deal scores added until a partnership wins
    (:func:`~tressette.partnership.match.partnership_match_winner`); a match the series ends
    inside is not counted.  The two series are duplicates of each other, deal for deal.
    """
    won = lost = 0
    for side in (0, 1):
        totals = [0, 0]
        for g in sorted((g for g in games if g["pimc_side"] == side), key=lambda g: g["pair"]):
            totals = [totals[0] + g["score"][side], totals[1] + g["score"][1 - side]]
            winner = partnership_match_winner(target, (totals[0], totals[1]))
            if winner is not None:
                won, lost = won + (winner == 0), lost + (winner == 1)
                totals = [0, 0]
    share, lo, hi = wilson(won, won + lost)
    return {"matches_won": won, "matches_lost": lost, "matches_won_share": share, "matches_won_ci95": [lo, hi]}


def summary(games: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the match's figures: PIMC's mean deal score and margin (95% CI over pairs), deals won."""
    by_pair: dict[int, list[dict[str, Any]]] = {}
    for g in games:
        by_pair.setdefault(g["pair"], []).append(g)
    pairs = [p for p in by_pair.values() if len(p) == 2]
    margins, mine, theirs, thirds = [], [], [], []
    won = drawn = lost = 0
    both = split = neither = 0
    for p in pairs:
        pair_margin = 0.0
        wins = 0
        for g in p:
            s, o = g["pimc_side"], 1 - g["pimc_side"]
            mine.append(g["score"][s])
            theirs.append(g["score"][o])
            thirds.append(g["thirds"][s])
            pair_margin += (g["score"][s] - g["score"][o]) / 2
            won += g["score"][s] > g["score"][o]
            drawn += g["score"][s] == g["score"][o]
            lost += g["score"][s] < g["score"][o]
            wins += g["score"][s] > g["score"][o]
        margins.append(pair_margin)
        both, split, neither = both + (wins == 2), split + (wins == 1), neither + (wins == 0)
    n = len(margins)
    mean = statistics.fmean(margins)
    half = 1.96 * statistics.stdev(margins) / math.sqrt(n) if n > 1 else math.inf
    share, lo, hi = wilson(won, won + lost)  # of the deals decided (draws need declarations on both sides)
    moves = sum(g["moves"] for g in games)
    return {
        "pairs": n, "deals": 2 * n,
        "pimc_score": statistics.fmean(mine), "rule_score": statistics.fmean(theirs),
        "margin": mean, "margin_ci95": [mean - half, mean + half],
        "pimc_thirds": statistics.fmean(thirds),
        "won": won, "drawn": drawn, "lost": lost, "won_of_decided": share, "won_of_decided_ci95": [lo, hi],
        "pairs_won_both": both, "pairs_split": split, "pairs_lost_both": neither,
        "pimc_move_ms_mean": 1000 * sum(g["think_s"] for g in games) / max(1, moves),
        "pimc_move_ms_max": 1000 * max(g["max_move_s"] for g in games),
        **matches(games),
    }


def main(argv: list[str] | None = None) -> None:
    """Run the duplicate arena (or summarise saved results) and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--first", type=int, default=0, help="the first pair's index in the series")
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--worlds", type=int, default=32)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--blind", action="store_true",
                    help="PIMC samples without what signals and declarations say (voids still count)")
    ap.add_argument("--a", help="player A's pair (default: PIMC over --worlds worlds; see lab.partnership_players)")
    ap.add_argument("--b", default="rules", help="player B's pair (default: the rule player)")
    ap.add_argument("--json", help="write every game and the summary here")
    ap.add_argument("--summary", nargs="*", help="summarise these saved runs instead of playing")
    args = ap.parse_args(argv)
    if args.summary:
        games = [g for path in args.summary for g in json.loads(Path(path).read_text())["games"]]
        print(json.dumps(summary(games), indent=2))
        return
    tasks = [(args.seed, i, args.worlds, not args.blind, args.a, args.b)
             for i in range(args.first, args.first + args.pairs)]
    for spec in (args.a, args.b):
        if spec is not None:
            player(spec, 0)  # a bad spec fails here, before any game
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        games = [asdict(g) for pair in pool.map(play_pair, tasks) for g in pair]
    figures = summary(games)
    figures["wall_s"] = time.perf_counter() - start
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "summary": figures, "games": games}, indent=1))


if __name__ == "__main__":
    main()
