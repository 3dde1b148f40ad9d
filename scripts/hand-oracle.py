"""A ceiling for play against ``random``: an agent told the opponent's whole hand (not the stock).

    python scripts/hand-oracle.py FIRST N [SPEC] > out.jsonl

plays Tressette deals FIRST..FIRST+N-1 of seed 11's series (the deals of ``agent/results/r-m03-tressette.json``),
each twice with seats swapped, the arena player SPEC (default ``mcts:i30000``) against ``random``, SPEC seeing
the opponent's hand in ``hiscards``. Prints each deal's wins, then a JSON summary line with ``per_deal``.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys

from agent.arena import make_player, series_deal_seed
from tressette import Deal, Variant, state_from_view, view_of

SEED = 11


def play(deal_index: int, spec: str) -> int:
    """Return SPEC's wins (0-2) over the deal's two games."""
    seed = series_deal_seed(SEED, deal_index)
    wins = 0
    for a_seat in (0, 1):
        oracle, opponent = make_player(spec), make_player("random")
        deal = Deal.new(Variant.TRESSETTE, seed % 2, random.Random(seed))
        rng = random.Random(seed * 2 + a_seat)
        while not deal.is_over:
            seat = deal.to_move
            state = state_from_view(view_of(deal, seat))
            if seat == a_seat:
                card = oracle(dataclasses.replace(state, hiscards=tuple(deal.hands[1 - seat])), rng)
            else:
                card = opponent(state, rng)
            deal.play(card, seat=seat)
        wins += int(deal.outcome().winner == a_seat)
    return wins


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
