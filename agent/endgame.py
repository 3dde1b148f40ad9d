"""A known endgame position (the last ten tricks) and its exact values, for the puzzle finder.

:class:`Endgame` is a small immutable position over absolute seats (both hands,
the leader, the card on the table, the points taken so far) that plays cards by
the rules package's tables; :meth:`Endgame.values` asks the exact solver
(:func:`agent.search.solver.solve_root`) for every legal card's final points for
the player to move.  The solver puts the mover in seat 0 and minimises its points
in Kifameno, so a value is always "the mover's final points, best play by both
afterwards", and a card *wins* when those points win the deal (at least 18 of 35
in Tressette, at most 17 in Kifameno): the game is zero-sum in points, so a value
threshold is exactly a win or a loss.

Equivalent cards (:func:`classes`): two cards of one suit in the mover's hand with
no live card between them in strength (one in the opponent's hand or on the
table) take and lose the same tricks: they are the same card for a puzzle.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from agent.search.solver import solve_root
from tressette import (
    LAST_TRICK_BONUS,
    N_CARDS,
    POINTS,
    TOTAL_POINTS,
    Card,
    Deal,
    Variant,
    beats,
    cards_of,
    mask_of,
    suit_of,
)
from tressette.cards import legal_cards

Values = dict[Card, int]
"""Each legal card's final points for the player to move (best play by both afterwards)."""


@dataclass(frozen=True, slots=True)
class Endgame:
    """A position with every card's place known: hands as masks by absolute seat, points before the bonus."""

    variant: Variant
    hands: tuple[int, int]
    leader: int
    lead: int
    """The card on the table, -1 when the leader has not played yet."""
    points: tuple[int, int]

    @classmethod
    def from_deal(cls, deal: Deal) -> Endgame:
        """Return the position of ``deal`` (its stock must be empty: not checked)."""
        return cls(deal.variant, (mask_of(deal.hands[0]), mask_of(deal.hands[1])), deal.leader,
                   deal.table[0] if deal.table else -1, (deal.points[0], deal.points[1]))

    @property
    def to_move(self) -> int:
        """Return the seat to play."""
        return self.leader if self.lead < 0 else 1 - self.leader

    @property
    def is_over(self) -> bool:
        """Return True once every card is played."""
        return self.hands == (0, 0) and self.lead < 0

    def hand(self, seat: int) -> list[Card]:
        """Return ``seat``'s cards, sorted (suit, then strongest first)."""
        return cards_of(self.hands[seat])

    def legal(self) -> list[Card]:
        """Return the cards the player to move may play, sorted."""
        return legal_cards(self.hand(self.to_move), self.lead if self.lead >= 0 else None)

    def play(self, card: Card) -> Endgame:
        """Return the position after the player to move plays ``card`` (a legal card: not checked)."""
        seat = self.to_move
        hands = list(self.hands)
        hands[seat] &= ~(1 << card)
        if self.lead < 0:
            return replace(self, hands=(hands[0], hands[1]), lead=card)
        winner = seat if beats(card, self.lead) else self.leader
        points = list(self.points)
        points[winner] += POINTS[self.lead] + POINTS[card]
        if hands == [0, 0]:
            points[winner] += LAST_TRICK_BONUS
        return Endgame(self.variant, (hands[0], hands[1]), winner, -1, (points[0], points[1]))

    def trick_winner(self, card: Card) -> int:
        """Return who takes the trick ``card`` completes (the card on the table must be there)."""
        return self.to_move if beats(card, self.lead) else self.leader

    def wins(self, final: int) -> bool:
        """Return True if a player's final points ``final`` win it the deal."""
        return self.variant.winner((final, TOTAL_POINTS - final)) == 0

    def _solve(self, tt: np.ndarray, exact_all: bool) -> tuple[Card, np.ndarray]:
        """Run the solver with the mover in its seat 0: its card, and each card's points still to come."""
        seat = self.to_move
        out = np.zeros(N_CARDS, dtype=np.int64)
        best = solve_root(self.hands[seat], self.hands[1 - seat], 0 if self.lead < 0 else 1, self.lead,
                          self.variant.cfm, tt, out, np.zeros(1, dtype=np.int64), exact_all)
        return int(best), out

    def values(self, tt: np.ndarray) -> Values:
        """Return every legal card's exact final points for the player to move (``tt``: the solver's table)."""
        _, out = self._solve(tt, True)
        return {c: self.points[self.to_move] + int(out[c]) for c in self.legal()}

    def best(self, tt: np.ndarray) -> Card:
        """Return the solver's card for the player to move (most points for it; fewest in Kifameno)."""
        return self._solve(tt, False)[0]

    def winners(self, values: Values) -> list[Card]:
        """Return the cards whose ``values`` win for the player to move, sorted."""
        return sorted(c for c, v in values.items() if self.wins(v))

    def classes(self) -> list[list[Card]]:
        """Return the mover's legal cards grouped into classes of equivalent cards (see the module)."""
        seat = self.to_move
        live = self.hands[1 - seat] | (1 << self.lead if self.lead >= 0 else 0)
        out: list[list[Card]] = []
        for card in self.legal():
            prev = out[-1][-1] if out else -1
            if prev >= 0 and suit_of(prev) == suit_of(card) and not any(
                    (live >> c) & 1 for c in range(prev + 1, card)):
                out[-1].append(card)
            else:
                out.append([card])
        return out

    def margin(self, values: Values, card: Card) -> int:
        """Return by how many points ``card``'s value is beyond what the mover needs to win (>= 0 if it wins)."""
        need = TOTAL_POINTS // 2 + 1
        v = values[card]
        return (TOTAL_POINTS // 2) - v if self.variant.cfm else v - need


def unique_winners(position: Endgame, values: Values) -> list[Card] | None:
    """Return the winning cards when exactly one class of equivalent cards wins and some card loses, else None.

    The cards returned may be fewer than their class: a card equivalent in strength but
    worth other points (an AS beside a KRALJ) can lose where its neighbour wins.  Winning
    cards of one class but of different points (an AS and a KRALJ that both win) are not
    one answer: after either the positions differ in points, so the line could not go on
    with the two cards' roles swapped (as a puzzle page does when the player picks the
    other accepted card); such a position counts as several winning classes.
    """
    won = position.winners(values)
    if not won or len(won) == len(values) or len({POINTS[c] for c in won}) > 1:
        return None
    if not any(set(won) <= set(group) for group in position.classes()):
        return None
    return won
