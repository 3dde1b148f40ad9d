"""Sampled worlds respect what the agent knows: hiscards, sizes, voids, and the opponent's obvious plays."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np

from agent.baselines import get_policy
from agent.determinize import (
    EVIDENCE_WEIGHTS,
    Root,
    make_root,
    opponent_evidence,
    opponent_voids,
    sample_likely_world,
    sample_world,
)
from agent.inference import measure
from agent.playout import seed_kernels
from agent.world import W_H0, W_H1, W_SIZE, W_SLEN
from tests.agent.conftest import position
from tressette import (
    ALL_CARDS,
    Deal,
    Variant,
    cards_of,
    mask_of,
    parse_card,
    state_from_view,
    suit_of,
    view_of,
)


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


def test_evidence_names_the_cards_an_obvious_play_rules_out() -> None:
    """Letting a led ace go with a 4 says the follower held neither the 3 nor the 2 of that suit."""
    ace, four, three, two = parse_card("D AS"), parse_card("D 4"), parse_card("D 3"), parse_card("D 2")
    rest = [c for c in ALL_CARDS if c not in (ace, four, three, two)]
    deck = [ace, *rest[:9], four, three, *rest[9:], two]  # the 2 lies deep in the stock
    deal = Deal.from_deck(deck, Variant.TRESSETTE, 0)
    deal.play(ace)
    deal.play(four)
    state = state_from_view(view_of(deal, 0))
    assert deal.to_move == 0 and three in deal.hands[1]
    assert opponent_evidence(state) == ([mask_of([three, two])], [EVIDENCE_WEIGHTS["ducked_points"]])
    # Without a history there is nothing to infer from.
    assert opponent_evidence(replace(state, history=None)) == ([], [])


def test_a_greedy_opponent_never_contradicts_the_evidence_of_its_follows() -> None:
    """Against the one-ply greedy player no mask of its follows ever meets its real hand.

    (Its leads are random, so the Kifameno lead masks may.)
    """
    greedy = get_policy("greedy")
    masks_seen = 0
    for seed in range(120):
        variant = (Variant.TRESSETTE, Variant.KIFAMENO)[seed % 2]
        rng = random.Random(seed)
        deal = Deal.new(variant, seed % 2, rng)
        while not deal.is_over:
            state = state_from_view(view_of(deal, deal.to_move))
            if deal.to_move == 0:
                held = mask_of(deal.hands[1])
                for m, weight in zip(*opponent_evidence(state), strict=True):
                    masks_seen += 1
                    assert weight == EVIDENCE_WEIGHTS["led_points"] or not m & held
                deal.play(rng.choice(state.legal_moves()))
            else:
                deal.play(greedy(state, rng))
    assert masks_seen > 200


def _hit_rate(root: Root, weight: float, n: int = 3000) -> float:
    """Return how often a likely world's opponent meets the root's one evidence mask, at ``weight``."""
    w = np.zeros(W_SIZE, dtype=np.int64)
    stock = np.zeros(40, dtype=np.int64)
    weights = np.array([weight])
    hits = 0
    for _ in range(n):
        sample_likely_world(root.w, root.hidden, root.need, root.voids, root.evidence, weights, w, stock)
        hits += bool(w[W_H1] & root.evidence[0])
    return hits / n


def test_likely_worlds_are_weighted_by_the_evidence() -> None:
    """A world meeting an evidence mask is kept with the mask's weight: never at 0, in proportion at 0.5."""
    seed_kernels(7)
    checked = 0
    for seed in range(300):
        _, state = position(seed, Variant.KIFAMENO, 3 + seed % 5)
        root = make_root(state)
        if len(root.evidence) != 1:
            continue
        p = _hit_rate(root, 1.0)
        if not 0.2 < p < 0.8:
            continue
        checked += 1
        assert _hit_rate(root, 0.0) == 0.0
        expected = 0.5 * p / (0.5 * p + 1 - p)
        assert abs(_hit_rate(root, 0.5) - expected) < 0.05
        if checked == 5:
            break
    assert checked == 5


def test_inference_probe_counts_evidence_against_real_hands() -> None:
    """The probe behind the weights sees evidence, and a greedy follower's real hand never meets a follow mask."""
    tally = measure(Variant.KIFAMENO, "greedy", "random", 12, 3)
    assert sum(n for n, _, _ in tally.values()) > 10
    for kind, (n, real, uniform) in tally.items():
        assert 0 <= real <= n and 0 <= uniform <= n
        if kind != "led_points":
            assert real == 0
