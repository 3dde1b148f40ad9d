"""Winning odds in known endgames against a fallible opponent, and the card decide plays with them."""

from __future__ import annotations

import random

import pytest

from agent.decide import SearchConfig, decide, lost_odds, solve
from agent.search.odds import odds_reference
from tests.agent.conftest import position
from tressette import TOTAL_POINTS, AgentState, Deal, Variant, card_name, state_from_view, view_of


def _lost(state_value: int, variant: Variant) -> bool:
    return variant.winner((state_value, TOTAL_POINTS - state_value)) != 0


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("share", [1.0, 0.4, 0.0])
def test_compiled_odds_equal_plain_expectimax(variant: Variant, share: float) -> None:
    """On many small endgames every card's odds equal the reference's on the rules engine."""
    for seed in range(60):
        deal, state = position(seed, variant, 16 + seed % 2, follow=seed % 3 == 0)
        seat = deal.to_move
        odds = lost_odds(state, share, time_ms=10_000)
        assert odds is not None and set(odds) == set(state.legal_moves())
        for card, p in odds.items():
            child = deal.copy()
            child.play(card)
            assert p == pytest.approx(odds_reference(child, seat, share), abs=1e-9), f"seed {seed} {card_name(card)}"


@pytest.mark.parametrize("variant", list(Variant))
def test_odds_against_a_perfect_opponent_are_the_solvers_verdict(variant: Variant) -> None:
    """With share 0 the best odds are 1 exactly when the solver's value wins, else 0."""
    for seed in range(40):
        _, state = position(seed, variant, 12 + seed % 4)
        _, value, _ = solve(state)
        odds = lost_odds(state, 0.0, time_ms=10_000)
        assert odds is not None and set(odds.values()) <= {0.0, 1.0}
        assert max(odds.values()) == (0.0 if _lost(value, variant) else 1.0), f"seed {seed}"


def _lost_positions(variant: Variant, count: int, tricks: int = 15) -> list[tuple[Deal, AgentState]]:
    """Return ``count`` seeded known endgames after ``tricks`` to ``tricks + 2`` tricks that the mover has lost."""
    out = []
    seed = 0
    while len(out) < count:
        deal, state = position(seed, variant, tricks + seed % 3)
        if _lost(solve(state)[1], variant):
            out.append((deal, state))
        seed += 1
    return out


@pytest.mark.parametrize("variant", list(Variant))
def test_decide_plays_the_best_odds_card_in_lost_endgames(variant: Variant) -> None:
    """In a lost known endgame decide plays a card of best odds, and that changes some decisions."""
    changed = 0
    for _, state in _lost_positions(variant, 25):
        decision = decide(state)
        solver_card = solve(state)[0]
        odds = lost_odds(state, SearchConfig().fallible_share, time_ms=10_000)
        assert odds is not None
        assert decision.method == "solver" and decision.card in state.legal_moves()
        assert odds[decision.card] == max(odds.values())
        assert decision.stats[card_name(decision.card)]["odds"] == pytest.approx(max(odds.values()), abs=1e-6)
        if odds[decision.card] > odds[solver_card]:
            changed += 1
        # Without the option decide keeps the solver's card.
        assert decide(state, config=SearchConfig(fallible_share=0.0)).card == solver_card
    assert changed > 0


def test_won_endgames_keep_the_solvers_card() -> None:
    """In a won known endgame the solver's card (the best score) is played and no odds are searched."""
    won = 0
    for seed in range(30):
        _, state = position(seed, Variant.TRESSETTE, 14)
        card, value, _ = solve(state)
        if _lost(value, Variant.TRESSETTE):
            continue
        won += 1
        decision = decide(state)
        assert decision.card == card and decision.value == value
        assert all("odds" not in s for s in decision.stats.values())
    assert won > 5


def test_without_time_for_the_odds_decide_keeps_the_solvers_card() -> None:
    """A budget too small for the odds search leaves the solver's card, and a full one is reproducible."""
    _, state = _lost_positions(Variant.TRESSETTE, 1, tricks=10)[0]
    assert lost_odds(state, 1.0, time_ms=0) is None
    assert decide(state, time_ms=1).card == solve(state)[0]
    assert lost_odds(state, 1.0, time_ms=10_000) == lost_odds(state, 1.0, time_ms=10_000)


@pytest.mark.slow
def test_the_best_odds_card_wins_more_often_against_a_random_player() -> None:
    """Played out against a random player, lost endgames are won more often with decide's card."""
    rng = random.Random(3)
    wins = {"odds": 0, "solver": 0}
    for deal, _ in _lost_positions(Variant.TRESSETTE, 40, tricks=11):
        seat = deal.to_move
        for name, config in (("odds", SearchConfig()), ("solver", SearchConfig(fallible_share=0.0))):
            for _ in range(10):
                game = deal.copy()
                while not game.is_over:
                    if game.to_move == seat:
                        game.play(decide(state_from_view(view_of(game, seat)), config=config).card)
                    else:
                        game.play(rng.choice(game.legal_moves()))
                wins[name] += game.outcome().winner == seat
    assert wins["odds"] > wins["solver"]


def test_arena_option_sets_the_share() -> None:
    """``mcts:...,fX`` sets the share (``,f0`` keeps the solver's card), ``,full`` is still its own option."""
    from lab.baselines import get_policy

    assert get_policy("mcts:i100,f0.3").config.fallible_share == 0.3  # type: ignore[attr-defined]
    assert get_policy("mcts:i100,f0").config.fallible_share == 0.0  # type: ignore[attr-defined]
    assert get_policy("mcts:i100").config.fallible_share == SearchConfig().fallible_share  # type: ignore[attr-defined]
    assert get_policy("mcts:i100,full").config.stop_early is False  # type: ignore[attr-defined]
    with pytest.raises(KeyError):
        get_policy("mcts:i100,f")


def test_cli_json_shows_the_odds_of_a_lost_endgame() -> None:
    """``treset-agent decide --json`` on a lost 10-vs-10 endgame: the solver's value, every card's odds, and
    a card of best odds, within the time limit once loaded."""
    import json

    from tests.agent.test_cli import _agent

    _, state = _lost_positions(Variant.TRESSETTE, 1, tricks=10)[0]
    out = json.loads(_agent("decide", "--json", "--time-ms", "3000", state.to_json()).stdout)
    assert out["method"] == "solver" and _lost(out["value"], Variant.TRESSETTE)
    odds = {name: s["odds"] for name, s in out["stats"].items()}
    assert set(odds) == {card_name(c) for c in state.legal_moves()}
    assert odds[out["card"]] == max(odds.values()) and 0 < max(odds.values()) < 1
    assert out["elapsed_ms"] < 3050


def test_parallel_threads_get_the_same_odds() -> None:
    """Each thread searches with its own memo: odds found side by side equal those found one at a time."""
    from concurrent.futures import ThreadPoolExecutor

    states = [state for _, state in _lost_positions(Variant.KIFAMENO, 6, tricks=12)]
    alone = [lost_odds(state, 0.5, time_ms=10_000) for state in states]
    with ThreadPoolExecutor(max_workers=3) as pool:
        together = list(pool.map(lambda s: lost_odds(s, 0.5, time_ms=10_000), states * 2))
    assert together == alone * 2 and all(odds is not None for odds in alone)


@pytest.mark.parametrize("variant", list(Variant))
def test_against_an_exact_opponent_the_odds_change_no_result(variant: Variant) -> None:
    """Played out against the solver (as ``flat`` plays a known endgame), lost endgames stay lost and the
    margin is never better than the solver's value: the odds cost no wins against an exact player."""
    for deal, _ in _lost_positions(variant, 15, tricks=11):
        seat = deal.to_move
        game = deal.copy()
        value = solve(state_from_view(view_of(game, seat)))[1]
        while not game.is_over:
            state = state_from_view(view_of(game, game.to_move))
            game.play(decide(state).card if game.to_move == seat else solve(state)[0])
        assert game.outcome().winner != seat
        mine = game.final_points()[seat]
        assert (mine >= value) if variant.cfm else (mine <= value)
