"""The exact solver: the worked check of RULES.md, and agreement with brute-force minimax."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agent.decide import decide, solve
from agent.kernels.world import W_H0, W_H1, W_LEAD, W_LEADER
from agent.search.solver import best_cards_reference, new_table, solve_root, solve_value
from agent.search.worlds import make_root
from tests.agent.conftest import position
from tressette import ME, Variant, card_name, parse_state

THESIS = json.loads((Path(__file__).parents[1] / "data" / "positions.json").read_text())["thesis_state"]


def test_worked_check_of_the_rules() -> None:
    """RULES.md: best play leaves the agent 27 points, and B 7 is the only optimal lead."""
    state = parse_state(THESIS)
    card, value, per_card = solve(state)
    assert card_name(card) == "B 7" and value == 27
    root = make_root(state)
    values = np.zeros(40, dtype=np.int64)
    solve_root(root.w[W_H0], root.w[W_H1], root.w[W_LEADER], root.w[W_LEAD], False, new_table(), values,
               np.zeros(1, dtype=np.int64), True)
    exact = {card_name(c): 18 + int(values[c]) for c in state.hand}
    assert exact["B 7"] == 27 and all(v < 27 for name, v in exact.items() if name != "B 7")
    decision = decide(state)
    assert decision.method == "solver" and card_name(decision.card) == "B 7" and decision.value == 27


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("follow", [False, True])
def test_solver_equals_brute_force_minimax(variant: Variant, follow: bool) -> None:
    """On many small endgames the compiled solver finds the minimax score and an optimal card."""
    tt = new_table()  # shared on purpose: entries must stay true across searches
    for seed in range(150):
        deal, state = position(seed, variant, 15 + seed % 3, follow=follow)
        seat = deal.to_move
        best_points, optimal = best_cards_reference(deal, seat)
        card, value, _ = solve(state)
        assert value == best_points, f"seed {seed}"
        assert card in optimal, f"seed {seed}: {card_name(card)} not in {[card_name(c) for c in optimal]}"
        # The value from any position, with either seat to move, matches too.
        root = make_root(state)
        got = solve_value(root.w[W_H0], root.w[W_H1], root.w[W_LEADER], root.w[W_LEAD], state.cfm, tt,
                          np.zeros(1, dtype=np.int64))
        assert state.points + got == best_points
        assert ME == 0


def test_solver_handles_full_ten_card_endgames() -> None:
    """A 10-vs-10 endgame is solved, the value is a legal score and the card is legal."""
    for seed in range(5):
        _, state = position(seed, Variant.KIFAMENO, 10)
        card, value, _ = solve(state)
        assert card in state.legal_moves()
        assert state.points <= value <= 35 - state.opponent_points
