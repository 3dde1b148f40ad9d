"""Matches: deals added up in whole points until a player reaches the target (11, 21 or 31).

A deal scores each player's points as players count them: thirds rounded down, the last
trick's bonus included (35 thirds always make 11 whole points: the two remainders add to 2).

- **Tressette**: the first to reach the target at the end of a deal wins the match; if both
  reach it in the same deal, the higher total wins; equal totals play another deal.
- **Kifameno**: the first to reach the target *loses*; if both reach it, the higher total
  loses; equal totals play another deal.

The first lead alternates between deals (RULES.md); leaving or running out of time forfeits
the match (the server's part).

>>> m = Match(Variant.TRESSETTE, 11).after((20, 15))
>>> m.scores, m.deals, m.winner
((6, 5), 1, None)
>>> m.after((27, 8)).winner
0
>>> Match(Variant.KIFAMENO, 11).after((33, 2)).winner
1
"""

from __future__ import annotations

from dataclasses import dataclass

from tressette.cards import traditional_points
from tressette.variant import Variant

MATCH_TARGETS = (11, 21, 31)
"""The targets a match may be played to (a single deal is the other format: target 0 on the protocol)."""
MAX_MATCH_SCORE = 1000
"""The largest score a match state may carry (equal totals past the target may go on a while; never this far)."""


def deal_score(points: tuple[int, int]) -> tuple[int, int]:
    """Return a finished deal's whole points for both seats (thirds rounded down).

    >>> deal_score((18, 17)), deal_score((35, 0)), deal_score((34, 1))
    ((6, 5), (11, 0), (11, 0))
    """
    return (traditional_points(points[0]), traditional_points(points[1]))


def match_winner(variant: Variant, target: int, scores: tuple[int, int]) -> int | None:
    """Return the seat that wins the match at these totals, or None while it goes on.

    >>> match_winner(Variant.TRESSETTE, 21, (22, 25)), match_winner(Variant.KIFAMENO, 21, (22, 25))
    (1, 0)
    >>> match_winner(Variant.TRESSETTE, 21, (23, 23)) is None
    True
    """
    reached = [s >= target for s in scores]
    if not any(reached):
        return None
    if reached[0] != reached[1]:
        first = 0 if reached[0] else 1  # the only one to reach it
        return first if variant is Variant.TRESSETTE else 1 - first
    if scores[0] == scores[1]:
        return None
    higher = 0 if scores[0] > scores[1] else 1
    return higher if variant is Variant.TRESSETTE else 1 - higher


@dataclass(frozen=True, slots=True)
class Match:
    """A match's standing: the totals after ``deals`` deals, to ``target`` points."""

    variant: Variant
    target: int
    scores: tuple[int, int] = (0, 0)
    deals: int = 0

    def __post_init__(self) -> None:
        if self.target not in MATCH_TARGETS:
            raise ValueError(f"a match is played to one of {MATCH_TARGETS}, not {self.target}")

    def after(self, points: tuple[int, int]) -> Match:
        """Return the match after a finished deal with these final points (in thirds)."""
        if self.is_over:
            raise ValueError("the match is over")
        won = deal_score(points)
        return Match(self.variant, self.target, (self.scores[0] + won[0], self.scores[1] + won[1]), self.deals + 1)

    @property
    def winner(self) -> int | None:
        """Return the seat that won the match, or None while it goes on."""
        return match_winner(self.variant, self.target, self.scores)

    @property
    def is_over(self) -> bool:
        """Return True once a player has won the match."""
        return self.winner is not None

    def margin(self) -> int:
        """Return by how much the winner won: the difference of the totals (0 while it goes on)."""
        return abs(self.scores[0] - self.scores[1]) if self.is_over else 0
