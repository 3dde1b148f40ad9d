"""The game service of one process: its rooms and the small parts around them, wired together.

The API layer (:mod:`server.api.app`) hands the :class:`Hub` each socket (``connect``,
``disconnect``) and each raw message (``handle``); what happens to them lives in:

- :mod:`server.game.router` — a message checked, parsed and taken to its handler, room or owner;
- :mod:`server.game.room` — one table's state and commands (a card checked, stored, told);
- :mod:`server.game.lobby` — opening, joining and listing tables, the table limits;
- :mod:`server.game.sessions` and :mod:`server.game.seats` — sockets, seats, presence;
- :mod:`server.game.clock` — forfeits and what else is due; :mod:`server.game.restore` — rooms
  rebuilt from the store; :mod:`server.game.botpool` and :mod:`server.game.analysis` — bots.

With several processes the hub is handed a :class:`~server.game.ports.Portal` (the cluster) and
offers it :class:`~server.game.ports.Service`; it never imports the cluster. The service does
no I/O of its own: it awaits the store and sends through each connection's transport. It counts
its events (cards, bot answers, errors) in :class:`~server.metrics.Metrics`; ``GET /metrics``
reads the rest of its state when scraped (:mod:`server.api.metrics`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from server.game.analysis import AnalysisQueue
from server.game.anyroom import AnyRoom, AnyTable
from server.game.clock import Clock
from server.game.connection import Connection
from server.game.lobby import LOBBY_LIMIT, Lobby
from server.game.pairing.matchmaker import Matchmaker
from server.game.partnership.table import FourTable
from server.game.records import GameStore, SavedGame
from server.game.restore import Restore
from server.game.room import Room
from server.game.rooms import Rooms
from server.game.router import MAX_OVERSIZE, Router
from server.game.sessions import Sessions
from server.game.tables import Table
from server.metrics import Metrics
from server.protocol import CancelSeek, LevelInfo, Seek
from server.protocol_four import SeekPartnership
from server.settings import Settings
from tressette import Variant

if TYPE_CHECKING:
    from server.game.ports import Portal

__all__ = ["LOBBY_LIMIT", "MAX_OVERSIZE", "Hub"]


class TablesView(Mapping[str, AnyTable]):
    """The tables of this process's rooms, by id (read only: rooms come and go through the lobby)."""

    def __init__(self, rooms: dict[str, AnyRoom]) -> None:
        """View the tables of ``rooms``."""
        self._rooms = rooms

    def __getitem__(self, table_id: str) -> AnyTable:
        """Return the table ``table_id``."""
        return self._rooms[table_id].table

    def __iter__(self) -> Iterator[str]:
        """Iterate over the table ids."""
        return iter(self._rooms)

    def __len__(self) -> int:
        """Return how many tables."""
        return len(self._rooms)

    def __contains__(self, table_id: object) -> bool:
        """Return True if ``table_id`` is a table here."""
        return table_id in self._rooms


class Hub:
    """All live rooms and connections of one server process (see the module's docstring for its parts)."""

    handle: Callable[[Connection, str], Awaitable[None]]
    connect: Callable[[Connection], Awaitable[None]]
    tick: Callable[[], Awaitable[None]]

    def __init__(self, settings: Settings, store: GameStore, analysis: AnalysisQueue,
                 metrics: Metrics | None = None) -> None:
        """Create an empty hub persisting through ``store``, queueing finished deals' analyses on ``analysis``.

        ``metrics``: where the moves, bot answers and errors are counted (its own by default).
        """
        self.settings = settings
        self.store = store
        self.analysis = analysis
        self.rooms: Rooms[AnyRoom] = Rooms(settings, store, analysis, Room, metrics)
        self.metrics = self.rooms.metrics
        self.pool = self.rooms.pool
        self.tasks = self.rooms.tasks
        self.lobby = Lobby(self.rooms)
        self.router = Router(self.rooms, self.lobby)
        self.sessions = Sessions(self.rooms, self.lobby)
        self.clock = Clock(self.rooms, self.lobby)
        self.restorer = Restore(self.rooms)
        self.pairing = Matchmaker(self.rooms, self.lobby)
        self.router.here.update({Seek: self.pairing.on_seek, CancelSeek: self.pairing.on_cancel,
                                 SeekPartnership: self.pairing.on_seek})
        self.lobby.seated = self.pairing.seated
        self.clock.chores.append(self.pairing.tick)
        self._tables = TablesView(self.rooms.by_id)
        # The hot paths go straight to their part: no extra call per message.
        self.handle = self.router.handle
        self.connect = self.sessions.connect
        self.tick = self.clock.tick

    async def disconnect(self, conn: Connection) -> None:
        """Forget ``conn``: its seats start their reconnect grace, its bot turns move on, its seek ends."""
        await self.sessions.disconnect(conn)
        await self.pairing.disconnected(conn)

    # ----- what the app and the portal read ----------------------------------------------

    @property
    def cluster(self) -> Portal | None:
        """The other processes of the portal (``TRESET_REDIS_URL``); None when this one serves alone."""
        return self.rooms.portal

    @cluster.setter
    def cluster(self, portal: Portal | None) -> None:
        self.rooms.portal = portal

    @property
    def tables(self) -> Mapping[str, Table | FourTable]:
        """This process's tables by id."""
        return self._tables

    @property
    def conns(self) -> set[Connection]:
        """This process's connections."""
        return self.rooms.seats.conns

    @property
    def online(self) -> Counter[int]:
        """The sockets of each person (not bot) online here."""
        return self.rooms.seats.online

    @property
    def lobby_dirty(self) -> bool:
        """True if the lobby changed since it was last sent."""
        return self.rooms.lobby_dirty

    @lobby_dirty.setter
    def lobby_dirty(self, value: bool) -> None:
        self.rooms.lobby_dirty = value

    @property
    def online_dirty(self) -> bool:
        """True if someone came or went since the lobby was last sent."""
        return self.rooms.seats.online_dirty

    @online_dirty.setter
    def online_dirty(self, value: bool) -> None:
        self.rooms.seats.online_dirty = value

    def lobby_message(self) -> dict[str, Any]:
        """Return the lobby as it would go out now."""
        return self.lobby.message()

    def offered_levels(self) -> dict[str, int | None]:
        """Return the bot levels a table may ask for, with their per-move times (see :mod:`server.game.levels`)."""
        return self.pool.offered()

    def health(self) -> dict[str, Any]:
        """Return the bot pool's figures for ``/healthz``."""
        return {
            **self.pool.health(),
            "tables": len(self.rooms.by_id),
            "connections": len(self.rooms.seats.conns),
            **self.analysis.health(),
            **self.store.health(),
            **self.pairing.health(),
            **(self.cluster.health() if self.cluster else {}),
        }

    # ----- tables, bots and the clock ----------------------------------------------------

    async def start_bot_series(self, *, level_a: str, level_b: str, games: int, variant: Variant) -> Table:
        """Open a bot-versus-bot table that plays ``games`` deals (every move logged as usual)."""
        return await self.lobby.start_bot_series(level_a=level_a, level_b=level_b, games=games, variant=variant)

    async def register_bot(self, conn: Connection, *, levels: list[str], capacity: int, analysis: int,
                           level_info: list[LevelInfo], partnership: list[LevelInfo] | None = None) -> None:
        """Seat the bot ``conn`` (here or, as a proxy, at another process) for ``levels`` from now on."""
        await self.rooms.register_bot(conn, levels=levels, capacity=capacity, analysis=analysis,
                                      level_info=level_info, partnership=partnership)

    async def run_clock(self) -> None:
        """Tick forever (a background task of the app)."""
        await self.clock.run()

    # ----- restart, takeover, resync -----------------------------------------------------

    def restore(self) -> int:
        """Rebuild every unfinished game from the database (deck order + moves); return how many."""
        return self.restorer.restore()

    def restore_game(self, game: SavedGame, *, fence: int = 0) -> Table | FourTable:
        """Rebuild and keep the table of one stored unfinished deal (its people away, a fresh clock)."""
        return self.restorer.restore_game(game, fence=fence)

    async def resume_bots(self) -> None:
        """Ask for the bot moves of restored tables (they wait until a bot connects)."""
        await self.restorer.resume_bots()

    async def ask_bot(self, table_id: str) -> None:
        """Ask for the bot's move at ``table_id`` if it is a bot's turn (a table just taken over)."""
        await self.restorer.ask_bot(table_id)

    async def reclaim(self, conn: Connection, table_id: str) -> None:
        """Seat ``conn`` again at its user's seat unless a live connection holds it; else let it watch a public table."""
        await self.restorer.reclaim(conn, table_id)

    async def resend_tables(self) -> None:
        """Send every table of this process to its players and spectators again (messages may have been lost)."""
        await self.restorer.resend_tables()

    def forget(self, table_id: str) -> list[Connection] | None:
        """Drop a table another process serves now, telling no one; return who was at it (None: not here)."""
        return self.rooms.forget(table_id)

    def lose(self, table_id: str) -> None:
        """Forget a table another process serves now, telling no one (they hear from the new owner)."""
        self.rooms.lose(table_id)

    # ----- accounts ----------------------------------------------------------------------

    async def rename(self, *, user_id: int, username: str, role: str) -> None:
        """Show a user's new name and role (a guest who made an account) on its connections and seats."""
        if self.cluster:
            self.cluster.broadcast("rename", user_id=user_id, username=username, role=role)
        await self.rename_here(user_id=user_id, username=username, role=role)

    async def rename_here(self, *, user_id: int, username: str, role: str) -> None:
        """:meth:`rename` in this process only."""
        await self.sessions.rename_here(user_id=user_id, username=username, role=role)

    async def revoke(self, token_hash: str) -> int:
        """Close (code 4401) every socket signed in with the token whose hash is ``token_hash``; return how many."""
        return await self.revoke_all({token_hash})

    async def revoke_all(self, token_hashes: set[str]) -> int:
        """Close (code 4401) every socket signed in with one of ``token_hashes``; return how many (here)."""
        if self.cluster:
            self.cluster.broadcast("revoke", hashes=sorted(token_hashes))
        return await self.revoke_here(token_hashes)

    async def revoke_here(self, token_hashes: set[str]) -> int:
        """:meth:`revoke_all` for this process's sockets."""
        return await self.sessions.revoke_here(token_hashes)
