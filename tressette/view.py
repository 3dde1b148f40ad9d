"""What one seat (or a spectator) may know of a deal, and nothing more.

A view never holds the stock order, nor a card of the opponent's hand that was
not drawn face up — except once the stock is empty, when every remaining card
is in the opponent's hand and so is known by deduction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tressette.cards import Card, card_name, legal_cards, sort_cards
from tressette.deal import Deal, Trick
from tressette.variant import Variant


@dataclass(frozen=True, slots=True)
class PlayerView:
    """The information available to ``seat`` (None for a spectator).

    ``known[s]`` lists the cards of seat ``s``'s hand this viewer knows: a
    player's own whole hand, the opponent's face-up draws (all of it once the
    stock is empty); a spectator knows only the face-up draws of both.
    """

    seat: int | None
    variant: Variant
    known: tuple[tuple[Card, ...], tuple[Card, ...]]
    hand_counts: tuple[int, int]
    stock_count: int
    table: tuple[Card, ...]
    leader: int
    to_move: int | None
    points: tuple[int, int]
    history: tuple[Trick, ...]
    first_leader: int

    @property
    def hand(self) -> tuple[Card, ...]:
        """Return the viewer's own hand (empty for a spectator)."""
        return () if self.seat is None else self.known[self.seat]

    @property
    def opponent_known(self) -> tuple[Card, ...]:
        """Return the opponent's cards this player knows."""
        if self.seat is None:
            raise ValueError("a spectator has no opponent")
        return self.known[1 - self.seat]

    @property
    def is_over(self) -> bool:
        """Return True once the deal is finished."""
        return self.to_move is None

    @property
    def played(self) -> frozenset[Card]:
        """Return every card played in finished tricks."""
        return frozenset(c for t in self.history for c in t.cards)

    def legal_moves(self) -> list[Card]:
        """Return the cards the viewer may play now (empty if it is not the viewer's turn)."""
        if self.seat is None or self.to_move != self.seat:
            return []
        return legal_cards(self.hand, self.table[0] if self.table else None)

    def to_dict(self) -> dict[str, Any]:
        """Return the view as JSON-ready data with cards written by name."""
        return {
            "seat": self.seat,
            "variant": self.variant.value,
            "hand": [card_name(c) for c in self.hand],
            "known": [[card_name(c) for c in k] for k in self.known],
            "hand_counts": list(self.hand_counts),
            "stock_count": self.stock_count,
            "table": [card_name(c) for c in self.table],
            "leader": self.leader,
            "to_move": self.to_move,
            "points": list(self.points),
            "first_leader": self.first_leader,
            "legal": [card_name(c) for c in self.legal_moves()],
            "history": [trick_to_dict(t) for t in self.history],
        }


def trick_to_dict(trick: Trick) -> dict[str, Any]:
    """Return a public trick record as JSON-ready data."""
    return {
        "leader": trick.leader,
        "cards": [card_name(c) for c in trick.cards],
        "winner": trick.winner,
        "draws": [[seat, card_name(c)] for seat, c in trick.draws],
    }


def view_of(deal: Deal, seat: int | None) -> PlayerView:
    """Return what ``seat`` (0, 1, or None for a spectator) may know of ``deal``."""
    if seat not in (0, 1, None):
        raise ValueError(f"seat must be 0, 1 or None, got {seat!r}")
    known: list[tuple[Card, ...]] = []
    for s in (0, 1):
        if s == seat or (seat is not None and not deal.stock):
            known.append(tuple(sort_cards(deal.hands[s])))
        else:
            known.append(tuple(sort_cards(deal.shown[s])))
    return PlayerView(
        seat=seat,
        variant=deal.variant,
        known=(known[0], known[1]),
        hand_counts=(len(deal.hands[0]), len(deal.hands[1])),
        stock_count=len(deal.stock),
        table=tuple(deal.table),
        leader=deal.leader,
        to_move=None if deal.is_over else deal.to_move,
        points=deal.final_points(),
        history=tuple(deal.history),
        first_leader=deal.first_leader,
    )
