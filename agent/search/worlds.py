"""Sampling worlds consistent with what the agent knows.

Every card the opponent drew from the stock was shown face up, so the
opponent's hidden cards all come from its first ten.  Hence a suit the
opponent once failed to follow can hold no hidden card of its hand: hidden
cards of such a suit are in the stock.  A sampled world puts ``hiscards`` in
the opponent's hand, fills the rest of that hand from the hidden cards allowed
there, and shuffles everything else into the stock.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from agent.kernels.world import (
    NOGIL,
    W_H0,
    W_H1,
    W_LEAD,
    W_LEADER,
    W_P0,
    W_P1,
    W_SIZE,
    W_SLEN,
    W_SPOS,
    W_TRICKS,
    pick_hand,
    shuffle,
)
from agent.opponent.posterior import NO_CUM, NO_POOL, particle_pool
from tressette import HIM, ME, AgentState, mask_of, suit_of


@dataclass(frozen=True, slots=True)
class Root:
    """The agent's information set in the arrays the kernels take.

    ``w`` holds the known part of the world (the opponent's hand holds only its
    known cards), ``hidden`` the cards whose place is unknown, ``need`` how
    many of them the opponent holds, ``voids`` a 4-bit mask of suits the
    opponent cannot hold hidden cards of, ``pool`` candidate sets of the
    opponent's hidden cards with ``cum`` their cumulative weights (empty when
    not used: see :mod:`agent.opponent`).
    """

    w: np.ndarray
    hidden: np.ndarray
    need: int
    voids: int
    cfm: bool
    pool: np.ndarray
    cum: np.ndarray
    gone: int
    """The cards played so far, the one on the table included."""

    @property
    def allowed(self) -> list[int]:
        """Return the hidden cards the opponent may hold (those outside its void suits)."""
        return allowed_cards(self.hidden.tolist(), self.voids)


def allowed_cards(hidden: list[int], voids: int) -> list[int]:
    """Return the cards of ``hidden`` outside the suits in the 4-bit mask ``voids``."""
    return [c for c in hidden if not (voids >> suit_of(c)) & 1]


def opponent_voids(state: AgentState) -> int:
    """Return the 4-bit mask of suits the opponent has shown it lacks (from ``history``)."""
    voids = 0
    for trick in state.history or ():
        lead, follow = trick.cards
        if trick.leader == ME and suit_of(follow) != suit_of(lead):
            voids |= 1 << suit_of(lead)
    return voids


def make_root(state: AgentState, *, use_voids: bool = True, particles: int = 0, temper: float = 1.0) -> Root:
    """Return the kernels' view of ``state`` (the agent, seat 0, is to move).

    ``particles`` > 0 adds a pool of that many candidate hidden hands weighed by the opponent
    model of :mod:`agent.opponent` (likelihoods raised to ``temper``; see
    :func:`agent.opponent.posterior.particle_pool`).
    """
    w = np.zeros(W_SIZE, dtype=np.int64)
    known = state.opponent_known
    w[W_H0] = mask_of(state.hand)
    w[W_H1] = mask_of(known)
    w[W_LEADER] = ME if state.is_leading else HIM
    w[W_LEAD] = state.inplay[0] if state.inplay else -1
    w[W_P0] = state.points
    w[W_P1] = state.opponent_points
    w[W_SPOS] = 0
    w[W_SLEN] = state.stock_size
    w[W_TRICKS] = state.tricks_played
    hidden = np.array(state.hidden, dtype=np.int64)
    need = state.opponent_hand_size - len(known)
    voids = opponent_voids(state) if use_voids else 0
    if len(allowed_cards(list(state.hidden), voids)) < need:  # the history contradicts the counts: trust the counts
        voids = 0
    pool, cum = particle_pool(state, hidden, need, voids, size=particles, temper=temper) if particles else (
        NO_POOL, NO_CUM)
    return Root(w=w, hidden=hidden, need=need, voids=voids, cfm=state.cfm,
                pool=pool, cum=cum, gone=mask_of(state.played) | mask_of(state.inplay))


@njit(cache=True, nogil=NOGIL)
def sample_world(w0: np.ndarray, hidden: np.ndarray, need: int, voids: int,
                 w: np.ndarray, stock: np.ndarray) -> None:
    """Fill ``w`` and ``stock`` with a uniformly random world consistent with the root."""
    w[:] = w0
    k = hidden.shape[0]
    buf = np.empty(k, dtype=np.int64)
    n_ok = 0
    n_bad = 0
    # Allowed cards first, then the void-suit cards (which can only be in the stock).
    for i in range(k):
        c = hidden[i]
        if (voids >> (c // 10)) & 1:
            buf[k - 1 - n_bad] = c
            n_bad += 1
        else:
            buf[n_ok] = c
            n_ok += 1
    # The opponent's share from the allowed cards.
    w[W_H1] |= pick_hand(buf, n_ok, need)
    # The rest, allowed and void alike, is the stock in random order.
    s = k - need
    for i in range(s):
        stock[i] = buf[need + i]
    shuffle(stock, s)
    w[W_SPOS] = 0
    w[W_SLEN] = s


@njit(cache=True, nogil=NOGIL)
def sample_from_pool(w0: np.ndarray, hidden: np.ndarray, pool: np.ndarray, cum: np.ndarray,
                     w: np.ndarray, stock: np.ndarray) -> int:
    """Fill ``w`` and ``stock`` with a world whose opponent holds a pool entry drawn by weight; return its index."""
    w[:] = w0
    i = np.searchsorted(cum, np.random.random() * cum[-1], side="right")
    if i >= pool.shape[0]:
        i = pool.shape[0] - 1
    held = pool[i]
    w[W_H1] |= held
    s = 0
    for c in hidden:
        if not (held >> c) & 1:
            stock[s] = c
            s += 1
    shuffle(stock, s)
    w[W_SPOS] = 0
    w[W_SLEN] = s
    return i
