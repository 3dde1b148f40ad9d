"""Hand-checked positions from tests/data/positions.json."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tressette import ALL_CARDS, Deal, Variant, card_name, parse_card

DATA = json.loads((Path(__file__).parents[1] / "data" / "positions.json").read_text())


def _deck(spec: Any) -> list[int]:
    return list(ALL_CARDS) if spec == "sorted" else [parse_card(n) for n in spec]


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_known_trick(case: dict[str, Any]) -> None:
    """Replay the case's moves and compare winner, points, draws and next leader."""
    deal = Deal.from_deck(_deck(case["deck"]), Variant(case["variant"]), case["first_leader"])
    trick = None
    for name in case["moves"]:
        trick = deal.play(parse_card(name))
    assert trick is not None
    expect = case["expect"]
    assert trick.winner == expect["trick_winner"]
    assert list(deal.points) == expect["points"]
    assert deal.leader == expect["leader"]
    if "draws" in expect:
        assert [[s, card_name(c)] for s, c in trick.draws] == expect["draws"]


@pytest.mark.parametrize("case", DATA["outcomes"], ids=lambda c: str(c["points"]))
def test_outcome_by_variant(case: dict[str, Any]) -> None:
    """More points win Tressette, fewer win Kifameno."""
    points = (case["points"][0], case["points"][1])
    assert Variant.TRESSETTE.winner(points) == case["tressette"]
    assert Variant.KIFAMENO.winner(points) == case["kifameno"]


def test_last_trick_bonus_goes_to_the_last_winner() -> None:
    """The 20th trick's winner gets 3 more points, and only then."""
    deal = Deal.new(Variant.TRESSETTE, 0, random.Random(5))
    while deal.trick_number < 19:
        deal.play(deal.legal_moves()[-1])
    before = list(deal.points)
    while not deal.is_over:
        deal.play(deal.legal_moves()[0])
    last = deal.history[-1]
    gained = [deal.points[s] - before[s] for s in (0, 1)]
    assert gained[last.winner] == last.points + 3
    assert gained[1 - last.winner] == 0


def test_a_deck_must_hold_every_card_once() -> None:
    """A deck with a repeated card is refused."""
    with pytest.raises(ValueError, match="exactly once"):
        Deal.from_deck([0] * 40, Variant.TRESSETTE, 0)
