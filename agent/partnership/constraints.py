"""What the public record of a four-player deal says about the hands one seat cannot see.

From one seat's :class:`~tressette.partnership.PartnershipView` (or a spectator's) this
module derives, for every other seat, the cards it surely holds, the cards it surely does
not, the suits it surely has none of and the suits it surely has at least one of:

- **cards played** are in no hand; each seat holds ``hand_counts[seat]`` cards;
- a seat that **did not follow suit** holds none of the suit led (it could not have gained
  one: there is no stock);
- a **declaration** shows cards held at the deal: a napoletana of suit ``s`` the Ace, 2 and 3
  of ``s``; three of a rank the three other suits' cards of the rank and **not** the missing
  one; four of a rank all four.  Those not played since are still in the hand; the missing
  card of three of a kind is in another hand;
- a **volo** says the leader held no more of the suit after the card: the suit is void;
- a **striscio** says the leader held at least one more: unless a later card of the leader
  was of the suit, its hand still holds one;
- a *busso* is a request and says nothing of the hand.

Not declaring says nothing either: declaring is voluntary.

>>> import random
>>> from tressette.partnership import PartnershipDeal, view_of_partnership
>>> deal = PartnershipDeal.new(first_leader=0, rng=random.Random(3))
>>> c = constraints_of(view_of_partnership(deal, 0))
>>> c.hidden_seats, len(c.unknown), c.counts
((1, 2, 3), 30, (10, 10, 10, 10))
"""

from __future__ import annotations

from dataclasses import dataclass

from tressette.cards import ALL_CARDS, Card, suit_of
from tressette.partnership import N_SEATS, SEATS, PartnershipView, Signal


@dataclass(frozen=True, slots=True)
class Constraints:
    """The hidden hands as the public record (and the viewer's own hand) constrains them.

    Per-seat fields are indexed by seat (0..3); the viewer's entries describe its own hand
    (``held`` is the hand itself) and are not needed by the sampler.
    """

    viewer: int | None
    hidden_seats: tuple[int, ...]
    """The seats whose hands are unknown (all four for a spectator)."""
    unknown: frozenset[Card]
    """The cards in the hidden seats' hands."""
    counts: tuple[int, ...]
    """How many cards each seat holds now."""
    held: tuple[frozenset[Card], ...]
    """Cards each seat surely holds now (declared and not played)."""
    barred: tuple[frozenset[Card], ...]
    """Single cards each seat surely does not hold (the missing card of its three of a kind)."""
    voids: tuple[int, ...]
    """4-bit masks of the suits each seat holds none of (did not follow, or signalled *volo*)."""
    some: tuple[int, ...]
    """4-bit masks of the suits each seat holds at least one of (signalled *striscio*, none played since)."""

    def allows(self, seat: int, card: Card) -> bool:
        """Return True if ``seat`` may hold ``card`` by these constraints (held cards included)."""
        return card not in self.barred[seat] and not (self.voids[seat] >> suit_of(card)) & 1

    def is_open_contradiction(self) -> bool:
        """Return True if the constraints contradict each other at sight (a card held by two seats, a held
        card barred or in a void suit, a held card not among the unknown ones, more held cards than the count).

        False does not promise a consistent deal exists: the sampler's count says that.
        """
        seen: set[Card] = set()
        for seat in self.hidden_seats:
            held = self.held[seat]
            if held & seen or not held <= self.unknown or len(held) > self.counts[seat]:
                return True
            if any(not self.allows(seat, c) for c in held):
                return True
            seen |= held
        return False


def plays_of(view: PartnershipView) -> list[tuple[int, int, Card]]:
    """Return every card played so far as ``(trick index, seat, card)``, finished tricks then the table."""
    out = [(i, t.seat_of(k), c) for i, t in enumerate(view.history) for k, c in enumerate(t.cards)]
    n = len(view.history)
    out.extend((n, (view.leader + k) % N_SEATS, c) for k, c in enumerate(view.table))
    return out


def _leads(view: PartnershipView) -> list[tuple[int, int, Card, Signal | None]]:
    """Return each trick's lead as ``(trick index, leader, card, signal)``, the table's included."""
    out = [(i, t.leader, t.cards[0], t.signal) for i, t in enumerate(view.history)]
    if view.table:
        out.append((len(view.history), view.leader, view.table[0], view.table_signal))
    return out


def _follow_voids(view: PartnershipView) -> list[int]:
    """Return per seat the suits it failed to follow."""
    voids = [0] * N_SEATS
    tricks: list[tuple[Card, ...]] = [t.cards for t in view.history]
    if view.table:
        tricks.append(tuple(view.table))
    leaders = [t.leader for t in view.history] + ([view.leader] if view.table else [])
    for leader, cards in zip(leaders, tricks, strict=True):
        led = suit_of(cards[0])
        for k in range(1, len(cards)):
            if suit_of(cards[k]) != led:
                voids[(leader + k) % N_SEATS] |= 1 << led
    return voids


def constraints_of(view: PartnershipView, *, signals: bool = True, declarations: bool = True) -> Constraints:
    """Return what ``view``'s public record says of the hands its viewer cannot see.

    ``signals=False`` or ``declarations=False`` ignores what signals or declarations say
    (to measure what they are worth, or to sample when a record is contradictory).
    """
    plays = plays_of(view)
    played = {c for _, _, c in plays}
    unknown = frozenset(ALL_CARDS) - played - set(view.hand)
    hidden = tuple(s for s in SEATS if s != view.seat)
    voids = _follow_voids(view)
    some = [0] * N_SEATS
    held: list[set[Card]] = [set() for _ in SEATS]
    barred: list[set[Card]] = [set() for _ in SEATS]
    if signals:
        for trick, leader, card, signal in _leads(view):
            suit = suit_of(card)
            if signal is Signal.VOLO:
                voids[leader] |= 1 << suit
            elif signal is Signal.STRISCIO:
                # Kept promise: a later card of the suit from the leader shows the card it meant.
                later = any(s == leader and i > trick and suit_of(c) == suit for i, s, c in plays)
                if not later:
                    some[leader] |= 1 << suit
    if declarations:
        for seat in SEATS:
            own = {c for _, s, c in plays if s == seat}
            for d in view.declarations[seat]:
                held[seat] |= d.cards - own
                if d.missing is not None:
                    barred[seat].add(d.missing)
    if view.seat is not None:
        held[view.seat] = set(view.hand)
    return Constraints(
        viewer=view.seat, hidden_seats=hidden, unknown=unknown, counts=view.hand_counts,
        held=tuple(frozenset(h) for h in held), barred=tuple(frozenset(b) for b in barred),
        voids=tuple(voids), some=tuple(some))
