"""Win odds in a known endgame against a fallible opponent.

The exact solver (:mod:`agent.search.solver`) assumes a perfect opponent, so in a
position lost against perfect play it can only lose by as little as possible.
A real opponent errs, and which losing card the agent plays decides how many
chances it gets to.  Here the opponent plays the card best for it (against
this same model) with probability ``1 - share`` and a uniformly random legal
card with probability ``share``; the agent plays to maximise its probability
of winning the deal (expectimax, memoised on positions).  ``share`` = 1 models
a random player; a small share ranks losing cards by the ways the opponent can
still go wrong.

Only lost positions need it: in a won position every card the solver calls
winning wins against any opponent, and the solver also keeps the best score.
Against an opponent that plays the endgame perfectly every card of a lost
position loses, so the choice costs no wins there.

``odds_reference`` is the readable pure-Python path the compiled one is
checked against.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit

from agent.kernels.world import NOGIL, legal_of, lowest_card
from agent.search.solver import after_card, card_classes, points_left
from tressette import WINNING_POINTS, Deal

NODE_BUDGET = 3_000_000
"""Positions searched before giving up (the caller then keeps the solver's card): about a second."""
MEMO_BITS = 21
MEMO_SIZE = 1 << MEMO_BITS
STAMPS = 1 << 9
"""Searches a memo serves before it is cleared: each stamps its keys, so none sees another's entries."""


def new_memo() -> tuple[np.ndarray, np.ndarray]:
    """Return an empty memo: keys (two per slot) and values."""
    keys = np.full((MEMO_SIZE, 2), -1, dtype=np.int64)
    return keys, np.zeros(MEMO_SIZE, dtype=np.float64)


@njit(cache=True, nogil=NOGIL)
def _slot(h0: int, key1: int) -> int:
    x = np.uint64(h0) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(key1) * np.uint64(0xC2B2AE3D27D4EB4F)
    return np.int64(x >> np.uint64(64 - MEMO_BITS))  # type: ignore[return-value]


@njit(cache=True, nogil=NOGIL)
def _lookup(h0: int, h1: int, leader: int, lead: int, need: int, good: int, stamp: int,
            keys: np.ndarray, vals: np.ndarray, nodes: np.ndarray, budget: int) -> tuple[float, int, int]:
    """Return (the position's odds if known without search, else -1; its memo slot; its key)."""
    if need <= 0:
        return 1.0, -1, 0
    live = h0 | h1
    if lead >= 0:
        live |= 1 << lead
    if need > points_left(live):
        return 0.0, -1, 0
    nodes[0] += 1
    if nodes[0] > budget or nodes[1]:
        return 0.0, -1, 0  # the caller sees the spent budget (or the clock's stop) and discards the result
    key1 = h1 | (leader << 40) | ((lead + 1) << 41) | (need << 47) | (good << 53) | (stamp << 54)
    slot = _slot(h0, key1)
    if keys[slot, 0] == h0 and keys[slot, 1] == key1:
        return vals[slot], slot, key1
    return -1.0, slot, key1


@njit(cache=True, nogil=NOGIL)
def _child(h0: int, h1: int, leader: int, lead: int, need: int, good: int, c: int) -> tuple[int, int, int, int, int]:
    """Return the position (h0, h1, leader, lead, need) after the mover plays ``c``."""
    bit = 1 << c
    mover = leader if lead < 0 else 1 - leader
    n0 = h0 & ~bit if mover == 0 else h0
    n1 = h1 & ~bit if mover == 1 else h1
    next_leader, next_lead, pts = after_card(c, leader, lead, n0 | n1)
    return n0, n1, next_leader, next_lead, need - pts if next_leader == good else need


# Frame columns: the position, its memo slot and key, its number of card classes, the next class.
F_H0, F_H1, F_LEADER, F_LEAD, F_NEED, F_SLOT, F_KEY, F_N, F_NEXT = range(9)
# Running values: the best (most for seat 0, least for seat 1), and the count-weighted sum and count.
A_BEST, A_SUM, A_WEIGHT = range(3)


@njit(cache=True, nogil=NOGIL)
def _push(frames: np.ndarray, moves: np.ndarray, counts: np.ndarray, acc: np.ndarray, t: int,
          h0: int, h1: int, leader: int, lead: int, need: int, slot: int, key1: int) -> None:
    frames[t, F_H0] = h0
    frames[t, F_H1] = h1
    frames[t, F_LEADER] = leader
    frames[t, F_LEAD] = lead
    frames[t, F_NEED] = need
    frames[t, F_SLOT] = slot
    frames[t, F_KEY] = key1
    mover = leader if lead < 0 else 1 - leader
    frames[t, F_N] = card_classes(h0 if mover == 0 else h1, h1 if mover == 0 else h0, lead, moves[t], counts[t])
    frames[t, F_NEXT] = 0
    acc[t, A_BEST] = -1.0 if mover == 0 else 2.0
    acc[t, A_SUM] = 0.0
    acc[t, A_WEIGHT] = 0.0


@njit(cache=True, nogil=NOGIL)
def _odds(h0: int, h1: int, leader: int, lead: int, need: int, good: int, share: float,
          stamp: int, keys: np.ndarray, vals: np.ndarray, nodes: np.ndarray, budget: int) -> float:
    """Return seat 0's probability of winning; ``need``: points seat ``good`` still lacks for the win.

    Depth-first with an explicit stack of frames (numba caches no recursive function, and this one
    would otherwise be compiled again by every process).
    """
    v, slot, key1 = _lookup(h0, h1, leader, lead, need, good, stamp, keys, vals, nodes, budget)
    if v >= 0:
        return v
    frames = np.empty((42, 9), dtype=np.int64)
    moves = np.empty((42, 10), dtype=np.int64)
    counts = np.empty((42, 10), dtype=np.int64)
    acc = np.empty((42, 3), dtype=np.float64)
    t = 0
    _push(frames, moves, counts, acc, 0, h0, h1, leader, lead, need, slot, key1)
    returned = -1.0  # the value of the child just finished, if any
    while True:
        f = frames[t]
        mover = f[F_LEADER] if f[F_LEAD] < 0 else 1 - f[F_LEADER]
        if returned >= 0:
            weight = counts[t, f[F_NEXT] - 1]
            acc[t, A_SUM] += weight * returned
            acc[t, A_WEIGHT] += weight
            if (returned > acc[t, A_BEST]) if mover == 0 else (returned < acc[t, A_BEST]):
                acc[t, A_BEST] = returned
            returned = -1.0
        i = f[F_NEXT]
        if i < f[F_N] and not (mover == 0 and acc[t, A_BEST] >= 1.0):
            f[F_NEXT] = i + 1
            c0, c1, cl, cd, cn = _child(f[F_H0], f[F_H1], f[F_LEADER], f[F_LEAD], f[F_NEED], good, moves[t, i])
            v, slot, key1 = _lookup(c0, c1, cl, cd, cn, good, stamp, keys, vals, nodes, budget)
            if v >= 0:
                returned = v
            else:
                t += 1
                _push(frames, moves, counts, acc, t, c0, c1, cl, cd, cn, slot, key1)
            continue
        best = acc[t, A_BEST]
        value = best if mover == 0 else (1.0 - share) * best + share * acc[t, A_SUM] / acc[t, A_WEIGHT]
        if nodes[0] <= budget and not nodes[1]:
            keys[f[F_SLOT], 0] = f[F_H0]
            keys[f[F_SLOT], 1] = f[F_KEY]
            vals[f[F_SLOT]] = value
        if t == 0:
            return value
        t -= 1
        returned = value


@njit(cache=True, nogil=NOGIL)
def odds_root(h0: int, h1: int, leader: int, lead: int, need: int, good: int, share: float,
              stamp: int, keys: np.ndarray, vals: np.ndarray, values: np.ndarray, nodes: np.ndarray,
              budget: int) -> bool:
    """Fill ``values[c]`` with seat 0's winning odds after it plays ``c`` (seat 0 to move; others -1).

    ``nodes``: positions valued, and a stop flag another thread may set.  Returns False when
    the search ran out of ``budget`` positions or was stopped (the values are then meaningless).
    """
    values[:] = -1.0
    legal = legal_of(h0, lead)
    while legal:
        c = lowest_card(legal)
        legal &= legal - 1
        c0, c1, cl, cd, cn = _child(h0, h1, leader, lead, need, good, c)
        values[c] = _odds(c0, c1, cl, cd, cn, good, share, stamp, keys, vals, nodes, budget)
    return nodes[0] <= budget and nodes[1] == 0


class _Memo(threading.local):
    """Each thread's memo (searches in parallel threads must not share one) and the next search's stamp.

    Allocated at a thread's first search, not at import: most processes never search a lost endgame.
    """

    def __init__(self) -> None:
        self.arrays: tuple[np.ndarray, np.ndarray] | None = None
        self.stamp = 0

    def begin(self) -> tuple[int, np.ndarray, np.ndarray]:
        """Return a new search's stamp and the memo's keys and values."""
        if self.arrays is None:
            self.arrays = new_memo()
        keys, vals = self.arrays
        self.stamp = (self.stamp + 1) % STAMPS
        if self.stamp == 0:
            keys[:] = -1
        return self.stamp, keys, vals


_MEMO = _Memo()


def win_odds(h0: int, h1: int, leader: int, lead: int, points: tuple[int, int], cfm: bool,
             share: float, budget: int = NODE_BUDGET, seconds: float | None = None) -> dict[int, float] | None:
    """Return each legal card's winning odds for seat 0 (to move), or None if not found in time.

    ``points``: both seats' points so far.  The search gives up after
    ``budget`` positions or ``seconds``.  Each call searches afresh (its own
    stamp on the memo), so the answer depends on the position alone.
    """
    good = 1 if cfm else 0
    values = np.zeros(40, dtype=np.float64)
    nodes = np.zeros(2, dtype=np.int64)  # positions valued, and the stop flag
    # The kernel releases the GIL, so a timer thread can raise its stop flag.
    timer = threading.Timer(max(seconds, 0.0), nodes.__setitem__, (1, 1)) if seconds is not None else None
    if timer is not None:
        timer.start()
    try:
        stamp, keys, vals = _MEMO.begin()
        done = odds_root(h0, h1, leader, lead, WINNING_POINTS - points[good], good, share, stamp, keys, vals, values, nodes,
                         budget)
    finally:
        if timer is not None:
            timer.cancel()
    if not done:
        return None
    return {c: float(values[c]) for c in range(40) if values[c] >= 0}


def odds_reference(deal: Deal, seat: int, share: float) -> float:
    """Return ``seat``'s winning odds in ``deal`` (empty stock) by plain expectimax on the rules engine.

    ``seat`` maximises its odds; the other seat plays its best card with
    probability ``1 - share`` and a uniformly random one with ``share``.  No
    memo, no cut-offs: only for small endgames.
    """
    if deal.is_over:
        return float(deal.outcome().winner == seat)
    results = []
    for card in deal.legal_moves():
        child = deal.copy()
        child.play(card)
        results.append(odds_reference(child, seat, share))
    if deal.to_move == seat:
        return max(results)
    return (1.0 - share) * min(results) + share * sum(results) / len(results)
