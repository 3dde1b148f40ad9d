"""Partnership matches: deal scores added up until a partnership reaches 21, 31 or 41.

A deal's score is its whole card points (thirds rounded down; 11 between the two
partnerships) plus the points declared.  The first partnership to reach the target
at the end of a deal wins; if both reach it in the same deal, the higher total
wins; equal totals play another deal (the two-player Tressette rule, per partnership).

The first lead of a table's first deal is drawn at random; each later deal's first
lead passes to the next seat in playing order.

>>> import random
>>> m = PartnershipMatch.start(21, random.Random(3))
>>> m.first_leader, m.next_leader
(1, 1)
>>> m = m.after(PartnershipOutcome((20, 15), (3, 0)))
>>> m.scores, m.deals, m.next_leader, m.winner
((9, 5), 1, 2, None)
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from typing import Any

from tressette.match import MAX_MATCH_SCORE, match_winner
from tressette.partnership.deal import N_SEATS, PartnershipOutcome
from tressette.variant import Variant

PARTNERSHIP_TARGETS = (21, 31, 41)
"""The targets a partnership match may be played to (a single deal is the other format)."""


def leader_of_deal(first_leader: int, deal_index: int) -> int:
    """Return the first lead of a table's deal ``deal_index`` (0 for the first) when ``first_leader`` led the first."""
    return (first_leader + deal_index) % N_SEATS


def draw_first_leader(rng: random.Random | None = None) -> int:
    """Draw the first lead of a table's first deal: seeded by ``rng``, or with a CSPRNG when None."""
    return (rng if rng is not None else secrets.SystemRandom()).randrange(N_SEATS)


def partnership_match_winner(target: int, scores: tuple[int, int]) -> int | None:
    """Return the partnership that wins at these totals, or None while the match goes on.

    >>> partnership_match_winner(31, (30, 33)), partnership_match_winner(31, (34, 32))
    (1, 0)
    >>> partnership_match_winner(31, (32, 32)) is None
    True
    """
    return match_winner(Variant.TRESSETTE, target, scores)


@dataclass(frozen=True, slots=True)
class PartnershipMatch:
    """A partnership match's standing: the totals after ``deals`` deals, to ``target``.

    ``first_leader`` is the seat that led the table's first deal.
    """

    target: int
    first_leader: int
    scores: tuple[int, int] = (0, 0)
    deals: int = 0

    def __post_init__(self) -> None:
        if self.target not in PARTNERSHIP_TARGETS:
            raise ValueError(f"a partnership match is played to one of {PARTNERSHIP_TARGETS}, not {self.target}")
        if self.first_leader not in range(N_SEATS):
            raise ValueError(f"first_leader must be a seat 0..3, got {self.first_leader!r}")
        if self.deals < 0 or not all(0 <= s <= MAX_MATCH_SCORE for s in self.scores):
            raise ValueError(f"impossible match standing: {self.scores} after {self.deals} deals")

    @classmethod
    def start(cls, target: int, rng: random.Random | None = None) -> PartnershipMatch:
        """Return a new match to ``target`` with the first lead drawn by :func:`draw_first_leader`."""
        return cls(target, draw_first_leader(rng))

    @property
    def next_leader(self) -> int:
        """Return the seat that leads the next deal's first trick."""
        return leader_of_deal(self.first_leader, self.deals)

    def after(self, outcome: PartnershipOutcome) -> PartnershipMatch:
        """Return the match after a finished deal with this outcome (its scores, declarations included)."""
        if self.is_over:
            raise ValueError("the match is over")
        won = outcome.score
        return PartnershipMatch(self.target, self.first_leader,
                                (self.scores[0] + won[0], self.scores[1] + won[1]), self.deals + 1)

    @property
    def winner(self) -> int | None:
        """Return the partnership that won the match, or None while it goes on."""
        return partnership_match_winner(self.target, self.scores)

    @property
    def is_over(self) -> bool:
        """Return True once a partnership has won the match."""
        return self.winner is not None

    def to_dict(self) -> dict[str, Any]:
        """Return the match's JSON: ``{"target", "first_leader", "scores", "deals"}``."""
        return {"target": self.target, "first_leader": self.first_leader, "scores": list(self.scores),
                "deals": self.deals}
