"""Decisions: always legal in real games, reproducible when seeded, stronger than random."""

from __future__ import annotations

import random

from agent.decide import SearchConfig, decide
from lab.arena import run_match
from tests.agent.conftest import NO_TIME_LIMIT_MS, position
from tressette import Deal, Variant, state_from_view, view_of

FULL = SearchConfig(stop_early=False)


def test_every_card_chosen_is_legal_in_real_games() -> None:
    """The agent plays whole deals of both variants at a small budget; every card is legal."""
    for seed, variant in enumerate([Variant.TRESSETTE, Variant.KIFAMENO] * 2):
        rng = random.Random(seed)
        deal = Deal.new(variant, seed % 2, rng)
        methods = set()
        while not deal.is_over:
            state = state_from_view(view_of(deal, deal.to_move))
            d = decide(state, iterations=300, time_ms=NO_TIME_LIMIT_MS, seed=seed)
            assert d.card in state.legal_moves()
            methods.add(d.method)
            deal.play(d.card)  # raises IllegalMoveError if not
        assert methods == {"mcts", "solver"}


def test_seeded_runs_are_reproducible() -> None:
    """The same seed and iteration cap give the same card and the same statistics."""
    _, state = position(3, Variant.KIFAMENO, 2, follow=True)
    a = decide(state, iterations=4000, time_ms=NO_TIME_LIMIT_MS, seed=11)
    b = decide(state, iterations=4000, time_ms=NO_TIME_LIMIT_MS, seed=11)
    assert (a.card, a.stats, a.iterations) == (b.card, b.stats, b.iterations)
    assert a.iterations <= 4000
    assert decide(state, iterations=4000, time_ms=NO_TIME_LIMIT_MS, seed=11, config=FULL).iterations == 4000
    parallel = decide(state, iterations=4000, time_ms=NO_TIME_LIMIT_MS, seed=11, jobs=2, config=FULL)
    assert parallel.iterations == 4000 and parallel.card in state.legal_moves()


def test_stopping_early_never_changes_the_card() -> None:
    """A search stopped once its most visited card cannot be overtaken plays what the whole search plays.

    Seeded, with an iteration cap, the early run is a prefix of the whole run: when it
    stops, the leader's margin exceeds the iterations it skipped, and the card is the same.
    """
    cap, stopped = 6000, 0
    for seed in range(24):
        _, state = position(seed, Variant(("tressette", "kifameno")[seed % 2]), seed % 9, follow=seed % 3 == 0)
        if state.all_known or len(state.legal_moves()) == 1:
            continue
        early = decide(state, iterations=cap, seed=seed, time_ms=10**7)
        whole = decide(state, iterations=cap, seed=seed, time_ms=10**7, config=SearchConfig(stop_early=False))
        assert early.card == whole.card and whole.iterations == cap
        if early.iterations < cap:
            stopped += 1
            visits = sorted(s["visits"] for s in early.stats.values())
            assert visits[-1] - visits[-2] > cap - early.iterations
    assert stopped >= 6


def test_the_agent_beats_random_play() -> None:
    """Over 12 seeded duplicate deals (24 games) the agent at 300 iterations wins at least 20."""
    result = run_match("mcts:i300", "random", Variant.TRESSETTE, deals=12, seed=5, progress=False)
    a = result.stats["A"]
    assert a.games == 24
    assert a.wins >= 20, result.summary()


