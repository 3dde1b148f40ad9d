"""Compiled playouts: finish a world with a random or a cheap guided policy.

The guided policy is one-ply common sense, with an ``eps`` chance of a random
card so playouts still explore: when following in Tressette, take a trick that
holds points with the weakest card that wins, otherwise throw the cheapest
card; in Kifameno, throw the most valuable card that loses, or if every card
wins, the cheapest one.  Leads are random.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agent.tables import POINTS_ARR, SUIT_ARR, SUIT_MASKS
from agent.world import NOGIL, W_LEAD, W_P0, is_over, legal_mask, nth_card, popcount, step

RANDOM, GUIDED = 0, 1


@njit(cache=True, nogil=NOGIL)
def random_card(mask: int) -> int:
    """Return a uniformly random card of non-empty ``mask``."""
    return nth_card(mask, np.random.randint(popcount(mask)))


@njit(cache=True, nogil=NOGIL)
def _extreme(mask: int, most_points: bool) -> int:
    # Among equal points prefer the weakest card (highest code), to keep strong cards.
    best = -1
    best_pts = -1
    for c in range(40):
        if (mask >> c) & 1:
            p = POINTS_ARR[c]
            if best < 0 or (p > best_pts if most_points else p < best_pts) or p == best_pts:
                best = c
                best_pts = p
    return best


@njit(cache=True, nogil=NOGIL)
def guided_card(w: np.ndarray, legal: int, cfm: bool, eps: float) -> int:
    """Return the guided policy's card among ``legal`` (see the module doc)."""
    lead = w[W_LEAD]
    if lead < 0 or np.random.random() < eps:
        return random_card(legal)
    winners = legal & SUIT_MASKS[SUIT_ARR[lead]] & ((np.int64(1) << lead) - 1)
    losers = legal & ~winners
    if not cfm:
        if winners and (POINTS_ARR[lead] > 0 or not losers):
            # The weakest winner is the highest code among the winners.
            c = 39
            while not (winners >> c) & 1:
                c -= 1
            return c
        return _extreme(losers, False)
    if losers:
        return _extreme(losers, True)
    return _extreme(winners, False)


@njit(cache=True, nogil=NOGIL)
def playout(w: np.ndarray, stock: np.ndarray, cfm: bool, policy: int, eps: float) -> int:
    """Play ``w`` to the end in place; return seat 0's final points."""
    while not is_over(w):
        legal = legal_mask(w)
        card = random_card(legal) if policy == RANDOM else guided_card(w, legal, cfm, eps)
        step(w, stock, card)
    return w[W_P0]


@njit(cache=True, nogil=NOGIL)
def seed_kernels(seed: int) -> None:
    """Seed the compiled generator of the calling thread."""
    np.random.seed(seed)
