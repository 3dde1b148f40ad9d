#!/usr/bin/env python3
"""Time the four-player world sampler over every position of seeded deals (rule player and random play).

Prints the median and maximum time to build a sampler (the counting tables) and to draw one world,
and how many consistent worlds the positions have (median, smallest), by how many cards are unseen.

    python3 lab/scripts/partnership-sampler-speed.py --deals 300
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.partnership.sampling import WorldSampler  # noqa: E402
from agent.partnership_player import choose_partnership_move  # noqa: E402
from tressette.partnership import PartnershipDeal, view_of_partnership  # noqa: E402


def main() -> None:
    """Play the deals, time the sampler at each position, print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--draws", type=int, default=5, help="worlds drawn per position")
    args = ap.parse_args()
    rows: dict[str, list[tuple[float, float, int]]] = {}
    for seed in range(args.deals):
        rng = random.Random(seed)
        deal = PartnershipDeal.new(seed % 4, rng)
        while not deal.is_over:
            view = view_of_partnership(deal, deal.to_move)
            t0 = time.perf_counter()
            sampler = WorldSampler.of(view)
            t1 = time.perf_counter()
            for _ in range(args.draws):
                sampler.sample(rng)
            t2 = time.perf_counter()
            unseen = len(sampler.constraints.unknown)
            band = "21-30" if unseen > 20 else "11-20" if unseen > 10 else "0-10"
            rows.setdefault(band, []).append((t1 - t0, (t2 - t1) / args.draws, sampler.count))
            if rng.random() < 0.5:
                deal.play_move(choose_partnership_move(view))
            else:
                card = rng.choice(deal.legal_moves())
                deal.play(card, declarations=deal.declarable(), signal=rng.choice([None, *deal.allowed_signals(card)]))
    print("| unseen cards | positions | build median / max (ms) | draw median / max (ms) | worlds median / fewest |")
    print("| --- | --- | --- | --- | --- |")
    for band in ("21-30", "11-20", "0-10"):
        r = rows[band]
        build, draw, count = ([x[i] for x in r] for i in range(3))
        print(f"| {band} | {len(r):,} | {1000 * statistics.median(build):.2f} / {1000 * max(build):.1f} "
              f"| {1000 * statistics.median(draw):.3f} / {1000 * max(draw):.2f} "
              f"| {statistics.median(count):.3g} / {min(count):,} |")


if __name__ == "__main__":
    main()
