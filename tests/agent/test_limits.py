"""Time limits are kept, and the baselines and warm-up entry points work."""

from __future__ import annotations

import random
import time

import agent
from agent.baselines import get_player, get_policy
from agent.decide import decide
from tests.agent.conftest import position
from tressette import Deal, Variant, state_from_view, view_of


def test_decisions_keep_the_time_limit() -> None:
    """After warm-up, a decision at 100 ms never takes more than 150 ms of wall time."""
    agent.warmup()
    for seed, tricks in [(1, 0), (2, 3), (3, 8), (4, 12), (5, 16)]:
        _, state = position(seed, Variant.TRESSETTE, tricks, follow=seed % 2 == 0)
        start = time.perf_counter()
        d = decide(state, time_ms=100, seed=seed)
        wall = (time.perf_counter() - start) * 1000
        assert wall <= 150, (seed, tricks, wall)
        assert d.card in state.legal_moves() and d.elapsed_ms <= wall + 1


def test_baselines_play_whole_legal_deals() -> None:
    """random, greedy and a small flat play whole deals of both variants with legal cards only."""
    players = [get_player("random"), get_policy("greedy"), get_player("flat:200")]
    for seed, variant in enumerate([Variant.TRESSETTE, Variant.KIFAMENO]):
        rng = random.Random(seed)
        deal = Deal.new(variant, seed % 2, rng)
        turn = 0
        while not deal.is_over:
            state = state_from_view(view_of(deal, deal.to_move))
            card = players[turn % 3](state, rng)
            assert card in state.legal_moves()
            deal.play(card)
            turn += 1


def test_unknown_player_names_are_refused() -> None:
    """A misspelt player name raises KeyError naming the known ones."""
    try:
        get_player("grdy")
    except KeyError as exc:
        assert "greedy" in str(exc)
    else:  # pragma: no cover - the failure is the point
        raise AssertionError("no KeyError")
