"""Print how long this machine takes for a fixed pure-Python load: 15,000 seeded random deals played out.

The suite's times (lab/MEASUREMENTS.md) are only comparable at the same machine speed, which swings
by half between runs here; run this before and after a timed run and give both figures beside it.

    python lab/scripts/machine-speed.py
"""

from __future__ import annotations

import random
import time

from tressette import Deal, Variant

DEALS = 15_000


def main() -> None:
    """Play the deals (both variants in turn, a random legal card each move) and print the seconds taken."""
    rng = random.Random(2026)
    start = time.perf_counter()
    for i in range(DEALS):
        deal = Deal.new(Variant.TRESSETTE if i % 2 else Variant.KIFAMENO, i % 2, rng)
        while not deal.is_over:
            deal.play(rng.choice(deal.legal_moves()))
    print(f"SPEED {time.perf_counter() - start:.2f} s for {DEALS:,} deals")


if __name__ == "__main__":
    main()
