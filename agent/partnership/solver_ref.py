"""The readable double-dummy solver for the four-player game, and the brute force that checks it.

:class:`ReferenceSolver` is alpha-beta over the cards of each trick on an
:class:`~agent.partnership.position.OpenPosition`, minimax on partnership 0's thirds still to
come (partnership 0 maximises, partnership 1 minimises: see the position module for why that
is each side maximising its own points, and whole points): a transposition table at the start
of each trick keyed by relative ranks (:meth:`~agent.partnership.position.OpenPosition.key`:
the cards played no longer tell positions apart; entries are bounds that stay true across
searches), the mover's equivalent cards searched once, cards tried in a cheap order, and the
search cut as soon as the points still out cannot change the answer.  Pure Python, so for
endings; the compiled solver (:mod:`agent.partnership.solver`) is held to it in the tests.

:func:`brute_force_values` is plain minimax on the rules package's
:class:`~tressette.partnership.PartnershipDeal`: no pruning, no table, no merging, so it shares
nothing with the solvers but the rules; exponential, for the last few tricks only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.partnership.position import Key, OpenPosition
from tressette.cards import N_RANKS, POINTS, TOTAL_POINTS, Card, Mask, beats, mask_of
from tressette.partnership import N_SEATS, PartnershipDeal, partnership_of

INF = 1000


@dataclass(frozen=True, slots=True)
class Solution:
    """A solved position: the final thirds under best play and each legal card's value."""

    mover: int
    """The seat to move."""
    points: tuple[int, int]
    """Each partnership's final thirds under best play by both."""
    values: dict[Card, int]
    """Each legal card's value: the mover's partnership's final thirds after it, best play by both
    afterwards (for a solve of the best card only, a card's value may be a bound showing it is no better)."""
    card: Card = field(default=-1, compare=False)
    """A best card (which one among equals depends on the order the solver tried them)."""

    def best_cards(self) -> list[Card]:
        """Return every optimal card for the mover, sorted (when every value is exact)."""
        best = max(self.values.values())
        return sorted(c for c, v in self.values.items() if v == best)


def final_points(position: OpenPosition, future0: int) -> tuple[int, int]:
    """Return each partnership's final thirds when partnership 0 takes ``future0`` of the thirds still out."""
    return (position.points[0] + future0, position.points[1] + position.points_left() - future0)


@dataclass
class ReferenceSolver:
    """Alpha-beta with a transposition table over open positions (see the module).

    One solver may solve many positions: its table holds facts about positions, true in any search.
    """

    table: dict[Key, tuple[int, int, tuple[int, int]]] = field(default_factory=dict)
    """A trick start's key (:meth:`OpenPosition.key`) -> lower bound, upper bound (of partnership 0's thirds
    to come) and the best card's place (:meth:`OpenPosition.place`)."""
    nodes: int = 0

    def solve(self, position: OpenPosition) -> Solution:
        """Return the position's :class:`Solution` (every legal card's exact value); the deal must not be over."""
        mover = position.to_move
        side = partnership_of(mover)
        values: dict[Card, int] = {}
        best0, best_card = (-INF if side == 0 else INF), -1
        for group in position.classes():
            child, gain = position.play(group[0])
            future0 = gain + self.future(child)
            if (future0 > best0) if side == 0 else (future0 < best0):
                best0, best_card = future0, group[0]
            values.update(dict.fromkeys(group, final_points(position, future0)[side]))
        return Solution(mover, final_points(position, best0), values, best_card)

    def value(self, position: OpenPosition) -> int:
        """Return partnership 0's final thirds under best play by both."""
        return position.points[0] + self.future(position)

    def future(self, position: OpenPosition, alpha: int = -INF, beta: int = INF) -> int:
        """Return partnership 0's thirds still to come under best play, fail-soft within (alpha, beta).

        A result at or below ``alpha`` is an upper bound of the true value, one at or above
        ``beta`` a lower bound; in between it is exact.
        """
        self.nodes += 1
        if position.is_over:
            return 0
        most = position.points_left()
        if alpha >= most:  # partnership 0 takes at most what is still out ...
            return most
        if beta <= 0:  # ... and at least nothing
            return 0
        key = position.key() if not position.table else None
        hint = -1
        if key is not None and key in self.table:
            lo, hi, place = self.table[key]
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            alpha, beta = max(alpha, lo), min(beta, hi)
            hint = position.card_at(*place)
        maximise = partnership_of(position.to_move) == 0
        best, best_card = (-INF if maximise else INF), -1
        a, b = alpha, beta
        for card in ordered_cards(position, hint):
            child, gain = position.play(card)
            v = gain + self.future(child, a - gain, b - gain)
            if (v > best) if maximise else (v < best):
                best, best_card = v, card
            if maximise:
                a = max(a, v)
            else:
                b = min(b, v)
            if a >= b:
                break
        if key is not None:
            lo, hi, _ = self.table.get(key, (0, most, (0, 0)))
            if best <= alpha:
                hi = min(hi, best)
            elif best >= beta:
                lo = max(lo, best)
            else:
                lo = hi = best
            self.table[key] = (lo, hi, position.place(best_card))
        return best


def ordered_cards(position: OpenPosition, hint: Card = -1) -> list[Card]:
    """Return one card per class of the mover's equivalent cards, the likeliest best first.

    ``hint`` (a best card remembered by the table) goes first.  Leading: a card no other hand
    can beat (the dearest, then the weakest), then a low card to the partner's best card of its
    suit, then the weakest and cheapest.  Following: a card that takes the trick and that the
    one opponent still to play cannot beat (the dearest trick, then the weakest card); a card
    loaded on the partner's winning card, or second to play when the partner holds the suit's
    best card (the dearest, then the weakest); a card that takes the trick for now; the
    cheapest and weakest card thrown to the opponents.  (Measured on 20 full deals: 75 million
    positions searched, 140 million with only the sure leads and takes first; leading the weakest
    cards first searched 2.3 times the positions.)
    """
    mover = position.to_move
    side = partnership_of(mover)
    winning = position.winning()
    partner = position.hands[(mover + 2) % N_SEATS]
    others = mask_of(position.table)
    for seat in range(N_SEATS):
        if seat != mover:
            others |= position.hands[seat]

    def stronger(mask: Mask, card: Card) -> list[Card]:
        """Return the cards of ``mask`` of ``card``'s suit that beat it, strongest first."""
        return [c for c in range(card - card % N_RANKS, card) if (mask >> c) & 1]

    partner_takes = False
    if len(position.table) == 1:  # second to play: does the partner hold the best card of the suit still out?
        lead, suit = position.table[0], position.table[0] // N_RANKS
        held = position.live() & ~(1 << lead)
        out = [c for c in range(suit * N_RANKS, suit * N_RANKS + N_RANKS) if (held >> c) & 1]
        partner_takes = bool(out) and beats(out[0], lead) and bool((partner >> out[0]) & 1)

    def score(card: Card) -> int:
        if card == hint:
            return 10_000
        p, weak = POINTS[card], card % N_RANKS
        if winning is None:
            above = stronger(others, card)
            if not above:
                return 200 + 10 * p + weak
            return (150 if (partner >> above[0]) & 1 else 100) + weak - 10 * p
        seat, top = winning
        if not beats(card, top) and (partnership_of(seat) == side or partner_takes):
            return 500 + 10 * p + weak
        if beats(card, top):
            last = len(position.table) == N_SEATS - 1
            if not last and stronger(position.hands[(mover + 1) % N_SEATS], card):
                return 300 + p
            return 1000 + 10 * (sum(POINTS[c] for c in position.table) + p) + weak
        return 100 - 10 * p + weak

    return sorted((group[0] for group in position.classes()), key=score, reverse=True)


def brute_force_points(deal: PartnershipDeal) -> int:
    """Return partnership 0's final thirds under best play, by plain minimax on the rules engine."""
    if deal.is_over:
        return deal.points[0]
    results = []
    for card in deal.legal_moves():
        child = deal.copy()
        child.play(card)
        results.append(brute_force_points(child))
    return max(results) if partnership_of(deal.to_move) == 0 else min(results)


def brute_force_values(deal: PartnershipDeal) -> dict[Card, int]:
    """Return each legal card's value for the mover's partnership (its final thirds), by plain minimax.

    No pruning, no table, no merging of cards: exponential, for the last few tricks only.
    """
    side = partnership_of(deal.to_move)
    values = {}
    for card in deal.legal_moves():
        child = deal.copy()
        child.play(card)
        final0 = brute_force_points(child)
        values[card] = final0 if side == 0 else TOTAL_POINTS - final0  # a deal's thirds add up to 35
    return values
