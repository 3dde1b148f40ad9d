"""The compiled double-dummy solver: :class:`~agent.partnership.solver_ref.ReferenceSolver`'s answers, fast.

The search itself is :func:`agent.partnership.kernel.search`; this module asks it about each
card of the mover, as the reference does, and keeps its transposition table between calls
(entries are facts about positions, true in any search).  The tests hold it to the reference
on seeded positions.

>>> import random
>>> from tressette.partnership import PartnershipDeal
>>> deal = PartnershipDeal.new(0, random.Random(3))
>>> while deal.trick_number < 7:
...     _ = deal.play(deal.legal_moves()[0])
>>> solution = DoubleDummySolver().solve(OpenPosition.from_deal(deal))
>>> sum(solution.points)
35
"""

from __future__ import annotations

import random

import numpy as np

from agent.partnership.kernel import INF, new_table, search
from agent.partnership.position import OpenPosition
from agent.partnership.solver_ref import Solution, final_points, ordered_cards
from tressette.cards import POINTS, Card
from tressette.partnership import N_SEATS, PartnershipDeal, partnership_of, trick_winner


def kernel_trick(position: OpenPosition) -> tuple[int, int, int, int, int]:
    """Return the trick in progress as the kernel holds it: (ntab, tmask, wseat, wcard, tpts)."""
    if not position.table:
        return 0, 0, -1, -1, 0
    seat = trick_winner(position.leader, position.table)
    tmask = 0
    for c in position.table:
        tmask |= 1 << c
    return (len(position.table), tmask, seat, position.table[(seat - position.leader) % N_SEATS],
            sum(POINTS[c] for c in position.table))


class DoubleDummySolver:
    """The compiled solver, with its transposition table (``bits``: the table holds ``2**bits`` rows).

    Not thread-safe: one solver per thread.
    """

    def __init__(self, bits: int = 20) -> None:
        """Allocate the table (56 MB at the default 20 bits)."""
        self.table = new_table(bits)
        self.nodes = np.zeros(1, dtype=np.int64)

    def clear(self) -> None:
        """Empty the table (for timings from a cold start; the entries are never wrong)."""
        self.table[:, 0] = -1

    def future(self, position: OpenPosition, alpha: int = -INF, beta: int = INF) -> int:
        """Return partnership 0's thirds still to come under best play, fail-soft within (alpha, beta)."""
        h = position.hands
        ntab, tmask, wseat, wcard, tpts = kernel_trick(position)
        return int(search(h[0], h[1], h[2], h[3], position.leader, ntab, tmask, wseat, wcard, tpts,
                          alpha, beta, self.table, self.nodes))

    def value(self, position: OpenPosition) -> int:
        """Return partnership 0's final thirds under best play by both."""
        return position.points[0] + self.future(position)

    def solve(self, position: OpenPosition, exact_all: bool = True) -> Solution:
        """Return the position's :class:`Solution`; the deal must not be over.

        With ``exact_all`` every legal card's value is exact; without, only the best
        cards' are, and another card's value is a bound showing it is no better (faster:
        for play, where only a best card matters).
        """
        mover = position.to_move
        side = partnership_of(mover)
        classes = {group[0]: group for group in position.classes()}
        values: dict[Card, int] = {}
        best0, best_card = (-INF if side == 0 else INF), -1
        for card in ordered_cards(position):
            child, gain = position.play(card)
            if exact_all or best_card < 0:
                future0 = gain + self.future(child)
            else:
                # A null window asks "is it better?"; only a card that is gets its exact value.
                lo = best0 if side == 0 else best0 - 1
                future0 = gain + self.future(child, lo - gain, lo + 1 - gain)
                if (future0 > best0) if side == 0 else (future0 < best0):
                    future0 = gain + self.future(child)
            if (future0 > best0) if side == 0 else (future0 < best0):
                best0, best_card = future0, card
            values.update(dict.fromkeys(classes[card], final_points(position, future0)[side]))
        return Solution(mover, final_points(position, best0), values, best_card)


def warmup() -> None:
    """Compile (or load from numba's cache) the solver's kernels, on a small position."""
    deal = PartnershipDeal.new(0, random.Random(0))
    while deal.trick_number < 8:
        deal.play(deal.legal_moves()[0])
    DoubleDummySolver(bits=10).solve(OpenPosition.from_deal(deal))
