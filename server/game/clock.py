"""The clock of this process's rooms: a tick every 0.2 s (forfeits, bot turns asked again), and what else is due.

After a pause (the process stopped, or starved past ``PAUSE_S``) the tables this process lost are
dropped first (the portal checks its leases), and the other rooms' clocks move on by the time
lost: it was nobody's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from server.game.anyroom import AnyRoom
from server.game.lobby import Lobby
from server.game.rooms import Rooms, TableLost

log = logging.getLogger("treset.hub")

PAUSE_S = 2.0
"""A clock tick this late means the process could not run (paused, or starved): the time lost is nobody's."""
SETTLE_EVERY_S = 10.0
"""How often ended deals whose totals could not be added at once are settled."""


class Clock:
    """Ticks every room; sends the lobby when due; settles the totals an outage held up."""

    def __init__(self, rooms: Rooms[AnyRoom], lobby: Lobby) -> None:
        """Keep the time of the rooms of ``rooms``."""
        self.rooms = rooms
        self.lobby = lobby
        self._last_tick = time.monotonic()
        self.chores: list[Callable[[], Awaitable[None]]] = []
        """More work for every tick (the matchmaker's look at its queue), each failing on its own."""

    async def tick(self) -> None:
        """Forfeit a player whose move clock ran out, or who stayed away past the grace period.

        After a pause (the process stopped, or starved past ``PAUSE_S``) the tables this process
        lost are dropped first, and the clocks of the others move on by the time lost: it was nobody's.
        """
        lost = time.monotonic() - self._last_tick
        self._last_tick = time.monotonic()
        if self.rooms.portal:
            await self.rooms.portal.ensure_leases()
        if lost > PAUSE_S:
            log.warning("the clock could not run for %.1f s: clocks move on by that much", lost)
            for room in self.rooms.by_id.values():
                room.shift_clock(lost)
        now = time.time()
        for room in list(self.rooms.by_id.values()):
            if not room.due(now):
                continue
            if room.lock.locked():  # a command is under way there (it restarts the clock); the next tick looks
                continue
            async with room.lock:
                try:
                    await room.tick(now)
                except TableLost:
                    pass
                except Exception:  # e.g. the store refused a forfeit: the next tick tries again
                    log.exception("the clock of table %s failed", room.table.id)

    async def run(self) -> None:
        """Tick forever (a background task of the app)."""
        settled_at = 0.0
        while True:
            await asyncio.sleep(0.2)
            try:
                await self.tick()
                await self.rooms.analysis.tick()
                if time.monotonic() - settled_at > SETTLE_EVERY_S:  # totals a lock or an outage held up
                    settled_at = time.monotonic()
                    await self.rooms.store.settle_pending()
                if self.lobby.due():
                    await self.lobby.send()
            except Exception:
                log.exception("clock tick failed")
            for chore in self.chores:
                try:
                    await chore()
                except Exception:
                    log.exception("a clock chore failed")
