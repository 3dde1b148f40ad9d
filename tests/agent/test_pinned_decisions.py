"""Seeded decisions pinned: the card and every root card's visits, as the search gave them before issue #24.

Issue #24 removed the search settings measured as no gain and merged the ISMCTS kernels; these
positions (random deals, part played at random) were recorded with ``decide`` before that change
(at the tag ``search-options-before-24``) and must come out the same, visit for visit.
"""

from __future__ import annotations

import random

import pytest

from agent.decide import decide
from tressette import AgentState, Deal, Variant, card_name, state_from_view, view_of

PINNED = {
    1: ('K 7', 4000, {'B 2': 419, 'B 3': 436, 'B 7': 445, 'D KRALJ': 371, 'K 7': 921, 'K FANT': 206, 'K KAVAL': 494, 'S 2': 237, 'S 3': 156, 'S 5': 315}),
    12: ('B 5', 4000, {'B 5': 639, 'B FANT': 524, 'D 3': 100, 'D 4': 424, 'D 5': 584, 'D AS': 85, 'D KAVAL': 310, 'S 4': 351, 'S 7': 562, 'S KRALJ': 421}),
    22: ('K 3', 3584, {'K 2': 1389, 'K 3': 1889, 'K 5': 131, 'K 6': 41, 'K 7': 134}),
    40: ('S 4', 3072, {'B 4': 193, 'B 6': 217, 'B FANT': 37, 'D 3': 167, 'K 3': 164, 'K 7': 77, 'K KRALJ': 57, 'S 4': 1899, 'S AS': 20, 'S FANT': 241}),
}
"""Deal number: (card, iterations run, each root card's visits) at 4,000 iterations, seed 101 + the number."""


def pinned_position(k: int) -> AgentState:
    """Return the state of deal ``k``'s player to move after ``k``'s random prefix of plays."""
    rng = random.Random(1000 + k)
    deal = Deal.new(Variant.KIFAMENO if k % 3 == 0 else Variant.TRESSETTE, k % 2, rng)
    stop = rng.randrange(0, 36) if k < 30 else rng.randrange(0, 18)
    for _ in range(stop):
        if deal.is_over:
            break
        deal.play(rng.choice(deal.legal_moves()))
    return state_from_view(view_of(deal, deal.to_move))


@pytest.mark.parametrize("k", sorted(PINNED))
def test_seeded_decisions_are_the_pinned_ones(k: int) -> None:
    """The card, the iterations (stopped once settled) and every root card's visits are as pinned."""
    card, iterations, visits = PINNED[k]
    decision = decide(pinned_position(k), time_ms=10**7, iterations=4000, seed=101 + k)
    assert (card_name(decision.card), decision.iterations) == (card, iterations)
    assert {c: s["visits"] for c, s in decision.stats.items()} == visits
