"""A complete deal as flat integer arrays, and the compiled moves that play it.

The compiled counterpart of :class:`tressette.Deal`, for playouts and search.
Seat 0 is always the agent.  A world is ``w`` (int64[W_SIZE]) plus ``stock``
(int64[20], drawn from ``w[W_SPOS]`` on).  ``step`` does not check legality:
callers pass cards from ``legal_mask``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agent.kernels.cards import POINTS_ARR, RANK_ARR, SUIT_ARR, SUIT_MASKS
from tressette.cards import LAST_TRICK_BONUS

W_H0, W_H1, W_LEADER, W_LEAD, W_P0, W_P1, W_SPOS, W_SLEN, W_TRICKS = range(9)
W_SIZE = 9
NOGIL = True


@njit(cache=True, nogil=NOGIL)
def popcount(m: int) -> int:
    """Return the number of cards in mask ``m`` (SWAR bit count, no loop)."""
    m = m - ((m >> 1) & 0x5555555555555555)
    m = (m & 0x3333333333333333) + ((m >> 2) & 0x3333333333333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((m * 0x0101010101010101) >> 56) & 0xFF


@njit(cache=True, nogil=NOGIL)
def lowest_card(m: int) -> int:
    """Return the lowest card code in non-empty mask ``m``."""
    return popcount((m & -m) - 1)


@njit(cache=True, nogil=NOGIL)
def nth_card(m: int, k: int) -> int:
    """Return the ``k``-th (0-based) card of mask ``m`` in code order."""
    for _ in range(k):
        m &= m - 1
    return lowest_card(m)


@njit(cache=True, nogil=NOGIL)
def mover(w: np.ndarray) -> int:
    """Return the seat to move."""
    return w[W_LEADER] if w[W_LEAD] < 0 else 1 - w[W_LEADER]


@njit(cache=True, nogil=NOGIL)
def legal_of(hand: int, lead: int) -> int:
    """Return the cards of ``hand`` that may be played on ``lead`` (-1: any; follow suit if able)."""
    if lead >= 0:
        follow = hand & SUIT_MASKS[SUIT_ARR[lead]]
        if follow:
            return follow
    return hand


@njit(cache=True, nogil=NOGIL)
def legal_mask(w: np.ndarray) -> int:
    """Return the mask of cards the player to move may play (follow suit if able)."""
    return legal_of(w[W_H0 + mover(w)], w[W_LEAD])


@njit(cache=True, nogil=NOGIL)
def beats(card: int, led: int) -> bool:
    """Return True if ``card`` takes the led card ``led``."""
    return SUIT_ARR[card] == SUIT_ARR[led] and RANK_ARR[card] < RANK_ARR[led]


@njit(cache=True, nogil=NOGIL)
def step(w: np.ndarray, stock: np.ndarray, card: int) -> None:
    """Play ``card`` for the player to move; finish the trick and draw when it is the second card."""
    seat = mover(w)
    w[W_H0 + seat] &= ~(np.int64(1) << card)
    lead = w[W_LEAD]
    if lead < 0:
        w[W_LEAD] = card
        return
    leader = w[W_LEADER]
    winner = 1 - leader if beats(card, lead) else leader
    pts = POINTS_ARR[lead] + POINTS_ARR[card]
    w[W_TRICKS] += 1
    if w[W_SPOS] < w[W_SLEN]:
        w[W_H0 + winner] |= np.int64(1) << stock[w[W_SPOS]]
        w[W_H0 + 1 - winner] |= np.int64(1) << stock[w[W_SPOS] + 1]
        w[W_SPOS] += 2
    elif w[W_H0] == 0 and w[W_H1] == 0:
        pts += LAST_TRICK_BONUS
    w[W_P0 + winner] += pts
    w[W_LEADER] = winner
    w[W_LEAD] = -1


@njit(cache=True, nogil=NOGIL)
def pick_hand(cards: np.ndarray, n: int, k: int) -> int:
    """Move a uniformly random ``k`` of ``cards[:n]`` to the front (in place); return them as a mask."""
    mask = np.int64(0)
    for i in range(k):
        j = i + np.random.randint(n - i)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
        mask |= np.int64(1) << cards[i]
    return int(mask)


@njit(cache=True, nogil=NOGIL)
def shuffle(cards: np.ndarray, n: int) -> None:
    """Shuffle ``cards[:n]`` in place (Fisher-Yates)."""
    for i in range(n - 1, 0, -1):
        j = np.random.randint(i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t


@njit(cache=True, nogil=NOGIL)
def is_over(w: np.ndarray) -> bool:
    """Return True when both hands are empty and no card is on the table."""
    return w[W_H0] == 0 and w[W_H1] == 0 and w[W_LEAD] < 0
