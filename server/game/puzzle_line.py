"""Judge a puzzle attempt: the player's cards so far against the puzzle's proven line (docs/protocol.md, "Puzzles").

Pure: it reads a puzzle's ``data`` (the finder's JSON, /work/shared-notes/puzzle-interface.md) and plays
the cards with the rules package, so every card is checked for legality. Seat 0 is the player (the
puzzle's mover), seat 1 the opponent. ``solution`` and each refutation are cards in play order; which
of them are the player's follows from the play (after a trick the opponent took, the opponent plays
twice in a row), and ``accepted[k]`` belongs to the player's k-th card of the solution.

A card in ``accepted`` but not the solution's is equivalent to it: the rest of the line is followed
with the two cards' roles swapped, so the player may keep the other one for later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from tressette import (
    ALL_CARDS,
    Card,
    CardError,
    Deal,
    IllegalMoveError,
    Trick,
    Variant,
    card_name,
    parse_card,
)
from tressette.cards import N_TRICKS

Verdict = Literal["right", "solved", "wrong"]
_FILLER = Trick(leader=0, cards=(0, 0), winner=0)  # tricks before the position: only their number matters


class BadCards(ValueError):
    """The cards sent are not cards, or not playable where they are played (answered 422)."""

    def __init__(self, code: str, message: str) -> None:
        """Keep a machine ``code`` (``bad_card``, ``illegal_card``, ``too_many_cards``) beside the message."""
        super().__init__(message)
        self.code = code


@dataclass(slots=True)
class Judgement:
    """What the player's cards amount to.

    ``reply``: the opponent's cards played after the player's last card (until the player is to move
    again or the line ends); ``moves``: every card played since the start, each ``{"card", "you"}``
    (and ``"took"`` on a trick's second card: whether the player took it); ``position``: the position
    now; ``refutation`` (when wrong): the line that beats the player's card, annotated like ``moves``.
    """

    verdict: Verdict
    reply: list[str] = field(default_factory=list)
    moves: list[dict[str, Any]] = field(default_factory=list)
    position: dict[str, Any] = field(default_factory=dict)
    refutation: list[dict[str, Any]] = field(default_factory=list)
    refutation_points: list[int] | None = None


def position_deal(data: dict[str, Any]) -> Deal:
    """Return a deal at the puzzle's start: seat 0 the player to move, seat 1 the opponent, the stock empty.

    Raises:
        ValueError: the data does not describe a position (unknown cards, a card twice, wrong counts).
    """
    hand = [parse_card(c) for c in data["hand"]]
    other = [parse_card(c) for c in data["opponent_hand"]]
    inplay = [parse_card(c) for c in data["inplay"]]
    cards = hand + other + inplay
    if len(set(cards)) != len(cards) or len(inplay) > 1 or len(other) + len(inplay) != len(hand) or not hand:
        raise ValueError("not a puzzle position: the hands and the card in play do not fit together")
    done = N_TRICKS - len(hand)
    return Deal(variant=Variant(data["variant"]), first_leader=0, deck=tuple(ALL_CARDS), hands=(hand, other),
                stock=[], leader=1 if inplay else 0, table=inplay, points=[int(data["points"]),
                                                                           int(data["opponent_points"])],
                history=[_FILLER] * done)


def position_of(deal: Deal) -> dict[str, Any]:
    """Return the position of ``deal`` as the page shows it (the player's view: every card is known)."""
    return {"hand": [card_name(c) for c in sorted(deal.hands[0])],
            "opponent_hand": [card_name(c) for c in sorted(deal.hands[1])],
            "inplay": [card_name(c) for c in deal.table], "points": deal.points[0],
            "opponent_points": deal.points[1], "to_move": "you" if deal.to_move == 0 else "opponent",
            "over": deal.is_over, "legal": [card_name(c) for c in deal.legal_moves(0)]}


def _play(deal: Deal, card: Card, moves: list[dict[str, Any]]) -> None:
    you = deal.to_move == 0
    trick = deal.play(card)
    move: dict[str, Any] = {"card": card_name(card), "you": you}
    if trick is not None:
        move["took"] = trick.winner == 0
    moves.append(move)


def annotate(data: dict[str, Any], line: list[str], before: list[str] | None = None) -> list[dict[str, Any]]:
    """Return ``line`` (cards in play order from the position after ``before``) as ``{"card", "you", "took"}``."""
    deal = position_deal(data)
    for name in before or []:
        deal.play(parse_card(name))
    moves: list[dict[str, Any]] = []
    for name in line:
        _play(deal, parse_card(name), moves)
    return moves


def _parse(cards: list[str]) -> list[Card]:
    try:
        return [parse_card(c) for c in cards]
    except CardError as exc:
        raise BadCards("bad_card", str(exc)) from None


def judge(data: dict[str, Any], cards: list[str]) -> Judgement:
    """Return the verdict on the player's ``cards`` (in order) in the puzzle ``data``.

    The verdict is ``wrong`` at the first card outside its step's ``accepted``, ``solved`` once the
    last step is answered, else ``right``. Does not look at who may attempt or whether it was answered.

    Raises:
        BadCards: an unknown card, a card the player may not play there, or more cards than the line has.
    """
    played = _parse(cards)
    deal = position_deal(data)
    solution = [parse_card(c) for c in data["solution"]]
    accepted = [{parse_card(c) for c in step} for step in data["accepted"]]
    world: dict[Card, Card] = {}  # the player's card -> the card it stands for in the line (equivalents swapped)
    moves: list[dict[str, Any]] = []
    at = 0
    for step, card in enumerate(played):
        if step >= len(accepted):
            raise BadCards("too_many_cards", "the puzzle was solved before this card")
        try:
            deal.check_move(card, 0)
        except IllegalMoveError as exc:
            raise BadCards("illegal_card", str(exc)) from None
        stands_for = world.get(card, card)
        if stands_for not in accepted[step]:
            return _wrong(data, deal, card, stands_for, step, world, moves)
        mine = solution[at]
        if stands_for != mine:  # an equivalent card: the one kept now stands for the one just played
            kept = next((c for c, w in world.items() if w == mine), mine)
            world[kept] = stands_for
        world.pop(card, None)
        _play(deal, card, moves)
        at += 1
        reply_from = len(moves)
        while at < len(solution) and not deal.is_over and deal.to_move == 1:
            _play(deal, solution[at], moves)
            at += 1
        if step == len(played) - 1:
            verdict: Verdict = "solved" if step + 1 == len(accepted) else "right"
            return Judgement(verdict, reply=[m["card"] for m in moves[reply_from:]], moves=moves,
                             position=position_of(deal))
    return Judgement("right", moves=moves, position=position_of(deal))


def _wrong(data: dict[str, Any], deal: Deal, card: Card, stands_for: Card, step: int, world: dict[Card, Card],
           moves: list[dict[str, Any]]) -> Judgement:
    """Return the verdict on a wrong card: the refutation from the finder, played on from here."""
    back = {w: c for c, w in world.items()}  # the line's cards -> the player's own
    refutations = data.get("refutations") or []
    line = refutations[step].get(card_name(stands_for)) if step < len(refutations) else None
    names = [card_name(back.get(c, c)) for c in (parse_card(x) for x in (line or [card_name(stands_for)]))]
    names[0] = card_name(card)
    rest = deal.copy()
    refutation: list[dict[str, Any]] = []
    try:
        for name in names:
            _play(rest, parse_card(name), refutation)
    except IllegalMoveError:  # a stored line that does not fit: show as much of it as plays
        pass
    return Judgement("wrong", moves=moves, position=position_of(deal), refutation=refutation,
                     refutation_points=list(rest.points) if rest.is_over else None)
