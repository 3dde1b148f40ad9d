"""This process's rooms by table id, and what they share: settings, the store, the seats, the bots, the analyses.

The registry knows a room only as :class:`RoomLike` (the room's class, :class:`server.game.room.Room`,
is handed in): rooms use the registry, the registry does not import them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from server.game.analysis import AnalysisQueue
from server.game.botpool import BotPool
from server.game.connection import Connection
from server.game.partnership.table import FourTable
from server.game.records import GameStore, SavedGame
from server.game.seats import Seats
from server.game.tables import Table
from server.metrics import Metrics
from server.protocol import (
    LevelInfo,
)
from server.settings import Settings
from tressette import (
    Deal,
    Variant,
)

if TYPE_CHECKING:
    from server.game.ports import Portal

log = logging.getLogger("treset.hub")


class TableLost(Exception):
    """The store refused this process's fence for a table: another process serves it now."""

    def __init__(self, table_id: str) -> None:
        """Name the table lost."""
        super().__init__(table_id)
        self.table_id = table_id


def deal_of(game: SavedGame) -> Deal:
    """Return a stored deal as it stands: its deck order with its logged moves played."""
    deal = Deal.from_deck(game.deck, Variant(game.variant), game.first_leader)
    for seat, card in game.moves:
        deal.play(card, seat)
    return deal


class RoomLike(Protocol):
    """What the registry needs of a room."""

    @property
    def table(self) -> Table | FourTable:
        """The room's table."""
        ...

    async def dispatch_bot(self) -> None:
        """Give the table's bot turn to a bot with room, if a bot is to move."""


R = TypeVar("R", bound=RoomLike)


class Rooms(Generic[R]):
    """This process's rooms and what they share: settings, the store, the seats, the bots, the analyses."""

    def __init__(self, settings: Settings, store: GameStore, analysis: AnalysisQueue,
                 make: Callable[[Table, Rooms[R]], R], metrics: Metrics | None = None) -> None:
        """Start with no room; ``make`` gives a table its room; events are counted in ``metrics``."""
        self.make = make
        self.metrics = metrics if metrics is not None else Metrics()
        self.settings = settings
        self.store = store
        self.analysis = analysis
        self.seats = Seats()
        self.pool = BotPool(settings.levels)
        self.by_id: dict[str, R] = {}
        self.portal: Portal | None = None
        """The other processes of the portal (``TRESET_REDIS_URL``), None when this one serves alone."""
        self.lobby_dirty = False
        """A table or a bot changed: the lobby is due (the clock sends it, coalesced)."""
        self.tasks: set[asyncio.Task[Any]] = set()

    def add(self, table: Table) -> R:
        """Keep ``table`` as a room of this process (listed from now on); return the room."""
        room = self.by_id[table.id] = self.make(table, self)
        return room

    def keep(self, room: R) -> R:
        """Keep a room made elsewhere (a four-player table's) as one of this process's; return it."""
        self.by_id[room.table.id] = room
        return room

    def lobby_changed(self) -> None:
        """Note that the lobby changed (the clock sends at most one update every ``LOBBY_EVERY_S``)."""
        self.lobby_dirty = True

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background, kept alive until done."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def dispatch_waiting(self) -> None:
        """Give waiting bot turns to bots that have room again (in the order the turns were asked)."""
        for table_id in self.pool.waiting():
            if table_id in self.by_id:
                if not self.pool.has_room():
                    return
                await self.by_id[table_id].dispatch_bot()

    async def register_bot(self, conn: Connection, *, levels: list[str], capacity: int, analysis: int,
                           level_info: list[LevelInfo], partnership: list[LevelInfo] | None = None) -> None:
        """Seat the bot ``conn`` (here or, as a proxy, at another process) for ``levels`` from now on."""
        self.pool.register(conn, levels=levels, capacity=capacity, analysis=analysis, level_info=level_info,
                           partnership=partnership)
        await self.analysis.hello(conn)
        await self.dispatch_waiting()
        self.lobby_changed()  # the lobby lists the bot levels served

    def forget(self, table_id: str) -> list[Connection] | None:
        """Drop a table, telling no one; return who was at it (None: no such table here)."""
        if self.by_id.pop(table_id, None) is None:
            return None
        self.pool.turns.pop(table_id, None)
        return self.seats.forget(table_id)

    def lose(self, table_id: str) -> None:
        """Forget a table another process serves now, telling no one (they hear from the new owner)."""
        if self.portal is not None:
            self.portal.drop(table_id)
            return
        if self.forget(table_id) is not None:  # one process alone: a second one on the same database took it
            log.warning("table %s: the store refused this process's fence; dropped", table_id)
