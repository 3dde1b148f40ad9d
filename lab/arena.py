"""``treset-agent arena A B``: duplicate matches between two players.

Each deal is played twice with the seats swapped, so the luck of the cards
cancels out.  A side is a baseline name (:func:`lab.baselines.get_policy`)
or ``cmd:COMMAND``, any program that reads a JSON state on stdin and prints
a card (``treset-agent decide`` speaks exactly that).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shlex
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from tqdm import tqdm

from agent.decide import warmup
from lab.baselines import Policy, get_policy
from tressette import Deal, Variant, parse_card, state_from_view, view_of


def command_policy(command: str) -> Policy:
    """Return a policy that asks an external command for each card."""
    argv = shlex.split(command)

    def ask(state: Any, rng: random.Random) -> int:
        out = subprocess.run(argv, input=state.to_json(), capture_output=True, text=True, timeout=60, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"{command!r} failed ({out.returncode}): {out.stderr.strip()[:200]}")
        return parse_card(out.stdout.strip().splitlines()[-1])

    return ask


def make_player(spec: str) -> Policy:
    """Return the policy for a side: a baseline name or ``cmd:COMMAND``."""
    if spec.startswith("cmd:"):
        return command_policy(spec[4:])
    return get_policy(spec)


@dataclass(slots=True)
class SideStats:
    """What one side did over a match."""

    wins: int = 0
    games: int = 0
    points: int = 0
    moves: int = 0
    think_s: float = 0.0
    max_move_ms: float = 0.0

    def add(self, other: SideStats) -> None:
        """Accumulate ``other`` into this one."""
        self.wins += other.wins
        self.games += other.games
        self.points += other.points
        self.moves += other.moves
        self.think_s += other.think_s
        self.max_move_ms = max(self.max_move_ms, other.max_move_ms)


@dataclass(slots=True)
class MatchResult:
    """A match summary: per side stats and the A-side win rate with its 95% interval."""

    a: str
    b: str
    variant: str
    deals: int
    seed: int = 0
    first: int = 0
    """The index of the match's first deal: chunks of one long match share a seed."""
    stats: dict[str, SideStats] = field(default_factory=dict)
    per_deal: list[int] = field(default_factory=list)
    """A's wins (0, 1 or 2) in each duplicate deal, in deal order: for paired comparisons."""
    per_deal_points: list[int] = field(default_factory=list)
    """A's points (thirds) over each duplicate deal's two games, in deal order: a paired measure with
    resolution where the win rate has none (a side that wins 95% of the games)."""

    def summary(self) -> dict[str, Any]:
        """Return the figures as JSON-ready data."""
        a = self.stats["A"]
        rate, lo, hi = wilson(a.wins, a.games)
        out: dict[str, Any] = {"a": self.a, "b": self.b, "variant": self.variant, "deals": self.deals,
                               "games": a.games, "a_win_rate": rate, "a_ci95": [lo, hi],
                               "seed": self.seed, "first": self.first, "per_deal": self.per_deal,
                               "per_deal_points": self.per_deal_points}
        for side in ("A", "B"):
            s = self.stats[side]
            out[side] = asdict(s) | {
                "mean_points": s.points / s.games if s.games else 0.0,
                "ms_per_move": 1000 * s.think_s / s.moves if s.moves else 0.0,
            }
        return out


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float, float]:
    """Return the win rate and its Wilson 95% confidence interval."""
    if n == 0:
        return 0.0, 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, max(0.0, centre - half), min(1.0, centre + half)


def play_game(players: dict[int, tuple[str, Policy]], variant: Variant, deal_seed: int,
              first_leader: int, rng: random.Random, told: frozenset[int] = frozenset()) -> dict[str, SideStats]:
    """Play one deal; ``players`` maps seat to (side name, policy).

    The seats in ``told`` are shown the opponent's whole hand as ``hiscards`` (the stock stays
    hidden): an oracle, to measure what knowing it is worth.
    """
    deal = Deal.new(variant, first_leader, random.Random(deal_seed))
    stats = {name: SideStats() for name, _ in players.values()}
    while not deal.is_over:
        seat = deal.to_move
        name, policy = players[seat]
        state = state_from_view(view_of(deal, seat))
        if seat in told:
            state = replace(state, hiscards=tuple(deal.hands[1 - seat]))
        t0 = time.perf_counter()
        card = policy(state, rng)
        dt = time.perf_counter() - t0
        deal.play(card, seat=seat)
        s = stats[name]
        s.moves += 1
        s.think_s += dt
        s.max_move_ms = max(s.max_move_ms, dt * 1000)
    outcome = deal.outcome()
    for seat, (name, _) in players.items():
        s = stats[name]
        s.games += 1
        s.points += outcome.points[seat]
        s.wins += int(outcome.winner == seat)
    return stats


def series_deal_seed(seed: int, index: int) -> int:
    """Return the random seed of deal ``index`` of match seed ``seed``'s series (chunks share the numbering)."""
    return seed * 1_000_003 + index


def play_duplicate(a: str, b: str, variant: Variant, deal_seed: int, *, a_told: bool = False
                   ) -> dict[str, SideStats]:
    """Play deal ``deal_seed`` twice, A in seat 0 then in seat 1 (same first leader).

    With ``a_told`` A is shown B's hand (see :func:`play_game`).
    """
    pa, pb = make_player(a), make_player(b)
    total = {"A": SideStats(), "B": SideStats()}
    first_leader = deal_seed % 2
    for a_seat in (0, 1):
        players = {a_seat: ("A", pa), 1 - a_seat: ("B", pb)}
        rng = random.Random(deal_seed * 2 + a_seat)
        told = frozenset({a_seat}) if a_told else frozenset()
        for side, s in play_game(players, variant, deal_seed, first_leader, rng, told).items():
            total[side].add(s)
    return total


def warm_players(*specs: str) -> None:
    """Compile every kernel the players use before any move is timed."""
    warmup()
    deal = Deal.new(Variant.TRESSETTE, 0, random.Random(0))
    state = state_from_view(view_of(deal, 0))
    for spec in specs:
        if not spec.startswith("cmd:"):
            get_policy(spec)(state, random.Random(0))


def _job(args: tuple[str, str, str, int]) -> dict[str, SideStats]:
    a, b, variant, seed = args
    return play_duplicate(a, b, Variant(variant), seed)


def run_match(a: str, b: str, variant: Variant, deals: int, seed: int, jobs: int = 1,
              progress: bool = True, first: int = 0) -> MatchResult:
    """Play ``deals`` duplicate deals (2 games each) between A and B, from deal ``first`` of ``seed``'s series."""
    make_player(a), make_player(b)  # fail fast on a bad name
    result = MatchResult(a, b, variant.value, deals, seed, first, {"A": SideStats(), "B": SideStats()})
    tasks = [(a, b, variant.value, series_deal_seed(seed, i)) for i in range(first, first + deals)]
    bar = tqdm(total=deals, disable=not progress, desc=f"{a} vs {b}", unit="deal", file=sys.stderr)
    warm_players(a, b)  # compile outside the timed moves
    if jobs <= 1:
        results = map(_job, tasks)
        for r in results:
            _accumulate(result, r, bar)
    else:
        with ProcessPoolExecutor(max_workers=jobs, initializer=warm_players, initargs=(a, b)) as pool:
            for r in pool.map(_job, tasks, chunksize=1):
                _accumulate(result, r, bar)
    bar.close()
    return result


def _accumulate(result: MatchResult, r: dict[str, SideStats], bar: Any) -> None:
    for side in ("A", "B"):
        result.stats[side].add(r[side])
    result.per_deal.append(r["A"].wins)
    result.per_deal_points.append(r["A"].points)
    a = result.stats["A"]
    bar.set_postfix(A=f"{a.wins / max(1, a.games):.3f}")
    bar.update(1)


def main(argv: list[str]) -> int:
    """Run ``treset-agent arena A B --deals N --variant V --seed S [--jobs J] [--json FILE]``."""
    parser = argparse.ArgumentParser(prog="treset-agent arena", description=__doc__.splitlines()[0])
    parser.add_argument("a", help="side A: random, greedy, flat[:N], mcts[:MS|:iN] or cmd:COMMAND")
    parser.add_argument("b", help="side B, as side A")
    parser.add_argument("--deals", type=int, default=100, help="duplicate deals (each played twice)")
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="tressette")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0,
                        help="start at this deal of the seed's series (chunks of one long match)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (use the number of cores)")
    parser.add_argument("--json", metavar="FILE", help="also write the summary as JSON ('-' for stdout)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    try:
        result = run_match(args.a, args.b, Variant(args.variant), args.deals, args.seed, args.jobs,
                           progress=not args.no_progress, first=args.first)
    except KeyError as exc:
        print(f"treset-agent arena: {exc.args[0]}", file=sys.stderr)
        return 2
    s = result.summary()
    lo, hi = s["a_ci95"]
    print(f"{args.a} vs {args.b} · {args.variant} · {s['games']} games ({args.deals} duplicate deals)")
    print(f"A win rate {s['a_win_rate']:.3f}  (95% CI {lo:.3f}-{hi:.3f})")
    for side, name in (("A", args.a), ("B", args.b)):
        t = s[side]
        print(f"  {side} {name}: wins {t['wins']}, mean points {t['mean_points']:.2f}, "
              f"{t['ms_per_move']:.1f} ms/move (max {t['max_move_ms']:.0f})")
    if args.json:
        text = json.dumps(s, indent=2)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")
    return 0
