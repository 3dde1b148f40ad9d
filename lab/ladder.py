"""The bot levels' ratings: a round-robin of duplicate-deal matches fitted to one rating scale.

    python -m lab.ladder run --deals 200 --out lab/results/ladder      # plays the matches (resumable)
    python -m lab.ladder fit lab/results/ladder/*.json                 # ratings and neighbour win rates
    python -m lab.ladder run --variant kifameno --only strong/normal normal/easy --out lab/results/ladder-kifameno

``run`` plays :data:`MATCHES` (neighbouring levels, the weakest against ``random`` and
``greedy``, ``flat`` against its two neighbours; ``--only A/B ...`` picks some), each as an
arena match written to its own JSON file; a file already there is kept, so an interrupted run
resumes.  The time-limited levels play at fixed iteration
counts so runs are comparable on a busy machine.  ``fit`` fits a
Bradley-Terry model to every match's games (P(i beats j) = 1 / (1 + 10^((r_j - r_i) / 400)),
the logistic scale Glicko-2 shows its ratings on) with ``greedy`` anchored at :data:`ANCHOR`,
and prints each player's rating with a 95% interval (from the fit's information matrix) and
each match's win rate with its Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from lab.arena import run_match, wilson
from lab.pool import pool
from tressette import Variant

ANCHOR = ("greedy", 1500.0)
"""The fixed point of the scale: one-ply common sense (random leads) is where a new account starts."""


LADDER = ["beginner", "novice", "easy", "normal", "strong", "master"]

MATCHES: list[tuple[str, str, float]] = [
    ("level:beginner", "random", 1.0),
    ("level:beginner", "greedy", 1.0),
    ("level:novice", "greedy", 1.0),
    ("level:novice", "level:beginner", 1.0),
    ("level:easy", "level:novice", 1.0),
    ("level:normal", "level:easy", 1.0),
    ("level:strong", "level:normal", 1.0),
    ("level:master,i20000", "level:strong", 0.5),
    ("flat", "level:strong", 1.0),
    ("flat", "level:normal", 1.0),
]
"""(A, B, share of ``--deals`` played): the costly match gets fewer deals.  ``master`` (1 s, about
150,000 iterations on this machine) plays at a fixed 20,000 iterations, so its rating is a lower
bound; ``level:master,i20000`` against ``i40000`` measured 49.3% (41.4-57.3, 75 deals).  ``flat``
(the thesis's agent, :mod:`lab.baselines`, at its fixed 10,000 iterations) plays the two levels a
pilot placed it between (40 deals, seed 26: 46.3% against ``strong``, 60.0% against ``normal``)."""


def file_name(a: str, b: str, variant: str) -> str:
    """Return the JSON file name of a match."""
    return f"{a}--{b}--{variant}.json".replace(":", "_").replace(",", "_")


def run(deals: int, out: Path, variant: Variant, seed: int, only: list[str] | None = None) -> None:
    """Play every match of :data:`MATCHES` not yet in ``out`` (with ``only``, those named ``A/B`` there)."""
    out.mkdir(parents=True, exist_ok=True)
    for a, b, share in MATCHES:
        if only is not None and f"{short(a)}/{short(b)}" not in only:
            continue
        path = out / file_name(a, b, variant.value)
        if path.exists():
            continue
        result = run_match(a, b, variant, max(10, int(deals * share)), seed)
        path.write_text(json.dumps(result.summary(), indent=1) + "\n")
        s = result.summary()
        print(f"{a} vs {b}: {s['a_win_rate']:.3f} ({s['a_ci95'][0]:.3f}-{s['a_ci95'][1]:.3f})", flush=True)


def short(name: str) -> str:
    """Return a player's ladder name (``level:strong,i20000`` -> ``strong``)."""
    return name.removeprefix("level:").split(",")[0]


def fit(summaries: list[dict[str, Any]], anchor: tuple[str, float] = ANCHOR) -> dict[str, tuple[float, float]]:
    """Return each player's Bradley-Terry rating and its standard error, ``anchor`` fixed.

    Every match counts its games (wins of A out of games); players are named by :func:`short`.
    The matches must be of one variant: a level's strength in one game says nothing of the other's.
    """
    variants = {s.get("variant", "tressette") for s in summaries}
    if len(variants) > 1:
        raise ValueError(f"one variant per fit, got {', '.join(sorted(variants))}")
    names = sorted({short(s[k]) for s in summaries for k in ("a", "b")})
    idx = {n: i for i, n in enumerate(names)}
    games = [(idx[short(s["a"])], idx[short(s["b"])], s["A"]["wins"], s["A"]["games"]) for s in summaries]
    k = 400 / math.log(10)
    r = np.zeros(len(names))
    free = [i for n, i in idx.items() if n != anchor[0]]
    info = np.eye(len(free))
    for _ in range(100):  # Newton's method on the log-likelihood (a tiny ridge keeps it defined)
        grad = np.zeros(len(names))
        hess = np.zeros((len(names), len(names)))
        for i, j, w, n in games:
            p = 1 / (1 + math.exp(-(r[i] - r[j]) / k))
            g = (w - n * p) / k
            h = n * p * (1 - p) / k**2
            grad[i] += g
            grad[j] -= g
            for x, y, sign in ((i, i, 1), (j, j, 1), (i, j, -1), (j, i, -1)):
                hess[x, y] += sign * h
        info = hess[np.ix_(free, free)] + 1e-9 * np.eye(len(free))
        step = np.linalg.solve(info, grad[free] - 1e-9 * r[free])
        r[free] += step
        if np.abs(step).max() < 1e-6:
            break
    se = np.zeros(len(names))
    se[free] = np.sqrt(np.diag(np.linalg.inv(info)))
    base = r[idx[anchor[0]]] if anchor[0] in idx else 0.0
    return {n: (float(r[i] - base + anchor[1]), float(se[i])) for n, i in idx.items()}


def report(summaries: list[dict[str, Any]]) -> str:
    """Return the matches' win rates (chunks of one match pooled) and the ratings as text.

    Without a match of the anchor's there is no scale: only the win rates are shown.
    """
    matches: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for s in summaries:
        matches.setdefault((s["a"], s["b"], s["variant"]), []).append(s)
    lines = ["match                                   A wins   95% CI         games"]
    for (a, b, variant), chunks in matches.items():
        p = pool(chunks)
        rate, lo, hi = wilson(p["A"]["wins"], p["A"]["games"])
        lines.append(f"{short(a):>9} vs {short(b):<9} {variant:9s}      {rate:6.3f}   "
                     f"{lo:.3f}-{hi:.3f}    {p['A']['games']}")
    ratings = fit(summaries)
    if ANCHOR[0] not in ratings:
        lines.append(f"\nno ratings: no match of {ANCHOR[0]}'s to anchor the scale")
        return "\n".join(lines)
    lines.append(f"\nratings (Bradley-Terry, {ANCHOR[0]} = {ANCHOR[1]:.0f}; 95% interval):")
    order = sorted(ratings, key=lambda n: ratings[n][0])
    for n in order:
        r, se = ratings[n]
        lines.append(f"  {n:9s} {r:6.0f}  ({r - 1.96 * se:.0f}-{r + 1.96 * se:.0f})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the ladder's matches or fit their results."""
    parser = argparse.ArgumentParser(prog="python -m lab.ladder", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["run", "fit"])
    parser.add_argument("files", nargs="*", type=Path, help="match results (fit)")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals of the cheap matches (run)")
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="tressette")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--out", type=Path, default=Path("lab/results/ladder"))
    parser.add_argument("--only", nargs="+", metavar="A/B",
                        help="play only these matches, named by level (run; e.g. strong/normal flat/strong)")
    args = parser.parse_args(argv)
    if args.command == "run":
        known = {f"{short(a)}/{short(b)}" for a, b, _ in MATCHES}
        if args.only and not set(args.only) <= known:
            parser.error(f"unknown match {sorted(set(args.only) - known)} (matches: {', '.join(sorted(known))})")
        run(args.deals, args.out, Variant(args.variant), args.seed, args.only)
        return 0
    if not args.files:
        parser.error("fit needs match results")
    try:
        print(report([json.loads(f.read_text()) for f in args.files]))
    except ValueError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
