"""What the game service asks of its move store, and a store in memory (for tests and scripts).

The game service (:class:`server.game.hub.Hub`) does no I/O itself: it awaits a :class:`GameStore`
for every write and tells no one of a move before the store has it. The real store
(:class:`server.store.gamestore.SqlGameStore`) commits through the move writer; :class:`MemoryStore`
keeps everything in dictionaries and can be told to fail or to hold writes, so the service's
tests run in-process in milliseconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class NewGame:
    """A deal about to start: the ``games`` row's fields."""

    table_id: str
    deal_number: int
    variant: str
    opponent: str
    players: tuple[int, int]
    bot_level: str | None
    first_leader: int
    deck: list[int]


@dataclass(frozen=True, slots=True)
class GameEnd:
    """How a deal ended (finished, or forfeited by ``1 - winner``)."""

    game_id: int
    points: tuple[int, int]
    winner: int
    reason: str
    variant: str
    players: tuple[int, int]
    analyse: bool = False
    """Queue the deal's post-game analysis, in the same write as its end."""


@dataclass(frozen=True, slots=True)
class Player:
    """A seated account as the store knows it."""

    user_id: int
    username: str
    role: str


@dataclass(frozen=True, slots=True)
class SavedGame:
    """An unfinished deal as stored: enough to rebuild it after a restart."""

    game_id: int
    table_id: str
    variant: str
    opponent: str
    bot_level: str | None
    deal_number: int
    first_leader: int
    deck: list[int]
    players: tuple[Player, Player]
    moves: list[tuple[int, int]]
    """The cards played, in order, as ``(seat, card)``."""


class GameStore(Protocol):
    """The game service's persistence: every method returns once the write is durable.

    A method that raises has written nothing; the service then changes nothing either.
    """

    async def bot_account(self, username: str) -> Player:
        """Return the bot account ``username``, creating it if missing."""
        ...

    async def start_game(self, game: NewGame) -> int:
        """Store a new deal; return its game id."""
        ...

    async def record_move(self, move: dict[str, Any], end: GameEnd | None) -> None:
        """Store one move (the ``moves`` row's columns) and, with ``end``, the deal's end, together.

        An end with ``analyse`` also queues the deal's analysis, in the same write.
        """
        ...

    async def end_game(self, end: GameEnd) -> None:
        """Store a deal's end (a forfeit: no move comes with it)."""
        ...

    def unfinished_games(self, table_ids: Collection[str] | None = None) -> list[SavedGame]:
        """Return every deal still being played (at ``table_ids`` only, if given): at start, or to take tables over."""
        ...

    def health(self) -> dict[str, Any]:
        """Return the store's figures for ``/healthz``."""
        ...


@dataclass
class MemoryStore:
    """A :class:`GameStore` in memory.

    ``fail`` makes the next that many writes raise (a database that refuses); while ``gate``
    is set and clear, writes wait for it (a slow commit).
    """

    games: dict[int, NewGame] = field(default_factory=dict)
    moves: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    ends: dict[int, GameEnd] = field(default_factory=dict)
    accounts: dict[str, Player] = field(default_factory=dict)
    fail: int = 0
    gate: asyncio.Event | None = None
    writes: int = 0

    async def _write(self) -> None:
        if self.gate is not None:
            await self.gate.wait()
        if self.fail > 0:
            self.fail -= 1
            raise ConnectionError("the database refused the write")
        self.writes += 1

    async def bot_account(self, username: str) -> Player:
        """Return (or make) the bot account ``username``."""
        if username not in self.accounts:
            await self._write()
            self.accounts[username] = Player(1_000_000 + len(self.accounts), username, "bot")
        return self.accounts[username]

    async def start_game(self, game: NewGame) -> int:
        """Keep ``game``; return its id."""
        await self._write()
        game_id = len(self.games) + 1
        self.games[game_id] = game
        self.moves[game_id] = []
        return game_id

    async def record_move(self, move: dict[str, Any], end: GameEnd | None) -> None:
        """Keep ``move`` (and ``end``); a second move of the same number is refused, as by the database."""
        if any(m["move_number"] == move["move_number"] for m in self.moves[move["game_id"]]):
            raise ValueError(f"game {move['game_id']} has a move {move['move_number']} already")
        await self._write()
        self.moves[move["game_id"]].append(dict(move))
        if end is not None:
            self.ends[end.game_id] = end

    async def end_game(self, end: GameEnd) -> None:
        """Keep ``end`` (the first end of a deal counts, as in the database)."""
        await self._write()
        self.ends.setdefault(end.game_id, end)

    def unfinished_games(self, table_ids: Collection[str] | None = None) -> list[SavedGame]:
        """Return the kept deals without an end (at ``table_ids`` only, if given)."""
        names = {p.user_id: p for p in self.accounts.values()}
        saved = []
        for game_id, g in self.games.items():
            if game_id in self.ends or (table_ids is not None and g.table_id not in table_ids):
                continue
            players = tuple(names.get(uid, Player(uid, f"user-{uid}", "player")) for uid in g.players)
            saved.append(SavedGame(game_id, g.table_id, g.variant, g.opponent, g.bot_level, g.deal_number,
                                   g.first_leader, list(g.deck), (players[0], players[1]),
                                   [(m["seat"], m["card"]) for m in self.moves[game_id]]))
        return saved

    def health(self) -> dict[str, Any]:
        """Return how many writes were kept."""
        return {"store_writes": self.writes}
