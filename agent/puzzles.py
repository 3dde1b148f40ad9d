"""Endgame puzzles from real deals (issue #33): positions where exactly one card wins against best play.

A **puzzle position** is one in the last ten tricks (every card's place known) where
exactly one class of equivalent cards (:meth:`agent.endgame.Endgame.classes`) holds
every card that wins the deal against best play, and some legal card loses.  Wins are
exact: the solver's value of each card against a threshold (:mod:`agent.endgame`).

**The solution** (:func:`solve_puzzle`) is played on while the player's move stays the
only winning one.  After each right move the opponent replies with its *best
resistance*: every reply keeps the player winning, and the one chosen makes the next
move hardest: among replies after which exactly one class wins again (the puzzle goes
on) the one leaving the player the most legal cards, then the least margin (the
winning card's points beyond what the player needs), then the lowest card code.  The
line ends at the last unique move: when no reply keeps the next move unique (every
card wins, or several classes do) or the deal ends.  The line is in play order: who
plays each card follows from the rules (the player plays twice in a row when it takes
a trick it followed and leads the next; the opponent likewise, and its "reply" is then
the two cards, chosen together).  Of the accepted cards (equivalent, of equal points:
the same value) the line plays the lowest code.

**Refutations**: for each legal card that is not accepted, the line from that card to
the end of the deal with the solver's card for each side (the opponent wins it).

**Choosing among a deal's positions** (:func:`find_puzzles`): a candidate reached by
following an earlier candidate's solution (same player, the game's moves equal the
line so far) is part of that puzzle; of such a chain one is kept: its first, unless a
real player went wrong at a later step and not at the first (a position real players
got wrong is preferred), nor did the first follow the opponent's mistake.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agent.endgame import Endgame, Values, unique_winners
from agent.puzzle_themes import themes
from tressette import Card, Deal, Variant, card_name

FINDER_VERSION = "puzzles-1"
"""Stored with each scan: games scanned by an older finder are scanned again."""
GAVE_UP = frozenset(("threw_win", "missed_win"))
"""Analysis kinds of a move that gave up a win (agent/analysis.py)."""


@dataclass(frozen=True, slots=True)
class Solution:
    """A puzzle's line: the cards in play order, each player step's accepted cards and refutations."""

    line: list[Card]
    accepted: list[list[Card]]
    refutations: list[dict[Card, list[Card]]]
    rest: list[Card]
    """Best play by both from the end of the line to the end of the deal (for the themes)."""


def best_line(pos: Endgame, tt: np.ndarray) -> list[Card]:
    """Return the solver's cards for both sides from ``pos`` to the end of the deal."""
    line = []
    while not pos.is_over:
        card = pos.best(tt)
        line.append(card)
        pos = pos.play(card)
    return line


def resistance(after: Endgame, player: int, tt: np.ndarray) -> tuple[list[Card], Endgame, Values] | None:
    """Return the opponent's cards until the player moves again that make its next move hardest, or None.

    One card, or two when the opponent takes the trick it follows and leads the next (see the
    module).  None: no reply leaves the player a unique winning move.
    """
    best: tuple[tuple[int, int, list[int]], list[Card], Endgame, Values] | None = None
    replies: list[tuple[list[Card], Endgame]] = []
    for reply in after.legal():
        pos = after.play(reply)
        if pos.is_over:
            continue
        if pos.to_move == player:
            replies.append(([reply], pos))
        else:
            replies += [([reply, lead], pos.play(lead)) for lead in pos.legal()]
    for cards, pos in replies:
        values = pos.values(tt)
        won = unique_winners(pos, values)
        if won is None:
            continue
        key = (len(values), -max(pos.margin(values, c) for c in won), [-c for c in cards])
        if best is None or key > best[0]:
            best = (key, cards, pos, values)
    return None if best is None else best[1:]


def solve_puzzle(start: Endgame, tt: np.ndarray, values: Values | None = None) -> Solution | None:
    """Return the puzzle's solution from ``start`` (its ``values`` if known), or None if it is no puzzle."""
    player = start.to_move
    pos = start
    vals = pos.values(tt) if values is None else values
    line: list[Card] = []
    accepted: list[list[Card]] = []
    refutations: list[dict[Card, list[Card]]] = []
    while True:
        won = unique_winners(pos, vals)
        if won is None:
            break
        card = max(won, key=lambda c: (pos.margin(vals, c), -c))
        accepted.append(won)
        refutations.append({w: [w, *best_line(pos.play(w), tt)] for w in sorted(vals) if w not in won})
        line.append(card)
        after = pos.play(card)
        if after.is_over:
            break
        if after.to_move == player:  # it took the trick it followed: it leads the next
            pos, vals = after, after.values(tt)
            continue
        reply = resistance(after, player, tt)
        if reply is None:
            break
        line += reply[0]
        pos, vals = reply[1], reply[2]
    if not accepted:
        return None
    end = start
    for card in line:
        end = end.play(card)
    return Solution(line, accepted, refutations, best_line(end, tt))


def position_key(start: Endgame) -> str:
    """Return the sha256 (hex) of the canonical position: variant, both hands, card in play, points."""
    seat = start.to_move
    canon = {"variant": start.variant.value, "hand": _names(start.hand(seat)),
             "opponent_hand": _names(start.hand(1 - seat)), "inplay": _names([start.lead] if start.lead >= 0 else []),
             "points": start.points[seat], "opponent_points": start.points[1 - seat]}
    return hashlib.sha256(json.dumps(canon, sort_keys=True).encode()).hexdigest()


def _names(cards: Sequence[Card]) -> list[str]:
    return [card_name(c) for c in cards]


def puzzle_data(start: Endgame, sol: Solution) -> dict[str, Any]:
    """Return the puzzle's ``data`` JSON (docs/protocol.md, "Puzzles")."""
    seat = start.to_move
    return {"variant": start.variant.value, "hand": _names(start.hand(seat)),
            "opponent_hand": _names(start.hand(1 - seat)),
            "inplay": _names([start.lead] if start.lead >= 0 else []),
            "points": start.points[seat], "opponent_points": start.points[1 - seat],
            "solution": _names(sol.line), "accepted": [_names(a) for a in sol.accepted],
            "refutations": [{card_name(w): _names(line) for w, line in r.items()} for r in sol.refutations]}


def make_puzzle(start: Endgame, sol: Solution, *, move_number: int, missed: bool,
                after_mistake: bool) -> dict[str, Any]:
    """Return a puzzle as the finder hands it over: the ``puzzles`` columns but the rating, and ``data``."""
    depth = len(sol.accepted)
    return {"position_key": position_key(start), "variant": start.variant.value, "move_number": move_number,
            "seat": start.to_move, "themes": themes(start, sol.line, sol.rest, depth), "depth": depth,
            "legal": len(start.legal()), "missed": missed, "after_mistake": after_mistake,
            "data": puzzle_data(start, sol)}


@dataclass(slots=True)
class _Candidate:
    move_number: int
    start: Endgame
    solution: Solution
    missed: bool
    after_mistake: bool
    tail_of: int | None = None


def find_puzzles(variant: Variant, deck: Sequence[Card], first_leader: int, moves: Sequence[Card], *,
                 kinds: Sequence[str | None] | None = None, tt: np.ndarray) -> list[dict[str, Any]]:
    """Return the puzzles of one deal, in move order (see the module for which are kept).

    ``moves``: the cards played (legal: not checked); ``kinds``: the analysis's ``kind`` of
    each move when there is one (``missed``, ``after_mistake`` are then read from it), else
    they are computed exactly (a move before the last ten tricks then counts as no mistake).
    ``tt``: the solver's table (reused across deals: its entries stay true).
    """
    deal = Deal.from_deck(list(deck), variant, first_leader)
    seats: list[int] = []
    gave_up: list[bool] = []
    found: list[_Candidate] = []
    for k, card in enumerate(moves):
        seats.append(deal.to_move)
        gave_up.append(False)
        if not deal.stock and len(deal.legal_moves()) > 1:
            pos = Endgame.from_deal(deal)
            values = pos.values(tt)
            won = pos.winners(values)
            gave_up[k] = bool(won) and card not in won
            if unique_winners(pos, values) is not None:
                sol = solve_puzzle(pos, tt, values)
                assert sol is not None
                if kinds is not None:
                    gave_up[k] = kinds[k] in GAVE_UP
                    before = k > 0 and kinds[k - 1] in GAVE_UP
                else:
                    before = k > 0 and gave_up[k - 1]
                found.append(_Candidate(k, pos, sol, gave_up[k], before and seats[k - 1] != seats[k]))
        deal.play(card)
    return [make_puzzle(c.start, c.solution, move_number=c.move_number, missed=c.missed,
                        after_mistake=c.after_mistake) for c in _chosen(found, moves)]


def _chosen(found: list[_Candidate], moves: Sequence[Card]) -> list[_Candidate]:
    """Return one candidate per chain of candidates lying on each other's solution lines."""
    for i, c in enumerate(found):
        for head in found[:i]:
            if head.tail_of is not None or head.start.to_move != c.start.to_move:
                continue
            steps = c.move_number - head.move_number
            line = head.solution.line
            if steps < len(line) and list(moves[head.move_number:c.move_number]) == line[:steps]:
                c.tail_of = head.move_number
                break
    chosen = []
    for head in (c for c in found if c.tail_of is None):
        chain = [head, *(c for c in found if c.tail_of == head.move_number)]
        missed = [c for c in chain if c.missed]
        keep = head if head.missed or head.after_mistake or not missed else missed[0]
        chosen.append(keep)
    return chosen
