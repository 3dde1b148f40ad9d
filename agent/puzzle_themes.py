"""Theme tags of a puzzle, read off what its solution does (the keys are fixed in docs/protocol.md, "Puzzles").

The solution is played on from its start and continued by best play to the end of
the deal, so the trick of its last card is complete and the last trick is known.
A tag looks only at the tricks holding one of the player's solution cards, except
``last_trick``, which looks at the end of that line:

- ``take_ace``: the player takes a trick holding the opponent's AS;
- ``give_lead``: the player loses a trick while holding a card that would have won it
  (following: a card beating the lead; leading: a card the opponent holds nothing above in its suit);
- ``last_trick``: Tressette: the player takes the 20th trick and without its 3 points would not win;
  Kifameno: the opponent takes it and with those 3 points the player would not win;
- ``low_follow``: the player follows suit keeping a higher card of that suit worth at least as much (so an
  Ace, worth the most, is never the low card: following with it while keeping the 3 is not "follow low");
- ``dump_points`` (Kifameno): the player throws a card worth points onto a trick the opponent takes;
- ``one_move``: a single player move; ``long``: three or more.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.endgame import Endgame
from tressette import ACE_POINTS, LAST_TRICK_BONUS, POINTS, Card, beats, suit_of

THEMES = ("take_ace", "give_lead", "last_trick", "low_follow", "dump_points", "one_move", "long")
"""Every theme key, in the order a puzzle lists its tags."""
LONG_DEPTH = 3


@dataclass(frozen=True, slots=True)
class Played:
    """One card of a line: who played it, where from, and who took its trick."""

    seat: int
    card: Card
    before: Endgame
    winner: int
    other: Card
    """The other card of the trick."""


def _tricks(start: Endgame, line: list[Card]) -> list[Played]:
    """Return the line's cards with their tricks' winners (the line must end at a trick's end)."""
    out: list[Played] = []
    pos = start
    pending: list[tuple[int, Card, Endgame]] = []
    for card in line:
        pending.append((pos.to_move, card, pos))
        if pos.lead >= 0:
            winner = pos.trick_winner(card)
            out += [Played(seat, c, before, winner, pos.lead if c == card else card) for seat, c, before in pending]
            pending = []
        pos = pos.play(card)
    return out


def _would_win(played: Played) -> bool:
    """Return True if the mover held a legal card that would have taken this trick."""
    pos = played.before
    if pos.lead >= 0:
        return any(beats(c, pos.lead) for c in pos.legal())
    theirs = pos.hand(1 - played.seat)
    return any(not any(suit_of(o) == suit_of(c) and beats(o, c) for o in theirs) for c in pos.legal())


def themes(start: Endgame, solution: list[Card], rest: list[Card], depth: int) -> list[str]:
    """Return the theme keys of a puzzle starting at ``start`` whose line is ``solution`` then ``rest``.

    ``rest``: best play by both from the end of the solution to the end of the deal.
    """
    player = start.to_move
    tags: set[str] = set()
    line = _tricks(start, solution + rest)
    mine = [p for p in line[:len(solution)] if p.seat == player]
    for p in mine:
        pos = p.before
        if p.winner == player and POINTS[p.other] == ACE_POINTS:
            tags.add("take_ace")
        if p.winner != player and _would_win(p):
            tags.add("give_lead")
        if pos.lead >= 0 and suit_of(p.card) == suit_of(pos.lead) and any(
                suit_of(c) == suit_of(p.card) and beats(c, p.card) and POINTS[c] >= POINTS[p.card]
                for c in pos.hand(player)):
            tags.add("low_follow")
        if start.variant.cfm and p.winner != player and POINTS[p.card] > 0:
            tags.add("dump_points")
    final = start
    for card in solution + rest:
        final = final.play(card)
    points = final.points[player]
    last = line[-1].winner
    if not start.variant.cfm and last == player and not start.wins(points - LAST_TRICK_BONUS):
        tags.add("last_trick")
    if start.variant.cfm and last != player and not start.wins(points + LAST_TRICK_BONUS):
        tags.add("last_trick")
    tags.add("one_move" if depth == 1 else "long" if depth >= LONG_DEPTH else "")
    return [t for t in THEMES if t in tags]
