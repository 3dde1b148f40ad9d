"""The agent's JSON state (RULES.md): parse, validate, build from a view, write.

The agent is always the player to move.  Two optional fields carry more public
information when the caller has it:

- ``history``: the finished tricks in order, each ``{"leader": "me" | "him",
  "cards": [lead, follow]}`` and, optionally, ``"draws": {"me": card, "him": card}``
  (the cards each player drew after the trick, shown face up, while the stock lasted:
  with them the agent can rebuild the opponent's hand at each of its plays);
- ``hispoints``: the opponent's points so far;
- ``match``: in a match, ``{"target": 21, "me": 5, "him": 12}``: the target and both
  players' whole points before this deal (``tressette.match``), so the agent can play for the
  match rather than the deal.

>>> s = parse_state({"hand": ["K 3", "K KAVAL", "D 2", "D AS", "B 7"],
...     "hiscards": ["D KAVAL", "D KRALJ", "D 3", "K 2", "K 7"],
...     "unknown": ["D KAVAL", "D KRALJ", "D 3", "K 2", "K 7"],
...     "inplay": [], "points": 18, "cfm": False})
>>> s.stock_size, s.opponent_hand_size, s.opponent_points
(0, 5, 4)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tressette.cards import (
    ALL_CARDS,
    HAND_SIZE,
    N_CARDS,
    Card,
    CardError,
    card_name,
    legal_cards,
    parse_card,
    parse_cards,
    points_of,
    sort_cards,
    trick_winner_offset,
)
from tressette.deal import Trick
from tressette.errors import InvalidStateError
from tressette.match import MATCH_TARGETS, MAX_MATCH_SCORE, match_winner
from tressette.variant import Variant
from tressette.view import PlayerView


@dataclass(frozen=True, slots=True)
class MatchScore:
    """A match's standing before the deal, as the agent sees it: the target, its points and the opponent's."""

    target: int
    me: int
    him: int

    def to_dict(self) -> dict[str, int]:
        """Return the ``match`` field's JSON."""
        return {"target": self.target, "me": self.me, "him": self.him}


ME, HIM = 0, 1
"""Seats inside an :class:`AgentState`: the agent is 0, its opponent 1."""

REQUIRED_FIELDS = ("hand", "hiscards", "unknown", "inplay", "points", "cfm")


@dataclass(frozen=True, slots=True)
class AgentState:
    """A validated agent state.  Seat 0 is the agent (``ME``), seat 1 the opponent.

    ``history`` is None when the caller did not send it; its tricks use the
    same seat numbering and carry the draws when the caller sent them.
    """

    hand: tuple[Card, ...]
    hiscards: tuple[Card, ...]
    unknown: tuple[Card, ...]
    inplay: tuple[Card, ...]
    points: int
    cfm: bool
    history: tuple[Trick, ...] | None = None
    hispoints: int | None = None
    match: MatchScore | None = None

    @property
    def variant(self) -> Variant:
        """Return the variant (Kifameno when ``cfm``)."""
        return Variant.from_cfm(self.cfm)

    @property
    def played(self) -> frozenset[Card]:
        """Return the cards played in finished tricks."""
        return frozenset(ALL_CARDS) - set(self.hand) - set(self.unknown) - set(self.inplay)

    @property
    def tricks_played(self) -> int:
        """Return how many tricks are finished."""
        return len(self.played) // 2

    @property
    def is_leading(self) -> bool:
        """Return True if the agent leads the current trick."""
        return not self.inplay

    @property
    def opponent_hand_size(self) -> int:
        """Return how many cards the opponent holds."""
        return len(self.hand) - len(self.inplay)

    @property
    def stock_size(self) -> int:
        """Return how many cards are left in the stock."""
        return len(self.unknown) - self.opponent_hand_size

    @property
    def opponent_points(self) -> int:
        """Return the opponent's points so far (played points minus the agent's)."""
        return points_of(self.played) - self.points

    @property
    def opponent_known(self) -> tuple[Card, ...]:
        """Return the opponent's known cards: ``hiscards``, or all of ``unknown`` once the stock is empty."""
        return self.unknown if self.stock_size == 0 else self.hiscards

    @property
    def hidden(self) -> tuple[Card, ...]:
        """Return the cards whose place (opponent's hand or stock) is not known."""
        known = set(self.opponent_known)
        return tuple(c for c in self.unknown if c not in known)

    @property
    def all_known(self) -> bool:
        """Return True when every card's place is known (the position can be solved)."""
        return not self.hidden

    def legal_moves(self) -> list[Card]:
        """Return the cards the agent may play."""
        return legal_cards(self.hand, self.inplay[0] if self.inplay else None)

    def to_dict(self) -> dict[str, Any]:
        """Return the state as JSON-ready data (the optional fields only when set)."""
        out: dict[str, Any] = {
            "hand": [card_name(c) for c in self.hand],
            "hiscards": [card_name(c) for c in self.hiscards],
            "unknown": [card_name(c) for c in self.unknown],
            "inplay": [card_name(c) for c in self.inplay],
            "points": self.points,
            "cfm": self.cfm,
        }
        if self.history is not None:
            out["history"] = [_trick_dict(t) for t in self.history]
        if self.hispoints is not None:
            out["hispoints"] = self.hispoints
        if self.match is not None:
            out["match"] = self.match.to_dict()
        return out

    def to_json(self) -> str:
        """Return the state as a JSON string."""
        return json.dumps(self.to_dict())


def _trick_dict(trick: Trick) -> dict[str, Any]:
    out: dict[str, Any] = {"leader": "me" if trick.leader == ME else "him",
                           "cards": [card_name(c) for c in trick.cards]}
    if trick.draws:
        out["draws"] = {"me" if seat == ME else "him": card_name(c) for seat, c in trick.draws}
    return out


def _card_list(data: Mapping[str, Any], key: str) -> tuple[Card, ...]:
    value = data[key]
    if not isinstance(value, list):  # worded for the state's readers (the agent's callers)
        raise InvalidStateError(f"'{key}' must be a list of card names, got {type(value).__name__}")
    try:
        cards = parse_cards(value)
    except CardError as exc:
        raise InvalidStateError(f"'{key}': {exc}") from None
    for i, card in enumerate(cards):
        if card in cards[:i]:
            raise InvalidStateError(f"'{key}' lists {card_name(card)} twice")
    return tuple(cards)


def _int_field(data: Mapping[str, Any], key: str) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidStateError(f"'{key}' must be an integer, got {value!r}")
    return value


def json_object(data: Mapping[str, Any] | str | bytes) -> Mapping[str, Any]:
    """Return ``data`` as a mapping: decoded if JSON text; :class:`InvalidStateError` if it is not a JSON object."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise InvalidStateError(f"the state is not valid JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise InvalidStateError("the state must be a JSON object")
    return data


def parse_state(data: Mapping[str, Any] | str | bytes) -> AgentState:
    """Parse and validate an agent state (a mapping or JSON text).

    Raises :class:`InvalidStateError` saying what is wrong: a missing field, a
    wrong type, an unknown card name, a card listed twice or in two places,
    ``hiscards`` not inside ``unknown``, impossible counts, more than one card
    in ``inplay``, points out of range, or a history that contradicts the rest.
    """
    data = json_object(data)
    missing = [k for k in REQUIRED_FIELDS if k not in data]
    if missing:
        raise InvalidStateError(f"missing field(s): {', '.join(missing)}")
    hand = _card_list(data, "hand")
    hiscards = _card_list(data, "hiscards")
    unknown = _card_list(data, "unknown")
    inplay = _card_list(data, "inplay")
    points = _int_field(data, "points")
    cfm = data["cfm"]
    if not isinstance(cfm, bool):
        raise InvalidStateError(f"'cfm' must be true or false, got {cfm!r}")

    for a_name, a, b_name, b in (
        ("hand", hand, "unknown", unknown),
        ("hand", hand, "inplay", inplay),
        ("unknown", unknown, "inplay", inplay),
        ("hand", hand, "hiscards", hiscards),
    ):
        both = sorted(set(a) & set(b))
        if both:
            raise InvalidStateError(f"{card_name(both[0])} is in both '{a_name}' and '{b_name}'")
    outside = [c for c in hiscards if c not in unknown]
    if outside:
        raise InvalidStateError(f"'hiscards' must be inside 'unknown': {card_name(outside[0])} is not")
    if len(inplay) > 1:
        raise InvalidStateError(f"'inplay' holds at most one card (the opponent's lead), got {len(inplay)}")
    if not hand:
        raise InvalidStateError("'hand' is empty: the agent must have a card to play")

    played_count = N_CARDS - len(hand) - len(unknown) - len(inplay)
    if played_count % 2:
        raise InvalidStateError(
            f"impossible counts: {played_count} cards played is not a whole number of tricks"
        )
    tricks = played_count // 2
    stock_left = max(0, 20 - 2 * tricks)
    expected_hand = HAND_SIZE if stock_left else 20 - tricks
    if len(hand) != expected_hand:
        raise InvalidStateError(
            f"impossible counts: after {tricks} tricks the agent holds {expected_hand} cards, "
            f"not {len(hand)} (hand {len(hand)}, unknown {len(unknown)}, inplay {len(inplay)})"
        )
    opp_hand = len(hand) - len(inplay)
    if len(hiscards) > opp_hand:
        raise InvalidStateError(
            f"'hiscards' has {len(hiscards)} cards but the opponent holds only {opp_hand}"
        )
    played = frozenset(ALL_CARDS) - set(hand) - set(unknown) - set(inplay)
    played_points = points_of(played)
    if not 0 <= points <= played_points:
        raise InvalidStateError(
            f"'points' must be between 0 and {played_points} (the points of the cards played), got {points}"
        )

    hispoints = None
    if data.get("hispoints") is not None:
        hispoints = _int_field(data, "hispoints")
        if points + hispoints != played_points:
            raise InvalidStateError(
                f"'points' + 'hispoints' must equal the points of the played cards ({played_points}), "
                f"got {points} + {hispoints}"
            )
    history = None
    if data.get("history") is not None:
        history = _parse_history(data["history"], played, points, leading=not inplay)
        if any(t.draws for t in history):
            _check_draws(history, hand, hiscards, inplay)
    match = _parse_match(data["match"]) if data.get("match") is not None else None
    return AgentState(hand, hiscards, unknown, inplay, points, cfm, history, hispoints, match)


def _parse_match(raw: Any) -> MatchScore:
    if not isinstance(raw, Mapping) or set(raw) != {"target", "me", "him"}:
        raise InvalidStateError("'match' must be an object with exactly 'target', 'me' and 'him'")
    target, me, him = (_int_field(raw, k) for k in ("target", "me", "him"))
    if target not in MATCH_TARGETS:
        raise InvalidStateError(f"'match.target' must be one of {list(MATCH_TARGETS)}, got {target}")
    for name, value in (("me", me), ("him", him)):
        if not 0 <= value <= MAX_MATCH_SCORE:
            raise InvalidStateError(f"'match.{name}' must be between 0 and {MAX_MATCH_SCORE}, got {value}")
    if match_winner(Variant.TRESSETTE, target, (me, him)) is not None:
        raise InvalidStateError(f"'match': at {me}-{him} to {target} the match is over already")
    return MatchScore(target, me, him)


def _parse_history(raw: Any, played: frozenset[Card], points: int, *, leading: bool) -> tuple[Trick, ...]:
    if not isinstance(raw, list):
        raise InvalidStateError("'history' must be a list of tricks")
    tricks: list[Trick] = []
    seen: set[Card] = set()
    my_points = 0
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping) or item.get("leader") not in ("me", "him"):
            raise InvalidStateError(f"'history'[{i}] must be {{\"leader\": \"me\"|\"him\", \"cards\": [lead, follow]}}")
        cards = item.get("cards")
        if not isinstance(cards, list) or len(cards) != 2:
            raise InvalidStateError(f"'history'[{i}].cards must hold the two cards of the trick")
        try:
            lead, follow = parse_card(cards[0]), parse_card(cards[1])
        except CardError as exc:
            raise InvalidStateError(f"'history'[{i}]: {exc}") from None
        for c in (lead, follow):
            if c in seen or c not in played:
                raise InvalidStateError(f"'history'[{i}]: {card_name(c)} was not played in that trick")
            seen.add(c)
        leader = ME if item["leader"] == "me" else HIM
        if tricks and tricks[-1].winner != leader:
            raise InvalidStateError(f"'history'[{i}]: the winner of the previous trick leads, not this player")
        winner = (leader + trick_winner_offset(lead, follow)) % 2
        trick = Trick(leader=leader, cards=(lead, follow), winner=winner, draws=_parse_draws(item, i, winner))
        if winner == ME:
            my_points += trick.points
        tricks.append(trick)
    if seen != played:
        raise InvalidStateError(f"'history' covers {len(seen)} played cards, but {len(played)} were played")
    if tricks and tricks[-1].winner != (ME if leading else HIM):
        raise InvalidStateError("'history': the last trick's winner must lead the current one")
    if my_points != points:
        raise InvalidStateError(f"'history' gives the agent {my_points} points, but 'points' is {points}")
    return tuple(tricks)


def _parse_draws(item: Mapping[str, Any], i: int, winner: int) -> tuple[tuple[int, Card], ...]:
    raw = item.get("draws")
    if raw is None:
        return ()
    if not isinstance(raw, Mapping) or set(raw) != {"me", "him"}:
        raise InvalidStateError(f"'history'[{i}].draws must be {{\"me\": card, \"him\": card}}")
    try:
        drawn = {ME: parse_card(raw["me"]), HIM: parse_card(raw["him"])}
    except CardError as exc:
        raise InvalidStateError(f"'history'[{i}].draws: {exc}") from None
    # The winner draws first, as in the rules package's tricks.
    return ((winner, drawn[winner]), (1 - winner, drawn[1 - winner]))


def _check_draws(history: tuple[Trick, ...], hand: tuple[Card, ...], hiscards: tuple[Card, ...],
                 inplay: tuple[Card, ...]) -> None:
    """Check that the draws are complete and that every drawn card went where it could go."""
    with_draws = min(len(history), 10)
    if any(not t.draws for t in history[:with_draws]) or any(t.draws for t in history[with_draws:]):
        raise InvalidStateError(f"'history': draws must be given for each of the first {with_draws} tricks "
                                "(those played while the stock lasted) and no other")
    later_plays: dict[int, set[Card]] = {ME: set(hand), HIM: set(hiscards) | set(inplay)}
    for i in range(len(history) - 1, -1, -1):
        trick = history[i]
        for seat, card in trick.draws:
            if card not in later_plays[seat]:
                raise InvalidStateError(
                    f"'history'[{i}].draws: {card_name(card)} is neither held nor played later by "
                    f"{'the agent' if seat == ME else 'the opponent'}")
            later_plays[seat].discard(card)
        for k, card in enumerate(trick.cards):
            later_plays[trick.seat_of(k)].add(card)


def state_from_view(view: PlayerView, *, with_history: bool = True) -> AgentState:
    """Return the agent state of the player to move in ``view``.

    ``with_history`` adds the optional ``history`` and ``hispoints`` fields.
    """
    if view.seat is None or view.to_move != view.seat:
        raise ValueError("an agent state is for the player to move")
    seat = view.seat
    hand = view.hand
    inplay = view.table if view.table else ()
    seen = view.played | set(hand) | set(inplay)
    unknown = tuple(c for c in ALL_CARDS if c not in seen)
    history = None
    hispoints = None
    if with_history:
        history = tuple(
            Trick(
                leader=ME if t.leader == seat else HIM,
                cards=t.cards,
                winner=ME if t.winner == seat else HIM,
                draws=tuple((ME if s == seat else HIM, c) for s, c in t.draws),
            )
            for t in view.history
        )
        hispoints = view.points[1 - seat]
    return AgentState(
        hand=tuple(sort_cards(hand)),
        hiscards=tuple(sort_cards(view.opponent_known)),
        unknown=unknown,
        inplay=tuple(inplay),
        points=view.points[seat],
        cfm=view.variant.cfm,
        history=history,
        hispoints=hispoints,
    )
