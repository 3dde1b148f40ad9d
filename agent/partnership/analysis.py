"""The double-dummy analysis of a finished four-player deal (issue #47): every card judged exactly.

Once a four-player deal is over every hand is known, so each move is judged with all four
hands open: the compiled double-dummy solver (:class:`~agent.partnership.solver.DoubleDummySolver`,
one transposition table kept through the deal) gives every legal card's exact value, the
final card points of the mover's partnership, in **thirds**, with best play by all four
afterwards.  Declarations are made with the first cards and never change with the play, so
they are left out of the values: a value is card thirds only (a partnership's deal score is
its declared points plus the whole points of its thirds).  A line best in thirds is best in
whole points and in deal score too, so the best card is the one with the most thirds.

Per move: ``value`` (the card played), ``best_value``, ``best`` (one best card, the card
played when it is one), ``best_cards`` (every best card), ``loss`` = ``best_value - value``
(>= 0), ``label`` by the two-player thresholds (:func:`agent.analysis.label`, exact: ``noise``
is 0, ``known`` is true), ``win``/``best_win`` (1, 0.5 a drawn deal, 0: the deal's result for the
mover's partnership with its declared points, after the card and after the best card) and
``kind`` (``threw_win``/``missed_win``, as in the two-player analysis, when the card gives a won
deal up); ``eval`` is both partnerships' final thirds under best play once the card is down
(the graph), ``start`` the same before the first card.  Per seat, ``players`` holds accuracy and
mean loss as :func:`agent.analysis.player_summary` counts them (moves with a choice only).

>>> import random
>>> from tressette import card_name
>>> from tressette.partnership import PartnershipDeal
>>> deal, rng, moves = PartnershipDeal.new(0, random.Random(1)), random.Random(1), []
>>> while not deal.is_over:
...     card = rng.choice(deal.legal_moves())
...     moves.append({"seat": deal.to_move, "card": card_name(card)})
...     _ = deal.play(card)
>>> result = analyse({"game": "partnership", "deck": [card_name(c) for c in deal.deck],
...                   "first_leader": 0, "moves": moves})
>>> len(result["moves"]), [p["seat"] for p in result["players"]]
(40, [0, 1, 2, 3])
>>> sum(result["moves"][-1]["eval"]["points"]) == 35
True
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent.analysis import RecordError, label, move_kind, player_summary, thresholds, version
from agent.partnership.position import OpenPosition
from agent.partnership.solver import DoubleDummySolver
from tressette import TOTAL_POINTS, Card, CardError, IllegalMoveError, card_name, parse_card
from tressette.cards import traditional_points
from tressette.partnership import (
    N_SEATS,
    Declaration,
    PartnershipDeal,
    PartnershipOptions,
    partnership_of,
)

GAME = "partnership"
"""The record's and the analysis's ``game``: what tells a four-player job from a two-player one."""
TABLE_BITS = 20
"""The solver's transposition table: 2**20 rows (56 MB), kept through the deal."""


@dataclass(frozen=True, slots=True)
class FourRecord:
    """A validated four-player deal record: the deal as dealt, each card played and what went with it."""

    deck: tuple[Card, ...]
    first_leader: int
    moves: tuple[tuple[Card, tuple[Declaration, ...]], ...]
    declared: tuple[int, int]
    """Whole points each partnership declared over the deal (fixed by the first trick)."""


def is_four(record: Any) -> bool:
    """Return True if ``record`` is a four-player deal's (its ``game`` or ``variant`` is ``partnership``)."""
    return isinstance(record, Mapping) and GAME in (record.get("game"), record.get("variant"))


def parse_record(record: Mapping[str, Any]) -> FourRecord:
    """Validate a four-player deal record: ``deck`` (40 names, dealing order), ``first_leader`` (0..3), ``moves``.

    ``moves`` lists ``{"seat": s, "card": name, "declarations": [...]}`` in order (declarations
    optional, as the rules' JSON; extra keys ignored); every move must be legal and by the seat to
    move.  Raises :class:`~agent.analysis.RecordError` with a one-line reason.
    """
    if not isinstance(record, Mapping):
        raise RecordError("the record must be a JSON object")
    missing = [k for k in ("deck", "first_leader", "moves") if k not in record]
    if missing:
        raise RecordError(f"missing field(s): {', '.join(missing)}")
    deck = _cards(record["deck"], "deck")
    first_leader = record["first_leader"]
    if isinstance(first_leader, bool) or first_leader not in range(N_SEATS):
        raise RecordError(f"'first_leader' must be a seat 0..3, got {first_leader!r}")
    try:
        deal = PartnershipDeal.from_deck(deck, first_leader, PartnershipOptions(declarations=True, signals=False))
    except ValueError as exc:
        raise RecordError(f"'deck': {exc}") from None
    raw_moves = record["moves"]
    if not isinstance(raw_moves, list):
        raise RecordError("'moves' must be a list of {\"seat\": s, \"card\": name}")
    moves: list[tuple[Card, tuple[Declaration, ...]]] = []
    for k, item in enumerate(raw_moves):
        if not isinstance(item, Mapping) or "card" not in item or "seat" not in item:
            raise RecordError(f"'moves'[{k}] must be {{\"seat\": s, \"card\": name}}")
        card = _cards([item["card"]], f"moves[{k}].card")[0]
        try:
            declared = tuple(Declaration.from_dict(d) for d in item.get("declarations") or ())
            deal.play(card, item["seat"], declarations=declared)
        except (IllegalMoveError, ValueError, TypeError) as exc:
            raise RecordError(f"'moves'[{k}] ({card_name(card)} by seat {item['seat']!r}): {exc}") from None
        moves.append((card, declared))
    return FourRecord(tuple(deck), first_leader, tuple(moves), deal.declared_points())


def _cards(raw: Any, key: str) -> list[Card]:
    if not isinstance(raw, list):
        raise RecordError(f"'{key}' must be a list of card names")
    try:
        return [parse_card(x) for x in raw]
    except (CardError, TypeError) as exc:
        raise RecordError(f"'{key}': {exc}") from None


def deal_result(thirds: int, declared: tuple[int, int], side: int) -> float:
    """Return the deal's result for partnership ``side`` when it ends with ``thirds`` card thirds: 1, 0.5 or 0.

    >>> deal_result(18, (0, 0), 0), deal_result(17, (0, 3), 1), deal_result(16, (1, 0), 0)
    (1.0, 1.0, 0.5)
    """
    own = traditional_points(thirds) + declared[side]
    theirs = traditional_points(TOTAL_POINTS - thirds) + declared[1 - side]
    return 1.0 if own > theirs else 0.5 if own == theirs else 0.0


def judge(values: Mapping[Card, int], played: Card, declared: tuple[int, int], side: int) -> dict[str, Any]:
    """Return a move's judgement from every legal card's exact value (its partnership's final thirds).

    The keys are the two-player analysis's (``agent.analysis.judge_move``) plus ``best_cards``;
    ``gave_up_win`` says whether the card gives a won deal up (the caller sets ``kind``).
    """
    best_value = max(values.values())
    best_cards = sorted(c for c, v in values.items() if v == best_value)
    best = played if played in best_cards else best_cards[0]
    value = values[played]
    win, best_win = deal_result(value, declared, side), deal_result(best_value, declared, side)
    gave_up = best_win == 1.0 and win == 0.0
    loss = float(best_value - value)
    return {
        "card": card_name(played), "known": True, "best": card_name(best),
        "best_cards": [card_name(c) for c in best_cards], "value": float(value), "best_value": float(best_value),
        "loss": loss, "noise": 0.0, "win": win, "best_win": best_win,
        "label": label(loss, 0.0, gave_up), "gave_up_win": gave_up,
        "cards": [{"card": card_name(c), "value": float(values[c]), "win": deal_result(values[c], declared, side)}
                  for c in sorted(values)],
    }


def both(value: int, side: int) -> list[float]:
    """Return both partnerships' final thirds when partnership ``side`` ends with ``value`` of the 35."""
    points = [0.0, 0.0]
    points[side], points[1 - side] = float(value), float(TOTAL_POINTS - value)
    return points


def analyse(record: Mapping[str, Any], *, solver: DoubleDummySolver | None = None) -> dict[str, Any]:
    """Return the double-dummy analysis of a four-player deal record (see :func:`parse_record` and the module).

    A forfeited deal's record holds only the moves played; those are analysed.  ``solver``: one to
    reuse (its table is kept; a fresh one by default).  Raises :class:`~agent.analysis.RecordError`
    for an invalid record.
    """
    start = time.perf_counter()
    rec = parse_record(record)
    solver = solver or DoubleDummySolver(TABLE_BITS)
    deal = PartnershipDeal.from_deck(rec.deck, rec.first_leader, PartnershipOptions(declarations=True, signals=False))
    moves: list[dict[str, Any]] = []
    opening: list[float] = []
    for k, (card, declared) in enumerate(rec.moves):
        seat, side = deal.to_move, partnership_of(deal.to_move)
        solution = solver.solve(OpenPosition.from_deal(deal), exact_all=True)
        if not opening:
            opening = both(solution.points[side], side)
        judged = judge(solution.values, card, rec.declared, side)
        gave_up = judged.pop("gave_up_win")
        cards = judged.pop("cards")
        moves.append({"move": k, "trick": deal.trick_number, "seat": seat, "partnership": side, **judged,
                      "kind": move_kind(gave_up, _last_of_other_side(moves, side), seat), "cards": cards,
                      "eval": {"points": both(solution.values[card], side)}})
        deal.play(card, declarations=declared)
    return {
        "version": version(), "game": GAME, "variant": GAME,
        "settings": {"thresholds": thresholds(), "units": "thirds of card points, declarations left out",
                     "method": "every position solved double-dummy, all four hands open "
                               "(agent.partnership.solver, one table through the deal)"},
        "declared": list(rec.declared), "start": {"points": opening},
        "moves": moves,
        "players": [player_summary(moves, seat) for seat in range(N_SEATS)],
        "timing": {"known_s": round(time.perf_counter() - start, 3), "hidden_s": 0.0,
                   "total_s": round(time.perf_counter() - start, 3)},
    }


def _last_of_other_side(moves: list[dict[str, Any]], side: int) -> dict[str, Any] | None:
    """Return the last move, as :func:`agent.analysis.move_kind` reads it: a partner's move counts as one's own.

    ``move_kind`` asks whether the previous move was an opponent's (another ``seat``) that gave a win up;
    at four a partner's card is no opponent's, so it is passed under the mover's side only when it was
    an opponent's (``seat`` -1 never equals a seat).
    """
    if not moves:
        return None
    last = moves[-1]
    if last["partnership"] == side:
        return None
    return {"seat": -1, "kind": last["kind"]}
