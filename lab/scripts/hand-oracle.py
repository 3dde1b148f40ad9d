"""A ceiling for play against ``random``: an agent told the opponent's whole hand (not the stock).

    python scripts/hand-oracle.py FIRST N [SPEC] > out.jsonl

plays Tressette deals FIRST..FIRST+N-1 of seed 11's series (the deals of ``agent/results/r-m03-tressette.json``),
each twice with seats swapped, the arena player SPEC (default ``mcts:i30000``) against ``random``, SPEC seeing
the opponent's hand in ``hiscards``. Prints each deal's wins, then a JSON summary line with ``per_deal``.
"""

from __future__ import annotations

import json
import sys

from lab.arena import play_duplicate, series_deal_seed
from tressette import Variant

SEED = 11


def play(deal_index: int, spec: str) -> int:
    """Return SPEC's wins (0-2) over the deal's two games."""
    deal_seed = series_deal_seed(SEED, deal_index)
    return play_duplicate(spec, "random", Variant.TRESSETTE, deal_seed, a_told=True)["A"].wins


def main() -> None:
    """Play the deals named on the command line and print the results."""
    first, n = int(sys.argv[1]), int(sys.argv[2])
    spec = sys.argv[3] if len(sys.argv) > 3 else "mcts:i30000"
    per_deal = []
    for i in range(first, first + n):
        per_deal.append(play(i, spec))
        print(i, per_deal[-1], flush=True)
    print(json.dumps({"spec": spec, "seed": SEED, "first": first, "per_deal": per_deal,
                      "wins": sum(per_deal), "games": 2 * n}))


if __name__ == "__main__":
    main()
