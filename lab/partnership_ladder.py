"""The four-player levels' ratings: duplicate arena runs fitted to the portal's rating scale.

    python -m lab.partnership_ladder lab/results/partnership/s24-*.json

Each file is a :mod:`lab.partnership_arena` run (player A's pair against player B's on the
same deals twice).  Every deal is a game between the two partnerships' players: a win, a
loss, or a draw (equal deal scores, possible with declarations) counted as half a win.  The
games are fitted with :func:`lab.ladder.fit` (Bradley-Terry, P(i beats j) = 1 / (1 +
10^((r_j - r_i) / 400)): the logistic scale Glicko-2 shows its ratings on, as the two-player
ladder) with the rule player anchored at :data:`ANCHOR`, and each player's rating printed with
its 95% interval.  A player is named by its arena spec without ``level:`` (``master/ms250``:
the master level at a 250 ms budget), so a rating says at which budget it was measured.  Mixed
pairs (``rules+level:master``) and the search's variants are fitted too, as players of their own.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lab.arena import wilson
from lab.ladder import fit

__all__ = ["ANCHOR", "fit", "match_of", "name_of", "report"]

ANCHOR = ("rules", 1500.0)
"""The rule player (one-ply common sense, the four-player greedy player) is where a new account starts."""


def name_of(spec: str) -> str:
    """Return a player's ladder name: its arena spec without ``level:``, options after ``/`` (``level:master,ms250``
    is ``master/ms250``: :func:`lab.ladder.fit` would cut a name at its first comma)."""
    return "+".join(part.removeprefix("level:") for part in spec.split("+")).replace(",", "/")


def match_of(run: dict[str, Any]) -> dict[str, Any]:
    """Return a saved arena run as :func:`lab.ladder.fit`'s match: A's wins (draws half) out of its deals."""
    args = run["args"]
    a = name_of(args.get("a") or ("pimc" + str(args["worlds"]) + (",blind" if args.get("blind") else "")))
    b = name_of(args.get("b") or "rules")
    wins = 0.0
    for g in run["games"]:
        s = g["pimc_side"]
        mine, theirs = g["score"][s], g["score"][1 - s]
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return {"a": a, "b": b, "A": {"wins": wins, "games": len(run["games"])}, "variant": "partnership"}


def report(runs: list[dict[str, Any]]) -> str:
    """Return each run's deal win rate (Wilson 95%) and the fitted ratings as text."""
    matches = [match_of(r) for r in runs]
    lines = ["match                                              A's deals (draws half)  95% CI         deals"]
    for m in matches:
        rate, lo, hi = wilson(round(m["A"]["wins"]), m["A"]["games"])
        lines.append(f"{m['a']:>24} vs {m['b']:<24} {m['A']['wins'] / m['A']['games']:6.3f}   "
                     f"{lo:.3f}-{hi:.3f}    {m['A']['games']}")
    ratings = fit(matches, ANCHOR)
    if ANCHOR[0] not in ratings:
        return "\n".join([*lines, f"\nno ratings: no match of {ANCHOR[0]}'s to anchor the scale"])
    lines.append(f"\nratings (Bradley-Terry on deals, {ANCHOR[0]} = {ANCHOR[1]:.0f}; 95% interval):")
    for n in sorted(ratings, key=lambda n: ratings[n][0]):
        r, se = ratings[n]
        lines.append(f"  {n:24s} {r:6.0f}  ({r - 1.96 * se:.0f}-{r + 1.96 * se:.0f})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Fit the saved arena runs and print the ratings."""
    parser = argparse.ArgumentParser(prog="python -m lab.partnership_ladder", description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="lab.partnership_arena runs (--json files)")
    args = parser.parse_args(argv)
    print(report([json.loads(f.read_text()) for f in args.files]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
