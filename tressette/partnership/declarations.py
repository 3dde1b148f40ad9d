"""Declarations (accusi, akuža) and signals of the four-player partnership game.

A **declaration** is shown when a player plays their first card: a *napoletana*
(the Ace, 2 and 3 of one suit, 3 whole points), three Aces, 2s or 3s (3 points,
the missing suit is said) or all four (4 points).  A **signal** goes with the
card that leads a trick, from the second trick on: *busso*, *volo*, *striscio*.

>>> from tressette.cards import parse_cards
>>> hand = parse_cards(["B 3", "B 2", "B AS", "K AS", "S AS", "D 7"])
>>> [d.label for d in possible_declarations(hand)]
['napoletana B', 'three AS (no D)']
>>> sum(d.points for d in possible_declarations(hand))
6
>>> signal_is_true(Signal.VOLO, parse_cards(["B 3"])[0], parse_cards(["B 2", "K 4"]))
False
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from tressette.cards import N_RANKS, N_SUITS, RANKS, SUITS, Card, suit_of

DeclarationKind: TypeAlias = Literal["napoletana", "three", "four"]
"""What a declaration shows: an Ace-2-3 of one suit, three of a kind, four of a kind."""

DECLARABLE_RANKS: tuple[int, ...] = (RANKS.index("AS"), RANKS.index("2"), RANKS.index("3"))
"""The ranks (indexes into ``RANKS``) of which three or four may be declared: Aces, 2s, 3s."""
NAPOLETANA_RANKS: tuple[int, ...] = (RANKS.index("3"), RANKS.index("2"), RANKS.index("AS"))
"""The ranks a napoletana holds in its suit."""
DECLARATION_POINTS: dict[DeclarationKind, int] = {"napoletana": 3, "three": 3, "four": 4}
"""Whole points each kind of declaration adds to its partnership's deal score."""


@dataclass(frozen=True, slots=True)
class Declaration:
    """One declaration, as everyone at the table learns it.

    ``suit`` is the napoletana's suit, or the suit missing from three of a kind
    (None for four); ``rank`` is the rank of three or four of a kind (None for a
    napoletana).  Both are indexes into ``tressette.cards.SUITS`` and ``RANKS``.
    """

    kind: DeclarationKind
    suit: int | None = None
    rank: int | None = None

    def __post_init__(self) -> None:
        if self.kind == "napoletana":
            ok = self.rank is None and self.suit in range(N_SUITS)
        elif self.kind == "three":
            ok = self.rank in DECLARABLE_RANKS and self.suit in range(N_SUITS)
        elif self.kind == "four":
            ok = self.rank in DECLARABLE_RANKS and self.suit is None
        else:
            ok = False
        if not ok:
            raise ValueError(f"not a declaration: kind={self.kind!r} suit={self.suit!r} rank={self.rank!r}")

    @property
    def points(self) -> int:
        """Return the whole points this declaration is worth."""
        return DECLARATION_POINTS[self.kind]

    @property
    def cards(self) -> frozenset[Card]:
        """Return the cards the declarer shows they hold (public once declared)."""
        if self.kind == "napoletana":
            assert self.suit is not None
            return frozenset(self.suit * N_RANKS + r for r in NAPOLETANA_RANKS)
        assert self.rank is not None
        return frozenset(s * N_RANKS + self.rank for s in range(N_SUITS) if s != self.suit)

    @property
    def missing(self) -> Card | None:
        """Return the card three of a kind lacks (the declarer does not hold it), else None."""
        if self.kind != "three":
            return None
        assert self.suit is not None and self.rank is not None
        return self.suit * N_RANKS + self.rank

    @property
    def label(self) -> str:
        """Return a short English label, e.g. ``"napoletana B"``, ``"three AS (no D)"``, ``"four 3"``."""
        if self.kind == "napoletana":
            assert self.suit is not None
            return f"napoletana {SUITS[self.suit]}"
        assert self.rank is not None
        if self.kind == "three":
            assert self.suit is not None
            return f"three {RANKS[self.rank]} (no {SUITS[self.suit]})"
        return f"four {RANKS[self.rank]}"

    def to_dict(self) -> dict[str, Any]:
        """Return the declaration's JSON: ``{"kind", "suit" | "rank" and "missing", "points"}``."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == "napoletana":
            assert self.suit is not None
            out["suit"] = SUITS[self.suit]
        else:
            assert self.rank is not None
            out["rank"] = RANKS[self.rank]
            if self.suit is not None:
                out["missing"] = SUITS[self.suit]
        out["points"] = self.points
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Declaration:
        """Parse :meth:`to_dict`'s JSON (``points`` may be left out); raise ValueError if malformed."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a declaration must be an object, got {data!r}")
        kind = data.get("kind")
        if kind not in DECLARATION_POINTS:
            raise ValueError(f"unknown declaration kind {kind!r} (napoletana, three or four)")
        suit_name = data.get("suit") if kind == "napoletana" else data.get("missing")
        rank_name = data.get("rank")
        try:
            suit = None if suit_name is None else SUITS.index(suit_name)
            rank = None if rank_name is None else RANKS.index(rank_name)
        except ValueError:
            raise ValueError(f"a declaration with an unknown suit or rank: {dict(data)!r}") from None
        declaration = cls(kind, suit, rank)
        if "points" in data and data["points"] != declaration.points:
            raise ValueError(f"{declaration.label} is worth {declaration.points} points, not {data['points']!r}")
        return declaration


def possible_declarations(hand: Iterable[Card]) -> tuple[Declaration, ...]:
    """Return every declaration ``hand`` makes true: napoletanas by suit, then three or four Aces, 2s, 3s.

    Three of a kind is only true with exactly three of the rank (four is declared
    as four); a card may serve in several declarations (a napoletana and three Aces).
    """
    held = set(hand)
    found: list[Declaration] = []
    for suit in range(N_SUITS):
        if all(suit * N_RANKS + r in held for r in NAPOLETANA_RANKS):
            found.append(Declaration("napoletana", suit=suit))
    for rank in DECLARABLE_RANKS:
        missing = [s for s in range(N_SUITS) if s * N_RANKS + rank not in held]
        if not missing:
            found.append(Declaration("four", rank=rank))
        elif len(missing) == 1:
            found.append(Declaration("three", suit=missing[0], rank=rank))
    return tuple(found)


class Signal(enum.Enum):
    """A signal the leader of a trick may give with the card led (from the second trick).

    - ``BUSSO`` (knock): take this trick with your best card and lead this suit back;
      a request, so it is never false.
    - ``VOLO`` (fly): this was my last card of the suit; false if the leader holds more.
    - ``STRISCIO`` (drag): I hold more of this suit; false if the leader holds no more.
    """

    BUSSO = "busso"
    VOLO = "volo"
    STRISCIO = "striscio"


SignalName: TypeAlias = Literal["busso", "volo", "striscio"]
"""A signal's name on the protocol: the values of :class:`Signal`."""


def signal_is_true(signal: Signal, card: Card, rest: Iterable[Card]) -> bool:
    """Return True if ``signal`` given with ``card`` is true of ``rest``, the hand left after playing it."""
    more = any(suit_of(c) == suit_of(card) for c in rest)
    if signal is Signal.VOLO:
        return not more
    if signal is Signal.STRISCIO:
        return more
    return True
