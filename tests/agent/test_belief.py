"""Card weights from the opponent's earlier plays (agent.belief)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

from agent.belief import all_observations, card_weights, load_table, new_observations
from agent.inference import PSEUDO_COUNT, check, fit, write_table
from tressette import ALL_CARDS, Deal, Variant, parse_card, state_from_view, view_of


def _ducked_ace() -> Deal:
    """The agent (seat 0) leads D AS and the opponent answers D 4 while holding D 3."""
    ace, four, three, two = parse_card("D AS"), parse_card("D 4"), parse_card("D 3"), parse_card("D 2")
    rest = [c for c in ALL_CARDS if c not in (ace, four, three, two)]
    deal = Deal.from_deck([ace, *rest[:9], four, three, *rest[9:], two], Variant.TRESSETTE, 0)
    deal.play(ace)
    deal.play(four)
    return deal


def test_an_answer_weighs_the_hidden_cards_of_its_suit_by_the_table() -> None:
    """Each hidden card of the led suit gets its bucket's ratio; other suits and known cards keep 1."""
    deal = _ducked_ace()
    state = state_from_view(view_of(deal, 0))
    three, two = parse_card("D 3"), parse_card("D 2")
    buckets = dict((card, bucket) for bucket, card in new_observations(state))
    assert buckets[three] == buckets[two] == "TF l3 x0 N ss c1"  # stronger than both cards, worth 1
    assert all(c // 10 == three // 10 for c in buckets)
    weights = card_weights(state, {"TF l3 x0 N ss c1": 0.25})
    assert weights[three] == weights[two] == 0.25
    assert sum(1 for x in weights if x != 1.0) == 2


def test_new_observations_are_among_all_of_them() -> None:
    """At every decision the newest plays' buckets are among all the plays' buckets, all on hidden cards."""
    for seed in range(30):
        rng = random.Random(seed)
        variant = (Variant.TRESSETTE, Variant.KIFAMENO)[seed % 2]
        deal = Deal.new(variant, seed % 2, rng)
        seen: list[tuple[str, int]] = []
        while deal.stock:
            state = state_from_view(view_of(deal, deal.to_move))
            if deal.to_move == 0:
                new = new_observations(state)
                seen += new
                everything = all_observations(state)
                # The newest plays' buckets are among all of them (the hidden set may have shrunk since).
                assert set(new) <= set(everything)
                assert {c for _, c in everything} <= set(state.hidden)
            deal.play(rng.choice(deal.legal_moves()))
        assert seen


def test_the_shipped_table_is_a_fit() -> None:
    """The table shipped with the agent has ratios for both variants, all positive."""
    table = load_table()
    assert any(k.startswith("T") for k in table) and any(k.startswith("K") for k in table)
    assert all(r > 0 for r in table.values())


def test_the_table_weighs_the_opponents_real_cards_above_the_stock() -> None:
    """On fresh games (of a player the table was not fit on) the real hidden hand outweighs the stock."""
    result = check("greedy", 30, 77, load_table())
    for variant in ("tressette", "kifameno"):
        assert result[f"{variant}_held"] > result[f"{variant}_stock"] + 0.03


def test_fit_counts_real_holdings_against_uniform_expectation(tmp_path: Path) -> None:
    """A fit on a few games writes a table whose counts add up and whose ratios follow from them."""
    path = tmp_path / "table.json"
    write_table(fit("greedy", 4, 3), {"player": "greedy"}, path)
    data = json.loads(path.read_text())
    assert data["counts"] and set(data["counts"]) == set(data["ratios"])
    for bucket, (real, expected) in data["counts"].items():
        assert real >= 0 and expected > 0
        assert math.isclose(data["ratios"][bucket], (real + PSEUDO_COUNT) / (expected + PSEUDO_COUNT), abs_tol=0.01)
