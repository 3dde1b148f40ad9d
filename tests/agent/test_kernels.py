"""The compiled world and playouts agree with the rules package on thousands of seeded games."""

from __future__ import annotations

import random

import numpy as np

from agent.kernels.playout import GUIDED, RANDOM, playout, seed_kernels
from agent.kernels.world import (
    W_H0,
    W_H1,
    W_LEAD,
    W_LEADER,
    W_P0,
    W_P1,
    W_SIZE,
    W_SLEN,
    W_SPOS,
    legal_mask,
    mover,
    step,
)
from tressette import Deal, IllegalMoveError, Variant, mask_of


def _world_of(deal: Deal) -> tuple[np.ndarray, np.ndarray]:
    w = np.zeros(W_SIZE, dtype=np.int64)
    w[W_H0], w[W_H1] = mask_of(deal.hands[0]), mask_of(deal.hands[1])
    w[W_LEADER], w[W_LEAD] = deal.leader, (deal.table[0] if deal.table else -1)
    w[W_P0], w[W_P1] = deal.points
    stock = np.zeros(40, dtype=np.int64)
    stock[: len(deal.stock)] = deal.stock
    w[W_SPOS], w[W_SLEN] = 0, len(deal.stock)
    return w, stock


def test_step_matches_the_rules_engine() -> None:
    """Move by move, the compiled world holds the same hands, leader, table and points."""
    for seed in range(2000):
        rng = random.Random(seed)
        deal = Deal.new(Variant.TRESSETTE, seed % 2, rng)
        w, stock = _world_of(deal)
        while not deal.is_over:
            assert mover(w) == deal.to_move
            assert legal_mask(w) == mask_of(deal.legal_moves())
            card = rng.choice(deal.legal_moves())
            deal.play(card)
            step(w, stock, card)
            assert (w[W_H0], w[W_H1]) == (mask_of(deal.hands[0]), mask_of(deal.hands[1]))
            assert (w[W_P0], w[W_P1]) == tuple(deal.points)
            assert w[W_LEADER] == deal.leader
            assert w[W_LEAD] == (deal.table[0] if deal.table else -1)


def test_playouts_replay_legally_to_the_same_score() -> None:
    """Every traced playout (random and guided, both variants) is a legal game with the same score."""
    seed_kernels(1234)
    trace = np.full(40, -1, dtype=np.int64)
    for seed in range(3000):
        rng = random.Random(seed)
        variant = (Variant.TRESSETTE, Variant.KIFAMENO)[seed % 2]
        deal = Deal.new(variant, seed % 2, rng)
        for _ in range(rng.randrange(30)):  # start from any point of the deal
            deal.play(rng.choice(deal.legal_moves()))
        w, stock = _world_of(deal)
        start = 40 - 2 * deal.trick_number - len(deal.table)
        trace[:] = -1
        policy = (RANDOM, GUIDED)[seed % 2]
        p0 = playout(w, stock, variant.cfm, policy, 0.1, trace)
        for card in trace[: 40 - (40 - start)]:
            try:
                deal.play(int(card))
            except IllegalMoveError as exc:  # pragma: no cover - the failure message is the point
                raise AssertionError(f"seed {seed}: playout played an illegal card: {exc}") from None
        assert deal.is_over
        assert p0 == deal.final_points()[0]


def test_every_compiled_function_is_cached_on_disk() -> None:
    """Every ``@njit`` function of the agent is cached: a process loads the compiled code instead of
    compiling it again (the solver's recursion once cost every process about 4.5 s before its first endgame)."""
    import importlib
    import pkgutil

    from numba.core.caching import NullCache
    from numba.core.registry import CPUDispatcher

    import agent

    dispatchers = {}
    for info in pkgutil.walk_packages(agent.__path__, "agent."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == info.name:
                dispatchers[f"{info.name}.{name}"] = value
    assert "agent.search.solver._search" in dispatchers and len(dispatchers) > 30
    uncached = sorted(name for name, d in dispatchers.items() if isinstance(d._cache, NullCache))
    assert not uncached, uncached
