"""Known positions of the four-player game: tricks, declarations true and false, signals where allowed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tressette import IllegalMoveError, InvalidStateError, parse_card, parse_cards
from tressette.partnership import (
    Declaration,
    PartnershipDeal,
    PartnershipMatch,
    PartnershipMove,
    PartnershipOptions,
    PartnershipOutcome,
    Signal,
    parse_partnership_view,
    partner_of,
    partnership_of,
    possible_declarations,
    view_of_partnership,
)

HANDS = [
    "B 3, B 2, B AS, K AS, S AS, D 4, D 5, D 6, D 7, K 4",                      # napoletana B, three AS (no D)
    "K 3, S 3, D 3, K 2, S 2, D 2, B KRALJ, B KAVAL, B FANT, B 7",              # three 3s and three 2s (no B)
    "D AS, D KRALJ, D KAVAL, D FANT, K KRALJ, K KAVAL, K FANT, K 7, K 6, K 5",  # nothing to declare
    "B 6, B 5, B 4, S KRALJ, S KAVAL, S FANT, S 7, S 6, S 5, S 4",
]
NAP_B = Declaration("napoletana", suit=0)
THREE_AS_NO_D = Declaration("three", suit=3, rank=2)
THREE_3_NO_B = Declaration("three", suit=0, rank=0)
THREE_2_NO_B = Declaration("three", suit=0, rank=1)


def _deal(options: PartnershipOptions | None = None, first_leader: int = 0) -> PartnershipDeal:
    deck = [c for hand in HANDS for c in parse_cards(hand.split(", "))]
    return PartnershipDeal.from_deck(deck, first_leader, options)


def _play(deal: PartnershipDeal, name: str, **kwargs: Any) -> Any:
    return deal.play(parse_card(name), **kwargs)


def _refused(deal: PartnershipDeal, name: str, reason: str, **kwargs: Any) -> None:
    before = (tuple(tuple(h) for h in deal.hands), tuple(deal.table), tuple(tuple(d) for d in deal.declarations))
    with pytest.raises(IllegalMoveError) as refused:
        _play(deal, name, **kwargs)
    assert refused.value.reason == reason
    assert before == (tuple(tuple(h) for h in deal.hands), tuple(deal.table), tuple(tuple(d) for d in deal.declarations))


def _after_three_tricks() -> PartnershipDeal:
    deal = _deal()
    _play(deal, "B AS", declarations=[NAP_B, THREE_AS_NO_D])
    _play(deal, "B KRALJ", declarations=[THREE_2_NO_B, THREE_3_NO_B])
    _play(deal, "K 5")
    _play(deal, "B 4")
    _play(deal, "B 3", signal=Signal.STRISCIO)
    for name in ("B KAVAL", "K 6", "B 5"):
        _play(deal, name)
    _play(deal, "B 2", signal=Signal.VOLO)
    for name in ("B FANT", "K 7", "B 6"):
        _play(deal, name)
    return deal


def test_seats_partners_and_order() -> None:
    assert [partnership_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [partner_of(s) for s in range(4)] == [2, 3, 0, 1]
    deal = _deal(first_leader=3)
    assert deal.to_move == 3
    _play(deal, "S 4")
    assert deal.to_move == 0  # seat order wraps around: 3 -> 0 -> 1 -> 2


def test_the_first_tricks_of_the_known_deal() -> None:
    """Declarations with the first card, the highest of the suit led takes, an off-suit card never does."""
    deal = _deal()
    assert deal.declarable() == (NAP_B, THREE_AS_NO_D)
    assert _play(deal, "B AS", declarations=[NAP_B, THREE_AS_NO_D]) is None
    assert deal.declarable() == (THREE_2_NO_B, THREE_3_NO_B)
    _play(deal, "B KRALJ", declarations=[THREE_2_NO_B, THREE_3_NO_B])
    assert deal.declarable() == ()
    _play(deal, "K 5")
    trick = _play(deal, "B 4")
    assert trick.winner == 0 and trick.points == 4 and deal.points == [4, 0]
    assert deal.declared_points() == (6, 6)

    deal = _after_three_tricks()
    assert [t.signal for t in deal.history] == [None, Signal.STRISCIO, Signal.VOLO]
    assert deal.points == [8, 0] and deal.leader == 0
    _play(deal, "D 4")
    _refused(deal, "B 7", "must_follow")  # seat 1 holds diamonds
    _play(deal, "D 3")
    _play(deal, "D AS")
    trick = _play(deal, "S 4")  # seat 3 has no diamond: anything goes, and it cannot take
    assert trick.winner == 1 and trick.points == 4 and deal.points == [8, 4] and deal.leader == 1


def test_a_whole_deal_scores_eleven_plus_the_declarations() -> None:
    deal = _after_three_tricks()
    while not deal.is_over:
        deal.play(deal.legal_moves()[0])
    outcome = deal.outcome()
    assert sum(outcome.points) == 35 and sum(outcome.card_score) == 11
    assert outcome.declared == (6, 6)
    assert outcome.score == (outcome.card_score[0] + 6, outcome.card_score[1] + 6)
    last = deal.history[-1]
    assert outcome.points[partnership_of(last.winner)] >= 3  # the last trick's 3 went to its takers


def test_outcome_draw_and_cappotto() -> None:
    assert PartnershipOutcome((18, 17), (0, 0)).winner == 0
    assert PartnershipOutcome((15, 20), (3, 0)).score == (8, 6)
    assert PartnershipOutcome((18, 17), (0, 1)).winner is None  # 6 + 0 against 5 + 1: a single deal drawn
    assert PartnershipOutcome((35, 0), (0, 4), cappotto=0).score == (11, 4)  # cappotto scores nothing more


@pytest.mark.parametrize(("declarations", "reason"), [
    ([Declaration("napoletana", suit=1)], "false_declaration"),   # no 3 or 2 of cups
    ([Declaration("three", suit=1, rank=2)], "false_declaration"),  # three Aces, but the missing one is coins
    ([Declaration("four", rank=2)], "false_declaration"),
    ([NAP_B, NAP_B], "false_declaration"),
    ([NAP_B, Declaration("three", suit=0, rank=0)], "false_declaration"),  # one true, one false: all refused
])
def test_a_false_declaration_is_refused_and_nothing_changes(declarations: list[Declaration], reason: str) -> None:
    deal = _deal()
    _refused(deal, "B AS", reason, declarations=declarations)
    _play(deal, "B AS", declarations=[NAP_B])  # then the true one is taken
    assert deal.declarations[0] == [NAP_B]


def test_declarations_only_with_the_first_card() -> None:
    deal = _deal()
    _play(deal, "B AS")  # seat 0 chose not to declare: the chance is gone
    for name in ("B KRALJ", "K 5", "B 4"):
        _play(deal, name)
    assert deal.declarable() == ()
    _refused(deal, "B 3", "declaration_not_allowed", declarations=[NAP_B])
    off = _deal(PartnershipOptions(declarations=False))
    assert off.declarable() == ()
    _refused(off, "B AS", "declaration_not_allowed", declarations=[NAP_B])


def test_possible_declarations() -> None:
    hand = parse_cards(["B 3", "K 3", "S 3", "D 3", "B 2", "B AS", "K 2", "S 2", "K AS", "D AS"])
    # Four 3s, three 2s (no D), three Aces (no S), a napoletana in B and in K.
    assert possible_declarations(hand) == (
        Declaration("napoletana", suit=0), Declaration("napoletana", suit=1),
        Declaration("three", suit=2, rank=2), Declaration("three", suit=3, rank=1), Declaration("four", rank=0))
    assert sum(d.points for d in possible_declarations(hand)) == 3 + 3 + 3 + 3 + 4
    assert possible_declarations(parse_cards(["B 3", "K 3", "S 7"])) == ()
    assert Declaration("three", suit=3, rank=2).cards == frozenset(parse_cards(["B AS", "K AS", "S AS"]))
    with pytest.raises(ValueError):
        Declaration("four", suit=1, rank=2)
    with pytest.raises(ValueError):
        Declaration("three", suit=1, rank=5)  # no three kings


def test_signals_only_where_allowed() -> None:
    deal = _deal()
    _refused(deal, "B AS", "signal_not_allowed", signal=Signal.BUSSO)  # not in the first trick
    _play(deal, "B AS")
    for name in ("B KRALJ", "K 5", "B 4"):
        _play(deal, name)
    assert deal.allowed_signals(parse_card("B 3")) == (Signal.BUSSO, Signal.STRISCIO)
    assert deal.allowed_signals(parse_card("S AS")) == (Signal.BUSSO, Signal.VOLO)
    _refused(deal, "B 3", "false_signal", signal=Signal.VOLO)        # B 2 is still in hand
    _refused(deal, "S AS", "false_signal", signal=Signal.STRISCIO)   # the last spade
    _play(deal, "B 3", signal=Signal.BUSSO)
    assert deal.table_signal is Signal.BUSSO
    assert deal.allowed_signals(parse_card("B KAVAL")) == ()
    _refused(deal, "B KAVAL", "signal_not_allowed", signal=Signal.STRISCIO)  # only the leader signals
    for name in ("B KAVAL", "K 6", "B 5"):
        _play(deal, name)
    assert deal.history[-1].signal is Signal.BUSSO and deal.table_signal is None
    off = _deal(PartnershipOptions(signals=False))
    for name in ("B AS", "B KRALJ", "K 5", "B 4"):
        _play(off, name)
    assert off.allowed_signals(parse_card("B 3")) == ()
    _refused(off, "B 3", "signal_not_allowed", signal=Signal.BUSSO)


def test_the_public_view_of_declarations_and_signals() -> None:
    deal = _after_three_tricks()
    view = view_of_partnership(deal, 2)
    data = view.to_dict()
    assert data["declarations"][0] == [{"kind": "napoletana", "suit": "B", "points": 3},
                                       {"kind": "three", "rank": "AS", "missing": "D", "points": 3}]
    assert data["declarations"][1][1] == {"kind": "three", "rank": "3", "missing": "B", "points": 3}
    assert [t["signal"] for t in data["tricks"]] == [None, "striscio", "volo"]
    assert data["points"] == [8, 0] and data["declared"] == [6, 6] and data["score"] == [8, 6]
    assert data["hand_counts"] == [7, 7, 7, 7] and data["to_move"] == 0 and data["legal"] == []
    assert len(data["hand"]) == 7 and set(data["hand"]) <= set(HANDS[2].split(", "))
    leader = view_of_partnership(deal, 0).to_dict()
    assert leader["signals"]["S AS"] == ["busso", "volo"] and leader["signals"]["K AS"] == ["busso", "striscio"]


def _view_json(seat: int = 0) -> dict[str, Any]:
    return view_of_partnership(_after_three_tricks(), seat).to_dict()


def _with(data: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return json.loads(json.dumps(data)) | changes


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: _with(d, game="tressette"), "'game'"),
    (lambda d: _with(d, seat=4), "'seat'"),
    (lambda d: _with(d, seat=True), "'seat'"),
    (lambda d: _with(d, first_leader=0.0), "'first_leader'"),
    (lambda d: _with(d, hand=[*d["hand"], "B KAVAL"]), "appears twice"),  # played by seat 1
    (lambda d: _with(d, hand=d["hand"][1:]), "must hold 7 cards"),
    (lambda d: _with(d, first_leader=1), "leads it"),
    (lambda d: _with(d, tricks=[d["tricks"][0] | {"winner": 2}, *d["tricks"][1:]]), "takes it"),
    (lambda d: _with(d, tricks=[d["tricks"][0] | {"signal": "busso"}, *d["tricks"][1:]]), "no signal"),
    (lambda d: _with(d, tricks=[*d["tricks"][:2], d["tricks"][2] | {"signal": "striscio"}]), "not true"),
    (lambda d: _with(d, options={"declarations": False, "signals": True}), "without declarations"),
    (lambda d: _with(d, declarations=[[{"kind": "four", "rank": "AS"}], [], [], []]), "does not hold"),
    (lambda d: _with(d, declarations=[[], [], [{"kind": "napoletana", "suit": "K"}], []]), "contradicts"),
    (lambda d: _with(d, declarations=[[], [], [], [{"kind": "five"}]]), "unknown declaration kind"),
    (lambda d: _with(d, match={"target": 25, "first_leader": 0, "scores": [0, 0], "deals": 0}), "'match'"),
    (lambda d: _with(d, signal="volo"), "no signal"),
    (lambda d: _with(d, match={"target": 31, "first_leader": 2, "scores": [12, 17], "deals": 1}), "leads deal 2"),
])
def test_a_malformed_view_is_refused(change: Any, words: str) -> None:
    with pytest.raises(InvalidStateError, match=words):
        parse_partnership_view(change(_view_json()))


def test_a_view_round_trips_mid_trick_with_a_signal() -> None:
    deal = _after_three_tricks()
    _play(deal, "K AS", signal=Signal.STRISCIO)
    match = PartnershipMatch(31, first_leader=2, scores=(12, 17), deals=2)  # seat 2 led deal 1, seat 0 deal 3
    for seat in (0, 1, None):
        view = view_of_partnership(deal, seat, match)
        assert parse_partnership_view(view.to_json()) == view
        assert view.table_signal is Signal.STRISCIO


def test_a_move_round_trips_and_a_malformed_one_is_refused() -> None:
    move = PartnershipMove(parse_card("B AS"), (NAP_B, THREE_AS_NO_D), None)
    assert PartnershipMove.from_dict(json.loads(json.dumps(move.to_dict()))) == move
    assert PartnershipMove.from_dict({"card": "B 3", "signal": "volo"}).signal is Signal.VOLO
    for bad in ({"signal": "volo"}, {"card": "B 11"}, {"card": "B 3", "signal": "psst"}, "B 3",
                {"card": "B 3", "declarations": [{"kind": "four", "rank": "AS", "missing": "B"}]}):
        with pytest.raises(ValueError):
            PartnershipMove.from_dict(bad)
