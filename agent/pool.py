"""``treset-agent pool FILE...``: one result from several arena runs of the same match.

Long matches are run in chunks (``arena ... --seed S --json FILE`` with a new
seed per chunk, so no deal repeats) that survive an interrupted session; this
adds the chunks up and prints the pooled win rate with its 95% interval.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from agent.arena import SideStats, wilson

_SUMMED = ("wins", "games", "points", "moves", "think_s")


def pool(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the pooled summary of arena summaries of one match (same sides and variant).

    Raises ValueError when the list is empty or mixes matches.
    """
    if not summaries:
        raise ValueError("no arena results to pool")
    matches = {(s["a"], s["b"], s["variant"]) for s in summaries}
    if len(matches) != 1:
        raise ValueError(f"the results are of different matches: {sorted(matches)}")
    a, b, variant = matches.pop()
    out: dict[str, Any] = {"a": a, "b": b, "variant": variant, "runs": len(summaries),
                           "deals": sum(s["deals"] for s in summaries)}
    for side in ("A", "B"):
        total = SideStats()
        for s in summaries:
            total.add(SideStats(**{k: s[side][k] for k in (*_SUMMED, "max_move_ms")}))
        out[side] = {k: getattr(total, k) for k in (*_SUMMED, "max_move_ms")} | {
            "mean_points": total.points / total.games if total.games else 0.0,
            "ms_per_move": 1000 * total.think_s / total.moves if total.moves else 0.0,
        }
    rate, lo, hi = wilson(out["A"]["wins"], out["A"]["games"])
    out |= {"games": out["A"]["games"], "a_win_rate": rate, "a_ci95": [lo, hi]}
    return out


def main(argv: list[str]) -> int:
    """Run ``treset-agent pool FILE... [--json]``."""
    parser = argparse.ArgumentParser(prog="treset-agent pool", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="arena results written with --json")
    parser.add_argument("--json", action="store_true", help="print the pooled summary as JSON")
    args = parser.parse_args(argv)
    try:
        summaries = []
        for name in args.files:
            with open(name) as f:
                summaries.append(json.load(f))
        pooled = pool(summaries)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"treset-agent pool: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(pooled, indent=2))
        return 0
    lo, hi = pooled["a_ci95"]
    print(f"{pooled['a']} vs {pooled['b']} · {pooled['variant']} · {pooled['games']} games "
          f"({pooled['deals']} duplicate deals in {pooled['runs']} runs)")
    print(f"A win rate {pooled['a_win_rate']:.3f}  (95% CI {lo:.3f}-{hi:.3f})")
    for side, name in (("A", pooled["a"]), ("B", pooled["b"])):
        t = pooled[side]
        print(f"  {side} {name}: wins {t['wins']}, mean points {t['mean_points']:.2f}, "
              f"{t['ms_per_move']:.1f} ms/move (max {t['max_move_ms']:.0f})")
    return 0

