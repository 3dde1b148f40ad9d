"""The baselines and the player names work (time limits are measured by ``treset-agent bench``)."""

from __future__ import annotations

import random

import pytest

from lab.baselines import get_player, get_policy
from tressette import Deal, Variant, state_from_view, view_of


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


def test_arena_options_set_the_model_in_the_tree() -> None:
    """``mcts:...,mX`` sets the model's share; the settings issue #24 removed are refused."""
    policy = get_policy("mcts:i100,m0.6")
    assert policy.config.model_share == 0.6  # type: ignore[attr-defined]
    assert get_policy("mcts:i100,m0").config.model_share == 0.0  # type: ignore[attr-defined]
    for bad in ("rx", "m", "c-1", "u", "r0.2", "u0.1", "mu", "draws", "s100", "l4"):
        with pytest.raises(KeyError):
            get_policy(f"mcts:i100,{bad}")
