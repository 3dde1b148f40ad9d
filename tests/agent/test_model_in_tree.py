"""The opponent model inside the search: drawing its cards, the two kinds of opponent, its tree nodes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agent.determinize import make_root
from agent.mcts import Tree, search
from agent.opponent import (
    N_FEATURES,
    N_WEIGHTS,
    load_policy,
    log_prob,
    past_plays,
    policy_card,
    random_posterior,
    typed_pool,
)
from agent.playout import seed_kernels
from agent.world import legal_of
from tests.agent.conftest import position
from tressette import AgentState, Deal, Variant, card_name, mask_of, parse_state, state_from_view, view_of

STRONGEST_ANSWER = np.zeros(N_WEIGHTS)
STRONGEST_ANSWER[N_FEATURES + 2] = 200.0  # feature 2 is the card's strength: answers take with the top card


def test_policy_card_draws_each_card_with_the_policy_probability() -> None:
    """20,000 draws from one hand follow ``exp(log_prob)``; all-zero weights draw uniformly."""
    rng = random.Random(4)
    buf = np.empty(N_WEIGHTS)
    scores = np.empty(40)
    for theta in (np.linspace(-1.5, 1.5, N_WEIGHTS), np.zeros(N_WEIGHTS)):
        for lead_first in (False, True):
            hand = mask_of(rng.sample(range(40), 9))
            lead = -1
            if lead_first:
                lead = next(c for c in range(40) if not (hand >> c) & 1 and legal_of(hand, c) != hand)
            legal = legal_of(hand, lead)
            gone = 1 << lead if lead >= 0 else 0
            seed_kernels(7)
            counts = dict.fromkeys((c for c in range(40) if (legal >> c) & 1), 0)
            for _ in range(20_000):
                counts[policy_card(theta, hand, lead, gone, buf, scores)] += 1
            for c, n in counts.items():
                assert n / 20_000 == pytest.approx(np.exp(log_prob(theta, hand, lead, gone, c, buf)), abs=0.015)


def _ll(theta: np.ndarray, cand: int, state: AgentState, mix: float) -> float:
    plays = past_plays(state)
    assert plays is not None
    buf = np.empty(N_WEIGHTS)
    return sum(log_prob(theta, cand | int(f), int(lead), int(g), int(c), buf, mix)
               for f, lead, g, c in zip(plays.fixed, plays.leads, plays.gone, plays.chosen, strict=True))


def test_the_typed_pool_weighs_each_kind_by_its_prior_times_its_likelihood() -> None:
    """Each candidate appears once per kind; the two weights differ by prior odds times the likelihood ratio."""
    _, state = position(7, Variant.TRESSETTE, 5)
    root = make_root(state)
    theta = load_policy()[False]
    seed_kernels(3)
    pool, cum, n_model = typed_pool(state, root.hidden, root.need, root.voids, size=64, random_prior=0.25)
    assert n_model == 64 and pool.shape == (128,) and (pool[:64] == pool[64:]).all()
    weights = np.diff(cum, prepend=0.0)
    for i in range(0, 64, 9):
        odds = (0.25 / 0.75) * np.exp(_ll(np.zeros(N_WEIGHTS), int(pool[i]), state, 0.0)
                                     - _ll(theta, int(pool[i]), state, 0.1))
        assert weights[64 + i] / weights[i] == pytest.approx(odds, rel=1e-6)
    assert random_posterior(cum, n_model) == pytest.approx(weights[64:].sum())
    seed_kernels(3)
    plain, plain_cum, plain_n = typed_pool(state, root.hidden, root.need, root.voids, size=64)
    assert plain_n == 64 and (plain == pool[:64]).all() and random_posterior(plain_cum, plain_n) == 0.0
    seed_kernels(3)
    only_random, random_cum, random_n = typed_pool(state, root.hidden, root.need, root.voids, size=64,
                                                   random_prior=1.0)
    assert random_n == 0 and (only_random == plain).all() and random_posterior(random_cum, random_n) == 1.0


def _posterior_after_stock(chooser: str, seed: int) -> float:
    """Play a deal in which seat 1 picks at random or by the shipped policy's top card; seat 0's last posterior."""
    rng = random.Random(seed)
    deal = Deal.new(Variant.TRESSETTE, seed % 2, rng)
    theta = load_policy()[False]
    buf, scores = np.empty(N_WEIGHTS), np.empty(40)
    post = 0.5
    while deal.stock:
        state = state_from_view(view_of(deal, deal.to_move))
        legal = state.legal_moves()
        if deal.to_move == 0:
            root = make_root(state, particles=256, random_prior=0.5)
            if root.pool.size:
                post = random_posterior(root.cum, root.n_model)
            card = rng.choice(legal)
        elif chooser == "random":
            card = rng.choice(legal)
        else:
            hand, lead = mask_of(state.hand), state.inplay[0] if state.inplay else -1
            gone = mask_of(state.played) | mask_of(state.inplay)
            card = max(legal, key=lambda c: log_prob(theta, hand, lead, gone, c, buf, 0.0, scores))
        deal.play(card)
    return post


def test_the_posterior_tells_a_random_opponent_from_a_policy_player() -> None:
    """After the stock phase the pool gives a random opponent a higher random-player posterior than a policy player."""
    seed_kernels(5)
    random_side = [_posterior_after_stock("random", s) for s in range(12)]
    policy_side = [_posterior_after_stock("policy", s) for s in range(12)]
    assert np.mean(random_side) > np.mean(policy_side) + 0.3, (random_side, policy_side)


def _known_hands_state() -> AgentState:
    """A state late in the stock phase with the opponent's whole hand listed in ``hiscards`` (the agent leads)."""
    deal, state = position(11, Variant.TRESSETTE, 8)
    assert not state.inplay and deal.stock
    data = state.to_dict()
    data["hiscards"] = [card_name(c) for c in deal.hands[1 - deal.to_move]]
    known = parse_state(data)
    assert len(known.hiscards) == known.opponent_hand_size and not known.all_known
    return known


def _answers_below_each_lead(tree: Tree) -> dict[int, set[int]]:
    out = {}
    node = tree.child[0]
    while node >= 0:
        answers = set()
        ch = tree.child[node]
        while ch >= 0:
            if tree.visits[ch] > 0:
                answers.add(int(tree.move[ch]))
            ch = tree.sibling[ch]
        out[int(tree.move[node])] = answers
        node = tree.sibling[node]
    return out


def test_modelled_opponent_nodes_play_the_model_card() -> None:
    """With the model at every opponent node, the only answers searched below each lead are the model's cards.

    The model plays its strongest legal card; UCB in its place tries several answers.
    """
    state = _known_hands_state()
    hand = mask_of(state.hiscards)
    root = make_root(state)
    seed_kernels(2)
    modelled = Tree(40_000)
    search(modelled, root, 20_000, theta=STRONGEST_ANSWER, model_share=1.0)
    below = _answers_below_each_lead(modelled)
    assert len(below) == len(state.hand)
    for lead, answers in below.items():
        legal = [c for c in range(40) if (legal_of(hand, lead) >> c) & 1]
        top = min(c % 10 for c in legal)  # off suit, equal ranks of two suits tie
        assert answers and answers <= {c for c in legal if c % 10 == top}, (lead, answers)
    free = Tree(40_000)
    search(free, root, 20_000)
    assert any(len(a) > 1 for a in _answers_below_each_lead(free).values())


@pytest.mark.parametrize("setting", [{"random_prior": 1.0}, {"blunder_share": 1.0},
                                     {"blunder_share": 1.0, "theta": STRONGEST_ANSWER, "model_share": 1.0}])
def test_a_random_opponent_answers_uniformly_in_the_tree(setting: dict) -> None:
    """With the prior on a random player at one, or the opponent's nodes always blundering (the blunder
    share comes before the model's), every legal answer below a lead is visited about equally."""
    state = _known_hands_state()
    hand = mask_of(state.hiscards)
    seed_kernels(6)
    tree = Tree(200_000)
    search(tree, make_root(state), 60_000, **setting)
    node = tree.child[0]
    checked = 0
    while node >= 0:
        lead = int(tree.move[node])
        n_legal = bin(legal_of(hand, lead)).count("1")
        if tree.visits[node] >= 3000 and n_legal > 1:
            ch = tree.child[node]
            while ch >= 0:
                assert tree.visits[ch] / tree.visits[node] == pytest.approx(1 / n_legal, rel=0.2)
                ch = tree.sibling[ch]
            checked += 1
        node = tree.sibling[node]
    assert checked >= 1


def test_arena_options_set_the_model_in_the_tree() -> None:
    """``mcts:...,mX,mu,rX,uX`` set the model's share, a uniform model, the random player's prior and
    the blunder share."""
    from agent.baselines import get_policy

    policy = get_policy("mcts:i100,m0.6,r0.2")
    config = policy.config  # type: ignore[attr-defined]
    assert (config.model_share, config.model_uniform, config.random_prior) == (0.6, False, 0.2)
    assert get_policy("mcts:i100,m0").config.model_share == 0.0  # type: ignore[attr-defined]
    assert get_policy("mcts:i100,u0.1").config.blunder_share == 0.1  # type: ignore[attr-defined]
    assert get_policy("mcts:i100,m1,mu").config.model_uniform  # type: ignore[attr-defined]
    for bad in ("rx", "m", "c-1", "u"):
        with pytest.raises(KeyError):
            get_policy(f"mcts:i100,{bad}")
