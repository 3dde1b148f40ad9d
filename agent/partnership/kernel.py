"""The compiled double-dummy search (numba): four hands as bitmasks, the trick as a few integers.

The same search as :class:`agent.partnership.solver_ref.ReferenceSolver` (minimax on
partnership 0's thirds still to come, fail-soft alpha-beta, a transposition table at each
trick's start keyed by relative ranks, equivalent cards searched once, the same move order and
the same cut on the points still out), with
principal variation search, written as a loop over an explicit stack of plies: numba cannot
cache a self-recursive function (see :mod:`agent.search.solver`).  The card tables come from
the rules package through :mod:`agent.kernels.cards`.

A trick in progress is ``(ntab, tmask, wseat, wcard, tpts)``: the cards on the table, their
mask, the seat and card winning it so far, and their points (all 0 or -1 before the lead).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agent.kernels.cards import POINTS_ARR, SUIT_ARR, SUIT_MASKS
from agent.kernels.world import NOGIL, beats, legal_of, nth_card, popcount
from agent.search.solver import points_left
from tressette.cards import LAST_TRICK_BONUS

INF = 1000
MAX_PLIES = 42
"""A search's depth: at most 40 cards to play, the position before them, and a spare."""
TT_COLUMNS = 7
"""A table row: the key's four words (:func:`canonical_key`), lower bound, upper bound, and the cards still in
hands * 256 + the best card's place (its suit * 16 + its index among the suit's live cards, strongest first).

Rows go in buckets of two: the first keeps the position with the most cards left (the costliest to search
again), the second the latest (a bucket cut the positions searched on full deals by 1.5 %)."""


def new_table(bits: int = 20) -> np.ndarray:
    """Return an empty transposition table of ``2**bits`` rows (56 MB at the default 20)."""
    tt = np.zeros((1 << bits, TT_COLUMNS), dtype=np.int64)
    tt[:, 0] = -1
    return tt


@njit(cache=True, nogil=NOGIL)
def _shift(rows: int) -> int:
    bits = 0
    while (1 << bits) < rows:
        bits += 1
    return 64 - bits


@njit(cache=True, nogil=NOGIL)
def _slot(key: np.ndarray, shift: int) -> int:
    x = (np.uint64(key[0]) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(key[1]) * np.uint64(0xC2B2AE3D27D4EB4F)
         ^ np.uint64(key[2]) * np.uint64(0x165667B19E3779F9) ^ np.uint64(key[3]) * np.uint64(0xD6E8FEB86659FD93))
    return np.int64(x >> np.uint64(shift)) & ~np.int64(1)  # type: ignore[return-value]


@njit(cache=True, nogil=NOGIL)
def _find(tt: np.ndarray, bucket: int, key: np.ndarray) -> int:
    """Return the row of ``key`` in its bucket of two rows, -1 when absent."""
    for row in range(bucket, bucket + 2):
        if tt[row, 0] == key[0] and tt[row, 1] == key[1] and tt[row, 2] == key[2] and tt[row, 3] == key[3]:
            return row
    return -1


@njit(cache=True, nogil=NOGIL)
def canonical_key(hands: np.ndarray, leader: int, key: np.ndarray) -> None:
    """Fill ``key`` (4 words) with a trick start's key by relative ranks: positions that differ only in
    which cards were played, not in the order, owners and points of the cards still live, share it.

    Word ``s`` lists suit ``s``'s live cards strongest first, 5 bits each (a set bit, the owner, the
    points' class); the leader goes in the top bits of word 3.
    """
    live = hands[0] | hands[1] | hands[2] | hands[3]
    for s in range(4):
        word = np.int64(0)
        m = live & SUIT_MASKS[s]
        while m:
            low = m & -m
            m ^= low
            seat = 0 if hands[0] & low else (1 if hands[1] & low else (2 if hands[2] & low else 3))
            p = POINTS_ARR[popcount(low - 1)]
            word = (word << 5) | 16 | (seat << 2) | (2 if p > 1 else p)
        key[s] = word
    key[3] |= np.int64(leader) << 52


@njit(cache=True, nogil=NOGIL)
def ordered_moves(hands: np.ndarray, mover: int, ntab: int, tmask: int, wseat: int, wcard: int, tpts: int,
                  hint: int, out: np.ndarray, scores: np.ndarray) -> int:
    """Fill ``out`` with one legal card of ``mover`` per class of equivalent cards, likeliest best first.

    Returns the count.  The classes and the order are the reference's
    (:meth:`~agent.partnership.position.OpenPosition.classes`, :func:`~agent.partnership.solver_ref.ordered_cards`).
    """
    hand = hands[mover]
    legal = legal_of(hand, wcard if ntab > 0 else -1)
    others = tmask
    for s in range(4):
        if s != mover:
            others |= hands[s]
    # Second to play: the partner, last, surely takes the trick when it holds the suit's best card still out.
    partner_takes = False
    if ntab == 1:
        led = SUIT_MASKS[SUIT_ARR[wcard]]
        rest = (others | hand) & led & ~tmask
        partner_takes = (hands[(mover + 2) % 4] & (rest & -rest)) != 0 and (rest & -rest) < (np.int64(1) << wcard)
    n = 0
    for suit in range(4):
        run = 0  # the point values (as bits) the current run already has a card of
        for c in range(suit * 10, suit * 10 + 10):
            if (others >> c) & 1:
                run = 0
            elif (legal >> c) & 1:
                p = POINTS_ARR[c]
                if (run >> p) & 1:
                    continue
                run |= 1 << p
                if c == hint:
                    sc = 10_000
                elif ntab == 0:
                    above = others & SUIT_MASKS[suit] & ((np.int64(1) << c) - 1)
                    if above and hands[(mover + 2) % 4] & (above & -above):
                        sc = 150 + c % 10 - 10 * p  # the partner holds the suit's best card: lead low to it
                    elif above:
                        sc = 100 + c % 10 - 10 * p  # others hold a stronger card: lead low and cheap
                    else:
                        sc = 200 + 10 * p + c % 10  # the strongest card out: a sure trick: the dearest, then the weakest
                elif not beats(c, wcard) and (wseat % 2 == mover % 2 or partner_takes):
                    sc = 500 + 10 * p + c % 10  # the partner wins it (or will: the suit's best card): load it
                elif beats(c, wcard):
                    # Taking it: sure when the one opponent still to play (the next seat) holds nothing stronger.
                    nxt = hands[(mover + 1) % 4] if ntab < 3 else 0
                    if nxt & SUIT_MASKS[SUIT_ARR[wcard]] & ((np.int64(1) << c) - 1):
                        sc = 300 + p
                    else:
                        sc = 1000 + 10 * (tpts + p) + c % 10
                else:
                    sc = 100 - 10 * p + c % 10  # the opponents win it: throw cheap and weak
                # Insertion in place, best first (at most 10 cards).
                j = n
                while j > 0 and scores[j - 1] < sc:
                    out[j] = out[j - 1]
                    scores[j] = scores[j - 1]
                    j -= 1
                out[j] = c
                scores[j] = sc
                n += 1
    return n


@njit(cache=True, nogil=NOGIL)
def search(h0: int, h1: int, h2: int, h3: int, leader: int, ntab: int, tmask: int, wseat: int, wcard: int,
           tpts: int, alpha: int, beta: int, tt: np.ndarray, nodes: np.ndarray) -> int:
    """Return partnership 0's thirds still to come under best play, fail-soft within (alpha, beta).

    ``nodes[0]`` counts the positions visited.  ``tt`` is :func:`new_table`'s (any power of two rows).
    """
    shift = _shift(tt.shape[0])
    f_h = np.empty((MAX_PLIES, 4), dtype=np.int64)
    f_leader = np.empty(MAX_PLIES, dtype=np.int64)
    f_ntab = np.empty(MAX_PLIES, dtype=np.int64)
    f_tmask = np.empty(MAX_PLIES, dtype=np.int64)
    f_wseat = np.empty(MAX_PLIES, dtype=np.int64)
    f_wcard = np.empty(MAX_PLIES, dtype=np.int64)
    f_tpts = np.empty(MAX_PLIES, dtype=np.int64)
    f_alpha = np.empty(MAX_PLIES, dtype=np.int64)
    f_beta = np.empty(MAX_PLIES, dtype=np.int64)
    f_a = np.empty(MAX_PLIES, dtype=np.int64)
    f_b = np.empty(MAX_PLIES, dtype=np.int64)
    f_best = np.empty(MAX_PLIES, dtype=np.int64)
    f_best_move = np.empty(MAX_PLIES, dtype=np.int64)
    f_i = np.empty(MAX_PLIES, dtype=np.int64)
    f_n = np.empty(MAX_PLIES, dtype=np.int64)
    f_phase = np.empty(MAX_PLIES, dtype=np.int64)  # the child under way: 0 full window, 1 null window, 2 re-search
    f_gain = np.empty(MAX_PLIES, dtype=np.int64)
    f_slot = np.empty(MAX_PLIES, dtype=np.int64)
    f_key = np.empty((MAX_PLIES, 4), dtype=np.int64)
    f_max = np.empty(MAX_PLIES, dtype=np.bool_)
    moves = np.empty((MAX_PLIES, 10), dtype=np.int64)
    scores = np.empty(10, dtype=np.int64)
    d = 0
    f_h[0, 0] = h0
    f_h[0, 1] = h1
    f_h[0, 2] = h2
    f_h[0, 3] = h3
    f_leader[0] = leader
    f_ntab[0] = ntab
    f_tmask[0] = tmask
    f_wseat[0] = wseat
    f_wcard[0] = wcard
    f_tpts[0] = tpts
    f_alpha[0] = alpha
    f_beta[0] = beta
    entering = True
    value = 0  # the value the ply just left returned to its parent
    while True:
        if entering:
            # A ply is entered: the checks that may decide it at once, then its ordered moves.
            nodes[0] += 1
            hands = f_h[d]
            p_ntab = f_ntab[d]
            al = f_alpha[d]
            be = f_beta[d]
            live = hands[0] | hands[1] | hands[2] | hands[3]
            done = False
            if live == 0 and p_ntab == 0:
                value = 0
                done = True
            else:
                # Partnership 0's thirds to come lie in [0, everything still out]: a window outside is decided.
                most = points_left(live | f_tmask[d])
                if al >= most:
                    value = most
                    done = True
                elif be <= 0:
                    value = 0
                    done = True
            slot = -1
            hint = -1
            if not done and p_ntab == 0:
                key = f_key[d]
                canonical_key(hands, f_leader[d], key)
                slot = _slot(key, shift)
                row = _find(tt, slot, key)
                if row >= 0:
                    lo = tt[row, 4]
                    hi = tt[row, 5]
                    if lo >= be or lo == hi:
                        value = lo
                        done = True
                    elif hi <= al:
                        value = hi
                        done = True
                    else:
                        al = max(al, lo)
                        be = min(be, hi)
                        # The best card is stored by its suit and place among the suit's live cards.
                        place = tt[row, 6] & 255
                        hint = nth_card(live & SUIT_MASKS[place // 16], place % 16)
            if done:
                d -= 1
                entering = False
                if d < 0:
                    return value
                continue
            mover = (f_leader[d] + p_ntab) % 4
            n = ordered_moves(hands, mover, p_ntab, f_tmask[d], f_wseat[d], f_wcard[d], f_tpts[d], hint,
                              moves[d], scores)
            maximise = mover % 2 == 0
            f_alpha[d] = al
            f_beta[d] = be
            f_a[d] = al
            f_b[d] = be
            f_best[d] = -INF if maximise else INF
            f_best_move[d] = -1
            f_i[d] = 0
            f_n[d] = n
            f_slot[d] = slot
            f_max[d] = maximise
            next_child = n > 0
        else:
            # A child returned ``value``: re-search it, or take it and move on to the next card.
            gain = f_gain[d]
            v = gain + value
            a = f_a[d]
            b = f_b[d]
            if f_phase[d] == 1 and a < v < b:  # better than the null window asked: search it again, fully
                f_phase[d] = 2  # (the child's position is still in its frame: a ply never writes its own)
                f_alpha[d + 1] = a - gain
                f_beta[d + 1] = b - gain
                d += 1
                entering = True
                continue
            c = moves[d, f_i[d]]
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
            c = moves[d, i]
            p_ntab = f_ntab[d]
            p_leader = f_leader[d]
            mover = (p_leader + p_ntab) % 4
            for s in range(4):
                f_h[d + 1, s] = f_h[d, s]
            f_h[d + 1, mover] &= ~(np.int64(1) << c)
            gain = 0
            if p_ntab == 0:
                f_leader[d + 1] = p_leader
                f_ntab[d + 1] = 1
                f_tmask[d + 1] = np.int64(1) << c
                f_wseat[d + 1] = mover
                f_wcard[d + 1] = c
                f_tpts[d + 1] = POINTS_ARR[c]
            else:
                takes = beats(c, f_wcard[d])
                wseat_n = mover if takes else f_wseat[d]
                pts = f_tpts[d] + POINTS_ARR[c]
                if p_ntab < 3:
                    f_leader[d + 1] = p_leader
                    f_ntab[d + 1] = p_ntab + 1
                    f_tmask[d + 1] = f_tmask[d] | (np.int64(1) << c)
                    f_wseat[d + 1] = wseat_n
                    f_wcard[d + 1] = c if takes else f_wcard[d]
                    f_tpts[d + 1] = pts
                else:
                    if (f_h[d + 1, 0] | f_h[d + 1, 1] | f_h[d + 1, 2] | f_h[d + 1, 3]) == 0:
                        pts += LAST_TRICK_BONUS
                    gain = pts if wseat_n % 2 == 0 else 0
                    f_leader[d + 1] = wseat_n
                    f_ntab[d + 1] = 0
                    f_tmask[d + 1] = 0
                    f_wseat[d + 1] = -1
                    f_wcard[d + 1] = -1
                    f_tpts[d + 1] = 0
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
            f_alpha[d + 1] = lo_w
            f_beta[d + 1] = hi_w
            d += 1
            entering = True
            continue
        # Every card searched (or a cut-off): store the bound, return the value to the parent.
        best = f_best[d]
        slot = f_slot[d]
        if slot >= 0:
            key = f_key[d]
            lo = 0
            hi = INF
            hands = f_h[d]
            live = hands[0] | hands[1] | hands[2] | hands[3]
            size = popcount(live)
            row = _find(tt, slot, key)
            if row >= 0:
                lo = tt[row, 4]
                hi = tt[row, 5]
            elif tt[slot, 0] < 0 or size >= tt[slot, 6] >> 8:
                row = slot  # the bucket's first row keeps the bigger searches, the second the latest
            else:
                row = slot + 1
            if best <= f_alpha[d]:
                hi = min(hi, best)
            elif best >= f_beta[d]:
                lo = max(lo, best)
            else:
                lo = best
                hi = best
            c = f_best_move[d]
            tt[row, 0] = key[0]
            tt[row, 1] = key[1]
            tt[row, 2] = key[2]
            tt[row, 3] = key[3]
            tt[row, 4] = lo
            tt[row, 5] = hi
            tt[row, 6] = ((size << 8) | (c // 10) * 16
                          + popcount(live & SUIT_MASKS[c // 10] & ((np.int64(1) << c) - 1)))
        value = best
        d -= 1
        entering = False
        if d < 0:
            return value

