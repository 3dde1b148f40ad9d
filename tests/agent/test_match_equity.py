"""Match equity: the table against simulated matches, its symmetries, bounds and monotonicity, and the search's use of it."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import numpy as np
import pytest

from agent.decide import SearchConfig, decide, led_first, match_rewards
from agent.match_equity import EquityTable, equity_table, load_split
from agent.search.mcts import Tree, search
from agent.search.worlds import make_root
from tests.agent.conftest import NO_TIME_LIMIT_MS, position
from tressette import TOTAL_POINTS, MatchScore, Variant
from tressette.match import MATCH_TARGETS, Match, deal_score, match_winner

VARIANTS = (Variant.TRESSETTE, Variant.KIFAMENO)


def simulate(variant: Variant, target: int, scores: tuple[int, int], me_leads: bool, n: int, seed: int) -> float:
    """Return the share of ``n`` matches seat 0 wins from ``scores``, deals drawn from the shipped split."""
    split = load_split(variant)
    rng = random.Random(seed)
    thirds = list(range(TOTAL_POINTS + 1))
    wins = 0
    for _ in range(n):
        m = Match(variant, target, scores)
        leader = 0 if me_leads else 1
        while not m.is_over:
            t = rng.choices(thirds, split)[0]
            m = m.after((t, TOTAL_POINTS - t) if leader == 0 else (TOTAL_POINTS - t, t))
            leader = 1 - leader
        wins += m.winner == 0
    return wins / n


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_table_agrees_with_simulated_matches(variant: Variant) -> None:
    """From a few scores the table's chance is within 4 standard errors of 4,000 simulated matches."""
    table = equity_table(variant, 21)
    for k, (me, him, lead) in enumerate([(0, 0, True), (0, 0, False), (14, 9, False), (18, 20, True), (7, 16, True)]):
        p = table.after(me, him, lead)
        n = 4000
        sim = simulate(variant, 21, (me, him), lead, n, seed=k)
        assert abs(sim - p) <= 4 * math.sqrt(max(p * (1 - p), 0.01) / n), (me, him, lead, p, sim)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("target", MATCH_TARGETS)
def test_the_game_is_symmetric(variant: Variant, target: int) -> None:
    """My chance from (a, b) leading is one minus his from (b, a) following; an even score with the lead unknown is 1/2."""
    table = equity_table(variant, target)
    for a in range(target):
        for b in range(target):
            assert table.before(a, b, True) + table.before(b, a, False) == pytest.approx(1.0, abs=1e-12)
        assert table.after(a, a, None) == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("variant", VARIANTS)
def test_equal_totals_past_the_target_are_decided_by_the_next_deal(variant: Variant) -> None:
    """At 23-23 to 21 the next deal cannot leave the totals equal (11 is odd): the chance is that of a deal's split."""
    table = equity_table(variant, 21)
    split = load_split(variant)
    more = sum(p for t, p in enumerate(split) if deal_score((t, TOTAL_POINTS - t))[0] >= 6)
    assert table.before(23, 23, True) == pytest.approx(more if variant is Variant.TRESSETTE else 1 - more)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("target", MATCH_TARGETS)
def test_my_points_are_worth_what_the_variant_says(variant: Variant, target: int) -> None:
    """Equity by my final points never falls (Tressette) or never rises (Kifameno); ends are 0 or 1 as the rules say."""
    table = equity_table(variant, target)
    sign = 1 if variant is Variant.TRESSETTE else -1
    for me in range(target):
        for him in range(target):
            for led in (True, False, None):
                eq = table.by_thirds(me, him, led)
                assert np.all(sign * np.diff(eq) >= -1e-12), (me, him, led)
                assert np.all((eq >= 0) & (eq <= 1))
                for t in range(TOTAL_POINTS + 1):
                    won = deal_score((t, TOTAL_POINTS - t))
                    winner = match_winner(variant, target, (me + won[0], him + won[1]))
                    if winner is not None:
                        assert eq[t] == (1.0 if winner == 0 else 0.0)


def test_a_table_refuses_a_bad_split() -> None:
    """A split must give a probability to every final score 0..35."""
    with pytest.raises(ValueError):
        EquityTable(Variant.TRESSETTE, 21, (1.0,))


def test_the_lead_of_the_deal_is_read_from_the_state() -> None:
    """The first trick's leader is the history's first leader, or the player to lead the first trick."""
    _, state = position(1, Variant.TRESSETTE, 0)
    assert led_first(state) is True
    _, state = position(1, Variant.TRESSETTE, 0, follow=True)
    assert led_first(state) is False
    deal, state = position(1, Variant.TRESSETTE, 3)
    assert led_first(state) is (deal.history[0].leader == deal.to_move)
    assert led_first(replace(state, history=None)) is None  # no history sent


def test_outside_a_match_the_search_is_the_deal_search() -> None:
    """Without ``match`` (or with ``nomatch``) nothing changes: same card, same statistics."""
    _, state = position(5, Variant.TRESSETTE, 2)
    assert match_rewards(state, SearchConfig()) is None
    in_match = replace(state, match=MatchScore(21, 3, 9))
    assert match_rewards(in_match, SearchConfig(play_match=False)) is None
    plain = decide(state, iterations=2000, time_ms=NO_TIME_LIMIT_MS, seed=3)
    ignored = decide(in_match, iterations=2000, time_ms=NO_TIME_LIMIT_MS, seed=3, config=SearchConfig(play_match=False))
    assert (plain.card, plain.stats) == (ignored.card, ignored.stats)
    played = decide(in_match, iterations=2000, time_ms=NO_TIME_LIMIT_MS, seed=3)
    assert played.card in state.legal_moves() and played.stats != plain.stats


def test_the_search_backs_up_the_match_equity() -> None:
    """With equity 1 whatever the deal's points, every root card's mean reward is 1."""
    _, state = position(2, Variant.KIFAMENO, 1)
    tree = Tree(5000)
    search(tree, make_root(state), 2000, equity=np.ones(TOTAL_POINTS + 1))
    stats = tree.root_stats()
    assert stats and all(mean == pytest.approx(1.0) for _, mean in stats.values())


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_solver_plays_the_match_as_it_plays_the_deal(variant: Variant) -> None:
    """Equity grows with the points wanted, so in known endgames the match changes no solver card but the fallible stage's."""
    for seed in range(6):
        _, state = position(seed, variant, 11)
        assert state.all_known
        m = replace(state, match=MatchScore(21, 12, 15))
        plain = decide(state, config=SearchConfig(fallible_share=0))
        match = decide(m, config=SearchConfig(fallible_share=0))
        assert (plain.card, plain.value) == (match.card, match.value)
        assert all("equity" in s for s in match.stats.values())
