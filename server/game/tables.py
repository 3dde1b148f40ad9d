"""A table's state in memory: seats, the current deal, clocks, and what each client may see.

No I/O here: the table's room (``server.game.room``) persists (through its store) and broadcasts.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from tressette import Deal, Match, Variant, card_name, view_of


@dataclass(slots=True)
class Seat:
    """A player sitting at a table."""

    user_id: int
    username: str
    is_bot: bool
    connected: bool = False
    disconnected_at: float | None = None
    level: str | None = None
    """A bot seat's level (bot accounts are named ``bot-LEVEL``)."""

    @classmethod
    def bot(cls, user_id: int, username: str) -> Seat:
        """Return the seat of the bot account ``username`` (``bot-LEVEL`` or ``bot-LEVEL-2``)."""
        return cls(user_id, username, is_bot=True, connected=True, level=username.split("-")[1])


class _Standing(Protocol):
    """What a table's match tells of itself (a two-player or a partnership match)."""

    @property
    def scores(self) -> tuple[int, int]:
        """The totals after the deals finished (seats, or partnerships)."""

    @property
    def deals(self) -> int:
        """How many deals have finished."""

    @property
    def is_over(self) -> bool:
        """Whether a side has won."""


class MatchStanding:
    """The match's standing, alike at two- and four-player tables (a base of both tables)."""

    __slots__ = ()
    target: int
    status: str
    deadline: float | None
    match_end: dict[str, Any] | None
    match: _Standing | None  # each table's own kind of match

    @property
    def match_going_on(self) -> bool:
        """Return True between two deals of a match that is not over (the next deal is due)."""
        return self.match is not None and not self.match.is_over and self.match_end is None

    def match_state(self) -> dict[str, Any] | None:
        """Return the match's standing for the clients (None at a table of single deals).

        ``scores``: both totals after the deals finished; ``deal``: the number (in the match) of the
        deal being played or just finished; ``end``: how it ended, once it has; ``next_deal_at``:
        between deals, once one player is ready, when the other loses the match unless ready too (ms).
        """
        if not self.target:
            return None
        match = self.match
        return {
            "target": self.target,
            "scores": list(match.scores) if match else [0, 0],
            "deal": (match.deals if match else 0) + (1 if self.status == "playing" else 0),
            "end": self.match_end,
            "next_deal_at": (int(self.deadline * 1000) if self.deadline and self.status == "finished"
                             and self.match_going_on else None),
        }


@dataclass(slots=True)
class Table(MatchStanding):
    """One two-player table and its current (or last) deal."""

    id: str
    variant: Variant
    opponent: str
    bot_level: str | None = None
    invite: str | None = None
    created_at: float = field(default_factory=time.time)
    seats: list[Seat | None] = field(default_factory=lambda: [None, None])
    deal: Deal | None = None
    game_id: int | None = None
    deal_number: int = 0
    match_wins: list[int] = field(default_factory=lambda: [0, 0])
    status: str = "waiting"
    result: dict[str, Any] | None = None
    rematch: list[bool] = field(default_factory=lambda: [False, False])
    deadline: float | None = None
    next_first_leader: int = field(default_factory=lambda: secrets.randbelow(2))
    spectators: int = 0
    notice: dict[str, str] | None = None
    """What holds the game up outside it: ``{"code": "no_bot"|"bots_busy", "message": English}``."""
    series_left: int = 0
    """Deals still to play after this one at a bot-versus-bot table."""
    fence: int = 0
    """The fencing token this process holds for the table: every write carries it (``records.Fence``)."""
    target: int = 0
    """0: single deals (rematch for another); else each deal belongs to a match to this many points."""
    match: Match | None = None
    """The match being played (or just over): its totals after the deals finished so far."""
    match_id: int | None = None
    """The match's ``matches`` row."""
    match_end: dict[str, Any] | None = None
    """How the match ended, once it has: ``{"winner", "margin", "reason"}``."""
    bot_retry_at: float | None = None
    """When to ask the bot again for its move: the store could not take it (the database was away), or
    no answer came (a message lost between processes)."""
    bot_asked: float = 0.0
    """When the bot turn was last sent (``time.perf_counter``): the bot's answer time (metrics) starts there."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False, compare=False)
    """Held while a command changes the table (a move being committed): the next one waits its turn."""

    @property
    def move_number(self) -> int:
        """Return how many cards have been played in the current deal."""
        if self.deal is None:
            return 0
        return 2 * self.deal.trick_number + len(self.deal.table)

    @property
    def fenced(self) -> tuple[str, int]:
        """Return the table's :data:`~server.game.records.Fence`: its id and this process's token."""
        return (self.id, self.fence)

    def seat_of(self, user_id: int) -> int | None:
        """Return the seat of ``user_id`` at this table, if seated."""
        for i, s in enumerate(self.seats):
            if s is not None and s.user_id == user_id:
                return i
        return None

    def _header(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "variant": self.variant.value,
            "status": self.status,
            "opponent": self.opponent,
            "bot_level": self.bot_level,
            "target": self.target,
        }

    def summary(self) -> dict[str, Any]:
        """Return the lobby's line for this table."""
        return {
            **self._header(),
            "players": [s.username if s else None for s in self.seats],
            "spectators": self.spectators,
            "created_at": int(self.created_at * 1000),
        }

    def snapshot(self, seat: int | None, *, with_invite: bool = False, reconnect_grace_s: float = 0.0
                 ) -> dict[str, Any]:
        """Return the table as ``seat`` (None: a spectator) may see it.

        ``reconnect_grace_s`` dates each disconnected person's ``reconnect_deadline``.
        """
        view = view_of(self.deal, seat).to_dict() if self.deal is not None else None
        return {
            **self._header(),
            "players": [
                {"username": s.username, "is_bot": s.is_bot, "connected": s.connected,
                 "reconnect_deadline": (int((s.disconnected_at + reconnect_grace_s) * 1000)
                                        if s.disconnected_at is not None and not s.is_bot else None)} if s else None
                for s in self.seats
            ],
            "you": seat,
            "game_id": self.game_id,
            "deal_number": self.deal_number,
            "match_wins": list(self.match_wins),
            "view": view,
            "turn_deadline": int(self.deadline * 1000) if self.deadline and self.status == "playing" else None,
            "result": self.result,
            "rematch": list(self.rematch),
            "invite": self.invite if with_invite else None,
            "notice": self.notice,
            "match": self.match_state(),
        }

    def result_of(self, points: tuple[int, int], winner: int, reason: str) -> dict[str, Any]:
        """Return the public end-of-deal record (deck order revealed for verification)."""
        assert self.deal is not None
        return {
            "points": list(points),
            "winner": winner,
            "reason": reason,
            "players": [s.username if s else None for s in self.seats],
            "piles": [[card_name(c) for c in self.deal.won[s]] for s in (0, 1)],
            "deck": [card_name(c) for c in self.deal.deck],
        }
