"""Exact endgame solver: alpha-beta over the remaining tricks once every card is known.

Minimax on seat 0's points still to come (seat 0 is the agent).  The mover is
chosen by the trick winner.  In Tressette seat 0 maximises them, in Kifameno
it minimises them; the opponent does the opposite.  Since a deal's points are
fixed, the points-optimal line is also win-optimal, and among winning (or
losing) moves it is the one with the best score.

Speed: a persistent transposition table keyed on (both hands, leader,
variant) at trick boundaries (entries are facts about a position, so they stay
true across searches), move ordering, and merging of equivalent cards (one
hand's cards of a suit with no other live card between them and equal points
play alike).  ``solve_reference`` is the readable pure-Python path the
compiled one is checked against.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agent.kernels.cards import POINTS_ARR
from agent.kernels.world import NOGIL, beats, legal_mask, legal_of, popcount
from tressette import ACE_POINTS, LAST_TRICK_BONUS, POINTS, Card, Deal, mask_of

FIGURE_POINTS = min(p for p in POINTS if p > 0)
ACES = mask_of(c for c in range(40) if POINTS[c] == ACE_POINTS)
FIGURES = mask_of(c for c in range(40) if POINTS[c] == FIGURE_POINTS)
assert set(POINTS) == {0, FIGURE_POINTS, ACE_POINTS}  # what points_left counts
TT_BITS = 18
TT_SIZE = 1 << TT_BITS
INF = 1000


def new_table() -> np.ndarray:
    """Return an empty transposition table (rows: key0, key1, lower bound, upper bound, best card)."""
    tt = np.zeros((TT_SIZE, 5), dtype=np.int64)
    tt[:, 0] = -1
    return tt


@njit(cache=True, nogil=NOGIL)
def _slot(h0: int, key1: int) -> int:
    x = np.uint64(h0) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(key1) * np.uint64(0xC2B2AE3D27D4EB4F)
    return np.int64(x >> np.uint64(64 - TT_BITS))  # type: ignore[return-value]


@njit(cache=True, nogil=NOGIL)
def after_card(card: int, leader: int, lead: int, left: int) -> tuple[int, int, int]:
    """Return (leader, lead card or -1, the points the leader just took) once ``card`` is played.

    ``left``: the cards still in hands.  When ``card`` leads, nobody takes anything yet.
    """
    if lead < 0:
        return leader, card, 0
    winner = 1 - leader if beats(card, lead) else leader
    pts = POINTS_ARR[lead] + POINTS_ARR[card]
    if left == 0:
        pts += LAST_TRICK_BONUS
    return winner, -1, pts


@njit(cache=True, nogil=NOGIL)
def _after(card: int, leader: int, lead: int, left: int) -> tuple[int, int, int]:
    """Return (leader, lead card or -1, seat 0's points) once ``card`` is played; ``left``: cards still in hands."""
    next_leader, next_lead, pts = after_card(card, leader, lead, left)
    return next_leader, next_lead, pts if next_leader == 0 else 0


@njit(cache=True, nogil=NOGIL)
def points_left(live: int) -> int:
    """Return the points still to take with the cards ``live`` (in hands or on the table) out."""
    return (ACE_POINTS * popcount(live & ACES) + FIGURE_POINTS * popcount(live & FIGURES)
            + (LAST_TRICK_BONUS if live else 0))


# Inlined: the solver calls it at every node, where a call costs a fifth of its time.
@njit(cache=True, nogil=NOGIL, inline="always")
def card_classes(hand: int, other: int, lead: int, out: np.ndarray, counts: np.ndarray) -> int:
    """Fill ``out`` with one legal card of ``hand`` per class of equivalent cards, ``counts`` with the
    class sizes; return the number of classes.

    Cards of one suit in ``hand`` with no other live card (``other``'s, or ``lead`` on the table)
    between them and equal points play alike.
    """
    legal = legal_of(hand, lead)
    live = hand | other
    if lead >= 0:
        live |= 1 << lead
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


@njit(cache=True, nogil=NOGIL)
def _ordered_moves(h0: int, h1: int, leader: int, lead: int, cfm: bool, out: np.ndarray, scores: np.ndarray) -> int:
    """Fill ``out`` with one card per class of equivalent legal cards, best-first; return the count.

    ``scores`` is scratch space for 10 values.
    """
    mover = leader if lead < 0 else 1 - leader
    # ``scores`` holds the class sizes until each class's score replaces its size.
    n = card_classes(h0 if mover == 0 else h1, h1 if mover == 0 else h0, lead, out, scores)
    for i in range(n):
        c = out[i]
        p = POINTS_ARR[c]
        # Score: want points for myself in Tressette, fewer in Kifameno.
        if lead >= 0:
            sc = 100 + POINTS_ARR[lead] + p if beats(c, lead) else 50 - p
            if cfm:
                sc = -sc
        else:
            sc = p * 10 - (c % 10)
        scores[i] = sc
    # Insertion sort by score, best first (n <= 10).
    for i in range(1, n):
        c = out[i]
        sc = scores[i]
        j = i - 1
        while j >= 0 and scores[j] < sc:
            out[j + 1] = out[j]
            scores[j + 1] = scores[j]
            j -= 1
        out[j + 1] = c
        scores[j + 1] = sc
    return n


MAX_PLIES = 41
"""A search's depth: at most 40 cards left to play, and the position before them."""


@njit(cache=True, nogil=NOGIL)
def _search(h0: int, h1: int, leader: int, lead: int, alpha: int, beta: int, cfm: bool,
            tt: np.ndarray, nodes: np.ndarray, scratch: np.ndarray) -> int:
    """Return seat 0's points still to come under best play, within the (alpha, beta) window.

    Alpha-beta with principal variation search, written as a loop over an explicit stack of
    plies instead of recursion: numba cannot cache a self-recursive function (loading one
    crashes), and compiling it took every process about 4.5 s before its first endgame.
    Each ply's frame holds what a recursive search keeps in its locals. ``scratch``
    (int64[41, 20]) holds each depth's move list, so no node allocates memory.
    """
    # The frames: the position and window a ply was entered with, then its search state.
    f_h0 = np.empty(MAX_PLIES, dtype=np.int64)
    f_h1 = np.empty(MAX_PLIES, dtype=np.int64)
    f_leader = np.empty(MAX_PLIES, dtype=np.int64)
    f_lead = np.empty(MAX_PLIES, dtype=np.int64)
    f_alpha = np.empty(MAX_PLIES, dtype=np.int64)
    f_beta = np.empty(MAX_PLIES, dtype=np.int64)
    f_a = np.empty(MAX_PLIES, dtype=np.int64)
    f_b = np.empty(MAX_PLIES, dtype=np.int64)
    f_best = np.empty(MAX_PLIES, dtype=np.int64)
    f_best_move = np.empty(MAX_PLIES, dtype=np.int64)
    f_i = np.empty(MAX_PLIES, dtype=np.int64)
    f_n = np.empty(MAX_PLIES, dtype=np.int64)
    f_row = np.empty(MAX_PLIES, dtype=np.int64)
    f_phase = np.empty(MAX_PLIES, dtype=np.int64)  # the child under way: 0 full window, 1 null window, 2 re-search
    f_gain = np.empty(MAX_PLIES, dtype=np.int64)
    f_slot = np.empty(MAX_PLIES, dtype=np.int64)
    f_key1 = np.empty(MAX_PLIES, dtype=np.int64)
    f_mover = np.empty(MAX_PLIES, dtype=np.int64)
    f_max = np.empty(MAX_PLIES, dtype=np.bool_)
    d = 0
    f_h0[0] = h0
    f_h1[0] = h1
    f_leader[0] = leader
    f_lead[0] = lead
    f_alpha[0] = alpha
    f_beta[0] = beta
    entering = True
    value = 0  # the value the ply just left returned to its parent
    while True:
        if entering:
            # A ply is entered: the checks that may decide it at once, then its ordered moves.
            nodes[0] += 1
            p0 = f_h0[d]
            p1 = f_h1[d]
            p_leader = f_leader[d]
            p_lead = f_lead[d]
            al = f_alpha[d]
            be = f_beta[d]
            done = False
            if p0 == 0 and p1 == 0:
                value = 0
                done = True
            else:
                # Seat 0's points to come lie in [0, everything still out]: a window outside that is decided.
                live = p0 | p1
                if p_lead >= 0:
                    live |= np.int64(1) << p_lead
                most = points_left(live)
                if al >= most:
                    value = most
                    done = True
                elif be <= 0:
                    value = 0
                    done = True
            slot = -1
            key1 = 0
            hint = -1
            if not done and p_lead < 0:
                key1 = p1 | (p_leader << 40) | ((1 if cfm else 0) << 41)
                slot = _slot(p0, key1)
                if tt[slot, 0] == p0 and tt[slot, 1] == key1:
                    lo = tt[slot, 2]
                    hi = tt[slot, 3]
                    if lo >= be:
                        value = lo
                        done = True
                    elif hi <= al:
                        value = hi
                        done = True
                    elif lo == hi:
                        value = lo
                        done = True
                    else:
                        al = max(al, lo)
                        be = min(be, hi)
                        hint = tt[slot, 4]
            if done:
                d -= 1
                entering = False
                if d < 0:
                    return value
                continue
            mover = p_leader if p_lead < 0 else 1 - p_leader
            # The cards still in hands shrink by one per ply: a row of scratch space per count.
            row_index = popcount(p0 | p1)
            row = scratch[row_index]
            moves = row[:10]
            n = _ordered_moves(p0, p1, p_leader, p_lead, cfm, moves, row[10:])
            if hint >= 0:
                for i in range(1, n):
                    if moves[i] == hint:
                        moves[i] = moves[0]
                        moves[0] = hint
                        break
            maximise = (mover == 0) != cfm
            f_alpha[d] = al
            f_beta[d] = be
            f_a[d] = al
            f_b[d] = be
            f_best[d] = -INF if maximise else INF
            f_best_move[d] = -1
            f_i[d] = 0
            f_n[d] = n
            f_row[d] = row_index
            f_slot[d] = slot
            f_key1[d] = key1
            f_mover[d] = mover
            f_max[d] = maximise
            next_child = n > 0
        else:
            # A child returned ``value``: re-search it, or take it and move on to the next card.
            v = f_gain[d] + value
            a = f_a[d]
            b = f_b[d]
            gain = f_gain[d]
            if f_phase[d] == 1 and a < v < b:  # better than the null window asked: search it again, fully
                f_phase[d] = 2  # (the child's position is still in its frame: a ply never writes its own)
                f_alpha[d + 1] = a - gain
                f_beta[d + 1] = b - gain
                d += 1
                entering = True
                continue
            c = scratch[f_row[d], f_i[d]]
            if f_max[d]:
                if v > f_best[d]:
                    f_best[d] = v
                    f_best_move[d] = c
                if f_best[d] > a:
                    f_a[d] = f_best[d]
            else:
                if v < f_best[d]:
                    f_best[d] = v
                    f_best_move[d] = c
                if f_best[d] < b:
                    f_b[d] = f_best[d]
            f_i[d] += 1
            next_child = f_a[d] < f_b[d] and f_i[d] < f_n[d]
        if next_child:
            # The next card: the first gets the full window, the others a null window that only asks
            # "is it better?" (principal variation search), re-searched when it is.
            i = f_i[d]
            c = scratch[f_row[d], i]
            bit = np.int64(1) << c
            mover = f_mover[d]
            p0 = f_h0[d]
            p1 = f_h1[d]
            n0 = p0 & ~bit if mover == 0 else p0
            n1 = p1 & ~bit if mover == 1 else p1
            next_leader, next_lead, gain = _after(c, f_leader[d], f_lead[d], n0 | n1)
            a = f_a[d]
            b = f_b[d]
            f_gain[d] = gain
            if i == 0:
                f_phase[d] = 0
                lo_w = a - gain
                hi_w = b - gain
            elif f_max[d]:
                f_phase[d] = 1
                lo_w = a - gain
                hi_w = a + 1 - gain
            else:
                f_phase[d] = 1
                lo_w = b - 1 - gain
                hi_w = b - gain
            f_h0[d + 1] = n0
            f_h1[d + 1] = n1
            f_leader[d + 1] = next_leader
            f_lead[d + 1] = next_lead
            f_alpha[d + 1] = lo_w
            f_beta[d + 1] = hi_w
            d += 1
            entering = True
            continue
        # Every card searched (or a cut-off): store the bound, return the value to the parent.
        best = f_best[d]
        slot = f_slot[d]
        if slot >= 0:
            p0 = f_h0[d]
            key1 = f_key1[d]
            lo = 0
            hi = INF
            if tt[slot, 0] == p0 and tt[slot, 1] == key1:
                lo = tt[slot, 2]
                hi = tt[slot, 3]
            if best <= f_alpha[d]:
                hi = min(hi, best)
            elif best >= f_beta[d]:
                lo = max(lo, best)
            else:
                lo = best
                hi = best
            tt[slot, 0] = p0
            tt[slot, 1] = key1
            tt[slot, 2] = lo
            tt[slot, 3] = hi
            tt[slot, 4] = f_best_move[d]
        value = best
        d -= 1
        entering = False
        if d < 0:
            return value


@njit(cache=True, nogil=NOGIL)
def solve_root(h0: int, h1: int, leader: int, lead: int, cfm: bool, tt: np.ndarray,
               values: np.ndarray, nodes: np.ndarray, exact_all: bool = False) -> int:
    """Solve exactly; return the best card for seat 0, which must be to move.

    ``values[c]`` gets seat 0's points to come after seat 0 plays ``c``: exact
    for the best card, and for every legal card when ``exact_all``; otherwise a
    bound showing the card is no better.  Cards not legal keep -1.
    """
    values[:] = -1
    scratch = np.empty((41, 20), dtype=np.int64)
    w = np.empty(9, dtype=np.int64)
    w[0] = h0
    w[1] = h1
    w[2] = leader
    w[3] = lead
    legal = legal_mask(w)
    best_card = -1
    best = -INF
    for c in range(40):
        if not (legal >> c) & 1:
            continue
        bit = np.int64(1) << c
        n0 = h0 & ~bit
        # Only a better card matters unless every value is wanted: a null window asks "is it
        # better?", and only a card that is gets searched again for its exact value.
        next_leader, next_lead, gain = _after(c, leader, lead, n0 | h1)
        if exact_all or best_card < 0:
            v = gain + _search(n0, h1, next_leader, next_lead, -INF - gain, INF - gain, cfm, tt, nodes, scratch)
        else:
            bound = -best if cfm else best
            lo = bound - 1 if cfm else bound
            v = gain + _search(n0, h1, next_leader, next_lead, lo - gain, lo + 1 - gain, cfm, tt, nodes, scratch)
            if (v < bound) if cfm else (v > bound):
                v = gain + _search(n0, h1, next_leader, next_lead, -INF - gain, INF - gain, cfm, tt, nodes, scratch)
        values[c] = v
        score = -v if cfm else v
        if best_card < 0 or score > best:
            best = score
            best_card = c
    return best_card


@njit(cache=True, nogil=NOGIL)
def solve_value(h0: int, h1: int, leader: int, lead: int, cfm: bool, tt: np.ndarray, nodes: np.ndarray) -> int:
    """Return seat 0's points to come under best play from any position (either seat to move)."""
    return _search(h0, h1, leader, lead, -INF, INF, cfm, tt, nodes, np.empty((41, 20), dtype=np.int64))


def solve_reference(deal: Deal, seat: int) -> int:
    """Return ``seat``'s final points under best play by plain minimax on the rules engine.

    The readable reference: no pruning, no table, no merging; exponential, so
    only for small endgames.  ``deal`` must have an empty stock.
    """
    if deal.is_over:
        return deal.points[seat]
    cfm = deal.variant.cfm
    maximise = (deal.to_move == seat) != cfm
    results = []
    for card in deal.legal_moves():
        child = deal.copy()
        child.play(card)
        results.append(solve_reference(child, seat))
    return max(results) if maximise else min(results)


def card_values_reference(deal: Deal) -> dict[Card, int]:
    """Return the mover's final points after each legal card, by plain minimax (small endgames only)."""
    seat = deal.to_move
    values = {}
    for card in deal.legal_moves():
        child = deal.copy()
        child.play(card)
        values[card] = solve_reference(child, seat)
    return values


def best_cards_reference(deal: Deal, seat: int) -> tuple[int, list[Card]]:
    """Return (best final points, every optimal card) for ``seat`` to move, by plain minimax."""
    assert deal.to_move == seat
    values = card_values_reference(deal)
    pick = min if deal.variant.cfm else max
    best = pick(values.values())
    return best, sorted(c for c, v in values.items() if v == best)


def count_cards(mask: int) -> int:
    """Return the number of cards in a mask (compiled popcount, for callers in Python)."""
    return int(popcount(mask))
