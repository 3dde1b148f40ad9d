"""Decisions: always legal in real games, reproducible when seeded, stronger than random."""

from __future__ import annotations

import random

from agent.arena import run_match
from agent.decide import SearchConfig, decide
from tests.agent.conftest import position
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
            d = decide(state, iterations=300, seed=seed)
            assert d.card in state.legal_moves()
            methods.add(d.method)
            deal.play(d.card)  # raises IllegalMoveError if not
        assert methods == {"mcts", "solver"}


def test_seeded_runs_are_reproducible() -> None:
    """The same seed and iteration cap give the same card and the same statistics."""
    _, state = position(3, Variant.KIFAMENO, 2, follow=True)
    a = decide(state, iterations=4000, seed=11)
    b = decide(state, iterations=4000, seed=11)
    assert (a.card, a.stats, a.iterations) == (b.card, b.stats, b.iterations)
    assert a.iterations <= 4000
    assert decide(state, iterations=4000, seed=11, config=FULL).iterations == 4000
    parallel = decide(state, iterations=4000, seed=11, jobs=2, config=FULL)
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
        # Every third search is an ensemble of four trees: the visits to come span trees too.
        trees = 1500 if seed % 3 == 1 else 0
        early = decide(state, iterations=cap, seed=seed, time_ms=10**7, config=SearchConfig(tree_iterations=trees))
        whole = decide(state, iterations=cap, seed=seed, time_ms=10**7,
                       config=SearchConfig(stop_early=False, tree_iterations=trees))
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


def test_search_with_solved_leaves_finds_optimal_cards() -> None:
    """With every card known and playouts ending in the solver, ISMCTS settles on solver-optimal cards."""
    from agent.alphabeta import best_cards_reference, new_table
    from agent.determinize import make_root
    from agent.mcts import Tree, search
    from agent.playout import seed_kernels
    from tressette import card_name

    tt = new_table()
    optimal_found = 0
    for seed in range(24):
        deal, state = position(seed, Variant.TRESSETTE if seed % 2 else Variant.KIFAMENO, 15 + seed % 3)
        _, optimal = best_cards_reference(deal, deal.to_move)
        seed_kernels(seed)
        tree = Tree(20_001)
        search(tree, make_root(state), 20_000, c_explore=0.4, delta=1.0, leaf_cards=5, tt=tt)
        stats = tree.root_stats()
        assert sum(v for v, _ in stats.values()) == 20_000
        chosen = max(stats, key=lambda c: stats[c][0])
        optimal_found += chosen in optimal
        # The value the search learned for its choice is an exact points share in the solved leaves.
        assert 0.0 <= stats[chosen][1] <= 1.0, card_name(chosen)
    assert optimal_found >= 22, optimal_found


def test_public_draws_split_the_tree_by_what_was_drawn() -> None:
    """With draws as chance nodes, each side's plays below a draw use the card it drew there, never the other's."""
    from agent.determinize import make_root
    from agent.mcts import Tree, search
    from agent.playout import seed_kernels
    from tressette import beats

    drawn_played = 0
    for seed in range(6):
        _, state = position(seed, Variant.TRESSETTE if seed % 2 else Variant.KIFAMENO, 2, follow=True)
        root = make_root(state)
        seed_kernels(seed)
        tree = Tree(20_001)
        search(tree, root, 5_000, draws=True)
        stock = set(state.hidden)
        lead = state.inplay[0]
        mine = tree.child[0]
        while mine >= 0:
            card = int(tree.move[mine])
            assert tree.player[mine] == 0 and card in state.hand
            chance = tree.child[mine]
            assert chance >= 0
            while chance >= 0:
                assert tree.player[chance] == -1
                first, second = divmod(int(tree.move[chance]), 40)
                assert first != second and {first, second} <= stock
                me_first = beats(card, lead)
                drew = {0: first if me_first else second, 1: second if me_first else first}
                below = [int(tree.child[chance])]
                while below:
                    node = below.pop()
                    if node < 0 or tree.player[node] == -1:
                        continue
                    seat, played = int(tree.player[node]), int(tree.move[node])
                    assert played != drew[1 - seat], "a side played the card the other one drew"
                    drawn_played += played == drew[seat]
                    below += [int(tree.sibling[node]), int(tree.child[node])]
                chance = tree.sibling[chance]
            mine = tree.sibling[mine]
    assert drawn_played > 0


def test_an_ensemble_of_small_trees_spreads_its_visits() -> None:
    """With trees of one iteration each, every tree tries one root card: the visits spread over all of them.

    One tree of the same budget concentrates its visits on the cards that search well,
    and both count every iteration once.
    """
    _, state = position(4, Variant.TRESSETTE, 1)  # a lead: ten cards
    legal = state.legal_moves()
    assert len(legal) == 10
    ensemble = decide(state, iterations=2000, seed=2, time_ms=10**7,
                      config=SearchConfig(stop_early=False, tree_iterations=1))
    single = decide(state, iterations=2000, seed=2, time_ms=10**7, config=FULL)
    for d in (ensemble, single):
        assert d.iterations == 2000 and sum(s["visits"] for s in d.stats.values()) == 2000
        assert d.card in legal
    spread = sorted(s["visits"] for s in ensemble.stats.values())
    assert len(spread) == 10 and spread[0] >= 140 and spread[-1] <= 260  # 200 each, give or take 4 sd
    visits = sorted(s["visits"] for s in single.stats.values())
    assert visits[-1] - visits[0] > 200
