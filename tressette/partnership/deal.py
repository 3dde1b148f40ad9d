"""A full-information four-player partnership deal: four hands, the trick, the tricks taken.

Seats 0 and 2 (partnership 0) play against seats 1 and 3 (partnership 1); play
goes in seat order, 0 → 1 → 2 → 3.  There is no stock: all 40 cards are dealt.

Dealing convention (so that a deck order replays a deal exactly):
``deck[10 * s : 10 * s + 10]`` is seat ``s``'s hand.

>>> import random
>>> d = PartnershipDeal.new(first_leader=1, rng=random.Random(7))
>>> while not d.is_over:
...     _ = d.play(d.legal_moves()[0])
>>> sum(d.points), sum(d.outcome().card_score)
(35, 11)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tressette.cards import (
    ALL_CARDS,
    HAND_SIZE,
    LAST_TRICK_BONUS,
    N_CARDS,
    N_RANKS,
    POINTS,
    Card,
    card_name,
    legal_cards,
    parse_card,
    traditional_points,
)
from tressette.deal import shuffled_deck
from tressette.errors import IllegalMoveError
from tressette.partnership.declarations import Declaration, Signal, possible_declarations, signal_is_true

N_SEATS = 4
N_TRICKS = N_CARDS // N_SEATS
"""Tricks in a four-player deal: 10 of four cards."""
SEATS: tuple[int, ...] = tuple(range(N_SEATS))


def partnership_of(seat: int) -> int:
    """Return the partnership (0 or 1) of ``seat``: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


def partner_of(seat: int) -> int:
    """Return the seat across the table from ``seat``, its partner."""
    return (seat + 2) % N_SEATS


@dataclass(frozen=True, slots=True)
class PartnershipOptions:
    """A table's options: whether declarations and signals are played."""

    declarations: bool = True
    signals: bool = True

    @classmethod
    def default_for(cls, target: int) -> PartnershipOptions:
        """Return the default options for a match to ``target`` (0 for a single deal).

        Declarations are on by default for matches to 31 and 41, signals always.
        """
        return cls(declarations=target >= 31, signals=True)

    def to_dict(self) -> dict[str, bool]:
        """Return the options' JSON."""
        return {"declarations": self.declarations, "signals": self.signals}


@dataclass(frozen=True, slots=True)
class PartnershipTrick:
    """A finished trick: who led, the four cards in play order, who took it, the leader's signal."""

    leader: int
    cards: tuple[Card, Card, Card, Card]
    winner: int
    signal: Signal | None = None

    @property
    def points(self) -> int:
        """Return the card points (thirds) the trick is worth, without the last-trick bonus."""
        return sum(POINTS[c] for c in self.cards)

    def seat_of(self, index: int) -> int:
        """Return the seat that played ``cards[index]``."""
        return (self.leader + index) % N_SEATS

    def to_dict(self) -> dict[str, Any]:
        """Return the trick's public JSON."""
        return {"leader": self.leader, "cards": [card_name(c) for c in self.cards], "winner": self.winner,
                "signal": None if self.signal is None else self.signal.value}


def trick_winner(leader: int, cards: Iterable[Card]) -> int:
    """Return the seat that takes ``cards`` (in play order, led by ``leader``): the highest of the suit led."""
    cards = list(cards)
    led_suit = cards[0] // N_RANKS
    # Within a suit a lower rank index is a stronger card (cards.py).
    best = min((i for i, c in enumerate(cards) if c // N_RANKS == led_suit), key=lambda i: cards[i] % N_RANKS)
    return (leader + best) % N_SEATS


@dataclass(frozen=True, slots=True)
class PartnershipOutcome:
    """A finished deal's result per partnership: card points (thirds), declared points, the scores."""

    points: tuple[int, int]
    """Card points in thirds, the last trick's bonus included (35 in all)."""
    declared: tuple[int, int]
    """Whole points declared."""
    cappotto: int | None = None
    """The partnership that took every trick, if one did (recorded; it scores nothing more)."""

    @property
    def card_score(self) -> tuple[int, int]:
        """Return each partnership's whole card points (thirds rounded down; 11 in all)."""
        return (traditional_points(self.points[0]), traditional_points(self.points[1]))

    @property
    def score(self) -> tuple[int, int]:
        """Return each partnership's deal score: whole card points plus declared points."""
        return (self.card_score[0] + self.declared[0], self.card_score[1] + self.declared[1])

    @property
    def winner(self) -> int | None:
        """Return the partnership with the higher score, None when equal (a single deal drawn)."""
        a, b = self.score
        return None if a == b else (0 if a > b else 1)


@dataclass(frozen=True, slots=True)
class PartnershipMove:
    """One card played, with the declarations and the signal that went with it (for logs and replays)."""

    card: Card
    declarations: tuple[Declaration, ...] = ()
    signal: Signal | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the move's JSON: ``{"card", "declarations", "signal"}``."""
        return {"card": card_name(self.card), "declarations": [d.to_dict() for d in self.declarations],
                "signal": None if self.signal is None else self.signal.value}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PartnershipMove:
        """Parse :meth:`to_dict`'s JSON (the last two fields may be left out); raise ValueError if malformed."""
        if not isinstance(data, Mapping) or "card" not in data:
            raise ValueError(f"a move must be an object with a 'card', got {data!r}")
        signal = data.get("signal")
        return cls(parse_card(data["card"]),
                   tuple(Declaration.from_dict(d) for d in data.get("declarations") or ()),
                   None if signal is None else Signal(signal))


@dataclass(slots=True)
class PartnershipDeal:
    """The complete state of one four-player deal, as only the server (or a simulation) knows it.

    Mutated in place by :meth:`play`, which validates the card, the declarations and the signal.
    """

    options: PartnershipOptions
    first_leader: int
    deck: tuple[Card, ...]
    hands: tuple[list[Card], list[Card], list[Card], list[Card]]
    leader: int
    table: list[Card] = field(default_factory=list)
    table_signal: Signal | None = None
    """The signal given with the card that led the current trick."""
    points: list[int] = field(default_factory=lambda: [0, 0])
    """Card points (thirds) per partnership, the last trick's bonus included at the end."""
    history: list[PartnershipTrick] = field(default_factory=list)
    declarations: tuple[list[Declaration], list[Declaration], list[Declaration], list[Declaration]] = field(
        default_factory=lambda: ([], [], [], []))
    """What each seat declared, in the order declared (public)."""

    @classmethod
    def from_deck(cls, deck: list[Card] | tuple[Card, ...], first_leader: int,
                  options: PartnershipOptions | None = None) -> PartnershipDeal:
        """Deal ``deck`` (see the module's dealing convention); options default to all on."""
        if sorted(deck) != list(ALL_CARDS):
            raise ValueError("a deck must hold each of the 40 cards exactly once")
        if first_leader not in SEATS:
            raise ValueError(f"first_leader must be a seat 0..3, got {first_leader!r}")
        deck = tuple(deck)
        hands = tuple(list(deck[HAND_SIZE * s : HAND_SIZE * (s + 1)]) for s in SEATS)
        return cls(options=options or PartnershipOptions(), first_leader=first_leader, deck=deck,
                   hands=(hands[0], hands[1], hands[2], hands[3]), leader=first_leader)

    @classmethod
    def new(cls, first_leader: int, rng: random.Random | None = None,
            options: PartnershipOptions | None = None) -> PartnershipDeal:
        """Shuffle (seeded by ``rng``, or with a CSPRNG) and deal."""
        return cls.from_deck(shuffled_deck(rng), first_leader, options)

    @property
    def trick_number(self) -> int:
        """Return the index (0..9) of the trick being played, 10 when over."""
        return len(self.history)

    @property
    def is_over(self) -> bool:
        """Return True once all 10 tricks are played."""
        return len(self.history) == N_TRICKS

    @property
    def to_move(self) -> int:
        """Return the seat whose turn it is (meaningless once the deal is over)."""
        return (self.leader + len(self.table)) % N_SEATS

    def legal_moves(self, seat: int | None = None) -> list[Card]:
        """Return the cards ``seat`` (default: the player to move) may play now, sorted."""
        seat = self.to_move if seat is None else seat
        if self.is_over or seat != self.to_move:
            return []
        return legal_cards(self.hands[seat], self.table[0] if self.table else None)

    def may_declare(self, seat: int | None = None) -> bool:
        """Return True if ``seat`` (default: the player to move) is about to play its first card, with declarations on."""
        seat = self.to_move if seat is None else seat
        return (self.options.declarations and not self.history and not self.is_over
                and seat == self.to_move)

    def declarable(self, seat: int | None = None) -> tuple[Declaration, ...]:
        """Return the declarations ``seat`` (default: the player to move) may make with the card it plays now."""
        seat = self.to_move if seat is None else seat
        return possible_declarations(self.hands[seat]) if self.may_declare(seat) else ()

    def may_signal(self, seat: int | None = None) -> bool:
        """Return True if ``seat`` (default: the player to move) leads a trick after the first, with signals on."""
        seat = self.to_move if seat is None else seat
        return (self.options.signals and not self.table and 0 < len(self.history) < N_TRICKS
                and seat == self.to_move)

    def allowed_signals(self, card: Card) -> tuple[Signal, ...]:
        """Return the signals the player to move may give with ``card`` (true ones, where allowed)."""
        if not self.may_signal() or card not in self.hands[self.to_move]:
            return ()
        rest = [c for c in self.hands[self.to_move] if c != card]
        return tuple(s for s in Signal if signal_is_true(s, card, rest))

    def check_move(self, card: Card, seat: int | None = None, *,
                   declarations: Iterable[Declaration] = (), signal: Signal | None = None) -> None:
        """Raise :class:`IllegalMoveError` unless ``seat`` may play ``card`` now with these declarations and signal."""
        if self.is_over:
            raise IllegalMoveError("the deal is over", reason="over")
        mover = self.to_move
        if seat is not None and seat != mover:
            raise IllegalMoveError(f"not your turn: seat {mover} is to play", reason="not_your_turn")
        if not isinstance(card, int) or not 0 <= card < N_CARDS:
            raise IllegalMoveError(f"no such card: {card!r}", reason="bad_card")
        if card not in self.hands[mover]:
            raise IllegalMoveError(f"{card_name(card)} is not in your hand", reason="not_in_hand")
        if card not in self.legal_moves(mover):
            raise IllegalMoveError(
                f"you must follow suit: {card_name(self.table[0])} was led and you hold that suit",
                reason="must_follow")
        declarations = list(declarations)
        if declarations:
            self._check_declarations(mover, declarations)
        if signal is not None:
            self._check_signal(mover, card, signal)

    def _check_declarations(self, mover: int, declarations: list[Declaration]) -> None:
        if not self.options.declarations:
            raise IllegalMoveError("this table plays without declarations", reason="declaration_not_allowed")
        if not self.may_declare(mover):
            raise IllegalMoveError("declarations are made only with your first card", reason="declaration_not_allowed")
        true = possible_declarations(self.hands[mover])
        for i, d in enumerate(declarations):
            if d in declarations[:i]:
                raise IllegalMoveError(f"{d.label} is declared twice", reason="false_declaration")
            if d not in true:
                raise IllegalMoveError(f"your hand does not hold {d.label}", reason="false_declaration")

    def _check_signal(self, mover: int, card: Card, signal: Signal) -> None:
        if not self.options.signals:
            raise IllegalMoveError("this table plays without signals", reason="signal_not_allowed")
        if self.table:
            raise IllegalMoveError("only the leader of a trick may signal", reason="signal_not_allowed")
        if not self.history:
            raise IllegalMoveError("no signals in the first trick", reason="signal_not_allowed")
        rest = [c for c in self.hands[mover] if c != card]
        if not signal_is_true(signal, card, rest):
            held = "you hold more of that suit" if signal is Signal.VOLO else "you hold no more of that suit"
            raise IllegalMoveError(f"{signal.value} is not true: {held}", reason="false_signal")

    def play(self, card: Card, seat: int | None = None, *, declarations: Iterable[Declaration] = (),
             signal: Signal | None = None) -> PartnershipTrick | None:
        """Play ``card`` for the player to move (checked against ``seat`` when given).

        ``declarations`` go with the mover's first card, ``signal`` with a card that
        leads a trick from the second on.  Returns the finished trick when the card
        completes one, else None.  Raises :class:`IllegalMoveError` and changes
        nothing if the card, a declaration or the signal is refused.
        """
        declarations = tuple(declarations)
        self.check_move(card, seat, declarations=declarations, signal=signal)
        mover = self.to_move
        self.declarations[mover].extend(declarations)
        self.hands[mover].remove(card)
        if not self.table:
            self.table_signal = signal
        self.table.append(card)
        if len(self.table) < N_SEATS:
            return None
        cards = (self.table[0], self.table[1], self.table[2], self.table[3])
        trick = PartnershipTrick(self.leader, cards, trick_winner(self.leader, cards), self.table_signal)
        self.history.append(trick)
        self.points[partnership_of(trick.winner)] += trick.points
        if self.is_over:
            self.points[partnership_of(trick.winner)] += LAST_TRICK_BONUS
        self.table.clear()
        self.table_signal = None
        self.leader = trick.winner
        return trick

    def play_move(self, move: PartnershipMove, seat: int | None = None) -> PartnershipTrick | None:
        """Play ``move`` (card, declarations and signal) as :meth:`play` does."""
        return self.play(move.card, seat, declarations=move.declarations, signal=move.signal)

    def declared_points(self) -> tuple[int, int]:
        """Return the whole points declared so far by each partnership."""
        pts = [0, 0]
        for seat in SEATS:
            pts[partnership_of(seat)] += sum(d.points for d in self.declarations[seat])
        return (pts[0], pts[1])

    def outcome(self) -> PartnershipOutcome:
        """Return the finished deal's :class:`PartnershipOutcome`; raise ValueError before the end."""
        if not self.is_over:
            raise ValueError("the deal is not over")
        takers = {partnership_of(t.winner) for t in self.history}
        return PartnershipOutcome((self.points[0], self.points[1]), self.declared_points(),
                                  takers.pop() if len(takers) == 1 else None)

    def copy(self) -> PartnershipDeal:
        """Return an independent copy (for simulations)."""
        h, d = self.hands, self.declarations
        return PartnershipDeal(
            options=self.options, first_leader=self.first_leader, deck=self.deck,
            hands=(list(h[0]), list(h[1]), list(h[2]), list(h[3])), leader=self.leader,
            table=list(self.table), table_signal=self.table_signal, points=list(self.points),
            history=list(self.history), declarations=(list(d[0]), list(d[1]), list(d[2]), list(d[3])))


def replay_partnership(deck: list[Card] | tuple[Card, ...], first_leader: int, moves: Iterable[PartnershipMove],
                       options: PartnershipOptions | None = None) -> PartnershipDeal:
    """Return the deal reached by playing ``moves`` in order on ``deck``.

    Raises :class:`IllegalMoveError` at the first refused move.
    """
    deal = PartnershipDeal.from_deck(deck, first_leader, options)
    for move in moves:
        deal.play_move(move)
    return deal
