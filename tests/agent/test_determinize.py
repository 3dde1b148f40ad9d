"""Sampled worlds respect what the agent knows: hiscards, sizes, voids; weighted draws follow the weights."""

from __future__ import annotations

import random

import numpy as np

from agent.kernels.playout import seed_kernels
from agent.kernels.world import W_H0, W_H1, W_SIZE, W_SLEN
from agent.search.worlds import make_root, opponent_voids, sample_world
from tests.agent.conftest import position
from tressette import Variant, cards_of, mask_of, suit_of


def _void_seeking(deal: object, rng: random.Random) -> int:
    # Lead and follow with the first legal card: this makes players show voids often.
    return deal.legal_moves()[0]  # type: ignore[attr-defined, no-any-return]


def test_sampled_worlds_respect_knowledge() -> None:
    """hiscards in the opponent's hand, right sizes, no hidden card of a void suit there."""
    seed_kernels(99)
    w = np.zeros(W_SIZE, dtype=np.int64)
    stock = np.zeros(40, dtype=np.int64)
    voids_seen = 0
    for seed in range(400):
        deal, state = position(seed, Variant.TRESSETTE, seed % 10, follow=bool(seed % 3),
                               chooser=_void_seeking if seed % 2 else None)
        root = make_root(state)
        voids = opponent_voids(state)
        voids_seen += bool(voids)
        opp = 1 - deal.to_move
        for _ in range(20):
            sample_world(root.w, root.hidden, root.need, root.voids, w, stock)
            hand = set(cards_of(int(w[W_H1])))
            assert w[W_H0] == mask_of(state.hand)
            assert len(hand) == state.opponent_hand_size == len(deal.hands[opp])
            assert set(state.hiscards) <= hand
            stock_cards = [int(c) for c in stock[: w[W_SLEN]]]
            assert len(stock_cards) == state.stock_size == len(deal.stock)
            assert hand | set(stock_cards) == set(state.unknown)
            hidden_in_hand = hand - set(state.hiscards)
            assert not any((root.voids >> suit_of(c)) & 1 for c in hidden_in_hand)
        # The inferred voids are true of the real deal.
        real_hidden = set(deal.hands[opp]) - set(state.opponent_known)
        assert not any((voids >> suit_of(c)) & 1 for c in real_hidden)
    assert voids_seen > 20  # the scenario exercises void inference
