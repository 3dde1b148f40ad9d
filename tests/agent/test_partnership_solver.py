"""The four-player double-dummy solver: reference against brute force, compiled against reference."""

from __future__ import annotations

import doctest
import random

import numpy as np
import pytest

import agent.partnership.position
import agent.partnership.solver
from agent.partnership.kernel import ordered_moves
from agent.partnership.position import OpenPosition
from agent.partnership.solver import DoubleDummySolver, kernel_trick
from agent.partnership.solver_ref import ReferenceSolver, brute_force_values, ordered_cards
from tressette import TOTAL_POINTS, card_name, mask_of, parse_card
from tressette.partnership import PartnershipDeal, partnership_of


def ending(seed: int, tricks_left: int, extra: int) -> PartnershipDeal:
    """Return a seeded random deal with ``tricks_left`` tricks to play and ``extra`` cards of the next one played."""
    rng = random.Random(seed)
    deal = PartnershipDeal.new(seed % 4, rng)
    while deal.trick_number < 10 - tricks_left:
        deal.play(rng.choice(deal.legal_moves()))
    for _ in range(extra):
        deal.play(rng.choice(deal.legal_moves()))
    return deal


def cards(names: str) -> int:
    """Return the mask of the comma-separated card names."""
    return mask_of(parse_card(n) for n in names.split(","))


def test_equivalent_cards_are_grouped_by_what_separates_them() -> None:
    """Own cards and played cards do not separate equal-point cards; a partner's card or other points do."""
    position = OpenPosition((
        cards("B 3,B 2,B KRALJ,B 7,B 6,B 4,K 3,K AS,K KRALJ"),
        cards("B KAVAL,K KAVAL,K FANT,S 3,S 2,S AS,S KRALJ,S KAVAL,S FANT"),
        cards("B 5,K 7,K 6,S 7,S 6,S 5,S 4,D 3,D 2"),
        cards("K 5,K 4,D AS,D KRALJ,D KAVAL,D FANT,D 7,D 6,D 5"),
    ), leader=0)  # played before: B AS, B FANT, K 2, D 4
    got = [[card_name(c) for c in group] for group in position.classes()]
    assert got == [["B 3", "B 2", "B KRALJ"], ["B 7", "B 6"], ["B 4"], ["K 3", "K KRALJ"], ["K AS"]]
    # Seat 1 must follow the K 3 led: its K KAVAL and K FANT are one class.
    after_lead, _ = position.play(parse_card("K 3"))
    assert [[card_name(c) for c in g] for g in after_lead.classes()] == [["K KAVAL", "K FANT"]]


def test_last_trick_by_hand() -> None:
    """One card each: the highest of the suit led takes the trick and its 3 (worked out by hand)."""
    position = OpenPosition((cards("B 7"), cards("B AS"), cards("B 3"), cards("K 2")), leader=0, points=(10, 18))
    solution = ReferenceSolver().solve(position)
    # B 3 (seat 2) takes B 7, B AS, B 3, K 2: 3 + 1 + 1 thirds and the last trick's 3.
    assert solution.points == (18, 18) and solution.values == {parse_card("B 7"): 18}
    assert DoubleDummySolver(bits=10).solve(position) == solution


@pytest.mark.parametrize("tricks_left", [1, 2, 3])
def test_reference_equals_brute_force(tricks_left: int) -> None:
    """Every legal card's value agrees with plain minimax on the rules engine, on seeded endings."""
    solver = ReferenceSolver()  # shared on purpose: entries must stay true across searches
    for seed in range({1: 500, 2: 1000, 3: 300}[tricks_left]):
        deal = ending(seed, tricks_left, seed % 4)
        position = OpenPosition.from_deal(deal)
        solution = solver.solve(position)
        assert solution.values == brute_force_values(deal), f"seed {seed}"
        assert sum(solution.points) == TOTAL_POINTS
        assert solution.values[solution.card] == solution.points[partnership_of(deal.to_move)]


@pytest.mark.slow
@pytest.mark.parametrize("tricks_left", [2, 3, 4])
def test_reference_equals_brute_force_on_thousands(tricks_left: int) -> None:
    """The same on more endings, and the last four tricks (brute force takes ~0.2 s each there)."""
    solver = ReferenceSolver()
    for seed in range(1000, 1000 + {2: 2000, 3: 1500, 4: 120}[tricks_left]):
        deal = ending(seed, tricks_left, seed % 4)
        assert solver.solve(OpenPosition.from_deal(deal)).values == brute_force_values(deal), f"seed {seed}"


def test_compiled_tries_cards_in_the_reference_order() -> None:
    """The kernel's classes and move order are the reference's, at every seat of a trick."""
    out = np.empty(10, dtype=np.int64)
    scores = np.empty(10, dtype=np.int64)
    for seed in range(200):
        deal = ending(seed, 1 + seed % 10, seed % 4)
        position = OpenPosition.from_deal(deal)
        ntab, tmask, wseat, wcard, tpts = kernel_trick(position)
        hint = deal.legal_moves()[-1] if seed % 3 == 0 else -1
        n = ordered_moves(np.array(position.hands, dtype=np.int64), position.to_move, ntab, tmask, wseat, wcard,
                          tpts, hint, out, scores)
        assert list(out[:n]) == ordered_cards(position, hint), f"seed {seed}"


@pytest.mark.parametrize("tricks_left", [2, 4, 5])
def test_compiled_equals_reference(tricks_left: int) -> None:
    """The compiled solver gives every card the reference's value, and its best-card solve a best card."""
    compiled = DoubleDummySolver(bits=16)  # a small shared table: clashes must not change an answer
    reference = ReferenceSolver()
    for seed in range({2: 300, 4: 150, 5: 40}[tricks_left]):
        position = OpenPosition.from_deal(ending(seed, tricks_left, seed % 4))
        expected = reference.solve(position)
        assert compiled.solve(position) == expected, f"seed {seed}"
        quick = compiled.solve(position, exact_all=False)
        assert quick.points == expected.points and quick.card in expected.best_cards(), f"seed {seed}"


@pytest.mark.slow
def test_compiled_equals_reference_deeper() -> None:
    """The same with six and seven tricks to play (the reference takes a second or more there)."""
    compiled = DoubleDummySolver(bits=16)
    reference = ReferenceSolver()
    for seed in range(30):
        position = OpenPosition.from_deal(ending(seed, 6 + seed % 2, seed % 4))
        assert compiled.solve(position) == reference.solve(position), f"seed {seed}"


def best_line_keeps_its_value(deal: PartnershipDeal, solver: DoubleDummySolver) -> None:
    """Play a full deal by the solver's best cards: each value is kept to the end, where it is the score."""
    expected = solver.value(OpenPosition.from_deal(deal))
    while not deal.is_over:
        solution = solver.solve(OpenPosition.from_deal(deal), exact_all=False)
        assert solution.points[0] == expected
        deal.play(solution.card)
    assert deal.points[0] == expected


def test_full_deal_best_line() -> None:
    """A full deal (40 cards open) is solved, and its best line scores exactly its value."""
    best_line_keeps_its_value(PartnershipDeal.new(1, random.Random(4)), DoubleDummySolver())


@pytest.mark.slow
def test_full_deals_compiled_values_are_consistent() -> None:
    """On full deals, each card's exact value is what the position after it is worth to the mover's side."""
    for seed in range(3):
        solver = DoubleDummySolver()
        deal = PartnershipDeal.new(seed % 4, random.Random(100 + seed))
        position = OpenPosition.from_deal(deal)
        solution = solver.solve(position)
        side = partnership_of(solution.mover)
        for card, value in solution.values.items():
            child, _ = position.play(card)
            final0 = solver.value(child)
            assert (final0 if side == 0 else TOTAL_POINTS - final0) == value, f"seed {seed}, {card_name(card)}"
        best_line_keeps_its_value(deal, solver)


def test_doctests() -> None:
    """The modules' examples run."""
    for module in (agent.partnership.position, agent.partnership.solver):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0
