"""``python3 -m lab.match_arena A B``: duplicate matches to a target between two players.

Each match is a sequence of seeded deals, the first lead alternating, the totals kept by
:class:`tressette.match.Match`; every player's state carries the ``match`` field (the totals
before the deal).  Each sequence is played twice with the seats swapped (same deals, same first
leader), so the luck of the cards cancels out as in :mod:`lab.arena`; the two matches of a pair
may last a different number of deals, the deals they share are the same cards.

A side is any arena player (:func:`lab.arena.make_player`); ``mcts:...,nomatch`` plays each
deal for itself, ignoring the match (the bot before issue #32).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from lab.arena import make_player, series_deal_seed, warm_players, wilson
from lab.baselines import Policy
from tressette import Deal, MatchScore, Variant, state_from_view, view_of
from tressette.match import Match


@dataclass(frozen=True, slots=True)
class MatchGame:
    """One match's end: the winning side's name, the deals played and both sides' totals."""

    winner: str
    deals: int
    totals: dict[str, int]
    moves: dict[str, int]
    think_s: dict[str, float]


def play_match(players: dict[int, tuple[str, Policy]], variant: Variant, target: int, seed: int,
               first_leader: int, rng: random.Random) -> MatchGame:
    """Play a match to ``target``: deal ``i`` is deal ``i`` of ``seed``'s series; ``players`` maps seat to (name, policy)."""
    match = Match(variant, target)
    moves = {name: 0 for name, _ in players.values()}
    think = {name: 0.0 for name, _ in players.values()}
    while not match.is_over:
        leader = (first_leader + match.deals) % 2  # the first lead alternates between deals
        deal = Deal.new(variant, leader, random.Random(series_deal_seed(seed, match.deals)))
        while not deal.is_over:
            seat = deal.to_move
            name, policy = players[seat]
            score = MatchScore(target, match.scores[seat], match.scores[1 - seat])
            state = replace(state_from_view(view_of(deal, seat)), match=score)
            t0 = time.perf_counter()
            card = policy(state, rng)
            think[name] += time.perf_counter() - t0
            moves[name] += 1
            deal.play(card, seat=seat)
        match = match.after(deal.outcome().points)
    assert match.winner is not None
    totals = {players[seat][0]: match.scores[seat] for seat in (0, 1)}
    return MatchGame(players[match.winner][0], match.deals, totals, moves, think)


def play_pair(a: str, b: str, variant: Variant, target: int, seed: int) -> list[MatchGame]:
    """Play match ``seed`` twice, A in seat 0 then in seat 1 (same deals, same first leader)."""
    pa, pb = make_player(a), make_player(b)
    out = []
    for a_seat in (0, 1):
        players = {a_seat: ("A", pa), 1 - a_seat: ("B", pb)}
        out.append(play_match(players, variant, target, seed, seed % 2, random.Random(seed * 2 + a_seat)))
    return out


def _job(args: tuple[str, str, str, int, int]) -> list[MatchGame]:
    a, b, variant, target, seed = args
    return play_pair(a, b, Variant(variant), target, seed)


def run(a: str, b: str, variant: Variant, target: int, pairs: int, seed: int, jobs: int = 1,
        first: int = 0) -> dict[str, Any]:
    """Play ``pairs`` duplicate matches (2 each) from pair ``first`` of ``seed``; return the summary."""
    make_player(a), make_player(b)  # fail fast on a bad name
    tasks = [(a, b, variant.value, target, seed * 100_003 + i) for i in range(first, first + pairs)]
    per_pair: list[int] = []
    deals = 0
    moves = {"A": 0, "B": 0}
    think = {"A": 0.0, "B": 0.0}
    warm_players(a, b)
    if jobs <= 1:
        results: Any = map(_job, tasks)
    else:
        pool = ProcessPoolExecutor(max_workers=jobs, initializer=warm_players, initargs=(a, b))
        results = pool.map(_job, tasks, chunksize=1)
    for n, games in enumerate(results, 1):
        per_pair.append(sum(g.winner == "A" for g in games))
        for g in games:
            deals += g.deals
            for side in ("A", "B"):
                moves[side] += g.moves[side]
                think[side] += g.think_s[side]
        wins = sum(per_pair)
        print(f"{n}/{pairs} pairs: A {wins}/{2 * n} = {wins / (2 * n):.3f}", file=sys.stderr, flush=True)
    if jobs > 1:
        pool.shutdown()
    wins, games = sum(per_pair), 2 * len(per_pair)
    rate, lo, hi = wilson(wins, games)
    return {"a": a, "b": b, "variant": variant.value, "target": target, "seed": seed, "first": first,
            "pairs": len(per_pair), "matches": games, "a_wins": wins, "a_win_rate": rate, "a_ci95": [lo, hi],
            "a_ci95_pairs": list(pair_interval(per_pair)), "per_pair": per_pair,
            "mean_deals": deals / games if games else 0.0, "ms_per_move": {s: 1000 * think[s] / moves[s] if moves[s] else 0.0 for s in ("A", "B")}}


def pair_interval(per_pair: list[int], z: float = 1.96) -> tuple[float, float]:
    """Return a 95% interval of A's win rate from the pairs' scores (0, 1 or 2 wins each).

    The pairs are the independent units: a pair's two matches share their deals, which makes
    the per-match Wilson interval conservative; this one uses the pairs' own spread.
    """
    n = len(per_pair)
    if n < 2:
        return 0.0, 1.0
    xs = [w / 2 for w in per_pair]
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return max(0.0, mean - z * sd / math.sqrt(n)), min(1.0, mean + z * sd / math.sqrt(n))


def pooled(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Return chunks' summaries of one experiment (same sides, variant and target) added up."""
    keys = {(s["a"], s["b"], s["variant"], s["target"]) for s in summaries}
    if len(keys) != 1:
        raise ValueError(f"the results are of different experiments: {sorted(keys)}")
    per_pair = [x for s in summaries for x in s["per_pair"]]
    wins, games = sum(per_pair), 2 * len(per_pair)
    rate, lo, hi = wilson(wins, games)
    deals = sum(s["mean_deals"] * s["matches"] for s in summaries)
    return summaries[0] | {"seed": [s["seed"] for s in summaries], "pairs": len(per_pair), "matches": games,
                           "a_wins": wins, "a_win_rate": rate, "a_ci95": [lo, hi],
                           "a_ci95_pairs": list(pair_interval(per_pair)), "per_pair": per_pair,
                           "mean_deals": deals / games if games else 0.0}


def main(argv: list[str]) -> int:
    """Run ``python3 -m lab.match_arena A B --pairs N --target T --variant V --seed S [--jobs J] [--json FILE]``."""
    parser = argparse.ArgumentParser(prog="python3 -m lab.match_arena", description=__doc__.splitlines()[0])
    parser.add_argument("a", nargs="?", help="side A: any arena player, e.g. mcts:i5000")
    parser.add_argument("b", nargs="?", help="side B, e.g. mcts:i5000,nomatch")
    parser.add_argument("--pairs", type=int, default=50, help="duplicate matches (each played twice)")
    parser.add_argument("--target", type=int, default=21)
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="tressette")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="start at this pair of the seed's series")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="also write the summary as JSON")
    parser.add_argument("--pool", nargs="+", metavar="FILE",
                        help="add up summaries written with --json instead (no sides then)")
    args = parser.parse_args(argv)
    if args.pool:
        summaries = []
        for name in args.pool:
            with open(name) as f:
                summaries.append(json.load(f))
        s = pooled(summaries)
    elif args.a is None or args.b is None:
        parser.error("two sides are needed (or --pool FILES)")
    else:
        try:
            s = run(args.a, args.b, Variant(args.variant), args.target, args.pairs, args.seed, args.jobs, args.first)
        except (KeyError, ValueError) as exc:
            print(f"lab.match_arena: {exc}", file=sys.stderr)
            return 2
    lo, hi = s["a_ci95"]
    print(f"{s['a']} vs {s['b']} · {s['variant']} to {s['target']} · {s['matches']} matches "
          f"({s['pairs']} duplicate pairs, {s['mean_deals']:.2f} deals each)")
    plo, phi = s["a_ci95_pairs"]
    print(f"A match win rate {s['a_win_rate']:.3f}  (95% CI {lo:.3f}-{hi:.3f}; from the pairs {plo:.3f}-{phi:.3f})")
    if args.json:
        with open(args.json, "w") as f:
            f.write(json.dumps(s, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
