"""Card names, strength order and points."""

from __future__ import annotations

import pytest

from tressette import ALL_CARDS, POINTS, STRENGTH, TOTAL_POINTS, CardError, beats, card_name, parse_card
from tressette.cards import RANKS, SUITS, traditional_points


def test_names_round_trip() -> None:
    """Every card has one protocol name and parses back to itself."""
    names = {card_name(c) for c in ALL_CARDS}
    assert len(names) == 40
    assert all(parse_card(card_name(c)) == c for c in ALL_CARDS)
    assert parse_card("  d   as ") == parse_card("D AS")


@pytest.mark.parametrize("bad", ["D ACE", "X 3", "D", "", "D 1", "DAS", 7, None])
def test_bad_names_are_refused(bad: object) -> None:
    """Anything that is not a protocol name raises CardError with the name in the message."""
    with pytest.raises(CardError):
        parse_card(bad)  # type: ignore[arg-type]


def test_strength_order_inside_a_suit() -> None:
    """3 > 2 > AS > KRALJ > KAVAL > FANT > 7 > 6 > 5 > 4, in every suit."""
    order = ["3", "2", "AS", "KRALJ", "KAVAL", "FANT", "7", "6", "5", "4"]
    for suit in SUITS:
        cards = [parse_card(f"{suit} {r}") for r in order]
        assert [STRENGTH[c] for c in cards] == sorted((STRENGTH[c] for c in cards), reverse=True)
        for i, a in enumerate(cards):
            for b in cards[i + 1 :]:
                assert beats(a, b) and not beats(b, a)
    assert not beats(parse_card("K 3"), parse_card("D 4"))  # an off-suit card never wins


def test_points_in_thirds() -> None:
    """AS 3, figures and 3 and 2 one third, the rest zero; 32 + 3 = 35 per deal."""
    expect = {"AS": 3, "3": 1, "2": 1, "KRALJ": 1, "KAVAL": 1, "FANT": 1, "7": 0, "6": 0, "5": 0, "4": 0}
    for suit in SUITS:
        for rank in RANKS:
            assert POINTS[parse_card(f"{suit} {rank}")] == expect[rank]
    assert sum(POINTS) + 3 == TOTAL_POINTS
    assert traditional_points(TOTAL_POINTS) == 11
    with pytest.raises(CardError):
        card_name(40)
