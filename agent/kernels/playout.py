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

from agent.kernels.cards import POINTS_ARR, SUIT_ARR, SUIT_MASKS
from agent.kernels.world import (
    NOGIL,
    W_H0,
    W_H1,
    W_LEAD,
    W_LEADER,
    W_P0,
    W_SLEN,
    W_SPOS,
    nth_card,
    popcount,
)
from tressette.cards import LAST_TRICK_BONUS

RANDOM, GUIDED = 0, 1
NO_TRACE = np.empty(0, dtype=np.int64)


@njit(cache=True, nogil=NOGIL)
def random_card(mask: int) -> int:
    """Return a uniformly random card of non-empty ``mask``."""
    # random() * n is several times cheaper than randint(n) in compiled code.
    return nth_card(mask, int(np.random.random() * popcount(mask)))


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
def playout(w: np.ndarray, stock: np.ndarray, cfm: bool, policy: int, eps: float,
            trace: np.ndarray = NO_TRACE) -> int:
    """Play ``w`` to the end; return seat 0's final points.

    The hot loop of the search: the world lives in local variables here (the
    same moves as :func:`agent.kernels.world.step`, which the tests hold it to) and
    ``w`` is left in an unspecified state.  When ``trace`` has room, the cards
    played are written to it in order (for those tests).
    """
    n_played = 0
    h0 = w[W_H0]
    h1 = w[W_H1]
    leader = w[W_LEADER]
    lead = w[W_LEAD]
    p0 = w[W_P0]
    spos = w[W_SPOS]
    slen = w[W_SLEN]
    # A private xorshift64* stream, seeded from the thread's generator, for the random policy:
    # far cheaper per card than the library generator.
    rs = np.uint64(np.random.randint(1, 2**62))
    while h0 != 0 or h1 != 0:
        seat = leader if lead < 0 else 1 - leader
        hand = h0 if seat == 0 else h1
        legal = hand
        if lead >= 0:
            follow = hand & SUIT_MASKS[SUIT_ARR[lead]]
            if follow:
                legal = follow
        if policy == RANDOM:
            rs ^= rs >> np.uint64(12)
            rs ^= rs << np.uint64(25)
            rs ^= rs >> np.uint64(27)
            r = (rs * np.uint64(2685821657736338717)) >> np.uint64(32)
            k = np.int64((r * np.uint64(popcount(legal))) >> np.uint64(32))
            card = nth_card(legal, k)
        else:
            w[W_LEAD] = lead
            card = guided_card(w, legal, cfm, eps)
        if n_played < trace.shape[0]:
            trace[n_played] = card
        n_played += 1
        bit = np.int64(1) << card
        if seat == 0:
            h0 &= ~bit
        else:
            h1 &= ~bit
        if lead < 0:
            lead = card
            continue
        winner = 1 - leader if (SUIT_ARR[card] == SUIT_ARR[lead] and card < lead) else leader
        pts = POINTS_ARR[lead] + POINTS_ARR[card]
        if spos < slen:
            if winner == 0:
                h0 |= np.int64(1) << stock[spos]
                h1 |= np.int64(1) << stock[spos + 1]
            else:
                h1 |= np.int64(1) << stock[spos]
                h0 |= np.int64(1) << stock[spos + 1]
            spos += 2
        elif h0 == 0 and h1 == 0:
            pts += LAST_TRICK_BONUS
        if winner == 0:
            p0 += pts
        leader = winner
        lead = -1
    if lead >= 0:  # a lone card can only be on the table in an inconsistent world
        return -1
    return p0


@njit(cache=True, nogil=NOGIL)
def seed_kernels(seed: int) -> None:
    """Seed the compiled generator of the calling thread."""
    np.random.seed(seed)
