"""An honest rule-based player for the four-player partnership game: no search, no peeking.

It sees only its seat's view (:class:`tressette.partnership.PartnershipView`) and plays by a few
rules a club player would recognise, until the four-player search lands (issue #46 names its
level for what it is):

- **Declare** everything it holds, with its first card (declarations only add points).
- **Lead** a sure winner (the best card of its suit still out) that carries points, if it holds
  one; otherwise the weakest card of its longest suit.  Signal *volo* when that was its last
  card of the suit, *striscio* when it keeps two or more; never *busso* (a request it would not
  know how to follow up).  Its signals are true, as the rules demand.
- **Follow**: when the partner holds the trick, load it with the dearest card it may play; when
  it can take the trick, take it (with the cheapest card that does when it plays last, with its
  best when someone still plays after it); otherwise throw the cheapest, weakest card.

>>> import random
>>> from tressette.partnership import PartnershipDeal, view_of_partnership
>>> deal = PartnershipDeal.new(first_leader=0, rng=random.Random(4))
>>> while not deal.is_over:
...     _ = deal.play_move(choose_partnership_move(view_of_partnership(deal, deal.to_move)))
>>> sum(deal.outcome().card_score)
11
"""

from __future__ import annotations

from tressette.cards import ALL_CARDS, POINTS, Card, rank_of, suit_of
from tressette.partnership import N_SEATS, PartnershipMove, PartnershipView, Signal, partner_of, trick_winner


def _weakest_first(card: Card) -> tuple[int, int]:
    """Sort key: fewer points first, then weaker (a higher rank index is a weaker card)."""
    return (POINTS[card], -rank_of(card))


def _unseen(view: PartnershipView) -> set[Card]:
    """Return the cards in the other three hands."""
    return set(ALL_CARDS) - view.played - set(view.table) - set(view.hand)


def _is_sure_winner(card: Card, unseen: set[Card]) -> bool:
    """Return True if no card of ``card``'s suit still out is stronger."""
    return not any(suit_of(c) == suit_of(card) and rank_of(c) < rank_of(card) for c in unseen)


def _lead(view: PartnershipView, legal: list[Card]) -> Card:
    unseen = _unseen(view)
    winners = [c for c in legal if POINTS[c] and _is_sure_winner(c, unseen)]
    if winners:
        return max(winners, key=lambda c: (POINTS[c], -rank_of(c)))
    length = {s: sum(1 for c in view.hand if suit_of(c) == s) for s in range(4)}
    return min(legal, key=lambda c: (-length[suit_of(c)], *_weakest_first(c)))


def _follow(view: PartnershipView, legal: list[Card]) -> Card:
    table = list(view.table)
    holder = trick_winner(view.leader, table)
    assert view.seat is not None
    if holder == partner_of(view.seat):
        return max(legal, key=_weakest_first)
    taking = [c for c in legal if trick_winner(view.leader, [*table, c]) == view.seat]
    if taking:
        last_to_play = len(table) == N_SEATS - 1
        # Playing last, the cheapest card that takes; with a player still to come, the strongest.
        return min(taking, key=_weakest_first) if last_to_play else min(taking, key=rank_of)
    return min(legal, key=_weakest_first)


def rule_signal(view: PartnershipView, card: Card) -> Signal | None:
    """Return the signal given with ``card``: *volo* when it is the last of its suit, *striscio* keeping two
    or more, else none (never *busso*); every searching level gives the same."""
    allowed = view.allowed_signals(card)
    left = sum(1 for c in view.hand if c != card and suit_of(c) == suit_of(card))
    if Signal.VOLO in allowed:
        return Signal.VOLO
    if Signal.STRISCIO in allowed and left >= 2:
        return Signal.STRISCIO
    return None


def choose_partnership_move(view: PartnershipView) -> PartnershipMove:
    """Return the card (with its declarations and signal) the seat to move plays; deterministic.

    Raises ValueError if it is not the viewer's turn.
    """
    legal = view.legal_moves()
    if not legal:
        raise ValueError("the viewer is not the seat to move")
    card = _follow(view, legal) if view.table else _lead(view, legal)
    return PartnershipMove(card, view.declarable(), rule_signal(view, card))
