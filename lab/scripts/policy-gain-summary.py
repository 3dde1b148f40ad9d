"""Summarise lab/results/policy-gain-points/ (issue #25's measured gain on points) into summary.json.

    python lab/scripts/policy-gain-summary.py [DIR]

For each variant: the fitted arm against the shipped one on all the deals both played
(``lab.pool.compare``: win rates and mean points per game in thirds, paired 95% intervals)
and on the deals of lab/results/gain/ alone (Tressette's first 1,000, Kifameno's first 600).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from lab.pool import compare  # noqa: E402

MATCHES = (("tressette", 2501, 1000), ("kifameno", 2502, 600))


def load(folder: Path, variant: str, seed: int) -> list[dict[str, Any]]:
    """Return the chunks of one arm in deal order."""
    files = sorted(folder.glob(f"{variant}-{seed}-*.json"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    return [json.loads(p.read_text()) for p in files]


def first_deals(runs: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Return the chunks cut to the series' first ``n`` deals."""
    out = []
    for r in runs:
        k = n - r["first"]
        if k > 0:
            out.append({**r, "deals": min(r["deals"], k), "per_deal": r["per_deal"][:k],
                        "per_deal_points": r["per_deal_points"][:k]})
    return out


def main() -> None:
    """Write DIR/summary.json and print one line per comparison."""
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "lab/results/policy-gain-points")
    summary: dict[str, Any] = {"note": "fitted minus shipped (lab.pool.compare); points per game in thirds; gain = "
                               "the fitted arm's edge toward the goal (more points in Tressette, fewer in Kifameno)"}
    for variant, seed, old in MATCHES:
        fitted, shipped = load(root / "fitted", variant, seed), load(root / "shipped", variant, seed)
        if not fitted or not shipped:
            continue
        summary[variant] = {"seed": seed, "all": compare(fitted, shipped),
                            f"first_{old}": compare(first_deals(fitted, old), first_deals(shipped, old))}
        for name in ("all", f"first_{old}"):
            c = summary[variant][name]
            p = c["points"]
            print(f"{variant} {name}: {c['deals']} deals; win {c['x_win_rate']:.4f} vs {c['y_win_rate']:.4f}, "
                  f"{c['difference']:+.4f} ({c['ci95'][0]:+.4f} to {c['ci95'][1]:+.4f}); points {p['x_mean']:.3f} vs "
                  f"{p['y_mean']:.3f}, gain {p['gain']:+.3f} ({p['gain_ci95'][0]:+.3f} to {p['gain_ci95'][1]:+.3f})")
    (root / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
