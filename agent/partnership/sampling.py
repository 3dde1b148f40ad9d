"""Exact uniform sampling of the hidden hands of a four-player deal (determinization).

A *world* is the four current hands of a deal consistent with one seat's view: the viewer's
own hand as it is, the unknown cards shared among the other seats so that every count, void,
declaration and signal of the public record holds (:mod:`agent.partnership.constraints`).

Rejection is hopeless when the record is tight (a striscio, two voids and a declaration may
leave one deal in millions), so :class:`WorldSampler` counts instead.  The cards each seat
surely holds are placed first; the rest are grouped by suit and, within a suit, by the seats
that may hold them.  For each suit a table says in how many ways its free cards can be shared
so that each seat gets ``n`` of them (``sum over groups of multinomials``; a striscio's "at
least one of the suit" is a bound on ``n``); tables of the later suits, convolved, say in how
many ways the remaining counts can be completed.  A draw then picks each suit's share with
probability proportional to (ways for this suit) x (ways to complete the rest), each group's
share likewise, and the cards of a group uniformly: every consistent world is equally likely.
The weights are exact integers, drawn with ``rng.randrange``.

:func:`is_consistent` checks a world by another route: it rebuilds the dealt hands and
replays the whole record through the rules (:func:`tressette.partnership.replay_partnership`),
which refuse a card that does not follow suit, a false declaration and a false signal.

>>> import random
>>> from tressette.partnership import PartnershipDeal, view_of_partnership
>>> deal = PartnershipDeal.new(first_leader=0, rng=random.Random(3))
>>> view = view_of_partnership(deal, 0)
>>> sampler = WorldSampler.of(view)
>>> sampler.count == 30 * 29 * 28 * 27 * 26 * 25 * 24 * 23 * 22 * 21 // 3628800 * 184756
True
>>> world = sampler.sample(random.Random(1))
>>> is_consistent(view, world), [len(h) for h in world]
(True, [10, 10, 10, 10])
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from math import factorial
from typing import TypeAlias, TypeVar

from agent.partnership.constraints import Constraints, constraints_of, plays_of
from tressette.cards import N_SUITS, Card, suit_of
from tressette.errors import IllegalMoveError
from tressette.partnership import (
    N_SEATS,
    PartnershipDeal,
    PartnershipMove,
    PartnershipView,
    replay_partnership,
)

World: TypeAlias = tuple[tuple[Card, ...], ...]
"""The four seats' current hands, each sorted."""
Shares: TypeAlias = int
"""How many cards each hidden seat gets, packed: 5 bits a seat, in the order of ``Constraints.hidden_seats``.

Packed, adding two shares is one integer addition (no digit exceeds 20, so none carries), and a
difference with a negative digit borrows into a digit above 20, which no table holds: looking it
up finds nothing, as it should."""
_BITS = 5
Weight: TypeAlias = Callable[[World], float]
"""A model's relative likelihood of a world (an opponent or partner model); >= 0."""


T = TypeVar("T")


class NoConsistentWorld(ValueError):
    """The view's record admits no deal of the hidden hands (it contradicts itself)."""


def _splits(total: int, slots: int) -> Iterator[tuple[int, ...]]:
    """Yield every way of writing ``total`` as ``slots`` ordered non-negative parts."""
    if slots == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _splits(total - first, slots - 1):
            yield (first, *rest)


def _multinomial(parts: Sequence[int]) -> int:
    out = factorial(sum(parts))
    for p in parts:
        out //= factorial(p)
    return out


@dataclass(frozen=True, slots=True)
class _Group:
    """Free cards of one suit that the same seats (positions in ``hidden_seats``) may hold."""

    cards: tuple[Card, ...]
    slots: tuple[int, ...]
    splits: tuple[tuple[Shares, int], ...]
    """Each way of sharing the group among all hidden seats, with its number of card assignments."""


def _pack(parts: Sequence[int]) -> Shares:
    return sum(p << (_BITS * k) for k, p in enumerate(parts))


def _digits(shares: Shares, width: int) -> list[int]:
    return [(shares >> (_BITS * k)) & ((1 << _BITS) - 1) for k in range(width)]


def _group(cards: list[Card], slots: tuple[int, ...]) -> _Group:
    splits = []
    for parts in _splits(len(cards), len(slots)):
        splits.append((sum(p << (_BITS * slot) for slot, p in zip(slots, parts, strict=True)), _multinomial(parts)))
    return _Group(tuple(sorted(cards)), slots, tuple(splits))


def _pick(rng: random.Random, options: list[tuple[int, T]]) -> T:
    """Return an option drawn with probability proportional to its integer weight (all > 0)."""
    total = sum(w for w, _ in options)
    r = rng.randrange(total)
    for w, item in options:
        if r < w:
            return item
        r -= w
    raise AssertionError("unreachable: r < total")


@dataclass(frozen=True, slots=True)
class _Suit:
    groups: tuple[_Group, ...]
    prefix: tuple[dict[Shares, int], ...]
    """``prefix[j][n]``: ways the first ``j`` groups give the hidden seats ``n`` cards."""
    ways: dict[Shares, int]
    """Ways the whole suit gives ``n`` cards, the striscio bounds applied."""


def _suit_table(groups: list[_Group], fits: set[Shares], floor: list[int]) -> _Suit:
    """Return the suit's tables; ``fits`` holds every share within the seats' needs."""
    prefix: list[dict[Shares, int]] = [{0: 1}]
    for g in groups:
        nxt: dict[Shares, int] = {}
        for n, ways in prefix[-1].items():
            for d, mult in g.splits:
                m = n + d
                if m in fits:
                    nxt[m] = nxt.get(m, 0) + ways * mult
        prefix.append(nxt)
    final = {n: w for n, w in prefix[-1].items()
             if all(x >= f for x, f in zip(_digits(n, len(floor)), floor, strict=True))}
    return _Suit(tuple(groups), tuple(prefix), final)


class WorldSampler:
    """Draws worlds uniformly from those consistent with a :class:`Constraints` (see the module doc)."""

    def __init__(self, constraints: Constraints, hand: Sequence[Card] = ()) -> None:
        """Prepare the counting tables; ``hand`` is the viewer's own (copied into every world)."""
        self.constraints = constraints
        c = constraints
        self._seats = c.hidden_seats
        self._hand = tuple(sorted(hand))
        self._held = [sorted(c.held[s]) for s in self._seats]
        free = [card for card in sorted(c.unknown) if not any(card in c.held[s] for s in self._seats)]
        need = [c.counts[s] - len(h) for s, h in zip(self._seats, self._held, strict=True)]
        self._need = _pack(need)
        self._suits: list[_Suit] = []
        self._suffix: list[dict[Shares, int]] = []
        self.count: int = 0
        if c.is_open_contradiction() or min(need, default=0) < 0:
            return
        fits = {_pack(parts) for parts in itertools.product(*(range(x + 1) for x in need))}
        for suit in range(N_SUITS):
            by_slots: dict[tuple[int, ...], list[Card]] = {}
            for card in free:
                if suit_of(card) == suit:
                    slots = tuple(i for i, s in enumerate(self._seats) if c.allows(s, card))
                    by_slots.setdefault(slots, []).append(card)
            if () in by_slots:  # a card no hidden seat may hold
                return
            groups = [_group(cards, slots) for slots, cards in sorted(by_slots.items())]
            floor = [int(bool((c.some[s] >> suit) & 1) and not any(suit_of(h) == suit for h in c.held[s]))
                     for s in self._seats]
            self._suits.append(_suit_table(groups, fits, floor))
        # suffix[i][r]: ways suits i.. give the hidden seats exactly r cards (suit 0 only at the need).
        suffix: list[dict[Shares, int]] = [{} for _ in range(N_SUITS)] + [{0: 1}]
        for i in range(N_SUITS - 1, 0, -1):
            acc: dict[Shares, int] = {}
            for n, ways in self._suits[i].ways.items():
                for r, rest in suffix[i + 1].items():
                    m = n + r
                    if m in fits:
                        acc[m] = acc.get(m, 0) + ways * rest
            suffix[i] = acc
        self._suffix = suffix
        self.count = sum(ways * suffix[1].get(self._need - n, 0) for n, ways in self._suits[0].ways.items())
        """How many worlds are consistent (0: the record contradicts itself)."""

    @classmethod
    def of(cls, view: PartnershipView, *, signals: bool = True, declarations: bool = True) -> WorldSampler:
        """Return the sampler of the worlds consistent with ``view`` (see :func:`constraints_of`)."""
        return cls(constraints_of(view, signals=signals, declarations=declarations), view.hand)

    def sample(self, rng: random.Random) -> World:
        """Return a world drawn uniformly; raise :class:`NoConsistentWorld` if there is none."""
        if self.count == 0:
            raise NoConsistentWorld("no deal of the hidden hands fits the public record")
        hands: list[list[Card]] = [list(h) for h in self._held]
        r = self._need
        for i, suit in enumerate(self._suits):
            nxt = self._suffix[i + 1]
            options: list[tuple[int, Shares]] = []
            for n, ways in suit.ways.items():
                rest = nxt.get(r - n, 0)
                if rest:
                    options.append((ways * rest, n))
            n = _pick(rng, options)
            r -= n
            self._deal_suit(suit, n, hands, rng)
        world: list[tuple[Card, ...]] = [()] * N_SEATS
        for s, h in zip(self._seats, hands, strict=True):
            world[s] = tuple(sorted(h))
        if self.constraints.viewer is not None:
            world[self.constraints.viewer] = self._hand
        return tuple(world)

    @staticmethod
    def _deal_suit(suit: _Suit, n: Shares, hands: list[list[Card]], rng: random.Random) -> None:
        for j in range(len(suit.groups) - 1, -1, -1):
            group = suit.groups[j]
            before = suit.prefix[j]
            options: list[tuple[int, Shares]] = []
            for d, mult in group.splits:
                ways = before.get(n - d, 0)
                if ways:
                    options.append((mult * ways, d))
            d = _pick(rng, options)
            n -= d
            cards = list(group.cards)
            rng.shuffle(cards)
            at = 0
            for slot, k in enumerate(_digits(d, len(hands))):
                hands[slot].extend(cards[at:at + k])
                at += k


def sample_worlds(view: PartnershipView, n: int, rng: random.Random, *, weight: Weight | None = None,
                  pool: int = 4, sampler: WorldSampler | None = None) -> list[World]:
    """Return ``n`` worlds consistent with ``view``: uniform, or weighted by a model.

    With ``weight`` (an opponent or partner model's relative likelihood of a world), ``pool * n``
    uniform worlds are drawn and ``n`` resampled from them in proportion to their weights
    (sampling-importance-resampling), so the model only reweighs consistent worlds.  Raises
    :class:`NoConsistentWorld` when the record admits none.
    """
    sampler = sampler or WorldSampler.of(view)
    if weight is None:
        return [sampler.sample(rng) for _ in range(n)]
    cands = [sampler.sample(rng) for _ in range(max(n, pool * n))]
    weights = [max(0.0, float(weight(w))) for w in cands]
    if not sum(weights):
        weights = [1.0] * len(cands)
    return rng.choices(cands, weights=weights, k=n)


def _moves(view: PartnershipView) -> list[tuple[int, PartnershipMove]]:
    """Return the record as moves (declarations with each seat's first card, signals with the leads)."""
    out: list[tuple[int, PartnershipMove]] = []
    first: set[int] = set()
    signals = [t.signal for t in view.history] + [view.table_signal]
    trick_of_last = -1
    for trick, seat, card in plays_of(view):
        leads, trick_of_last = trick != trick_of_last, trick
        declared = () if seat in first else tuple(view.declarations[seat])
        first.add(seat)
        out.append((seat, PartnershipMove(card, declared, signals[trick] if leads else None)))
    return out


def world_deal(view: PartnershipView, world: World) -> PartnershipDeal:
    """Return the full-information deal at ``view``'s position with the hands of ``world``.

    The dealt hands are rebuilt (each seat's hand plus the cards it played) and the record is
    replayed through the rules.  Raises ValueError (:class:`NoConsistentWorld`) if ``world``
    does not fit the view: wrong sizes, the viewer's hand changed, a card twice or missing, a
    card that did not follow suit, a false declaration or signal.
    """
    if len(world) != N_SEATS:
        raise NoConsistentWorld("a world holds four hands")
    if view.seat is not None and sorted(world[view.seat]) != sorted(view.hand):
        raise NoConsistentWorld("the viewer's hand differs")
    if tuple(len(h) for h in world) != view.hand_counts:
        raise NoConsistentWorld("the hands' sizes differ from the counts")
    moves = _moves(view)
    dealt: list[list[Card]] = [list(h) for h in world]
    for seat, move in moves:
        dealt[seat].append(move.card)
    if any(len(h) != len(dealt[0]) for h in dealt):
        raise NoConsistentWorld("the dealt hands differ in size")
    deck = [c for h in dealt for c in h]
    try:
        deal = replay_partnership(deck, view.first_leader, (m for _, m in moves), view.options)
    except (IllegalMoveError, ValueError) as exc:
        raise NoConsistentWorld(f"the record does not replay on this world: {exc}") from None
    return deal


def is_consistent(view: PartnershipView, world: World) -> bool:
    """Return True if ``world`` could be the deal behind ``view`` (:func:`world_deal` accepts it)."""
    try:
        world_deal(view, world)
    except NoConsistentWorld:
        return False
    return True

