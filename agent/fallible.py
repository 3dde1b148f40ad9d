"""Win odds in a known endgame against a fallible opponent.

The exact solver (:mod:`agent.alphabeta`) assumes a perfect opponent, so in a
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

from agent.alphabeta import ACES, FIGURES, _search, new_table
from agent.tables import POINTS_ARR
from agent.world import NOGIL, beats, legal_of, lowest_card, popcount
from tressette import LAST_TRICK_BONUS, TOTAL_POINTS, Deal

WIN = TOTAL_POINTS // 2 + 1
"""The points that win a deal (35 in all, so no draw): the most in Tressette, the opponent's in Kifameno."""
NODE_BUDGET = 3_000_000
"""Positions searched before giving up (the caller then keeps the solver's card): about a second."""
PROOF_CARDS = 8
"""From this many cards in hands on, a position is first tested for a forced win (cheaper than expanding it)."""
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
def _classes(hand: int, other: int, lead: int, out: np.ndarray, counts: np.ndarray) -> int:
    """Fill ``out`` with one legal card per class of equivalent cards and ``counts`` with the class sizes.

    Cards of one suit in ``hand`` with no other live card between them and
    equal points play alike.  Returns the number of classes.
    """
    legal = legal_of(hand, lead)
    live = hand | other
    if lead >= 0:
        live |= np.int64(1) << lead
    n = 0
    for s in range(4):
        group_pts = -1
        for c in range(s * 10, s * 10 + 10):
            if not (live >> c) & 1:
                continue
            if not (legal >> c) & 1:
                group_pts = -1
                continue
            p = POINTS_ARR[c]
            if p == group_pts:
                counts[n - 1] += 1
                continue
            group_pts = p
            out[n] = c
            counts[n] = 1
            n += 1
    return n


@njit(cache=False, nogil=NOGIL)
def _won(h0: int, h1: int, leader: int, need: int, most: int, good: int, tt: np.ndarray, nodes: np.ndarray,
         scratch: np.ndarray) -> bool:
    """Return whether seat 0 wins against any play from a trick boundary (a null-window alpha-beta)."""
    if good == 0:  # Tressette: can seat 0 take ``need`` more points?
        return _search(h0, h1, leader, -1, need - 1, need, False, tt, nodes[1:], scratch) >= need
    # Kifameno: can seat 0 leave the opponent ``need`` more points, taking at most the rest?
    room = most - need
    return _search(h0, h1, leader, -1, room, room + 1, True, tt, nodes[1:], scratch) <= room


# Not cached: numba's cache cannot hold self-recursive functions (loading one crashes).
@njit(cache=False, nogil=NOGIL)
def _odds(h0: int, h1: int, leader: int, lead: int, need: int, good: int, share: float,
          stamp: int, keys: np.ndarray, vals: np.ndarray, nodes: np.ndarray, budget: int,
          tt: np.ndarray, scratch: np.ndarray) -> float:
    """Return seat 0's probability of winning; ``need``: points seat ``good`` still lacks for the win."""
    if need <= 0:
        return 1.0
    live = h0 | h1
    if lead >= 0:
        live |= np.int64(1) << lead
    most = 3 * popcount(live & ACES) + popcount(live & FIGURES) + (LAST_TRICK_BONUS if live else 0)
    if need > most:
        return 0.0
    nodes[0] += 1
    if nodes[0] > budget or nodes[2]:
        return 0.0  # the caller sees the spent budget (or the clock's stop) and discards the result
    key1 = h1 | (leader << 40) | ((lead + 1) << 41) | (need << 47) | (good << 53) | (stamp << 54)
    slot = _slot(h0, key1)
    if keys[slot, 0] == h0 and keys[slot, 1] == key1:
        return vals[slot]
    if lead < 0 and popcount(h0 | h1) >= PROOF_CARDS and _won(h0, h1, leader, need, most, good, tt, nodes, scratch):
        keys[slot, 0] = h0
        keys[slot, 1] = key1
        vals[slot] = 1.0
        return 1.0
    mover = leader if lead < 0 else 1 - leader
    moves = np.empty(10, dtype=np.int64)
    counts = np.empty(10, dtype=np.int64)
    n = _classes(h0 if mover == 0 else h1, h1 if mover == 0 else h0, lead, moves, counts)
    best = -1.0 if mover == 0 else 2.0
    total = 0.0
    weight = 0
    for i in range(n):
        c = moves[i]
        bit = np.int64(1) << c
        n0 = h0 & ~bit if mover == 0 else h0
        n1 = h1 & ~bit if mover == 1 else h1
        if lead < 0:
            v = _odds(n0, n1, leader, c, need, good, share, stamp, keys, vals, nodes, budget, tt, scratch)
        else:
            winner = 1 - leader if beats(c, lead) else leader
            pts = POINTS_ARR[lead] + POINTS_ARR[c] + (LAST_TRICK_BONUS if (n0 | n1) == 0 else 0)
            v = _odds(n0, n1, winner, -1, need - pts if winner == good else need, good, share,
                      stamp, keys, vals, nodes, budget, tt, scratch)
        weight += counts[i]
        total += counts[i] * v
        if mover == 0:
            if v > best:
                best = v
            if best >= 1.0:
                break
        elif v < best:
            best = v
    value = best if mover == 0 else (1.0 - share) * best + share * total / weight
    if nodes[0] <= budget and not nodes[2]:
        keys[slot, 0] = h0
        keys[slot, 1] = key1
        vals[slot] = value
    return value


@njit(cache=False, nogil=NOGIL)
def odds_root(h0: int, h1: int, leader: int, lead: int, need: int, good: int, share: float,
              stamp: int, keys: np.ndarray, vals: np.ndarray, values: np.ndarray, nodes: np.ndarray,
              budget: int, tt: np.ndarray) -> bool:
    """Fill ``values[c]`` with seat 0's winning odds after it plays ``c`` (seat 0 to move; others -1).

    ``nodes``: positions valued, the solver's nodes, and a stop flag another thread may set.  Returns
    False when the search ran out of ``budget`` positions or was stopped (the values are then meaningless).
    """
    values[:] = -1.0
    scratch = np.empty((41, 20), dtype=np.int64)
    legal = legal_of(h0, lead)
    while legal:
        c = lowest_card(legal)
        legal &= legal - 1
        bit = np.int64(1) << c
        n0 = h0 & ~bit
        if lead < 0:
            values[c] = _odds(n0, h1, leader, c, need, good, share, stamp, keys, vals, nodes, budget, tt, scratch)
        else:
            winner = 0 if beats(c, lead) else 1  # seat 1 led
            pts = POINTS_ARR[lead] + POINTS_ARR[c] + (LAST_TRICK_BONUS if (n0 | h1) == 0 else 0)
            values[c] = _odds(n0, h1, winner, -1, need - pts if winner == good else need, good, share,
                              stamp, keys, vals, nodes, budget, tt, scratch)
    return nodes[0] <= budget and nodes[2] == 0


class _Memo(threading.local):
    """Each thread's memo (searches in parallel threads must not share one) and the next search's stamp."""

    def __init__(self) -> None:
        self.keys, self.vals = new_memo()
        self.stamp = 0
        self.table = new_table()  # the solver's: its entries stay true across searches

    def next_stamp(self) -> int:
        self.stamp = (self.stamp + 1) % STAMPS
        if self.stamp == 0:
            self.keys[:] = -1
        return self.stamp


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
    nodes = np.zeros(3, dtype=np.int64)
    # The kernel releases the GIL, so a timer thread can raise its stop flag.
    timer = threading.Timer(max(seconds, 0.0), nodes.__setitem__, (2, 1)) if seconds is not None else None
    if timer is not None:
        timer.start()
    try:
        done = odds_root(h0, h1, leader, lead, WIN - points[good], good, share, _MEMO.next_stamp(), _MEMO.keys,
                         _MEMO.vals, values, nodes, budget, _MEMO.table)
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
        return float(deal.variant.winner(deal.points) == seat)
    results = []
    for card in deal.legal_moves():
        child = deal.copy()
        child.play(card)
        results.append(odds_reference(child, seat, share))
    if deal.to_move == seat:
        return max(results)
    return (1.0 - share) * min(results) + share * sum(results) / len(results)
