"""The puzzle finder (agent/puzzles.py) against plain minimax on small endgames and the solver on whole ones.

Every puzzle's answer is checked from the outside: the rules engine plays its line, brute-force
minimax (``solve_reference``) or the analysis's exact values (``known_values``, through the agent's
state) say which cards win, and equivalent cards are grouped by a separate reading of the rule.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from agent.analysis import known_values
from agent.endgame import Endgame, unique_winners
from agent.puzzle_themes import THEMES, themes
from agent.puzzles import best_line, find_puzzles, make_puzzle, position_key, puzzle_data, solve_puzzle
from agent.search.solver import card_values_reference, new_table, solve_reference
from tressette import (
    LAST_TRICK_BONUS,
    POINTS,
    TOTAL_POINTS,
    Card,
    Deal,
    Variant,
    beats,
    card_name,
    mask_of,
    parse_card,
    state_from_view,
    suit_of,
    view_of,
)

VARIANTS = (Variant.TRESSETTE, Variant.KIFAMENO)


def _played_to(seed: int, variant: Variant, trick: int) -> tuple[Deal, list[Card], list[Card]]:
    """Return a seeded deal played at random up to ``trick`` (its deck and moves so far, and the rest)."""
    rng = random.Random(seed)
    deck = list(range(40))
    rng.shuffle(deck)
    deal = Deal.from_deck(deck, variant, seed % 2)
    moves: list[Card] = []
    while not deal.is_over:
        card = rng.choice(deal.legal_moves())
        moves.append(card)
        deal.play(card)
    at = Deal.from_deck(deck, variant, seed % 2)
    k = 0
    while at.trick_number < trick:
        at.play(moves[k])
        k += 1
    return at, deck, moves


def _wins(variant: Variant, points: int) -> bool:
    return variant.winner((points, TOTAL_POINTS - points)) == 0


def _exact(deal: Deal) -> dict[Card, int]:
    """Return each legal card's final points for the mover by the analysis's exact values (a whole endgame)."""
    values = known_values(state_from_view(view_of(deal, deal.to_move)), new_table())
    return {c: round(v) for c, v in values.points.items()}


def _same_card(deal: Deal, a: Card, b: Card) -> bool:
    """Return True if ``a`` and ``b`` are one card for a puzzle: one suit, no live card between them."""
    if a // 10 != b // 10:
        return False
    live = set(deal.hands[1 - deal.to_move]) | set(deal.table)
    return not any(c in live for c in range(min(a, b) + 1, max(a, b)))


def _unique(deal: Deal, values: dict[Card, int]) -> set[Card] | None:
    won = {c for c, v in values.items() if _wins(deal.variant, v)}
    if not won or len(won) == len(values) or len({POINTS[c] for c in won}) > 1:
        return None
    if not all(_same_card(deal, a, b) for a in won for b in won):
        return None
    return won


def _check(deal: Deal, data: dict[str, Any], solve: Any) -> None:
    """Check a puzzle's ``data`` at ``deal`` with the values of ``solve`` (minimax or the exact analysis)."""
    player = deal.to_move
    assert data["hand"] == [card_name(c) for c in sorted(deal.hands[player])]
    assert data["opponent_hand"] == [card_name(c) for c in sorted(deal.hands[1 - player])]
    assert data["inplay"] == [card_name(c) for c in deal.table]
    assert (data["points"], data["opponent_points"]) == (deal.points[player], deal.points[1 - player])
    pos = deal.copy()
    step = 0
    for name in data["solution"]:
        card = parse_card(name)
        if pos.to_move == player:
            values = solve(pos)
            won = _unique(pos, values)
            assert won is not None, "each player move of the line is the only winning one"
            assert won == {parse_card(c) for c in data["accepted"][step]} and card in won
            wrong = data["refutations"][step]
            assert {parse_card(c) for c in wrong} == set(values) - won
            for first, line in wrong.items():
                assert line[0] == first
                after = pos.copy()
                for c in line:
                    after.play(parse_card(c))
                assert after.is_over and not _wins(pos.variant, after.points[player]), "the refutation loses"
            step += 1
        pos.play(card)
        if pos.to_move != player and not pos.is_over:
            # Whatever the opponent plays, the player still wins: its reply is no mistake of the line.
            child_values = [solve_reference(_after(pos, c), player) if len(pos.hands[0]) <= 4 else None
                            for c in pos.legal_moves()]
            assert all(v is None or _wins(pos.variant, v) for v in child_values)
    assert step == len(data["accepted"])


def _after(deal: Deal, card: Card) -> Deal:
    child = deal.copy()
    child.play(card)
    return child


@pytest.mark.parametrize("variant", VARIANTS)
def test_small_endgames_against_minimax(variant: Variant) -> None:
    tt = new_table()
    found = 0
    for seed in range(80):
        start, _, moves = _played_to(seed, variant, 16)  # the last four tricks
        for card in moves[len(moves) - 8:]:
            if len(start.legal_moves()) > 1:
                pos = Endgame.from_deal(start)
                values = pos.values(tt)
                reference = card_values_reference(start)
                assert values == reference, "the solver's values are the mover's final points"
                mine = unique_winners(pos, values)
                assert (None if mine is None else set(mine)) == _unique(start, reference)
                if mine is not None:
                    sol = solve_puzzle(pos, tt)
                    assert sol is not None
                    _check(start, puzzle_data(pos, sol), card_values_reference)
                    found += 1
            start.play(card)
    assert found >= 15


@pytest.mark.parametrize("variant", VARIANTS)
def test_whole_endgames_against_the_exact_analysis(variant: Variant) -> None:
    tt = new_table()
    found = 0
    for seed in range(100, 130):
        deal, deck, moves = _played_to(seed, variant, 20)
        for p in find_puzzles(variant, deck, seed % 2, moves, tt=tt):
            at = Deal.from_deck(deck, variant, seed % 2)
            for card in moves[:p["move_number"]]:
                at.play(card)
            assert not at.stock and at.to_move == p["seat"]
            _check(at, p["data"], _exact)
            assert p["depth"] == len(p["data"]["accepted"]) and p["legal"] == len(at.legal_moves())
            assert p["missed"] == (moves[p["move_number"]] not in {parse_card(c) for c in p["data"]["accepted"][0]})
            assert p["position_key"] == position_key(Endgame.from_deal(at))
            assert set(p["themes"]) <= set(THEMES)
            assert ("one_move" in p["themes"]) == (p["depth"] == 1)
            assert ("long" in p["themes"]) == (p["depth"] >= 3)
            assert variant.cfm or "dump_points" not in p["themes"]
            found += 1
    assert found >= 10


def test_no_position_twice_and_tails_dropped() -> None:
    tt = new_table()
    keys: list[str] = []
    for seed in range(200, 240):
        variant = VARIANTS[seed % 2]
        _, deck, moves = _played_to(seed, variant, 20)
        found = find_puzzles(variant, deck, seed % 2, moves, tt=tt)
        again = find_puzzles(variant, deck, seed % 2, moves, tt=new_table())
        assert found == again, "the finder is deterministic, whatever the table holds"
        for a in found:
            for b in found:
                if a["move_number"] < b["move_number"] and a["seat"] == b["seat"]:
                    steps = b["move_number"] - a["move_number"]
                    line = [parse_card(c) for c in a["data"]["solution"]]
                    assert not (steps < len(line) and moves[a["move_number"]:b["move_number"]] == line[:steps]
                                and not b["missed"])
        keys += [p["position_key"] for p in found]
    assert len(keys) == len(set(keys))


def test_kinds_from_the_analysis_set_the_flags() -> None:
    tt = new_table()
    for seed in range(300, 330):
        variant = VARIANTS[seed % 2]
        _, deck, moves = _played_to(seed, variant, 20)
        exact = find_puzzles(variant, deck, seed % 2, moves, tt=tt)
        kinds: list[str | None] = [None] * len(moves)
        for p in exact:
            if p["missed"]:
                kinds[p["move_number"]] = "threw_win"
        told = find_puzzles(variant, deck, seed % 2, moves, kinds=kinds, tt=tt)
        assert [p["missed"] for p in told] == [p["missed"] for p in exact]
        assert not any(p["after_mistake"] and not p["move_number"] for p in told)


def _position(variant: Variant, mine: list[str], theirs: list[str], lead: str | None, points: tuple[int, int]
              ) -> Endgame:
    """Return a hand-made position with seat 0 to move (following ``lead`` when given)."""
    hands = (mask_of(parse_card(c) for c in mine), mask_of(parse_card(c) for c in theirs))
    return Endgame(variant, hands, 1 if lead else 0, parse_card(lead) if lead else -1, points)


def test_themes_of_hand_made_positions() -> None:
    tt = new_table()
    # Take the led ace with the 3, then the last trick with the 4: 12 + 4 + 3 = 19 wins; the 4 loses (12).
    ace = _position(Variant.TRESSETTE, ["B 3", "B 4"], ["K 4"], "B AS", (12, 16))
    sol = solve_puzzle(ace, tt)
    assert sol is not None and sol.accepted == [[parse_card("B 3")]] and sol.line == [parse_card("B 3")]
    tagged = make_puzzle(ace, sol, move_number=0, missed=False, after_mistake=False)
    assert tagged["themes"] == ["take_ace", "last_trick", "one_move"]
    assert tagged["data"]["refutations"] == [{"B 4": ["B 4", "K 4", "B 3"]}]
    # Kifameno: dump the ace on the opponent's trick, or take 7 points with it later (12 + 7 = 19 loses).
    dump = _position(Variant.KIFAMENO, ["D AS", "D 4"], ["D KAVAL"], "K 4", (12, 16))
    sol = solve_puzzle(dump, tt)
    assert sol is not None and sol.line == [parse_card("D AS")]
    tagged = make_puzzle(dump, sol, move_number=0, missed=True, after_mistake=False)
    assert tagged["themes"] == ["dump_points", "one_move"] and tagged["legal"] == 2
    # Both cards win: no puzzle.
    assert solve_puzzle(_position(Variant.TRESSETTE, ["B 3", "B 4"], ["K 4"], "B AS", (20, 8)), tt) is None


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_line_ends_only_when_no_reply_keeps_a_unique_move(variant: Variant) -> None:
    tt = new_table()
    checked = 0
    for seed in range(400, 460):
        start, _, moves = _played_to(seed, variant, 15)
        for card in moves[len(moves) - 10:]:
            pos = Endgame.from_deal(start)
            start.play(card)
            if len(pos.legal()) < 2 or unique_winners(pos, pos.values(tt)) is None:
                continue
            sol = solve_puzzle(pos, tt)
            assert sol is not None
            end = pos
            for c in sol.line:
                end = end.play(c)
            if end.is_over:
                continue
            player = pos.to_move
            if end.to_move == player:  # it took the trick it followed and leads: its move is not unique
                nexts = [end]
            else:  # after each reply of the opponent (one card, or two when it takes the trick and leads)
                ones = [end.play(r) for r in end.legal()]
                nexts = [q for q in ones if q.is_over or q.to_move == player]
                nexts += [q.play(lead) for q in ones if not q.is_over and q.to_move != player for lead in q.legal()]
            for q in nexts:
                assert q.is_over or unique_winners(q, q.values(tt)) is None
            checked += 1
    assert checked >= 10



def _readings(start: Deal, solution: list[Card], rest: list[Card], depth: int) -> set[str]:
    """Return the themes that are true of a line, read with the rules engine alone (not agent/puzzle_themes.py).

    The line (solution, then best play to the end) is played on a :class:`Deal`; each card of the player's
    solution is judged by its trick in that line, and its alternatives by playing them on copies.
    """
    player = start.to_move
    variant = start.variant
    tags = {"one_move"} if depth == 1 else {"long"} if depth >= 3 else set()
    pos = start.copy()
    # a puzzle may start after the opponent's lead: that card opens the first trick
    pending: list[tuple[int, Card, Deal]] = [(1 - player, c, start) for c in start.table]
    tricks: list[tuple[int, Card, Deal, int, Card]] = []  # seat, card, position before it, trick winner, other card
    last = -1
    for card in solution + rest:
        pending.append((pos.to_move, card, pos.copy()))
        trick = pos.play(card)
        if trick is not None:
            (s0, c0, b0), (s1, c1, b1) = pending
            tricks += [(s0, c0, b0, trick.winner, c1), (s1, c1, b1, trick.winner, c0)]
            pending, last = [], trick.winner
    assert pos.is_over
    for seat, card, before, winner, other in tricks:
        if seat != player or card not in solution:
            continue
        lead = before.table[0] if before.table else None
        if winner == player and card_name(other).endswith(" AS"):
            tags.add("take_ace")
        if winner != player and any(_always_wins(before, alt, player) for alt in before.legal_moves()):
            tags.add("give_lead")
        if lead is not None and suit_of(card) == suit_of(lead) and any(
                suit_of(k) == suit_of(card) and beats(k, card) and POINTS[k] >= POINTS[card]
                for k in before.hands[player]):
            tags.add("low_follow")
        if variant.cfm and winner != player and POINTS[card] > 0:
            tags.add("dump_points")
    points = pos.points[player]
    if not variant.cfm and last == player and not _wins(variant, points - LAST_TRICK_BONUS):
        tags.add("last_trick")
    if variant.cfm and last != player and not _wins(variant, points + LAST_TRICK_BONUS):
        tags.add("last_trick")
    return tags


def _always_wins(before: Deal, card: Card, player: int) -> bool:
    """Return True if ``card`` takes its trick whatever the opponent answers (a follow: it takes it at once)."""
    after = before.copy()
    trick = after.play(card)
    if trick is not None:
        return trick.winner == player
    replies = []
    for reply in after.legal_moves():
        answered = after.copy()
        done = answered.play(reply)
        assert done is not None
        replies.append(done.winner == player)
    return all(replies)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_theme_is_true_of_the_solvers_line(variant: Variant) -> None:
    """Each found puzzle's themes are exactly those a separate reading of its line finds, theme by theme."""
    tt = new_table()
    seen: set[str] = set()
    checked = 0
    for seed in range(500, 540):
        _, deck, moves = _played_to(seed, variant, 20)
        for p in find_puzzles(variant, deck, seed % 2, moves, tt=tt):
            at = Deal.from_deck(deck, variant, seed % 2)
            for card in moves[:p["move_number"]]:
                at.play(card)
            solution = [parse_card(c) for c in p["data"]["solution"]]
            after = at.copy()
            for card in solution:
                after.play(card)
            rest = best_line(Endgame.from_deal(after), tt) if not after.is_over else []
            assert set(p["themes"]) == _readings(at, solution, rest, p["depth"]), (seed, p["move_number"], p["themes"])
            seen |= set(p["themes"])
            checked += 1
    assert checked >= 10 and len(seen) >= 4, (checked, seen)


def test_following_with_the_ace_while_keeping_the_three_is_not_follow_low() -> None:
    """The Ace is worth the most: following with it is never "follow low"; the King under the 3 is."""
    for follow, expected in (("B AS", False), ("B KRALJ", True)):
        pos = _position(Variant.TRESSETTE, [follow, "B 3"], ["B 5"], "B 4", (14, 14))
        tags = themes(pos, [parse_card(follow)], [parse_card("B 3"), parse_card("B 5")], 1)
        assert ("low_follow" in tags) is expected, (follow, tags)
