"""Quick pairing ("Play a person"): who is paired with whom, and the queue of seeks in memory.

The policy is pure (no I/O, the time passed in): :func:`match` pairs the oldest seek first with the
oldest compatible one. Two seeks are compatible when they are of two users, for the same game and
format, and their ratings differ by at most :meth:`Widening.width` of the longer wait of the two:
the range starts at about ±200 and widens while people wait. The pairs :func:`match` returns leave
no two compatible seeks unpaired (the older one of such two would have taken the other).

The queue keeps at most one seek per user. :class:`MemoryQueue` serves one process alone;
:mod:`server.game.cluster.seeks` keeps the queue in Redis where every process sees it (the same policy,
taken atomically). The service that answers ``seek`` and seats the pairs is
:mod:`server.game.pairing.matchmaker`.

>>> w = Widening(start=200, per_s=10, most=1000)
>>> a = SeekEntry(user_id=1, username="ana", role="player", variant="tressette", target=0, rating=1500, since=0)
>>> b = SeekEntry(user_id=2, username="bo", role="guest", variant="tressette", target=0, rating=1800, since=5)
>>> match([a, b], now=5, widening=w)   # 300 apart, the older has waited 5 s: ±250
[]
>>> [(x.username, y.username) for x, y in match([a, b], now=10, widening=w)]   # ±300 now
[('ana', 'bo')]
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

Format = tuple[str, int]
"""A game and format: ``(variant, target)``."""


@dataclass(frozen=True, slots=True)
class SeekEntry:
    """One user's wish to play a person, as the queue keeps it."""

    user_id: int
    username: str
    role: str
    variant: str
    target: int
    rating: float
    since: float
    """When the seek began (seconds since epoch): the older seek is served first."""
    node: str = ""
    """The process whose socket sent the seek ("" for a process alone)."""
    partner: str = ""
    """A four-player seek: the username of the friend to sit across from (both must name each other)."""

    @property
    def format(self) -> Format:
        """Return the seek's game and format."""
        return (self.variant, self.target)

    def encode(self) -> str:
        """Return the seek as JSON (the Redis queue's value)."""
        return json.dumps(asdict(self))

    @classmethod
    def decode(cls, text: str) -> SeekEntry:
        """Return the seek encoded by :meth:`encode`."""
        return cls(**json.loads(text))


@dataclass(frozen=True, slots=True)
class Widening:
    """How far apart two ratings may be, by how long the older seek has waited."""

    start: float = 200.0
    per_s: float = 10.0
    most: float = 1000.0

    def width(self, waited_s: float) -> float:
        """Return the accepted rating difference after ``waited_s`` seconds.

        >>> Widening(start=200, per_s=10, most=400).width(5), Widening(start=200, per_s=10, most=400).width(60)
        (250.0, 400.0)
        """
        return float(min(self.most, self.start + self.per_s * max(0.0, waited_s)))


def compatible(a: SeekEntry, b: SeekEntry, *, now: float, widening: Widening) -> bool:
    """Return True if ``a`` and ``b`` may be paired now: two users, one game and format, ratings close enough."""
    return (a.user_id != b.user_id and a.format == b.format
            and abs(a.rating - b.rating) <= widening.width(now - min(a.since, b.since)))


def by_age(seeks: Iterable[SeekEntry]) -> list[SeekEntry]:
    """Return ``seeks`` oldest first (ties by user id, so every process orders them alike)."""
    return sorted(seeks, key=lambda s: (s.since, s.user_id))


FOUR = "partnership"
"""The ``variant`` of a four-player seek (its format is ``("partnership", target)``)."""


def match(seeks: Iterable[SeekEntry], *, now: float, widening: Widening) -> list[tuple[SeekEntry, SeekEntry]]:
    """Return the pairs to make now: each seek, oldest first, with the oldest compatible seek not yet paired.

    Each pair is ``(older, newer)``. A user appears at most once (the caller keeps one seek per user;
    a second one of the same user is never its pair). Four-player seeks are :func:`match_four`'s.
    """
    waiting = by_age(s for s in seeks if s.variant != FOUR)
    taken: set[int] = set()
    pairs = []
    for i, a in enumerate(waiting):
        if a.user_id in taken:
            continue
        for b in waiting[i + 1:]:
            if b.user_id not in taken and compatible(a, b, now=now, widening=widening):
                taken |= {a.user_id, b.user_id}
                pairs.append((a, b))
                break
    return pairs


def match_four(seeks: Iterable[SeekEntry], *, now: float, widening: Widening) -> list[tuple[SeekEntry, ...]]:
    """Return the four-player tables to make now, each as its seats 0..3.

    Two seeks that name each other as ``partner`` are one unit (their mean rating), seated across;
    the others are units of one. The oldest unit first takes, oldest first, the units of its format
    whose ratings are within the range of its wait, until four seats are full.

    >>> w = Widening(start=200, per_s=10, most=1000)
    >>> s = [SeekEntry(i, n, "player", FOUR, 21, 1500 + 50 * i, i, partner=p)
    ...      for i, (n, p) in enumerate([("a", "c"), ("b", ""), ("c", "a"), ("d", ""), ("e", "")])]
    >>> [x.username for x in match_four(s, now=10, widening=w)[0]]
    ['a', 'b', 'c', 'd']
    """
    waiting = by_age(s for s in seeks if s.variant == FOUR)
    by_name = {s.username: s for s in waiting}
    units: list[list[SeekEntry]] = []
    placed: set[int] = set()
    for s in waiting:
        if s.user_id in placed:
            continue
        mate = by_name.get(s.partner) if s.partner else None
        if mate is not None and mate.partner == s.username and mate.format == s.format and mate.user_id != s.user_id:
            units.append([s, mate])
            placed |= {s.user_id, mate.user_id}
        else:
            units.append([s])
            placed.add(s.user_id)
    tables: list[tuple[SeekEntry, ...]] = []
    used: set[int] = set()
    for i, first in enumerate(units):
        if i in used:
            continue
        rating = sum(x.rating for x in first) / len(first)
        width = widening.width(now - first[0].since)
        chosen = [i]
        size = len(first)
        for j in range(i + 1, len(units)):
            unit = units[j]
            if j in used or size + len(unit) > 4 or unit[0].format != first[0].format:
                continue
            if abs(sum(x.rating for x in unit) / len(unit) - rating) <= width:
                chosen.append(j)
                size += len(unit)
            if size == 4:
                break
        if size == 4:
            used.update(chosen)
            tables.append(_seats([units[k] for k in chosen]))
    return tables


def _seats(units: list[list[SeekEntry]]) -> tuple[SeekEntry, ...]:
    """Seat the units of a four-player table: partners across (0 and 2, then 1 and 3), the others in the gaps."""
    seats: list[SeekEntry | None] = [None] * 4
    for unit in sorted(units, key=len, reverse=True):
        if len(unit) == 2:
            across = 0 if seats[0] is None else 1
            seats[across], seats[across + 2] = unit
        else:
            seats[seats.index(None)] = unit[0]
    return tuple(s for s in seats if s is not None)


def groups(seeks: Iterable[SeekEntry], *, now: float, widening: Widening) -> list[tuple[SeekEntry, ...]]:
    """Return every table to make now: the two-player pairs (:func:`match`) and four-player tables."""
    seeks = list(seeks)
    return [*match(seeks, now=now, widening=widening), *match_four(seeks, now=now, widening=widening)]


def waiting_counts(seeks: Iterable[SeekEntry]) -> Counter[Format]:
    """Return how many seek each game and format."""
    return Counter(s.format for s in seeks)


class SeekQueue(Protocol):
    """Where the seeks wait: one process's memory, or Redis for every process of the portal."""

    async def add(self, seek: SeekEntry) -> SeekEntry | None:
        """Put ``seek`` in the queue (the user's earlier seek leaves it); return that earlier seek, if any."""

    async def remove(self, user_id: int) -> SeekEntry | None:
        """Take the user's seek out of the queue; return it (None: the user had none)."""

    async def all(self) -> list[SeekEntry]:
        """Return every seek in the queue."""

    async def take_pairs(self, *, now: float, widening: Widening,
                         mine: Callable[[SeekEntry], bool]) -> list[tuple[SeekEntry, ...]]:
        """Take out of the queue, at once, the tables :func:`groups` makes in which a seek is ``mine``; return them.

        No seek is ever taken twice, whoever else takes pairs at the same time.
        """


class MemoryQueue:
    """The queue of a process serving alone."""

    def __init__(self) -> None:
        """Start empty."""
        self.seeks: dict[int, SeekEntry] = {}

    async def add(self, seek: SeekEntry) -> SeekEntry | None:
        """Put ``seek`` in the queue; return the user's earlier seek."""
        earlier = self.seeks.get(seek.user_id)
        self.seeks[seek.user_id] = seek
        return earlier

    async def remove(self, user_id: int) -> SeekEntry | None:
        """Take the user's seek out of the queue; return it."""
        return self.seeks.pop(user_id, None)

    async def all(self) -> list[SeekEntry]:
        """Return every seek."""
        return list(self.seeks.values())

    async def take_pairs(self, *, now: float, widening: Widening,
                         mine: Callable[[SeekEntry], bool]) -> list[tuple[SeekEntry, ...]]:
        """Take the tables to make now (no await between the look and the taking: nobody else takes them)."""
        tables = [g for g in groups(self.seeks.values(), now=now, widening=widening) if any(mine(s) for s in g)]
        for group in tables:
            for s in group:
                del self.seeks[s.user_id]
        return tables

    def health(self) -> dict[str, Any]:
        """Return how many seek now."""
        return {"seeking": len(self.seeks)}
