"""A full-information two-player deal: hands, stock, table, won piles, history.

Dealing convention (so that a deck order replays a deal exactly): ``deck[0:10]``
is seat 0's hand, ``deck[10:20]`` seat 1's hand and ``deck[20:40]`` the stock,
``deck[20]`` on top.

>>> import random
>>> d = Deal.new(Variant.TRESSETTE, first_leader=0, rng=random.Random(7))
>>> while not d.is_over:
...     _ = d.play(d.legal_moves()[0])
>>> sum(d.final_points())
35
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tressette.cards import (
    ALL_CARDS,
    HAND_SIZE,
    LAST_TRICK_BONUS,
    N_CARDS,
    N_TRICKS,
    POINTS,
    Card,
    card_name,
    legal_cards,
    trick_winner_offset,
)
from tressette.errors import IllegalMoveError
from tressette.variant import Variant


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick: who led, the two cards in play order, who won, who drew what.

    ``draws`` is empty once the stock is exhausted; otherwise it holds the winner's
    draw and then the loser's, as ``(seat, card)`` pairs.  All of it is public.
    """

    leader: int
    cards: tuple[Card, Card]
    winner: int
    draws: tuple[tuple[int, Card], ...] = ()

    @property
    def points(self) -> int:
        """Return the card points the trick is worth (without the last-trick bonus)."""
        return POINTS[self.cards[0]] + POINTS[self.cards[1]]

    def seat_of(self, index: int) -> int:
        """Return the seat that played ``cards[index]``."""
        return self.leader if index == 0 else 1 - self.leader


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished deal: final points of both seats and the winner."""

    points: tuple[int, int]
    winner: int
    variant: Variant


def shuffled_deck(rng: random.Random | None = None) -> list[Card]:
    """Return the 40 cards shuffled by ``rng``, or by a CSPRNG when ``rng`` is None."""
    deck = list(ALL_CARDS)
    if rng is not None:
        rng.shuffle(deck)
    else:
        csprng_shuffle(deck, secrets.token_bytes)
    return deck


def csprng_shuffle(items: list[Any], random_bytes: Callable[[int], bytes]) -> None:
    """Shuffle ``items`` in place (Fisher-Yates), every order equally likely, from ``random_bytes(n)``.

    ``secrets.SystemRandom().shuffle`` asks the operating system for each of the 39 draws; a server
    starting many deals at once spent most of a stall there (issue #42). Here the draws come from
    one request of 8 bytes each, kept exact by rejecting the few values past the largest multiple
    of the range (a refill asks again).

    >>> deck = list(range(5)); csprng_shuffle(deck, lambda n: bytes(n)); deck
    [1, 2, 3, 4, 0]
    """
    pool, offset = random_bytes(8 * len(items)), 0
    for i in range(len(items) - 1, 0, -1):
        span = i + 1
        limit = (1 << 64) - (1 << 64) % span  # values from here on would favour the lowest indices
        while True:
            if offset + 8 > len(pool):
                pool, offset = random_bytes(8 * i), 0
            value = int.from_bytes(pool[offset:offset + 8], "little")
            offset += 8
            if value < limit:
                break
        j = value % span
        items[i], items[j] = items[j], items[i]


@dataclass(slots=True)
class Deal:
    """The complete state of one deal, as only the server (or a simulation) knows it.

    Mutated in place by :meth:`play`, which validates every card.
    """

    variant: Variant
    first_leader: int
    deck: tuple[Card, ...]
    hands: tuple[list[Card], list[Card]]
    stock: list[Card]
    leader: int
    table: list[Card] = field(default_factory=list)
    won: tuple[list[Card], list[Card]] = field(default_factory=lambda: ([], []))
    points: list[int] = field(default_factory=lambda: [0, 0])
    history: list[Trick] = field(default_factory=list)
    shown: tuple[list[Card], list[Card]] = field(default_factory=lambda: ([], []))
    """Cards each seat drew face up and still holds (the opponent knows them)."""

    @classmethod
    def from_deck(cls, deck: list[Card] | tuple[Card, ...], variant: Variant, first_leader: int) -> Deal:
        """Deal ``deck`` (see the module's dealing convention)."""
        if sorted(deck) != list(ALL_CARDS):
            raise ValueError("a deck must hold each of the 40 cards exactly once")
        if first_leader not in (0, 1):
            raise ValueError(f"first_leader must be 0 or 1, got {first_leader!r}")
        deck = tuple(deck)
        return cls(
            variant=variant,
            first_leader=first_leader,
            deck=deck,
            hands=(list(deck[:HAND_SIZE]), list(deck[HAND_SIZE : 2 * HAND_SIZE])),
            stock=list(deck[2 * HAND_SIZE :]),
            leader=first_leader,
        )

    @classmethod
    def new(cls, variant: Variant, first_leader: int, rng: random.Random | None = None) -> Deal:
        """Shuffle (seeded by ``rng``, or with a CSPRNG) and deal."""
        return cls.from_deck(shuffled_deck(rng), variant, first_leader)

    @property
    def trick_number(self) -> int:
        """Return the index (0..19) of the trick being played, 20 when over."""
        return len(self.history)

    @property
    def is_over(self) -> bool:
        """Return True once all 20 tricks are played."""
        return len(self.history) == N_TRICKS

    @property
    def last_card(self) -> bool:
        """Return True if the next card played ends the deal (the second card of the 20th trick)."""
        return len(self.history) == N_TRICKS - 1 and len(self.table) == 1

    @property
    def to_move(self) -> int:
        """Return the seat whose turn it is (meaningless once the deal is over)."""
        return self.leader if not self.table else 1 - self.leader

    def legal_moves(self, seat: int | None = None) -> list[Card]:
        """Return the cards ``seat`` (default: the player to move) may play now, sorted."""
        seat = self.to_move if seat is None else seat
        if self.is_over or seat != self.to_move:
            return []
        return legal_cards(self.hands[seat], self.table[0] if self.table else None)

    def check_move(self, card: Card, seat: int | None = None) -> None:
        """Raise :class:`IllegalMoveError` unless ``seat`` may play ``card`` now."""
        if self.is_over:
            raise IllegalMoveError("the deal is over", reason="over")
        if seat is not None and seat != self.to_move:
            raise IllegalMoveError(f"not your turn: seat {self.to_move} is to play", reason="not_your_turn")
        if not isinstance(card, int) or not 0 <= card < N_CARDS:
            raise IllegalMoveError(f"no such card: {card!r}", reason="bad_card")
        mover = self.to_move
        if card not in self.hands[mover]:
            raise IllegalMoveError(f"{card_name(card)} is not in your hand", reason="not_in_hand")
        if card not in self.legal_moves(mover):
            raise IllegalMoveError(
                f"you must follow suit: {card_name(self.table[0])} was led and you hold that suit",
                reason="must_follow",
            )

    def play(self, card: Card, seat: int | None = None) -> Trick | None:
        """Play ``card`` for the player to move (checked against ``seat`` when given).

        Returns the finished :class:`Trick` when the card completes one (after the
        draws), else None.  Raises :class:`IllegalMoveError` and changes nothing if
        the move is illegal.
        """
        self.check_move(card, seat)
        mover = self.to_move
        self.hands[mover].remove(card)
        if card in self.shown[mover]:
            self.shown[mover].remove(card)
        self.table.append(card)
        if len(self.table) < 2:
            return None
        return self._finish_trick()

    def _finish_trick(self) -> Trick:
        lead, follow = self.table
        winner = (self.leader + trick_winner_offset(lead, follow)) % 2
        self.won[winner].extend((lead, follow))
        self.points[winner] += POINTS[lead] + POINTS[follow]
        draws: list[tuple[int, Card]] = []
        if self.stock:
            for seat in (winner, 1 - winner):
                drawn = self.stock.pop(0)
                self.hands[seat].append(drawn)
                self.shown[seat].append(drawn)
                draws.append((seat, drawn))
        trick = Trick(leader=self.leader, cards=(lead, follow), winner=winner, draws=tuple(draws))
        self.history.append(trick)
        self.table.clear()
        self.leader = winner
        if self.is_over:
            self.points[winner] += LAST_TRICK_BONUS
        return trick

    def final_points(self) -> tuple[int, int]:
        """Return both seats' points (with the last-trick bonus once the deal is over)."""
        return (self.points[0], self.points[1])

    def outcome(self) -> Outcome:
        """Return the :class:`Outcome` of the finished deal; raise ValueError before the end."""
        if not self.is_over:
            raise ValueError("the deal is not over")
        pts = self.final_points()
        return Outcome(points=pts, winner=self.variant.winner(pts), variant=self.variant)

    def copy(self) -> Deal:
        """Return an independent copy (for simulations)."""
        return Deal(
            variant=self.variant,
            first_leader=self.first_leader,
            deck=self.deck,
            hands=(list(self.hands[0]), list(self.hands[1])),
            stock=list(self.stock),
            leader=self.leader,
            table=list(self.table),
            won=(list(self.won[0]), list(self.won[1])),
            points=list(self.points),
            history=list(self.history),
            shown=(list(self.shown[0]), list(self.shown[1])),
        )


def replay(deck: list[Card] | tuple[Card, ...], variant: Variant, first_leader: int, moves: list[Card]) -> Deal:
    """Return the deal reached by playing ``moves`` (in order) on ``deck``.

    Raises :class:`IllegalMoveError` at the first illegal move.
    """
    deal = Deal.from_deck(deck, variant, first_leader)
    for card in moves:
        deal.play(card)
    return deal
