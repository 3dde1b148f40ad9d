"""The attempt judge against brute force: right, solved and wrong as minimax says, refutations that really win."""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.game.puzzle_line import BadCards, judge, position_deal
from tests.puzzles.rows import WIN, _mover_view, find_position, player_cards, puzzle_data, solve
from tressette import Deal, Variant, card_name, parse_card


def _puzzle(variant: Variant, seed: int) -> dict[str, Any] | None:
    found = find_position(variant, seed)
    if found is None:
        return None
    rng = random.Random(seed)
    deal = Deal.new(variant, first_leader=seed % 2, rng=rng)
    for _ in range(found[0]):
        deal.play(rng.choice(deal.legal_moves()))
    return puzzle_data(_mover_view(deal, deal.to_move))


PUZZLES = [(v, seed) for v in Variant for seed in range(120) if find_position(v, seed)]
TWICE = (Variant.TRESSETTE, 287)
"""A game whose line has the opponent take a trick and lead the next: two opponent cards in a row."""
CHECKED = [*PUZZLES[:24], TWICE]


def test_there_are_puzzles_of_both_variants_and_long_lines() -> None:
    """The seeded games give puzzles of both variants, some of two or more steps (the tests below use them)."""
    assert {v for v, _ in PUZZLES} == set(Variant)
    assert any(len(player_cards(_puzzle(v, s) or {})) >= 2 for v, s in PUZZLES)
    assert any((_puzzle(v, s) or {})["inplay"] for v, s in CHECKED)  # the player follows in some


def test_the_opponent_may_answer_with_two_cards() -> None:
    """After a trick the opponent takes, the reply holds its taking card and its next lead."""
    data = _puzzle(*TWICE)
    assert data is not None
    mine = player_cards(data)
    first = judge(data, mine[:1])
    assert first.verdict == "right" and len(first.reply) == 2
    assert [m["you"] for m in first.moves] == [True, False, False] and first.moves[1]["took"] is False
    assert first.position["inplay"] == [first.reply[1]] and first.position["to_move"] == "you"
    assert judge(data, mine[:2]).verdict == ("solved" if len(mine) == 2 else "right")


@pytest.mark.parametrize(("variant", "seed"), CHECKED)
def test_every_card_at_every_step_is_judged_as_minimax_says(variant: Variant, seed: int) -> None:
    """Along the solution, each legal card is right iff it still wins; a wrong card's refutation beats it."""
    data = _puzzle(variant, seed)
    assert data is not None
    mine = player_cards(data)
    wins = WIN[variant]
    deal = position_deal(data)
    at = 0
    for step, card in enumerate(mine):
        for other in deal.legal_moves(0):
            after = deal.copy()
            after.play(other)
            proven, _ = solve(after)
            verdict = judge(data, [*mine[:step], card_name(other)])
            if wins(proven):
                assert verdict.verdict in ("right", "solved")
            else:
                assert verdict.verdict == "wrong"
                assert verdict.refutation[0]["card"] == card_name(other) and verdict.refutation[0]["you"]
                assert verdict.refutation_points is not None and not wins(verdict.refutation_points[0])
        verdict = judge(data, mine[: step + 1])
        assert verdict.verdict == ("solved" if step == len(mine) - 1 else "right")
        deal.play(parse_card(card))
        at = data["solution"].index(card, at) + 1
        expected_reply = []
        while at < len(data["solution"]) and deal.to_move == 1:
            expected_reply.append(data["solution"][at])
            deal.play(parse_card(data["solution"][at]))
            at += 1
        assert verdict.reply == (expected_reply if verdict.verdict == "right" else [])
        assert verdict.position["hand"] == [card_name(c) for c in sorted(deal.hands[0])]
        assert verdict.position["points"] == deal.points[0]


def test_an_equivalent_card_counts_and_the_kept_one_plays_its_part() -> None:
    """Tressette game 31: D 7 and D 6 both win; after D 6 the D 7 is the right card where the line plays D 6."""
    data = _puzzle(Variant.TRESSETTE, 31)
    assert data is not None and data["accepted"][0] == ["D 7", "D 6"] and data["solution"][2] == "D 6"
    first = judge(data, ["D 6"])
    assert first.verdict == "right" and first.reply == [data["solution"][1]]
    assert judge(data, ["D 6", "D 7"]).verdict == "solved"
    deal = position_deal(data)  # brute force agrees: D 6, the reply, then D 7 still wins
    for name in ["D 6", data["solution"][1], "D 7"]:
        deal.play(parse_card(name))
    assert WIN[Variant.TRESSETTE](solve(deal)[0])


def test_cards_that_are_not_cards_or_not_playable_are_refused() -> None:
    """Unknown names, cards not in hand, a card past the solve: BadCards with a code."""
    variant, seed = PUZZLES[0]
    data = _puzzle(variant, seed)
    assert data is not None
    with pytest.raises(BadCards) as bad:
        judge(data, ["X 9"])
    assert bad.value.code == "bad_card"
    with pytest.raises(BadCards) as bad:
        judge(data, [data["opponent_hand"][0]])
    assert bad.value.code == "illegal_card"
    mine = player_cards(data)
    with pytest.raises(BadCards) as bad:
        judge(data, [*mine, mine[-1]])
    assert bad.value.code == "too_many_cards"
