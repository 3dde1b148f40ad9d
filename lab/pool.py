"""``treset-agent pool FILE...``: one result from several arena runs of the same match.

Long matches are run in chunks (``arena ... --seed S --first K --json FILE``, or a
new seed per chunk, so no deal repeats) that survive an interrupted session; this
adds the chunks up and prints the pooled win rate with its 95% interval.

``treset-agent pool --compare X.json Y.json`` compares two players measured on the
same deals (same variant and opponent; deals pair by seed and index, and X or Y may
be several chunks, comma-separated) deal by deal: the luck of a deal is
shared by both runs, so the difference of their win rates is known far more
precisely than either rate.  Runs that saved their per-deal points (``per_deal_points``)
are also compared on the mean points per game, which still has resolution when both
players win nearly every game.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from lab.arena import SideStats, wilson

_SUMMED = ("wins", "games", "points", "moves", "think_s")


def pool(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the pooled summary of arena summaries of one match (same sides and variant).

    Raises ValueError when the list is empty, mixes matches, or holds a deal twice (a chunk
    passed twice, or overlapping chunks, would count its games twice).
    """
    if not summaries:
        raise ValueError("no arena results to pool")
    matches = {(s["a"], s["b"], s["variant"]) for s in summaries}
    if len(matches) != 1:
        raise ValueError(f"the results are of different matches: {sorted(matches)}")
    # Runs without per-deal results (older files) cannot be checked deal by deal.
    deal_results([s for s in summaries if s.get("per_deal")])
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


def deal_results(runs: list[dict[str, Any]]) -> dict[tuple[int, int], int]:
    """Return A's wins per deal, keyed by (seed, deal index), over arena runs of one match.

    Raises ValueError when a run lacks per-deal results or two runs hold the same deal.
    """
    out: dict[tuple[int, int], int] = {}
    for run in runs:
        if not run.get("per_deal"):
            raise ValueError("every run needs per-deal results (arena --json writes them)")
        first = run.get("first", 0)
        for i, wins in enumerate(run["per_deal"]):
            key = (run.get("seed", 0), first + i)
            if key in out:
                raise ValueError(f"deal {key[1]} of seed {key[0]} is in two of the runs (overlapping chunks?)")
            out[key] = wins
    return out


def deal_points(runs: list[dict[str, Any]]) -> dict[tuple[int, int], int] | None:
    """Return A's points (thirds, both games) per deal, keyed by (seed, deal index), or None when a run
    did not save them (older arena files)."""
    out: dict[tuple[int, int], int] = {}
    for run in runs:
        points = run.get("per_deal_points")
        if not points or len(points) != len(run.get("per_deal", [])):
            return None
        first = run.get("first", 0)
        for i, p in enumerate(points):
            out[(run.get("seed", 0), first + i)] = p
    return out


def paired_mean(diffs: list[float]) -> tuple[float, float, float]:
    """Return the mean of paired differences and its normal 95% interval."""
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def compare(x: dict[str, Any] | list[dict[str, Any]], y: dict[str, Any] | list[dict[str, Any]]) -> dict[str, Any]:
    """Return X's win rate minus Y's over the deals both played, with a paired 95% interval.

    X and Y are arena results (or lists of chunks of one run); deals pair by seed and index.
    Raises ValueError when they are against different opponents or variants, lack per-deal
    results, or share no deal.
    """
    xs, ys = (r if isinstance(r, list) else [r] for r in (x, y))
    if not xs or not ys:
        raise ValueError("nothing to compare")
    matches = {(r["variant"], r["b"]) for r in xs + ys}
    if len(matches) != 1 or len({r["a"] for r in xs}) != 1 or len({r["a"] for r in ys}) != 1:
        raise ValueError("the runs are not of one player each against the same opponent in one variant")
    xd, yd = deal_results(xs), deal_results(ys)
    common = sorted(xd.keys() & yd.keys())
    n = len(common)
    if n == 0:
        raise ValueError("the runs share no deal (same seed and deal index)")
    mean, lo, hi = paired_mean([(xd[k] - yd[k]) / 2 for k in common])
    out: dict[str, Any] = {
        "x": xs[0]["a"], "y": ys[0]["a"], "b": xs[0]["b"], "variant": xs[0]["variant"], "deals": n,
        "x_win_rate": sum(xd[k] for k in common) / (2 * n), "y_win_rate": sum(yd[k] for k in common) / (2 * n),
        "difference": mean, "ci95": [lo, hi]}
    xp, yp = deal_points(xs), deal_points(ys)
    if xp is not None and yp is not None:
        # Points per game in thirds; "gain" is X's edge in the game's goal (more points in
        # Tressette, fewer in Kifameno), so a positive gain favours X in both variants.
        sign = -1 if xs[0]["variant"] == "kifameno" else 1
        pmean, plo, phi = paired_mean([(xp[k] - yp[k]) / 2 for k in common])
        glo, ghi = sorted((sign * plo, sign * phi))
        out["points"] = {"x_mean": sum(xp[k] for k in common) / (2 * n), "y_mean": sum(yp[k] for k in common) / (2 * n),
                         "difference": pmean, "ci95": [plo, phi], "gain": sign * pmean, "gain_ci95": [glo, ghi]}
    return out


def main(argv: list[str]) -> int:
    """Run ``treset-agent pool FILE... [--json]`` or ``treset-agent pool --compare X Y``."""
    parser = argparse.ArgumentParser(prog="treset-agent pool", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="arena results written with --json")
    parser.add_argument("--json", action="store_true", help="print the pooled summary as JSON")
    parser.add_argument("--compare", action="store_true",
                        help="compare two runs on the same deals, deal by deal (X and Y: FILE or FILE,FILE,... chunks)")
    args = parser.parse_args(argv)
    if args.compare:
        return _main_compare(args.files)
    try:
        pooled = pool(_read(args.files))
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


def _read(names: list[str]) -> list[dict[str, Any]]:
    """Return the arena results saved in the files ``names``."""
    runs = []
    for name in names:
        with open(name) as f:
            runs.append(json.load(f))
    return runs


def _main_compare(files: list[str]) -> int:
    try:
        if len(files) != 2:
            raise ValueError("--compare takes exactly two arena results")
        c = compare(_read(files[0].split(",")), _read(files[1].split(",")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"treset-agent pool: {exc}", file=sys.stderr)
        return 2
    lo, hi = c["ci95"]
    print(f"{c['x']} vs {c['y']}, both against {c['b']} · {c['variant']} · {c['deals']} common duplicate deals")
    print(f"win rates {c['x_win_rate']:.3f} vs {c['y_win_rate']:.3f}: difference {c['difference']:+.3f} "
          f"(paired 95% CI {lo:+.3f} to {hi:+.3f})")
    if "points" in c:
        p = c["points"]
        goal = "fewer" if c["variant"] == "kifameno" else "more"
        print(f"mean points per game (thirds) {p['x_mean']:.3f} vs {p['y_mean']:.3f}: difference "
              f"{p['difference']:+.3f} (paired 95% CI {p['ci95'][0]:+.3f} to {p['ci95'][1]:+.3f}); "
              f"gain toward the goal ({goal} points) {p['gain']:+.3f} ({p['gain_ci95'][0]:+.3f} to "
              f"{p['gain_ci95'][1]:+.3f})")
    return 0
