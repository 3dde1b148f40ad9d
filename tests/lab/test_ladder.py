"""The ladder's rating fit and the arena's level players."""

from __future__ import annotations

import random

from lab.baselines import get_policy
from lab.ladder import fit, short
from tressette import Deal, Variant, state_from_view, view_of


def _match(a: str, b: str, wins: int, games: int) -> dict[str, object]:
    return {"a": a, "b": b, "variant": "tressette", "A": {"wins": wins, "games": games}}


def test_the_fit_orders_players_anchors_the_scale_and_matches_a_known_gap() -> None:
    """A 76% head-to-head is about 200 points on the logistic 400 scale; the anchor stays fixed."""
    ratings = fit([_match("level:novice", "greedy", 760, 1000), _match("level:easy", "level:novice", 760, 1000)],
                  anchor=("greedy", 1500.0))
    assert ratings["greedy"] == (1500.0, 0.0)
    assert abs(ratings["novice"][0] - 1700) < 5 and abs(ratings["easy"][0] - 1900) < 10
    assert 0 < ratings["novice"][1] < ratings["easy"][1]
    assert short("level:strong,i20000") == "strong" and short("greedy") == "greedy"


def test_level_players_play_legal_cards_and_reject_bad_names() -> None:
    """``level:NAME`` and ``level:NAME,iN`` are arena players."""
    state = state_from_view(view_of(Deal.new(Variant.TRESSETTE, 0, random.Random(2)), 0))
    for name in ("level:beginner", "level:easy", "level:strong,i64"):
        assert get_policy(name)(state, random.Random(0)) in state.legal_moves()
    for bad in ("level:nobody", "level:strong,x5"):
        try:
            get_policy(bad)
        except KeyError:
            continue
        raise AssertionError(bad)
