"""What the game service asks of its move store, and a store in memory (for tests and scripts).

The game service (its rooms, :mod:`server.game.room`) does no I/O itself: it awaits a :class:`GameStore`
for every write and tells no one of a move before the store has it. The real store
(:class:`server.store.gamestore.SqlGameStore`) commits through the move writer; :class:`MemoryStore`
keeps everything in dictionaries and can be told to fail or to hold writes, so the service's
tests run in-process in milliseconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Protocol, TypeAlias

Fence: TypeAlias = tuple[str, int]
"""A table's id and the fencing token its owner holds: every write for the table carries it."""


class FenceRefused(RuntimeError):
    """A write carried an older fencing token than the stored one: another process serves the table now.

    The process that gets it drops the table at once: it must not tell, time or end anything there.
    """


RATED_FROM_MOVES = 2
"""A deal that ends before both players have played a card (fewer moves than this) by a forfeit is *aborted*:
not rated and not counted in the totals or on the leaderboard (as Lichess aborts such games)."""


def aborted(reason: str | None, moves: int | None) -> bool:
    """Return True if a deal that ended for ``reason`` after ``moves`` cards is aborted (see :data:`RATED_FROM_MOVES`).

    A played-out deal is never aborted; a forfeit before both players had played a card is.
    """
    return reason != "finished" and (moves or 0) < RATED_FROM_MOVES


class EndRefused(RuntimeError):
    """A deal's end was refused: the deal ended already, or the store holds another number of its moves."""


@dataclass(frozen=True, slots=True)
class MatchDeal:
    """The match a deal belongs to, as its ``games`` row links it (``tressette.match``)."""

    target: int
    match_id: int | None
    """None: the deal opens a new match (the store makes its ``matches`` row)."""
    deal: int
    """The deal's number inside the match: 1, 2, ..."""
    before: tuple[int, int]
    """Both seats' match totals (whole points) before the deal."""


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """A match's standing after a deal (or a forfeit between deals): stored with the deal's end."""

    match_id: int
    scores: tuple[int, int]
    deals: int
    winner: int | None = None
    """The match's winner once it is over (its rating then moves, once); None while it goes on."""
    reason: str | None = None
    """How it ended: ``finished`` (the target reached), ``timeout`` or ``left`` (a forfeit)."""


class Started(NamedTuple):
    """What storing a new deal gives back: its game id, the table's token, and the match it belongs to."""

    game_id: int
    fence: int
    match_id: int | None


@dataclass(frozen=True, slots=True)
class NewGame:
    """A deal about to start: the ``games`` row's fields."""

    table_id: str
    deal_number: int
    variant: str
    opponent: str
    players: tuple[int, ...]
    """The seats' user ids: two, or four at a partnership deal."""
    bot_level: str | None
    first_leader: int
    deck: list[int]
    match: MatchDeal | None = None
    options: dict[str, bool] | None = None
    """A four-player deal's options (``{"declarations", "signals"}``); None at two-player tables."""


@dataclass(frozen=True, slots=True)
class GameEnd:
    """How a deal ended (finished, or forfeited by ``1 - winner``)."""

    game_id: int
    points: tuple[int, int]
    winner: int | None
    """The winning seat; at a four-player deal the winning partnership (None: a drawn single deal)."""
    reason: str
    variant: str
    players: tuple[int, ...]
    moves: int
    """The number of moves the end was computed from: stored only if exactly these are stored."""
    analyse: bool = False
    """Queue the deal's post-game analysis, in the same write as its end."""
    match: MatchEnd | None = None
    """The deal's match after it (stored in the same write)."""
    declared: tuple[int, int] | None = None
    """A four-player deal: the whole points each partnership declared (``points``: its card points)."""


@dataclass(frozen=True, slots=True)
class Leave:
    """A person who left a running four-player deal (a bot took the seat): their rated loss."""

    game_id: int
    match_id: int | None
    seat: int
    user_id: int
    opponents: tuple[int, int]
    """The opposing pair's user ids (the loss is rated against their average)."""
    cause: str
    """``left``, ``connection`` or ``timeout``."""


@dataclass(frozen=True, slots=True)
class Player:
    """A seated account as the store knows it."""

    user_id: int
    username: str
    role: str


@dataclass(frozen=True, slots=True)
class SavedGame:
    """An unfinished deal as stored, or a match's last deal while the match goes on: enough to rebuild
    the table after a restart."""

    game_id: int
    table_id: str
    variant: str
    opponent: str
    bot_level: str | None
    deal_number: int
    first_leader: int
    deck: list[int]
    players: tuple[Player, ...]
    moves: list[tuple[int, int]]
    """The cards played, in order, as ``(seat, card)``."""
    match: MatchDeal | None = None
    ended: bool = False
    """The deal was played out and its match goes on: the table waits between two deals of the match."""
    options: dict[str, bool] | None = None
    """A four-player deal's options; None at a two-player deal."""
    extras: list[tuple[list[dict[str, Any]], str | None]] | None = None
    """A four-player deal: each move's declarations (the rules' JSON) and signal, in the order of ``moves``."""


class GameStore(Protocol):
    """The game service's persistence: every method returns once the write is durable.

    A method that raises has written nothing; the service then changes nothing either.
    """

    async def bot_account(self, username: str) -> Player:
        """Return the bot account ``username``, creating it if missing."""
        ...

    async def rating(self, user_id: int, variant: str) -> float:
        """Return the user's rating in ``variant`` (1500 for one who has not played it)."""
        ...

    async def start_game(self, game: NewGame, *, fence: Fence) -> Started:
        """Store a new deal; return its game id, the table's token and its match (opened here if new).

        Every write for a table carries its ``fence``; one older than the stored token raises
        :class:`FenceRefused` and writes nothing. Token 0 (a table's first deal) takes the table in
        the same write: the token is raised and returned.
        """
        ...

    async def record_move(self, move: dict[str, Any], end: GameEnd | None, *, fence: Fence) -> None:
        """Store one move (the ``moves`` row's columns) and, with ``end``, the deal's end, together.

        An end with ``analyse`` also queues the deal's analysis, in the same write. The players'
        totals and ratings are added by :meth:`settle`.
        """
        ...

    async def end_game(self, end: GameEnd, *, fence: Fence) -> None:
        """Store a deal's end (a forfeit: no move comes with it); :class:`EndRefused` if it is over already."""
        ...

    async def end_match(self, end: MatchEnd, *, fence: Fence) -> None:
        """Store a match forfeited between deals (a player left); :class:`EndRefused` if it is over already."""
        ...

    async def settle(self, game_id: int) -> bool:
        """Add an ended deal to its players' totals and ratings (apart from the move writes); False if not now.

        A deal of a match adds to the totals only; the match moves the ratings once, when it has
        ended (settled with its last deal). A deal not settled now is settled later by the store
        itself: the end is stored already.
        """
        ...

    async def settle_pending(self) -> int:
        """Settle the ended deals not settled yet (:meth:`settle` gave up, or a process stopped); return how many."""
        ...

    async def leave_partnership(self, leave: Leave, *, fence: Fence) -> None:
        """Store that a person left a four-player deal (its match and deal rate no one else now) and rate their
        loss against the opposing pair's average, once."""
        ...

    def claim(self, table_ids: Collection[str] | None) -> tuple[dict[str, int], list[SavedGame]]:
        """Take tables over: raise their fencing tokens, then read their unfinished deals, in one transaction.

        ``None``: every table with an unfinished deal (one process starting alone). Returns the new
        tokens and the deals; from then on, writes with older tokens are refused.
        """
        ...

    def unfinished_games(self, table_ids: Collection[str] | None = None) -> list[SavedGame]:
        """Return every deal still being played (at ``table_ids`` only, if given), without taking anything."""
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
    matches: dict[int, MatchEnd] = field(default_factory=dict)
    accounts: dict[str, Player] = field(default_factory=dict)
    fences: dict[str, int] = field(default_factory=dict)
    settled: list[int] = field(default_factory=list)
    ratings: dict[tuple[int, str], float] = field(default_factory=dict)
    """``(user_id, variant)`` -> rating; 1500 for the others."""
    leaves: list[Leave] = field(default_factory=list)
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

    async def rating(self, user_id: int, variant: str) -> float:
        """Return the rating set in ``ratings``, else 1500."""
        return self.ratings.get((user_id, variant), 1500.0)

    def _check(self, fence: Fence) -> None:
        if self.fences.get(fence[0], 0) != fence[1]:
            raise FenceRefused(f"table {fence[0]}: token {fence[1]} is stale")

    async def start_game(self, game: NewGame, *, fence: Fence) -> Started:
        """Keep ``game``; return its id, the table's token (0: taken now) and its match (opened if new)."""
        await self._write()
        if fence[1] == 0:
            fence = (fence[0], self.claim([fence[0]])[0][fence[0]])
        self._check(fence)
        game_id = len(self.games) + 1
        match = game.match
        if match is not None and match.match_id is None:
            match = replace(match, match_id=len(self.matches) + 1)
            self.matches[match.match_id or 0] = MatchEnd(match.match_id or 0, (0, 0), 0)
            game = replace(game, match=match)
        self.games[game_id] = game
        self.moves[game_id] = []
        return Started(game_id, fence[1], match.match_id if match else None)

    async def record_move(self, move: dict[str, Any], end: GameEnd | None, *, fence: Fence) -> None:
        """Keep ``move`` (and ``end``); refused as by the database: a second move of a number, a move after the end."""
        await self._write()
        self._check(fence)  # first, as the writer does: a stale process's write is refused for its fence
        if any(m["move_number"] == move["move_number"] for m in self.moves[move["game_id"]]):
            raise ValueError(f"game {move['game_id']} has a move {move['move_number']} already")
        if move["game_id"] in self.ends:
            raise EndRefused(f"game {move['game_id']} is over: no move may follow its end")
        if end is not None and end.moves != len(self.moves[move["game_id"]]) + 1:
            raise EndRefused(f"game {end.game_id}: the end counts {end.moves} moves")
        self.moves[move["game_id"]].append(dict(move))
        if end is not None:
            self._end(end)

    def _end(self, end: GameEnd) -> None:
        self.ends[end.game_id] = end
        if end.match is not None:
            self.matches[end.match.match_id] = end.match

    async def end_game(self, end: GameEnd, *, fence: Fence) -> None:
        """Keep ``end``, refused as by the database if the deal is over or has another number of moves."""
        await self._write()
        self._check(fence)
        if end.game_id in self.ends or end.moves != len(self.moves[end.game_id]):
            raise EndRefused(f"game {end.game_id}: over already, or not {end.moves} moves")
        self._end(end)

    async def end_match(self, end: MatchEnd, *, fence: Fence) -> None:
        """Keep a match forfeited between deals (refused if it is over already)."""
        await self._write()
        self._check(fence)
        if self.matches.get(end.match_id, end).winner is not None:
            raise EndRefused(f"match {end.match_id} is over already")
        self.matches[end.match_id] = end

    async def leave_partnership(self, leave: Leave, *, fence: Fence) -> None:
        """Keep the leave (once a seat and deal)."""
        await self._write()
        self._check(fence)
        if all((x.game_id, x.seat) != (leave.game_id, leave.seat) for x in self.leaves):
            self.leaves.append(leave)

    async def settle(self, game_id: int) -> bool:
        """Take note that ``game_id``'s totals were added."""
        self.settled.append(game_id)
        return True

    async def settle_pending(self) -> int:
        """Nothing waits in memory."""
        return 0

    def claim(self, table_ids: Collection[str] | None) -> tuple[dict[str, int], list[SavedGame]]:
        """Raise the tokens of ``table_ids`` (None: those with an unfinished deal); return them and the deals."""
        games = self.unfinished_games(table_ids)
        ids = set(table_ids) if table_ids is not None else {g.table_id for g in games}
        for table_id in ids:
            self.fences[table_id] = self.fences.get(table_id, 0) + 1
        return {t: self.fences[t] for t in ids}, games

    def unfinished_games(self, table_ids: Collection[str] | None = None) -> list[SavedGame]:
        """Return the kept deals without an end (at ``table_ids`` only, if given)."""
        names = {p.user_id: p for p in self.accounts.values()}
        saved = []
        last_of_match = {g.match.match_id: game_id for game_id, g in self.games.items() if g.match}
        for game_id, g in self.games.items():
            if table_ids is not None and g.table_id not in table_ids:
                continue
            live_match = (g.match is not None and last_of_match.get(g.match.match_id) == game_id
                          and self.matches.get(g.match.match_id or 0, MatchEnd(0, (0, 0), 0)).winner is None)
            if game_id in self.ends and not live_match:
                continue
            players = tuple(names.get(uid, Player(uid, f"user-{uid}", "player")) for uid in g.players)
            moves = self.moves[game_id]
            saved.append(SavedGame(game_id, g.table_id, g.variant, g.opponent, g.bot_level, g.deal_number,
                                   g.first_leader, list(g.deck), players,
                                   [(m["seat"], m["card"]) for m in moves], g.match,
                                   ended=game_id in self.ends, options=g.options,
                                   extras=[(m.get("declarations") or [], m.get("signal")) for m in moves]
                                   if g.options is not None else None))
        return saved

    def health(self) -> dict[str, Any]:
        """Return how many writes were kept."""
        return {"store_writes": self.writes}
