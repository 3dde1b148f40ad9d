"""An open four-player position: every hand known, the trick in progress, the points taken so far.

The double-dummy solvers' input.  Hands are masks by absolute seat (``tressette.cards.Mask``),
the trick in progress is its leader and the cards played to it in play order, and
``points`` are each partnership's card points in thirds so far (the last trick's 3
included once it is taken).  Declarations are not part of it: they are fixed before the
first trick ends and do not change with the play, so a partnership's deal score is its
declared points plus the whole points of the thirds the solvers give.

**What the solvers optimise**: partnership 0's final thirds, partnership 0 maximising and
partnership 1 minimising them (the same as partnership 1 maximising its own thirds: a
deal's thirds are fixed, so the game is zero-sum).  Thirds decide the whole points
(rounded down, :func:`tressette.traditional_points`), which never decrease as thirds grow,
so a line optimal in thirds is optimal in whole points too; a card's value in thirds
names its whole points exactly.

**Equivalent cards** (:meth:`OpenPosition.classes`): the mover's legal cards of one suit
with no card of another hand or of the trick in progress between them in strength (cards
of its own hand and cards already played do not separate them) and with equal points
take and lose the same tricks against everything still live: exchanging them changes
nothing but which of the two is played, so one of them stands for all.

>>> import random
>>> from tressette.partnership import PartnershipDeal
>>> deal = PartnershipDeal.new(0, random.Random(3))
>>> pos = OpenPosition.from_deal(deal)
>>> pos.to_move, len(pos.legal()), pos.points_left()
(0, 10, 35)
"""

from __future__ import annotations

from dataclasses import dataclass

from tressette.cards import (
    LAST_TRICK_BONUS,
    N_RANKS,
    POINTS,
    Card,
    Mask,
    cards_of,
    legal_cards,
    mask_of,
)
from tressette.partnership import N_SEATS, PartnershipDeal, partnership_of, trick_winner

Hands = tuple[Mask, Mask, Mask, Mask]
"""The four hands as masks, by absolute seat."""
SuitKey = tuple[tuple[int, int], ...]
"""A suit's live cards as (owner, points), strongest first."""
Key = tuple[int, SuitKey, SuitKey, SuitKey, SuitKey]
"""A trick start's key by relative ranks: the leader and each suit's :data:`SuitKey`."""


@dataclass(frozen=True, slots=True)
class OpenPosition:
    """A four-player position with every card's place known (immutable; :meth:`play` returns a new one)."""

    hands: Hands
    leader: int
    """The seat that led (or is to lead) the trick in progress."""
    table: tuple[Card, ...] = ()
    """The cards of the trick in progress, in play order (seat ``(leader + i) % 4`` played ``table[i]``)."""
    points: tuple[int, int] = (0, 0)
    """Each partnership's card points (thirds) taken so far."""

    @classmethod
    def from_deal(cls, deal: PartnershipDeal) -> OpenPosition:
        """Return the position of ``deal`` (the server's full-information deal)."""
        h = deal.hands
        return cls((mask_of(h[0]), mask_of(h[1]), mask_of(h[2]), mask_of(h[3])), deal.leader,
                   tuple(deal.table), (deal.points[0], deal.points[1]))

    @property
    def to_move(self) -> int:
        """Return the seat to play (meaningless once the deal is over)."""
        return (self.leader + len(self.table)) % N_SEATS

    @property
    def is_over(self) -> bool:
        """Return True once every card is played."""
        return not self.table and not any(self.hands)

    def live(self) -> Mask:
        """Return the cards still to be taken: in hands or on the table."""
        return self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3] | mask_of(self.table)

    def points_left(self) -> int:
        """Return the thirds still to be taken (the last trick's 3 included while a card is live)."""
        live = self.live()
        return sum(POINTS[c] for c in cards_of(live)) + (LAST_TRICK_BONUS if live else 0)

    def legal(self) -> list[Card]:
        """Return the cards the player to move may play, sorted (follow suit if able)."""
        return legal_cards(cards_of(self.hands[self.to_move]), self.table[0] if self.table else None)

    def play(self, card: Card) -> tuple[OpenPosition, int]:
        """Return the position after the mover plays ``card`` (legal: not checked) and partnership 0's gain.

        The gain is the thirds partnership 0 takes with the trick ``card`` completes (the
        last trick's 3 included), 0 when the trick goes on or partnership 1 takes it.
        """
        seat = self.to_move
        hands = list(self.hands)
        hands[seat] &= ~(1 << card)
        new_hands: Hands = (hands[0], hands[1], hands[2], hands[3])
        table = (*self.table, card)
        if len(table) < N_SEATS:
            return OpenPosition(new_hands, self.leader, table, self.points), 0
        winner = trick_winner(self.leader, table)
        taken = sum(POINTS[c] for c in table) + (0 if any(new_hands) else LAST_TRICK_BONUS)
        side = partnership_of(winner)
        points = (self.points[0] + taken, self.points[1]) if side == 0 else (self.points[0], self.points[1] + taken)
        return OpenPosition(new_hands, winner, (), points), taken if side == 0 else 0

    def classes(self) -> list[list[Card]]:
        """Return the mover's legal cards grouped into classes of equivalent cards (see the module), sorted.

        Each class is in strength order, strongest first; the classes follow the order of
        their first cards.
        """
        seat = self.to_move
        legal = mask_of(self.legal())
        others = mask_of(self.table)
        for s in range(N_SEATS):
            if s != seat:
                others |= self.hands[s]
        out: list[list[Card]] = []
        for suit in range(4):
            run: dict[int, list[Card]] = {}  # the current run's classes by their points
            for card in range(suit * N_RANKS, suit * N_RANKS + N_RANKS):
                if (others >> card) & 1:
                    run = {}  # another hand's card (or the trick's) separates what is above from below
                elif (legal >> card) & 1:
                    group = run.get(POINTS[card])
                    if group is None:
                        run[POINTS[card]] = group = []
                        out.append(group)
                    group.append(card)
        out.sort(key=lambda g: g[0])
        return out

    def key(self) -> Key:
        """Return the position's key by relative ranks, at a trick's start (the transposition tables').

        Per suit, the live cards' (owner, points) strongest first, then the leader: positions that
        differ only in which cards were played, not in the order, owners and points of the cards
        still live, play alike and share it.
        """
        s = [tuple((seat, POINTS[c]) for c in range(suit * N_RANKS, suit * N_RANKS + N_RANKS)
                   for seat in range(N_SEATS) if (self.hands[seat] >> c) & 1) for suit in range(4)]
        return (self.leader, s[0], s[1], s[2], s[3])

    def place(self, card: Card) -> tuple[int, int]:
        """Return ``card``'s suit and its index among the suit's live cards, strongest first (0)."""
        suit = card // N_RANKS
        return suit, sum(1 for c in range(suit * N_RANKS, card) if (self.live() >> c) & 1)

    def card_at(self, suit: int, index: int) -> Card:
        """Return the live card of ``suit`` at ``index``, strongest first (the inverse of :meth:`place`)."""
        return [c for c in range(suit * N_RANKS, suit * N_RANKS + N_RANKS) if (self.live() >> c) & 1][index]

    def winning(self) -> tuple[int, Card] | None:
        """Return (seat, card) of the trick in progress's current winner, None before its lead."""
        if not self.table:
            return None
        seat = trick_winner(self.leader, self.table)
        return seat, self.table[(seat - self.leader) % N_SEATS]

