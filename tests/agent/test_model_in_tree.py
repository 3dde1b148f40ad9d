"""The opponent model inside the search: drawing its cards, the two kinds of opponent, its tree nodes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agent.kernels.playout import seed_kernels
from agent.kernels.world import legal_of
from agent.opponent.past import past_plays
from agent.opponent.policy import N_FEATURES, N_WEIGHTS, log_prob, policy_card
from agent.search.mcts import Tree, search
from agent.search.worlds import make_root
from tests.agent.conftest import position
from tressette import AgentState, Variant, card_name, mask_of, parse_state

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


