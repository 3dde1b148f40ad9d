"""Puzzle rows for tests, from real small endgames whose answers are proven here by brute force.

Until the finder's rows (agent/puzzles.py) are at hand, :func:`puzzle_data` builds the puzzle JSON of
docs/protocol.md ("Puzzles") for a position of a played deal: every line is found by playing out every
card with the rules package (minimax on the mover's final points), so no answer is written by hand.
:func:`store_game_with_puzzle` stores a whole seeded game (its moves, finished) and one puzzle from it.
"""

from __future__ import annotations

import hashlib
import json
import random
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from sqlalchemy.orm import Session

from server.game.puzzle_line import position_deal
from server.store.models import Game, Move, Puzzle
from tressette import POINTS, STRENGTH, Card, Deal, Variant, card_name, parse_card, suit_of

WIN = {Variant.TRESSETTE: lambda p: p >= 18, Variant.KIFAMENO: lambda p: p <= 17}
"""Whether the mover's final points (of 35) win the deal."""


def _key(deal: Deal) -> tuple[Any, ...]:
    return (tuple(sorted(deal.hands[0])), tuple(sorted(deal.hands[1])), tuple(deal.table), deal.leader,
            tuple(deal.points), len(deal.history), deal.variant)


_positions: dict[tuple[Any, ...], tuple[int, tuple[Card, ...]]] = {}


def solve(deal: Deal) -> tuple[int, list[Card]]:
    """Return seat 0's final points with best play by both (seat 0 wants more in Tressette, fewer in
    Kifameno) and the principal line, by trying every card (small endgames only)."""
    if deal.is_over:
        return deal.points[0], []
    key = _key(deal)
    if key not in _positions:
        mine = deal.to_move == 0
        want_more = mine == (deal.variant is Variant.TRESSETTE)
        best: tuple[int, tuple[Card, ...]] | None = None
        for card in deal.legal_moves():
            after = deal.copy()
            after.play(card)
            value, line = solve(after)
            if best is None or (value > best[0] if want_more else value < best[0]):
                best = (value, (card, *line))
        assert best is not None
        _positions[key] = best
    value, line = _positions[key]
    return value, list(line)


def _after(deal: Deal, card: Card) -> Deal:
    d = deal.copy()
    d.play(card)
    return d


def _equivalent(deal: Deal, a: Card, b: Card) -> bool:
    """Whether ``a`` and ``b`` (seat 0's) are interchangeable: same suit and points, no live card between."""
    if suit_of(a) != suit_of(b) or POINTS[a] != POINTS[b]:
        return False
    live = deal.hands[0] + deal.hands[1] + deal.table
    low, high = sorted((STRENGTH[a], STRENGTH[b]))
    return not any(suit_of(c) == suit_of(a) and low < STRENGTH[c] < high for c in live)


def puzzle_data(deal: Deal) -> dict[str, Any] | None:
    """Return the puzzle JSON for ``deal``'s position (seat 0 to move, stock empty), or None if not a puzzle.

    A puzzle: exactly one class of equivalent cards wins. The line goes on (the opponent resisting best:
    the reply that leaves seat 0 the worst score) while seat 0 has one winning class, and ends on seat 0's card.
    """
    assert deal.to_move == 0 and not deal.stock
    start = deal.copy()
    data: dict[str, Any] = {"variant": deal.variant.value, "hand": [card_name(c) for c in sorted(deal.hands[0])],
                            "opponent_hand": [card_name(c) for c in sorted(deal.hands[1])],
                            "inplay": [card_name(c) for c in deal.table], "points": deal.points[0],
                            "opponent_points": deal.points[1], "solution": [], "accepted": [], "refutations": []}
    wins = WIN[deal.variant]
    line: list[Card] = []
    d = start
    while not d.is_over and d.to_move == 0:
        outcomes = {c: solve(_after(d, c)) for c in d.legal_moves()}
        winners = [c for c, (value, _) in outcomes.items() if wins(value)]
        if not winners or any(not _equivalent(d, winners[0], w) for w in winners[1:]) or len(winners) == len(outcomes):
            break
        card = winners[0]
        data["accepted"].append([card_name(c) for c in winners])
        data["refutations"].append({card_name(c): [card_name(x) for x in (c, *rest)]
                                    for c, (value, rest) in outcomes.items() if not wins(value)})
        d = _after(d, card)
        line.append(card)
        replies: list[Card] = []
        while not d.is_over and d.to_move == 1:
            reply = min(d.legal_moves(), key=lambda c: (solve(_after(d, c))[0] * (1 if deal.variant is Variant.TRESSETTE
                                                                                   else -1), c))
            d = _after(d, reply)
            replies.append(reply)
        line.extend(replies)
    if not data["accepted"]:
        return None
    while len(line) > 1 and _seat_of(start, line, len(line) - 1) == 1:
        line.pop()  # the line ends on the player's card
    data["solution"] = [card_name(c) for c in line]
    return data


def _seat_of(start: Deal, line: list[Card], index: int) -> int:
    d = start.copy()
    for card in line[:index]:
        d.play(card)
    return d.to_move


def player_cards(data: dict[str, Any]) -> list[str]:
    """Return the player's cards of the solution, in order (the opponent's are left out)."""
    deal = position_deal(data)
    mine = []
    for name in data["solution"]:
        if deal.to_move == 0:
            mine.append(name)
        deal.play(parse_card(name))
    return mine


def position_key(data: dict[str, Any]) -> str:
    """Return the sha256 of the canonical position (variant, hands, card in play, points)."""
    keep = {k: data[k] for k in ("variant", "hand", "opponent_hand", "inplay", "points", "opponent_points")}
    return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()


def _mover_view(deal: Deal, seat: int) -> Deal:
    """Return ``deal`` seen from ``seat`` as seat 0 (the puzzle's frame)."""
    if seat == 0:
        return deal.copy()
    d = deal.copy()
    d.hands = (d.hands[1], d.hands[0])
    d.points = [d.points[1], d.points[0]]
    d.leader = 1 - d.leader
    return d


@lru_cache(maxsize=64)
def find_position(variant: Variant, seed: int, tricks_left: int = 4, depth: int = 1) -> tuple[int, int] | None:
    """Return (move number, seat) of the first puzzle position with ``tricks_left`` or fewer tricks and a line of
    ``depth`` player moves or more in the seeded random game, or None."""
    rng = random.Random(seed)
    deal = Deal.new(variant, first_leader=seed % 2, rng=rng)
    moves: list[Card] = []
    while not deal.is_over:
        if len(deal.history) >= 20 - tricks_left:
            data = puzzle_data(_mover_view(deal, deal.to_move))
            if data is not None and len(data["accepted"]) >= depth:
                return len(moves), deal.to_move
        card = rng.choice(deal.legal_moves())
        moves.append(card)
        deal.play(card)
    return None


def store_game_with_puzzle(session: Session, *, players: tuple[int, int], variant: Variant, seed: int,
                           rating: float = 1500.0, themes: list[str] | None = None, depth: int = 1,
                           finished: bool = True) -> tuple[Puzzle, dict[str, Any]]:
    """Store the seeded random game between ``players`` (its moves, finished) and one puzzle from it; flush.

    Returns the puzzle row and its data. Raises LookupError when the seed's game has no such puzzle.
    """
    found = find_position(variant, seed, depth=depth)
    if found is None:
        raise LookupError(f"no puzzle in game {seed}")
    move_number, seat = found
    rng = random.Random(seed)
    deal = Deal.new(variant, first_leader=seed % 2, rng=rng)
    game = Game(table_id=f"t{seed}", variant=variant.value, player0_id=players[0], player1_id=players[1],
                first_leader=deal.first_leader, deck=list(deal.deck), status="playing")
    session.add(game)
    session.flush()
    data: dict[str, Any] = {}
    for number in range(40):
        if number == move_number:
            data = puzzle_data(_mover_view(deal, deal.to_move)) or {}
        mover = deal.to_move
        card = rng.choice(deal.legal_moves())
        session.add(Move(game_id=game.id, user_id=players[mover], seat=mover, move_number=number,
                         trick_number=len(deal.history), variant=variant.value, hand=sorted(deal.hands[mover]),
                         opponent_known=sorted(deal.shown[1 - mover]), table_cards=list(deal.table),
                         won_self=list(deal.won[mover]), won_opponent=list(deal.won[1 - mover]), card=card,
                         first_card=deal.table[0] if deal.table else None, score=deal.points[mover]))
        deal.play(card)
    session.flush()
    if finished:
        points = deal.final_points()
        game.status, game.ended_at, game.end_reason, game.moves_at_end = "finished", datetime.now(UTC), "finished", 40
        game.points0, game.points1, game.winner_seat = points[0], points[1], variant.winner(points)
    puzzle = Puzzle(position_key=position_key(data), variant=variant.value, game_id=game.id, move_number=move_number,
                    seat=seat, data=data, themes=themes or [], depth=len(data["accepted"]),
                    legal=len(data["refutations"][0]) + len(data["accepted"][0]), rating=rating, rating_rd=250.0)
    session.add(puzzle)
    session.flush()
    return puzzle, data
