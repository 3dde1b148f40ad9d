"""The four-player deal analysis: its values are the solver's on every move, its labels the thresholds'."""

from __future__ import annotations

import doctest
import json
import os
import random
from typing import Any

import pytest

import agent.partnership.analysis
from agent.analysis import BLUNDER_LOSS, INACCURACY_LOSS, MISTAKE_LOSS, RecordError
from agent.partnership.analysis import analyse, deal_result, judge, parse_record
from agent.partnership.position import OpenPosition
from agent.partnership.solver import DoubleDummySolver
from agent.partnership.solver_ref import ReferenceSolver, brute_force_values
from tests.forkserver import run_module
from tressette import TOTAL_POINTS, card_name, parse_card
from tressette.partnership import PartnershipDeal, PartnershipOptions, partnership_of


def seeded_record(seed: int, *, declare: bool = True) -> dict[str, Any]:
    """Return a seeded deal played at random to its end (first cards with every declaration held)."""
    rng = random.Random(seed)
    deal = PartnershipDeal.new(seed % 4, rng)
    moves = []
    while not deal.is_over:
        card = rng.choice(deal.legal_moves())
        declared = list(deal.declarable()) if declare else []
        moves.append({"move": len(moves), "trick": deal.trick_number, "seat": deal.to_move, "card": card_name(card),
                      "declarations": [d.to_dict() for d in declared]})
        deal.play(card, declarations=declared)
    return {"id": seed, "game": "partnership", "variant": "partnership", "deck": [card_name(c) for c in deal.deck],
            "first_leader": seed % 4, "moves": moves}


def positions(record: dict[str, Any]) -> list[PartnershipDeal]:
    """Return the deal before each move of ``record``."""
    deal = PartnershipDeal.from_deck([parse_card(c) for c in record["deck"]], record["first_leader"])
    out = []
    for m in record["moves"]:
        out.append(deal.copy())
        deal.play(parse_card(m["card"]), declarations=[])
    return out


def test_doctests() -> None:
    """The module's examples run."""
    assert doctest.testmod(agent.partnership.analysis).failed == 0


@pytest.mark.parametrize("seed", [11, 12])
def test_values_equal_a_fresh_solvers_on_every_move(seed: int) -> None:
    """Every legal card's value, the best value, the loss and the graph point are a fresh solver's, move by move."""
    record = seeded_record(seed)
    result = analyse(record)
    assert len(result["moves"]) == 40
    for move, deal in zip(result["moves"], positions(record), strict=True):
        solution = DoubleDummySolver(bits=18).solve(OpenPosition.from_deal(deal), exact_all=True)
        side = partnership_of(deal.to_move)
        assert move["seat"] == deal.to_move and move["partnership"] == side
        assert {c["card"]: c["value"] for c in move["cards"]} == {card_name(c): float(v)
                                                                   for c, v in solution.values.items()}
        played = parse_card(move["card"])
        assert move["value"] == solution.values[played]
        assert move["best_value"] == solution.points[side] == max(solution.values.values())
        assert move["loss"] == solution.points[side] - solution.values[played] >= 0
        assert move["best_cards"] == [card_name(c) for c in solution.best_cards()]
        assert move["best"] in move["best_cards"] and (move["loss"] > 0) == (move["card"] not in move["best_cards"])
        assert move["eval"]["points"][side] == solution.values[played]
        assert sum(move["eval"]["points"]) == TOTAL_POINTS


def test_values_equal_the_reference_and_brute_force_late_in_the_deal() -> None:
    """In the last tricks every value is also the readable reference solver's, and in the last two the brute force's."""
    for seed in (21, 22):
        record = seeded_record(seed)
        result = analyse(record)
        for move, deal in list(zip(result["moves"], positions(record), strict=True))[-10:]:
            values = {c["card"]: c["value"] for c in move["cards"]}
            reference = ReferenceSolver().solve(OpenPosition.from_deal(deal))
            assert values == {card_name(c): float(v) for c, v in reference.values.items()}
            if deal.trick_number >= 8:
                assert values == {card_name(c): float(v) for c, v in brute_force_values(deal).items()}


def test_the_graph_follows_best_play() -> None:
    """A card's graph point is the next position's best value: the double-dummy value only moves with a loss."""
    result = analyse(seeded_record(31))
    before = result["start"]["points"]
    assert sum(before) == TOTAL_POINTS
    for move in result["moves"]:
        side = move["partnership"]
        assert before[side] == move["best_value"]
        assert move["eval"]["points"][side] == before[side] - move["loss"]
        before = move["eval"]["points"]
    final = PartnershipDeal.from_deck([parse_card(c) for c in seeded_record(31)["deck"]], 31 % 4)
    for m in seeded_record(31)["moves"]:
        final.play(parse_card(m["card"]))
    assert before == [float(p) for p in final.points]  # after the last card: the thirds actually taken


def test_labels_follow_the_two_player_thresholds() -> None:
    """Loss 0 is best, under 1.5 thirds good, then inaccuracy, mistake, blunder at the two-player thresholds."""
    a, b = parse_card("D AS"), parse_card("D 2")
    for loss, expected in ((0, "best"), (1, "good"), (INACCURACY_LOSS + 0.5, "inaccuracy"), (MISTAKE_LOSS, "mistake"),
                           (MISTAKE_LOSS + 2, "mistake"), (BLUNDER_LOSS, "blunder")):
        judged = judge({a: 12, b: 12 - int(loss)}, b, (0, 0), 0)
        assert judged["label"] == expected, (loss, judged)
        assert judged["loss"] == int(loss) and judged["best"] == ("D 2" if loss == 0 else "D AS")
    # Giving up a won deal is a blunder however small the loss: 18 thirds win (6 points to 5), 17 lose.
    judged = judge({a: 18, b: 17}, b, (0, 0), 0)
    assert judged["label"] == "blunder" and judged["gave_up_win"] and (judged["win"], judged["best_win"]) == (0, 1)
    # Declared points count in the result: with 2 declared by the other side, 18 thirds no longer win.
    judged = judge({a: 18, b: 17}, b, (0, 2), 0)
    assert judged["label"] == "good" and not judged["gave_up_win"]
    assert deal_result(18, (0, 2), 0) == 0.0 and deal_result(21, (0, 1), 0) == 1.0


def test_accuracy_is_the_share_of_choices_labelled_best_or_good() -> None:
    """Each seat's accuracy and mean loss are counted from its own moves with more than one legal card."""
    result = analyse(seeded_record(41))
    assert [p["seat"] for p in result["players"]] == [0, 1, 2, 3]
    for p in result["players"]:
        own = [m for m in result["moves"] if m["seat"] == p["seat"]]
        choices = [m for m in own if len(m["cards"]) > 1]
        assert p["moves"] == len(own) == 10 and p["choices"] == len(choices)
        good = sum(1 for m in choices if m["label"] in ("best", "good"))
        assert p["accuracy"] == pytest.approx(round(100 * good / len(choices), 1))
        assert p["avg_loss"] == pytest.approx(sum(m["loss"] for m in choices) / len(choices), abs=1e-3)
        assert p["blunders"] == sum(1 for m in choices if m["label"] == "blunder")
    # Random play loses points somewhere: the analysis must see it.
    assert any(m["loss"] > 0 for m in result["moves"]) and min(p["accuracy"] for p in result["players"]) < 100


def test_declarations_are_read_and_forfeited_deals_analysed() -> None:
    """Declared points come from the record's first cards; a deal cut short is analysed as far as it went."""
    record = next(r for r in map(seeded_record, range(200)) if any(m["declarations"] for m in r["moves"]))
    rec = parse_record(record)
    deal = PartnershipDeal.from_deck(rec.deck, rec.first_leader, PartnershipOptions(signals=False))
    for card, declared in rec.moves:
        deal.play(card, declarations=declared)
    assert rec.declared == deal.declared_points() and sum(rec.declared) > 0
    assert analyse(record)["declared"] == list(rec.declared)
    short = analyse(short_record(record))
    assert len(short["moves"]) == 9 and short["declared"] == list(parse_record(short_record(record)).declared)


def short_record(record: dict[str, Any]) -> dict[str, Any]:
    """Return ``record`` cut after its ninth card."""
    return {**record, "moves": record["moves"][:9]}


@pytest.mark.parametrize("change, reason", [
    (lambda r: r.pop("deck"), "missing field"),
    (lambda r: r.update(deck=r["deck"][:39]), "'deck'"),
    (lambda r: r.update(first_leader=4), "first_leader"),
    (lambda r: r.update(moves="D AS"), "'moves' must be a list"),
    (lambda r: r["moves"][0].update(seat=(r["moves"][0]["seat"] + 1) % 4), "'moves'[0]"),
    (lambda r: r["moves"][1].update(card=r["moves"][0]["card"]), "'moves'[1]"),
    (lambda r: r["moves"][0].update(declarations=[{"kind": "napoletana", "suit": "X"}]), "'moves'[0]"),
    (lambda r: r["moves"][5].update(card="Q 9"), "moves[5].card"),
])
def test_bad_records_get_a_one_line_reason(change: Any, reason: str) -> None:
    """A malformed record or a move the rules forbid is a RecordError naming what is wrong."""
    record = seeded_record(51)
    change(record)
    with pytest.raises(RecordError, match=reason.replace("[", r"\[").replace("]", r"\]")):
        analyse(record)


def test_the_cli_analyses_a_four_player_record() -> None:
    """``treset-agent analyse`` takes a four-player record (its ``game``) and prints the exact analysis; a bad one exits 2."""
    record = seeded_record(61)
    run = run_module("agent.cli", ["analyse", "-"], input=json.dumps(record), env=dict(os.environ))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["moves"] == analyse(record)["moves"]
    bad = run_module("agent.cli", ["analyse", "-"], input=json.dumps({**record, "first_leader": 7}), env=dict(os.environ))
    assert bad.returncode == 2 and "first_leader" in bad.stderr and "Traceback" not in bad.stderr


def test_the_bench_times_whole_analyses() -> None:
    """``bench partnership``'s analysis line: seconds per deal of the analysis itself, median at most the maximum."""
    from agent.partnership.bench import deal_analysis

    r = deal_analysis([3000, 3001], bits=16)
    assert r["deals"] == 2 and 0 < r["s_median"] <= r["s_max"]
