"""Cards of the 40-card Italian deck: codes, names, strength and points.

A card is an ``int`` from 0 to 39: ``suit * 10 + rank``.  Suits are ordered
``B K S D`` and ranks strongest first, so within a suit a *lower* rank index
takes a *higher* card.

>>> card_name(parse_card("D AS"))
'D AS'
>>> beats(parse_card("K 3"), parse_card("K AS"))
True
>>> sum(POINTS) + LAST_TRICK_BONUS
35
>>> WINNING_POINTS, ACE_POINTS
(18, 3)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

Card: TypeAlias = int
"""A card code, 0..39."""

Mask: TypeAlias = int
"""A set of cards as a 40-bit integer, bit ``c`` for card ``c``."""

SUITS: tuple[str, ...] = ("B", "K", "S", "D")
SUIT_NAMES: tuple[str, ...] = ("bastoni", "coppe", "spade", "denari")
RANKS: tuple[str, ...] = ("3", "2", "AS", "KRALJ", "KAVAL", "FANT", "7", "6", "5", "4")
RANK_POINTS: tuple[int, ...] = (1, 1, 3, 1, 1, 1, 0, 0, 0, 0)

N_SUITS = 4
N_RANKS = 10
N_CARDS = 40
HAND_SIZE = 10
STOCK_SIZE = 20
N_TRICKS = 20
LAST_TRICK_BONUS = 3
TOTAL_POINTS = 35
WINNING_POINTS = TOTAL_POINTS // 2 + 1
"""The points that win a Tressette deal (the most; 35 is odd, so no draw); Kifameno's winner has fewer."""
ACE_POINTS = max(RANK_POINTS)
"""The dearest card's points (an ace); the figures and the 3 and 2 are worth 1, the rest 0."""
FULL_MASK: Mask = (1 << N_CARDS) - 1

ALL_CARDS: tuple[Card, ...] = tuple(range(N_CARDS))
POINTS: tuple[int, ...] = tuple(RANK_POINTS[c % N_RANKS] for c in ALL_CARDS)
"""Points of each card, in thirds of a traditional point."""

STRENGTH: tuple[int, ...] = tuple(N_RANKS - 1 - c % N_RANKS for c in ALL_CARDS)
"""Taking power of each card inside its suit: 9 for a 3 down to 0 for a 4."""

CARD_NAMES: tuple[str, ...] = tuple(f"{SUITS[c // N_RANKS]} {RANKS[c % N_RANKS]}" for c in ALL_CARDS)
"""The protocol name of each card code (``CARD_NAMES[c] == card_name(c)``), for bulk conversions."""

_NAME_TO_CARD: dict[str, Card] = {
    f"{SUITS[c // N_RANKS]} {RANKS[c % N_RANKS]}": c for c in ALL_CARDS
}


class CardError(ValueError):
    """A card name or code that does not exist."""


def suit_of(card: Card) -> int:
    """Return the suit index (0..3) of ``card``."""
    return card // N_RANKS


def rank_of(card: Card) -> int:
    """Return the rank index of ``card``: 0 for the 3 (strongest) to 9 for the 4."""
    return card % N_RANKS


def card_name(card: Card) -> str:
    """Return the protocol name of ``card``, e.g. ``"D AS"``."""
    if not isinstance(card, int) or not 0 <= card < N_CARDS:
        raise CardError(f"no such card code: {card!r}")
    return f"{SUITS[card // N_RANKS]} {RANKS[card % N_RANKS]}"


def parse_card(name: str) -> Card:
    """Return the card named ``name`` (``"K KAVAL"``); raise :class:`CardError` if none.

    Surrounding whitespace and letter case are forgiven, runs of spaces are not
    significant; anything else must be a protocol name.
    """
    if not isinstance(name, str):
        raise CardError(f"a card name must be a string, got {name!r}")
    key = " ".join(name.split()).upper()
    try:
        return _NAME_TO_CARD[key]
    except KeyError:
        raise CardError(f"unknown card name {name!r} (expected e.g. 'D AS', 'K KAVAL', 'B 7')") from None


def parse_cards(names: object) -> list[Card]:
    """Return the cards named in the list ``names``, in order; raise :class:`CardError` if ``names``
    is not a list or any name is not a card (:func:`parse_card`)."""
    if not isinstance(names, list):
        raise CardError(f"expected a list of card names, got {type(names).__name__}")
    return [parse_card(name) for name in names]


def beats(card: Card, other: Card) -> bool:
    """Return True if ``card`` takes ``other`` when ``other`` was led."""
    return card // N_RANKS == other // N_RANKS and card % N_RANKS < other % N_RANKS


def trick_winner_offset(lead: Card, follow: Card) -> int:
    """Return 0 if the leader takes the trick ``lead, follow``, else 1."""
    return 1 if beats(follow, lead) else 0


def legal_cards(hand: Iterable[Card], led: Card | None) -> list[Card]:
    """Return the cards of ``hand`` playable on ``led`` (None when leading), sorted: follow suit if able."""
    cards = list(hand)
    if led is not None:
        follow = [c for c in cards if c // N_RANKS == led // N_RANKS]
        if follow:
            return sorted(follow)
    return sorted(cards)


def points_of(cards: Iterable[Card]) -> int:
    """Return the points (in thirds) of ``cards``."""
    return sum(POINTS[c] for c in cards)


def mask_of(cards: Iterable[Card]) -> Mask:
    """Return the bitmask of ``cards``."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: Mask) -> list[Card]:
    """Return the cards in ``mask``, in code order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def suit_mask(suit: int) -> Mask:
    """Return the mask of every card of ``suit``."""
    return ((1 << N_RANKS) - 1) << (suit * N_RANKS)


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Return ``cards`` sorted by suit, strongest first inside a suit."""
    return sorted(cards)


def traditional_points(points: int) -> int:
    """Convert points in thirds to traditional points (rounded down)."""
    return points // 3
