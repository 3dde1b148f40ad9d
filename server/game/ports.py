"""The two small interfaces between the game service and the cluster (several processes, one portal).

The service (:mod:`server.game.hub` and the modules it wires) is handed a :class:`Portal` — "where
is this table, send it there" — and never imports the cluster; the cluster
(:mod:`server.game.cluster`) drives the service only through :class:`Service`. Without Redis there
is no portal and one process serves alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from server.game.analysis import AnalysisQueue
from server.game.botpool import BotPool
from server.game.connection import Connection
from server.game.pairing.policy import SeekQueue
from server.game.partnership.table import FourTable
from server.game.records import GameStore, SavedGame
from server.game.tables import Table
from server.protocol import BotHello, LevelInfo


class Portal(Protocol):
    """What the service asks of the other processes of the portal (implemented by the cluster)."""

    remote_online: int
    """People online at the other processes."""
    node: str
    """This process's name on the portal."""

    @property
    def seeks(self) -> SeekQueue:
        """The portal's queue of seeks (quick pairing), where every process sees it."""

    def connected(self, conn: Connection) -> None:
        """Number a new socket of this process."""

    async def disconnected(self, conn: Connection) -> None:
        """Tell the processes that served this socket's tables that it is gone."""

    def remote_seats(self, user_id: int) -> list[tuple[str, int, str]]:
        """Return the user's seats at other processes' tables as ``(table_id, seat, status)``."""

    async def user_tables(self, user_id: int) -> list[tuple[str, str, bool]]:
        """Return the user's tables at other processes as ``(table_id, status, both seats taken)``, read now."""

    def user_lock(self, user_id: int) -> AbstractAsyncContextManager[None]:
        """Hold the user's lock on the portal while a table is opened or joined for them."""

    def remote_summaries(self) -> list[dict[str, Any]]:
        """Return the lobby lines of the other processes' public tables."""

    def playing_elsewhere(self) -> set[Connection]:
        """Return this process's sockets seated in a running deal at another process's table."""

    def reclaim(self, conn: Connection, table_id: str) -> None:
        """Ask the owner of ``table_id`` to seat ``conn`` again (or let it watch)."""

    async def ensure_leases(self) -> None:
        """Before acting: renew this process's leases if they may have run out (it could not run)."""

    async def forward(self, conn: Connection, table_id: str, raw: str) -> bool:
        """Send a local socket's command to the process owning ``table_id``; False if none other does."""

    def forward_report(self, conn: Connection, job: str, raw: str) -> bool:
        """Send a bot's analysis to the process that gave the job out; False if it was this one."""

    async def reroute(self, conn: Connection, table_id: str, raw: str) -> bool:
        """Send a command for a table this process just lost on to its new owner; False if none is known."""

    async def own(self, table: Table | FourTable) -> None:
        """Take the lease of a table this process just opened and list it."""

    def drop(self, table_id: str) -> None:
        """Forget a table another process serves now, telling no one."""

    async def bot_hello(self, conn: Connection, msg: BotHello) -> None:
        """List a local bot for every process."""

    def broadcast(self, op: str, **fields: Any) -> None:
        """Tell every other process (``revoke``, ``rename``, ``unseek``)."""

    def tell_paired(self, node: str, user_id: int, table_id: str) -> None:
        """Tell ``node`` that its socket's seek of ``user_id`` was paired at ``table_id`` (opened here)."""

    def seat_paired(self, conn: Connection, table_id: str, node: str) -> None:
        """Ask ``node``, which opened ``table_id`` for a pair, to seat this process's socket ``conn`` there."""

    def health(self) -> dict[str, Any]:
        """Return this process's portal figures for ``/healthz``."""


class Service(Protocol):
    """What the cluster asks of this process's game service (implemented by :class:`~server.game.hub.Hub`)."""

    store: GameStore
    pool: BotPool
    analysis: AnalysisQueue
    tasks: set[Any]
    """Background tasks kept alive until done."""
    lobby_dirty: bool
    online_dirty: bool

    @property
    def tables(self) -> Mapping[str, Table | FourTable]:
        """This process's tables."""

    @property
    def online(self) -> Counter[int]:
        """The people online here."""

    def handle(self, conn: Connection, raw: str) -> Awaitable[None]:
        """Handle one raw message from ``conn`` (a proxy of another process's client)."""

    async def reclaim(self, conn: Connection, table_id: str) -> None:
        """Seat ``conn`` again at its user's seat unless a live connection holds it; else let it watch."""

    def disconnect(self, conn: Connection) -> Awaitable[None]:
        """Forget ``conn`` (a proxy whose client is gone)."""

    async def register_bot(self, conn: Connection, *, levels: list[str], capacity: int, analysis: int,
                           level_info: list[LevelInfo], partnership: list[LevelInfo] | None = None) -> None:
        """Seat the bot ``conn`` for ``levels`` (and the four-player ``partnership`` levels) from now on."""

    def restore_game(self, game: SavedGame, *, fence: int = 0) -> Table | FourTable:
        """Rebuild and keep the table of one stored unfinished deal."""

    async def ask_bot(self, table_id: str) -> None:
        """Ask for the bot's move at ``table_id`` if it is a bot's turn (a table just taken over)."""

    def forget(self, table_id: str) -> list[Connection] | None:
        """Drop a table, telling no one; return who was at it (None: no such table here)."""

    async def resend_tables(self) -> None:
        """Send every table of this process to its players and spectators again."""

    async def revoke_here(self, token_hashes: set[str]) -> int:
        """Close this process's sockets signed in with one of ``token_hashes``."""

    async def rename_here(self, *, user_id: int, username: str, role: str) -> None:
        """Show a user's new name and role at this process."""

    @property
    def pairing(self) -> Pairing:
        """This process's matchmaker (quick pairing)."""


class Pairing(Protocol):
    """What the cluster asks of this process's matchmaker (:class:`~server.game.pairing.matchmaker.Matchmaker`)."""

    async def paired_here(self, user_id: int, table_id: str, node: str) -> None:
        """Seat this process's seeker ``user_id`` at the table ``node`` opened for its pair."""

    async def unseek_here(self, user_id: int, reason: str) -> None:
        """End a seek of this process's socket that another process ended."""
