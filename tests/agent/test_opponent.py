"""The opponent model: rebuilt past hands, the policy fit, the weighted pool (agent.opponent.policy)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agent.kernels.playout import seed_kernels
from agent.kernels.world import W_H1, W_SIZE, legal_of
from agent.opponent.past import past_plays
from agent.opponent.policy import N_WEIGHTS, load_policy, log_prob
from agent.opponent.posterior import draw_candidates, particle_pool
from agent.search.worlds import make_root, sample_from_pool
from tests.agent.conftest import NO_TIME_LIMIT_MS, position
from tressette import Deal, InvalidStateError, Variant, mask_of, parse_state, state_from_view, view_of


def test_past_hands_are_rebuilt_exactly_from_the_hidden_cards_and_the_draws() -> None:
    """At every decision, today's real hidden cards plus ``fixed`` give the opponent's real hand at each past play."""
    checked = 0
    for seed in range(60):
        rng = random.Random(seed)
        deal = Deal.new((Variant.TRESSETTE, Variant.KIFAMENO)[seed % 2], seed % 2, rng)
        hands: dict[int, list[int]] = {0: [], 1: []}
        chosen: dict[int, list[int]] = {0: [], 1: []}
        while not deal.is_over:
            seat = deal.to_move
            state = state_from_view(view_of(deal, seat))
            if not state.all_known:
                plays = past_plays(state)
                assert plays is not None
                hidden_held = mask_of(set(deal.hands[1 - seat]) & set(state.hidden))
                real = hands[1 - seat]
                assert plays.fixed.shape[0] == len(real)
                for k, hand in enumerate(real):
                    assert hidden_held | int(plays.fixed[k]) == hand
                    assert int(plays.chosen[k]) == chosen[1 - seat][k]
                checked += len(real)
            hands[seat].append(mask_of(deal.hands[seat]))
            card = rng.choice(deal.legal_moves())
            chosen[seat].append(card)
            deal.play(card)
    assert checked > 1000


def test_without_draws_nothing_is_rebuilt() -> None:
    """A history without draws (an older caller) gives no past plays, so worlds stay uniform."""
    _, state = position(4, Variant.TRESSETTE, 3)
    data = state.to_dict()
    for trick in data["history"]:
        del trick["draws"]
    state = parse_state(data)
    assert past_plays(state) is None
    root = make_root(state)
    pool, cum = particle_pool(state, root.hidden, root.need, root.voids, size=64, theta=np.ones(N_WEIGHTS))
    assert pool.size == 0 and cum.size == 0


def test_draws_round_trip_and_bad_draws_are_refused() -> None:
    """The draws survive JSON; a drawn card that went nowhere, or draws on some tricks only, are refused."""
    _, state = position(8, Variant.KIFAMENO, 4)
    assert all(len(t.draws) == 2 for t in state.history or ())
    assert parse_state(state.to_json()) == state
    data = state.to_dict()
    mine = data["history"][0]["draws"]["me"]
    data["history"][0]["draws"] = {"me": data["history"][0]["draws"]["him"], "him": mine}
    with pytest.raises(InvalidStateError, match="draws"):
        parse_state(data)
    data = state.to_dict()
    del data["history"][1]["draws"]
    with pytest.raises(InvalidStateError, match="draws must be given"):
        parse_state(data)
    data = state.to_dict()
    data["history"][0]["draws"] = {"me": "B 3"}
    with pytest.raises(InvalidStateError, match="draws"):
        parse_state(data)


def test_log_prob_is_a_distribution_over_the_legal_cards() -> None:
    """The probabilities of all legal cards sum to one; a card the hand cannot play gets none."""
    theta = np.linspace(-1, 1, N_WEIGHTS)
    buf = np.empty(N_WEIGHTS)
    rng = random.Random(1)
    for _ in range(50):
        hand = mask_of(rng.sample(range(40), 10))
        lead = rng.choice([-1] + [c for c in range(40) if not (hand >> c) & 1])
        legal = legal_of(hand, lead)
        total = sum(np.exp(log_prob(theta, hand, lead, 0, c, buf)) for c in range(40) if (legal >> c) & 1)
        assert total == pytest.approx(1.0)
        outside = next(c for c in range(40) if not (legal >> c) & 1)
        assert log_prob(theta, hand, lead, 0, outside, buf) < -1e8


def test_pool_worlds_hold_a_pool_entry_in_proportion_to_its_weight() -> None:
    """The opponent of a pool world holds exactly its known cards plus one entry, drawn by weight."""
    _, state = position(5, Variant.TRESSETTE, 2)
    root = make_root(state)
    seed_kernels(2)
    pool = draw_candidates(root.hidden, root.need, root.voids, 3)
    cum = np.array([0.1, 0.4, 1.0])
    w = np.empty(W_SIZE, dtype=np.int64)
    stock = np.empty(40, dtype=np.int64)
    counts = [0, 0, 0]
    known = mask_of(state.opponent_known)
    hidden = mask_of(int(c) for c in root.hidden)
    for _ in range(6000):
        sample_from_pool(root.w, root.hidden, pool, cum, w, stock)
        held = int(w[W_H1]) & ~known
        i = [int(p) for p in pool].index(held)
        counts[i] += 1
        assert mask_of(int(c) for c in stock[:state.stock_size]) | held == hidden
    assert counts[0] / 6000 == pytest.approx(0.1, abs=0.02)
    assert counts[1] / 6000 == pytest.approx(0.3, abs=0.025)
    assert counts[2] / 6000 == pytest.approx(0.6, abs=0.025)


def _posterior_and_prior(temper: float) -> tuple[float, float]:
    """Sum, over fresh ``greedy`` self-play decisions, the pool's and the prior's probability of the real hidden cards."""
    seed_kernels(9)
    post = prior = 0.0
    for seed in range(12):
        rng = random.Random(seed)
        deal = Deal.new((Variant.TRESSETTE, Variant.KIFAMENO)[seed % 2], seed % 2, rng)
        while deal.stock:
            state = state_from_view(view_of(deal, deal.to_move))
            root = make_root(state)
            pool, cum = particle_pool(state, root.hidden, root.need, root.voids, size=512, temper=temper)
            if pool.size:
                weights = np.diff(cum, prepend=0.0)
                held = mask_of(deal.hands[1 - deal.to_move])
                allowed = root.allowed
                for c in allowed:
                    if (held >> c) & 1:
                        post += float(weights[(pool >> c) & 1 == 1].sum())
                        prior += root.need / len(allowed)
            deal.play(_greedy(deal, rng))
    return post, prior


def test_the_shipped_policy_puts_more_weight_on_the_real_hidden_cards() -> None:
    """On fresh self-play the pool's posterior holds the opponent's real hidden cards more often than the prior.

    The player is ``greedy`` (fast, and not the player the shipped policy was fit on); a policy
    that ignores the plays (likelihoods raised to the power 0) gives the prior back, up to the pool's
    sampling noise.
    """
    policy = load_policy()
    assert set(policy) == {False, True} and all(t.shape == (N_WEIGHTS,) for t in policy.values())
    post, prior = _posterior_and_prior(1.0)
    null_post, null_prior = _posterior_and_prior(0.0)
    assert abs(null_post / null_prior - 1) < 0.01
    assert post > 1.03 * prior


def _greedy(deal: Deal, rng: random.Random) -> int:
    from lab.baselines import greedy_policy

    return greedy_policy(state_from_view(view_of(deal, deal.to_move)), rng)


def test_a_search_on_a_weighted_pool_plays_legal_reproducible_cards() -> None:
    """With the pool on, decisions at every stage are legal and a seed repeats them."""
    from agent.decide import SearchConfig, decide

    config = SearchConfig(particles=256)
    for seed in range(6):
        # Leading and following, early and late while the stock lasts.
        _, state = position(seed, (Variant.TRESSETTE, Variant.KIFAMENO)[seed % 2], 1 + seed, follow=seed < 3)
        first = decide(state, iterations=1500, time_ms=NO_TIME_LIMIT_MS, seed=seed, config=config)
        again = decide(state, iterations=1500, time_ms=NO_TIME_LIMIT_MS, seed=seed, config=config)
        assert first.card in state.legal_moves()
        assert (first.card, first.stats) == (again.card, again.stats)


