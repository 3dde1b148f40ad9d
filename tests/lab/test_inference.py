"""The lab's policy fitting (recorded plays, the conditional logit) and the arena's options for the pool."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agent.decide import SearchConfig
from agent.kernels.world import legal_of
from agent.opponent.policy import N_FEATURES, N_WEIGHTS, card_features
from lab.baselines import get_policy
from lab.inference import choice_features, fit_logit, fit_policy, record_plays
from tressette import Deal, Variant, mask_of


def _simulated_plays(theta: np.ndarray, n: int, seed: int) -> dict[str, np.ndarray]:
    """Plays of random deals where the mover picks by the logit ``theta`` (the hands come from random play)."""
    rng = random.Random(seed)
    buf = np.empty(N_WEIGHTS)
    rows = []
    while len(rows) < n:
        deal = Deal.new(Variant.TRESSETTE, 0, rng)
        while deal.stock:
            hand = mask_of(deal.hands[deal.to_move])
            lead = deal.table[0] if deal.table else -1
            gone = mask_of(c for t in deal.history for c in t.cards) | (1 << lead if lead >= 0 else 0)
            legal = legal_of(hand, lead)
            cards = [c for c in range(40) if (legal >> c) & 1]
            scores = []
            for c in cards:
                card_features(hand, lead, gone, legal, c, buf)
                scores.append(float(theta @ buf))
            top = max(scores)
            card = rng.choices(cards, weights=[np.exp(s - top) for s in scores])[0]
            rows.append((hand, lead, gone, card, 0))
            deal.play(card)
    cols = list(zip(*rows, strict=True))
    return {k: np.array(col, dtype=np.int64) for k, col in zip(("hand", "lead", "gone", "chosen", "cfm"), cols,
                                                               strict=True)}


def test_the_logit_fit_recovers_a_known_policy() -> None:
    """Choices simulated from known weights are fit back to weights close to them."""
    # Features no other feature is a combination of (points and rank indicators are).
    ks = [5, 6, 8, N_FEATURES + 9, N_FEATURES + 12, N_FEATURES + 13]
    theta = np.zeros(N_WEIGHTS)
    theta[ks] = [1.0, -1.0, -1.5, 2.0, 1.0, 1.5]
    plays = _simulated_plays(theta, 6000, seed=3)
    x, starts, chosen_at = choice_features(plays, np.arange(len(plays["chosen"])))
    fitted = fit_logit(x, starts, chosen_at, ridge=0.1)
    for k in ks:
        assert abs(fitted[k] - theta[k]) < 0.5, (k, fitted[k], theta[k])


def test_recorded_plays_fit_a_policy_for_each_variant() -> None:
    """A few recorded games give a weight vector per variant."""
    plays = record_plays("greedy", 3, seed=1)
    assert set(plays["cfm"]) == {0, 1}
    assert all(len(col) == len(plays["chosen"]) for col in plays.values())
    theta = fit_policy(plays)
    assert set(theta) == {"tressette", "kifameno"} and all(len(t) == N_WEIGHTS for t in theta.values())


def test_arena_options_set_the_pool() -> None:
    """``mcts:...,pN,tX`` set the pool size and the temper; ``p0`` searches uniform worlds."""
    assert SearchConfig().particles > 0
    on = get_policy("mcts:i100,p512,t0.5")
    off = get_policy("mcts:i100,p0")
    assert (on.config.particles, on.config.temper) == (512, 0.5)  # type: ignore[attr-defined]
    assert off.config.particles == 0  # type: ignore[attr-defined]
    with pytest.raises(KeyError):
        get_policy("mcts:i100,px")
