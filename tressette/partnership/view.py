"""What one seat (or a spectator) may know of a partnership deal, and its JSON form.

A view holds the viewer's own hand and only public information: the tricks with
their signals, the trick being played, the declarations, the points and the
match.  It never holds a card of another seat's hand (a declaration says what it
shows by kind and suit, as it is spoken at the table, not by listing cards).

The JSON (:meth:`PartnershipView.to_dict`, :func:`parse_partnership_view`) is the
four-player extension of the agent's state, documented in
``docs/four-player-rules.md``; the thesis's two-player JSON (``tressette.state``)
is unchanged.

>>> import random
>>> from tressette.partnership.deal import PartnershipDeal
>>> deal = PartnershipDeal.new(first_leader=0, rng=random.Random(1))
>>> _ = deal.play(deal.legal_moves()[0])
>>> view = view_of_partnership(deal, 1)
>>> view.to_move, view.hand_counts, len(view.legal_moves()) > 0
(1, (9, 10, 10, 10), True)
>>> parse_partnership_view(view.to_dict()) == view
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tressette.cards import HAND_SIZE, LAST_TRICK_BONUS, Card, CardError, card_name, legal_cards, parse_card
from tressette.errors import InvalidStateError
from tressette.partnership.deal import (
    N_SEATS,
    N_TRICKS,
    SEATS,
    PartnershipDeal,
    PartnershipOptions,
    PartnershipTrick,
    partnership_of,
    trick_winner,
)
from tressette.partnership.declarations import Declaration, Signal, possible_declarations, signal_is_true
from tressette.partnership.match import PartnershipMatch
from tressette.state import json_object

GAME = "partnership"
"""The ``game`` field of the four-player JSON, which tells it from the thesis's two-player state."""


@dataclass(frozen=True, slots=True)
class PartnershipView:
    """The information available to ``seat`` (None for a spectator); the rest is derived from it."""

    seat: int | None
    options: PartnershipOptions
    first_leader: int
    hand: tuple[Card, ...]
    """The viewer's own cards, sorted (empty for a spectator)."""
    history: tuple[PartnershipTrick, ...]
    table: tuple[Card, ...]
    """The cards of the trick being played, in play order."""
    table_signal: Signal | None
    declarations: tuple[tuple[Declaration, ...], ...]
    """What each of the four seats declared."""
    match: PartnershipMatch | None = None

    @property
    def leader(self) -> int:
        """Return the seat that leads the current trick (the last trick's winner)."""
        return self.history[-1].winner if self.history else self.first_leader

    @property
    def is_over(self) -> bool:
        """Return True once the deal is finished."""
        return len(self.history) == N_TRICKS

    @property
    def to_move(self) -> int | None:
        """Return the seat to play, None once the deal is over."""
        return None if self.is_over else (self.leader + len(self.table)) % N_SEATS

    @property
    def hand_counts(self) -> tuple[int, ...]:
        """Return how many cards each seat holds."""
        return tuple(HAND_SIZE - len(self.history) - (1 if _played_in_table(self, s) else 0) for s in SEATS)

    @property
    def points(self) -> tuple[int, int]:
        """Return each partnership's card points (thirds) so far, the last trick's bonus included."""
        return _trick_points(self.history)

    @property
    def declared(self) -> tuple[int, int]:
        """Return each partnership's declared whole points."""
        pts = [0, 0]
        for seat in SEATS:
            pts[partnership_of(seat)] += sum(d.points for d in self.declarations[seat])
        return (pts[0], pts[1])

    @property
    def score(self) -> tuple[int, int]:
        """Return each partnership's whole points so far: thirds rounded down plus declarations."""
        points, declared = self.points, self.declared
        return (points[0] // 3 + declared[0], points[1] // 3 + declared[1])

    @property
    def played(self) -> frozenset[Card]:
        """Return every card played in finished tricks."""
        return frozenset(c for t in self.history for c in t.cards)

    def legal_moves(self) -> list[Card]:
        """Return the cards the viewer may play now (empty if it is not the viewer's turn)."""
        if self.seat is None or self.to_move != self.seat:
            return []
        return legal_cards(self.hand, self.table[0] if self.table else None)

    def declarable(self) -> tuple[Declaration, ...]:
        """Return the declarations the viewer may make with the card it plays now."""
        if not self.options.declarations or self.history or self.seat is None or self.to_move != self.seat:
            return ()
        return possible_declarations(self.hand)

    def allowed_signals(self, card: Card) -> tuple[Signal, ...]:
        """Return the signals the viewer may give leading ``card`` now (true ones, where allowed)."""
        if (not self.options.signals or self.table or not self.history or self.seat is None
                or self.to_move != self.seat or card not in self.hand):
            return ()
        rest = [c for c in self.hand if c != card]
        return tuple(s for s in Signal if signal_is_true(s, card, rest))

    def to_dict(self) -> dict[str, Any]:
        """Return the view's JSON (the four-player state; see the module docstring)."""
        legal = self.legal_moves()
        signals = {card_name(c): [s.value for s in allowed] for c in legal if (allowed := self.allowed_signals(c))}
        return {
            "game": GAME,
            "seat": self.seat,
            "options": self.options.to_dict(),
            "first_leader": self.first_leader,
            "hand": [card_name(c) for c in self.hand],
            "tricks": [t.to_dict() for t in self.history],
            "table": [card_name(c) for c in self.table],
            "signal": None if self.table_signal is None else self.table_signal.value,
            "declarations": [[d.to_dict() for d in ds] for ds in self.declarations],
            "match": None if self.match is None else self.match.to_dict(),
            # Derived (written for readers, not read back):
            "leader": self.leader,
            "to_move": self.to_move,
            "hand_counts": list(self.hand_counts),
            "points": list(self.points),
            "declared": list(self.declared),
            "score": list(self.score),
            "legal": [card_name(c) for c in legal],
            "declarable": [d.to_dict() for d in self.declarable()],
            "signals": signals,
        }

    def to_json(self) -> str:
        """Return the view's JSON text."""
        return json.dumps(self.to_dict())


def _played_in_table(view: PartnershipView, seat: int) -> bool:
    return any((view.leader + i) % N_SEATS == seat for i in range(len(view.table)))


def _trick_points(history: tuple[PartnershipTrick, ...]) -> tuple[int, int]:
    pts = [0, 0]
    for t in history:
        pts[partnership_of(t.winner)] += t.points
    if len(history) == N_TRICKS:
        pts[partnership_of(history[-1].winner)] += LAST_TRICK_BONUS
    return (pts[0], pts[1])


def view_of_partnership(deal: PartnershipDeal, seat: int | None,
                        match: PartnershipMatch | None = None) -> PartnershipView:
    """Return what ``seat`` (0..3, or None for a spectator) may know of ``deal``, with the match's standing."""
    if seat is not None and seat not in SEATS:
        raise ValueError(f"seat must be 0..3 or None, got {seat!r}")
    return PartnershipView(
        seat=seat, options=deal.options, first_leader=deal.first_leader,
        hand=() if seat is None else tuple(sorted(deal.hands[seat])),
        history=tuple(deal.history), table=tuple(deal.table), table_signal=deal.table_signal,
        declarations=tuple(tuple(ds) for ds in deal.declarations), match=match)


def parse_partnership_view(data: Mapping[str, Any] | str | bytes) -> PartnershipView:
    """Parse and validate a four-player view (a mapping or JSON text).

    Reads ``game``, ``seat``, ``options``, ``first_leader``, ``hand``, ``tricks``,
    ``table``, ``signal``, ``declarations`` and (optional) ``match``; the derived
    fields are not read.  Raises :class:`InvalidStateError` saying what is wrong:
    a card twice, a trick that contradicts the order of play, counts that do not
    add up, a signal or declaration the rules would have refused.
    """
    data = json_object(data)
    if data.get("game") != GAME:
        raise InvalidStateError(f"'game' must be {GAME!r} for a four-player state")
    missing = [k for k in ("seat", "options", "first_leader", "hand", "tricks", "table", "signal", "declarations")
               if k not in data]
    if missing:
        raise InvalidStateError(f"missing field(s): {', '.join(missing)}")
    seat = data["seat"]
    if seat is not None and (type(seat) is not int or seat not in SEATS):
        raise InvalidStateError(f"'seat' must be 0..3 or null, got {seat!r}")
    options = _options(data["options"])
    first_leader = _seat(data["first_leader"], "'first_leader'")
    hand = _cards(data["hand"], "'hand'")
    history = _tricks(data["tricks"], first_leader, options)
    table = _cards(data["table"], "'table'")
    table_signal = _signal(data["signal"], "'signal'")
    declarations = _declarations(data["declarations"])
    match = _match(data.get("match"))
    view = PartnershipView(seat, options, first_leader, tuple(sorted(hand)), history, tuple(table), table_signal,
                           declarations, match)
    if match is not None and not match.is_over and match.next_leader != first_leader:
        raise InvalidStateError(f"'match': seat {match.next_leader} leads deal {match.deals + 1} of this match, "
                                f"not seat {first_leader}")
    _check_cards(view)
    _check_signals(view)
    _check_declarations(view)
    return view


def _seat(value: Any, where: str) -> int:
    if type(value) is not int or value not in SEATS:  # not a bool, nor 1.0
        raise InvalidStateError(f"{where} must be a seat 0..3, got {value!r}")
    return value


def _options(raw: Any) -> PartnershipOptions:
    if (not isinstance(raw, Mapping) or set(raw) != {"declarations", "signals"}
            or not all(isinstance(v, bool) for v in raw.values())):
        raise InvalidStateError("'options' must be {\"declarations\": true|false, \"signals\": true|false}")
    return PartnershipOptions(declarations=raw["declarations"], signals=raw["signals"])


def _cards(raw: Any, where: str) -> list[Card]:
    if not isinstance(raw, list):
        raise InvalidStateError(f"{where} must be a list of card names")
    try:
        return [parse_card(name) for name in raw]
    except CardError as exc:
        raise InvalidStateError(f"{where}: {exc}") from None


def _signal(raw: Any, where: str) -> Signal | None:
    if raw is None:
        return None
    try:
        return Signal(raw)
    except ValueError:
        raise InvalidStateError(f"{where}: unknown signal {raw!r} (busso, volo or striscio)") from None


def _tricks(raw: Any, first_leader: int, options: PartnershipOptions) -> tuple[PartnershipTrick, ...]:
    if not isinstance(raw, list) or len(raw) > N_TRICKS:
        raise InvalidStateError(f"'tricks' must be a list of at most {N_TRICKS} tricks")
    tricks: list[PartnershipTrick] = []
    for i, item in enumerate(raw):
        where = f"'tricks'[{i}]"
        if not isinstance(item, Mapping):
            raise InvalidStateError(f"{where} must be {{\"leader\", \"cards\", \"winner\", \"signal\"}}")
        leader = _seat(item.get("leader"), f"{where}.leader")
        expected = tricks[-1].winner if tricks else first_leader
        if leader != expected:
            raise InvalidStateError(f"{where}: seat {expected} leads it (the previous winner), not {leader}")
        cards = _cards(item.get("cards"), f"{where}.cards")
        if len(cards) != N_SEATS:
            raise InvalidStateError(f"{where}.cards must hold the trick's four cards")
        winner = trick_winner(leader, cards)
        if item.get("winner", winner) != winner:
            raise InvalidStateError(f"{where}: seat {winner} takes it, not {item['winner']!r}")
        signal = _signal(item.get("signal"), f"{where}.signal")
        if signal is not None and (i == 0 or not options.signals):
            raise InvalidStateError(f"{where}: no signal may be given here")
        tricks.append(PartnershipTrick(leader, (cards[0], cards[1], cards[2], cards[3]), winner, signal))
    return tuple(tricks)


def _declarations(raw: Any) -> tuple[tuple[Declaration, ...], ...]:
    if not isinstance(raw, list) or len(raw) != N_SEATS or not all(isinstance(ds, list) for ds in raw):
        raise InvalidStateError("'declarations' must be a list of four lists, one per seat")
    try:
        return tuple(tuple(Declaration.from_dict(d) for d in ds) for ds in raw)
    except ValueError as exc:
        raise InvalidStateError(f"'declarations': {exc}") from None


def _match(raw: Any) -> PartnershipMatch | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) != {"target", "first_leader", "scores", "deals"}:
        raise InvalidStateError("'match' must be {\"target\", \"first_leader\", \"scores\", \"deals\"}")
    scores = raw["scores"]
    if not isinstance(scores, list) or len(scores) != 2 or not all(type(s) is int for s in scores):
        raise InvalidStateError("'match.scores' must be two whole numbers")
    if type(raw["target"]) is not int or type(raw["deals"]) is not int:
        raise InvalidStateError("'match.target' and 'match.deals' must be whole numbers")
    try:
        return PartnershipMatch(raw["target"], _seat(raw["first_leader"], "'match.first_leader'"),
                                (scores[0], scores[1]), raw["deals"])
    except ValueError as exc:
        raise InvalidStateError(f"'match': {exc}") from None


def _check_cards(view: PartnershipView) -> None:
    if len(view.table) >= N_SEATS:
        raise InvalidStateError("'table' holds at most three cards (a fourth finishes the trick)")
    seen: set[Card] = set()
    for card in [*(c for _, c in _plays(view)), *view.hand]:
        if card in seen:
            raise InvalidStateError(f"{card_name(card)} appears twice")
        seen.add(card)
    if view.is_over and view.table:
        raise InvalidStateError("'table' must be empty after the tenth trick")
    if view.seat is None:
        if view.hand:
            raise InvalidStateError("a spectator ('seat': null) has no 'hand'")
    elif len(view.hand) != view.hand_counts[view.seat]:
        raise InvalidStateError(f"seat {view.seat} must hold {view.hand_counts[view.seat]} cards "
                                f"after what it played, not {len(view.hand)}")


def _check_signals(view: PartnershipView) -> None:
    if view.table_signal is not None and (not view.table or not view.history or not view.options.signals):
        raise InvalidStateError("'signal': no signal may be given with this trick")
    if view.seat is None:
        return
    # The viewer's own signals can be checked: its hand after each signalled lead is known.
    later: list[Card] = list(view.hand)
    if (view.table and view.leader == view.seat and view.table_signal is not None
            and not signal_is_true(view.table_signal, view.table[0], later)):
        raise InvalidStateError(f"'signal': {view.table_signal.value} is not true of the hand")
    later.extend(c for i, c in enumerate(view.table) if (view.leader + i) % N_SEATS == view.seat)
    for i in range(len(view.history) - 1, -1, -1):
        trick = view.history[i]
        if trick.leader == view.seat and trick.signal is not None \
                and not signal_is_true(trick.signal, trick.cards[0], later):
            raise InvalidStateError(f"'tricks'[{i}]: {trick.signal.value} is not true of the hand")
        later.extend(c for k, c in enumerate(trick.cards) if trick.seat_of(k) == view.seat)


def _check_declarations(view: PartnershipView) -> None:
    first_cards = _first_cards(view)
    for seat, ds in enumerate(view.declarations):
        if not ds:
            continue
        if not view.options.declarations:
            raise InvalidStateError("'declarations': this table plays without declarations")
        if seat not in first_cards:
            raise InvalidStateError(f"'declarations': seat {seat} declares with its first card, not yet played")
        if len(set(ds)) != len(ds):
            raise InvalidStateError(f"'declarations': seat {seat} declares the same thing twice")
        if seat == view.seat:
            dealt = set(view.hand) | set(_cards_of_seat(view, seat))
            false = [d for d in ds if d not in possible_declarations(dealt)]
            if false:
                raise InvalidStateError(f"'declarations': seat {seat}'s hand does not hold {false[0].label}")
            continue
        others = {c: s for s, c in _plays(view) if s != seat}
        for d in ds:
            shown_elsewhere = [c for c in d.cards if c in others or (c in view.hand)]
            if shown_elsewhere or (d.missing is not None and d.missing in _cards_of_seat(view, seat)):
                raise InvalidStateError(f"'declarations': seat {seat}'s {d.label} contradicts the cards seen")


def _plays(view: PartnershipView) -> list[tuple[int, Card]]:
    """Return every card played (finished tricks, then the table) with its seat."""
    out = [(t.seat_of(k), c) for t in view.history for k, c in enumerate(t.cards)]
    out.extend(((view.leader + i) % N_SEATS, c) for i, c in enumerate(view.table))
    return out


def _cards_of_seat(view: PartnershipView, seat: int) -> list[Card]:
    return [c for s, c in _plays(view) if s == seat]


def _first_cards(view: PartnershipView) -> set[int]:
    """Return the seats that have played their first card."""
    return {s for s, _ in _plays(view)}
