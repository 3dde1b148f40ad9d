"""Glicko-2 arithmetic against Glickman's worked example and its basic properties."""

from __future__ import annotations

import random

import pytest

from server.store.ratings import DEFAULT_RD, Rating, after_game, update


def test_glickman_worked_example() -> None:
    """The paper's example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300."""
    new = update(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)])
    assert new.rating == pytest.approx(1464.06, abs=0.02)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_inactivity_only_widens_the_deviation() -> None:
    """A period without games keeps the rating and grows the deviation, never past the start value."""
    r = update(Rating(1620, 80, 0.06), [])
    assert r.rating == 1620 and 80 < r.rd < 81
    assert update(Rating(1500, DEFAULT_RD, 0.06), []).rd == DEFAULT_RD


def test_game_properties_over_random_pairs() -> None:
    """The winner gains, the loser loses, a game narrows the deviation, an upset moves more than an expected win."""
    rng = random.Random(5)
    for _ in range(500):
        a = Rating(rng.uniform(1000, 2200), rng.uniform(40, 350), rng.uniform(0.04, 0.09))
        b = Rating(rng.uniform(1000, 2200), rng.uniform(40, 350), rng.uniform(0.04, 0.09))
        winner = rng.randrange(2)
        na, nb = after_game(a, b, winner)
        (w_old, w_new), (l_old, l_new) = ((a, na), (b, nb)) if winner == 0 else ((b, nb), (a, na))
        assert w_new.rating > w_old.rating and l_new.rating < l_old.rating
        # A game tells something: the deviation ends below where a period of inactivity would leave it.
        assert na.rd < update(a, []).rd + 0.5 and nb.rd < update(b, []).rd + 0.5
    strong, weak = Rating(1900, 60), Rating(1400, 60)
    expected_gain = after_game(strong, weak, 0)[0].rating - strong.rating
    upset_gain = after_game(strong, weak, 1)[1].rating - weak.rating
    assert upset_gain > 5 * expected_gain > 0
