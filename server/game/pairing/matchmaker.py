"""The matchmaker: ``seek`` and ``cancel_seek`` answered, pairs seated at a new table, seekers kept informed.

Who is paired with whom is :mod:`server.game.pairing.policy`'s pure policy; the seeks wait in its queue
(this process's memory, or Redis with a portal of several processes, where a pair is taken once).
A process makes the pairs in which one of its own sockets' seeks takes part, at once on a ``seek``
and then at every look (about every second: the ranges widen while people wait). It opens the
table with both seats; a seeker connected to another process is seated there through the portal
(that process asks this one to seat its socket, as after a reconnect).

A seek belongs to the socket that sent it and ends when it is paired, cancelled, or replaced by
another seek of the user, when that socket closes, or when the user starts or joins any table.
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import Any

from server.game.anyroom import AnyRoom, FourRoom
from server.game.connection import Connection
from server.game.lobby import Lobby
from server.game.pairing.policy import FOUR, MemoryQueue, SeekEntry, SeekQueue, Widening, waiting_counts
from server.game.partnership.table import FourTable
from server.game.rooms import Rooms
from server.game.tables import Seat, Table
from server.protocol import CancelSeek, Seek, SeekEnded, Seeking, error, out
from server.protocol_four import SeekPartnership
from tressette import Variant
from tressette.partnership import PartnershipOptions

log = logging.getLogger("treset.pairing")

LOOK_EVERY_S = 1.0
"""How often the queue is looked at again for pairs (ranges widen) and the seekers' figures sent."""
Held = tuple[Connection, SeekEntry]


class Matchmaker:
    """This process's part in quick pairing: its sockets' seeks and the tables it opens for pairs."""

    def __init__(self, rooms: Rooms[AnyRoom], lobby: Lobby) -> None:
        """Pair people for the rooms of ``rooms`` (``lobby`` keeps the per-user table limits)."""
        self.rooms = rooms
        self.lobby = lobby
        self.settings = rooms.settings
        self.widening = Widening(self.settings.pair_range, self.settings.pair_range_per_s, self.settings.pair_range_max)
        self.memory = MemoryQueue()
        self.held: dict[int, Held] = {}
        """The seeks of this process's sockets, by user id."""
        self.told: dict[int, tuple[int, ...]] = {}
        """The figures each seeker was last sent (unchanged ones are not sent again)."""
        self.looked_at = 0.0

    @property
    def queue(self) -> SeekQueue:
        """Return where the seeks wait: the portal's queue, or this process's."""
        portal = self.rooms.portal
        return portal.seeks if portal else self.memory

    @property
    def node(self) -> str:
        """Return this process's name on the portal ("" alone)."""
        portal = self.rooms.portal
        return portal.node if portal else ""

    # ----- the socket's messages ---------------------------------------------------------

    async def on_seek(self, conn: Connection, msg: Seek | SeekPartnership) -> None:
        """Seek an opponent for ``conn`` (pair at once if someone fits, else wait in the queue).

        A four-player seek (:class:`SeekPartnership`) waits for three more (its variant is ``partnership``).
        """
        if conn.role == "bot":
            await conn.send(error("bad_message", "bots do not seek opponents", msg.type))
            return
        if await self.lobby.over_table_limit(conn, msg.type, waiting=False):
            return
        variant = FOUR if isinstance(msg, SeekPartnership) else msg.variant
        partner = (msg.partner or "") if isinstance(msg, SeekPartnership) else ""
        held = self.held.get(conn.user_id)
        if (held is not None and held[0] is conn and held[1].format == (variant, msg.target)
                and held[1].partner == partner):
            self.told.pop(conn.user_id, None)  # the same seek again: it keeps its place
            await self._tell(conn, held[1], await self.queue.all())
            return
        rating = await self.rooms.store.rating(conn.user_id, variant)
        seek = SeekEntry(user_id=conn.user_id, username=conn.username, role=conn.role, variant=variant,
                         target=msg.target, rating=rating, since=time.time(), node=self.node, partner=partner)
        if held is not None and held[0] is not conn:
            await held[0].send(out(SeekEnded(reason="replaced")))
        self.held[conn.user_id] = (conn, seek)  # before the queue has it: a pair made at once finds it here
        self.told.pop(conn.user_id, None)
        try:
            earlier = await self.queue.add(seek)
        except Exception:
            self._drop(conn.user_id)
            raise
        if earlier is not None and earlier.node != self.node and self.rooms.portal:
            self.rooms.portal.broadcast("unseek", user_id=conn.user_id, reason="replaced", node=earlier.node)
        await self._pair()
        if self.held.get(conn.user_id) == (conn, seek):
            await self._tell(conn, seek, await self.queue.all())

    async def on_cancel(self, conn: Connection, msg: CancelSeek) -> None:
        """End ``conn``'s seek (``not_seeking`` if it has none)."""
        held = self.held.get(conn.user_id)
        if held is None or held[0] is not conn:
            await conn.send(error("not_seeking", "you are not looking for an opponent", msg.type))
            return
        if await self.queue.remove(conn.user_id) is None:
            return  # another process paired it a moment ago: its table is on the way
        self._drop(conn.user_id)
        await conn.send(out(SeekEnded(reason="cancelled")))

    # ----- ends from elsewhere ------------------------------------------------------------

    async def seated(self, user_id: int) -> None:
        """End the user's seek: it started or joined a table (here, or through the portal for any process)."""
        held = self._drop(user_id)
        try:
            earlier = await self.queue.remove(user_id)
        except Exception:  # noqa: BLE001 - Redis away: the table is open all the same; the seek is over here
            log.warning("could not take a seated user's seek out of the queue", exc_info=True)
            earlier = None
        if held is not None:
            await held[0].send(out(SeekEnded(reason="table")))
        elif earlier is not None and earlier.node != self.node and self.rooms.portal:
            self.rooms.portal.broadcast("unseek", user_id=user_id, reason="table", node=earlier.node)

    async def disconnected(self, conn: Connection) -> None:
        """End the seek of a socket that closed."""
        held = self.held.get(conn.user_id)
        if held is not None and held[0] is conn:
            self._drop(conn.user_id)
            try:
                await self.queue.remove(conn.user_id)
            except Exception:  # noqa: BLE001 - Redis away: the seek goes with this process's name (dead seeks are dropped)
                log.warning("could not take a closed socket's seek out of the queue", exc_info=True)

    async def unseek_here(self, user_id: int, reason: str) -> None:
        """End a seek of this process's socket that another process ended (``replaced`` or ``table``)."""
        held = self._drop(user_id)
        if held is not None:
            await held[0].send(out(SeekEnded.model_validate({"reason": reason})))

    async def paired_here(self, user_id: int, table_id: str, node: str) -> None:
        """Seat this process's seeker at the table another process (``node``) opened for its pair."""
        held = self._drop(user_id)
        portal = self.rooms.portal
        if held is None or portal is None:
            return
        portal.seat_paired(held[0], table_id, node)
        await held[0].send(out(SeekEnded(reason="paired", table_id=table_id)))

    def _drop(self, user_id: int) -> Held | None:
        self.told.pop(user_id, None)
        return self.held.pop(user_id, None)

    # ----- pairing -----------------------------------------------------------------------

    async def tick(self) -> None:
        """Look at the queue again (about once a second, while a socket here seeks): pair, and tell the figures."""
        if not self.held or time.monotonic() - self.looked_at < LOOK_EVERY_S:
            return
        self.looked_at = time.monotonic()
        try:
            await self._pair()
            seeks = await self.queue.all()
        except Exception as exc:  # noqa: BLE001 - Redis away: the next look tries again
            log.warning("quick pairing could not look at the queue: %s", exc)
            return
        for conn, seek in list(self.held.values()):
            await self._tell(conn, seek, seeks)

    async def _pair(self) -> None:
        """Make the pairs in which a seek of this process takes part."""
        def mine(seek: SeekEntry) -> bool:
            held = self.held.get(seek.user_id)
            return seek.node == self.node and held is not None and held[1] == seek
        for group in await self.queue.take_pairs(now=time.time(), widening=self.widening, mine=mine):
            await self._open(group)

    async def _open(self, group: tuple[SeekEntry, ...]) -> None:
        """Open a table for the pair (the older seek at seat 0) or the four (by seat), and seat them all."""
        a = group[0]
        table: Table | FourTable
        if len(group) == 4:
            table = FourTable(id=secrets.token_hex(4), opponent="anyone", target=a.target,
                              options=PartnershipOptions.default_for(a.target))
        else:
            table = Table(id=secrets.token_hex(4), variant=Variant(a.variant), opponent="anyone", target=a.target)
        conns: list[Connection | None] = []
        for i, seek in enumerate(group):
            held = self._drop(seek.user_id) if seek.node == self.node else None
            conn = held[0] if held is not None and not held[0].closed else None
            conns.append(conn)
            # A seat without its socket yet (another process's, seated in a moment) has the reconnect grace.
            table.seats[i] = Seat(seek.user_id, seek.username, is_bot=False,
                                  disconnected_at=None if conn is not None else time.time())
        portal = self.rooms.portal
        try:
            if portal:
                await portal.own(table)
            room = self.rooms.keep(FourRoom(table, self.rooms)) if isinstance(table, FourTable) else \
                self.rooms.add(table)
            for i, conn in enumerate(conns):
                if conn is not None:
                    self.rooms.seats.attach(conn, table, i)
            async with room.lock:
                await room.start_deal()
        except Exception:
            log.exception("the table of a pair could not be opened")
            self.rooms.forget(table.id)
            for seek, conn in zip(group, conns, strict=True):
                if conn is not None:
                    await conn.send(error("internal", "the paired table could not be opened; seek again", "seek"))
                    await conn.send(out(SeekEnded(reason="failed")))
                elif portal:
                    portal.broadcast("unseek", user_id=seek.user_id, reason="failed", node=seek.node)
            return
        for seek, conn in zip(group, conns, strict=True):
            if conn is not None:
                await conn.send(out(SeekEnded(reason="paired", table_id=table.id)))
            elif portal:  # its process asks this one to seat its socket
                portal.tell_paired(seek.node, seek.user_id, table.id)
        log.info("paired %s at %s", ", ".join(f"{s.username} ({s.rating:.0f})" for s in group), table.id)
        self.rooms.lobby_changed()

    async def _tell(self, conn: Connection, seek: SeekEntry, seeks: list[SeekEntry]) -> None:
        """Send ``conn`` its seek's figures if they changed since it was last told."""
        portal = self.rooms.portal
        online = len(self.rooms.seats.online) + (portal.remote_online if portal else 0)
        msg = Seeking(variant=seek.variant, target=seek.target, since=int(seek.since * 1000), rating=round(seek.rating),
                      range=round(self.widening.width(time.time() - seek.since)),
                      waiting=max(1, waiting_counts(seeks)[seek.format]), online=max(1, online),
                      bot_offer_ms=int(self.settings.bot_offer_s * 1000))
        figures = (msg.range, msg.waiting, msg.online)
        if self.told.get(conn.user_id) != figures:
            self.told[conn.user_id] = figures
            await conn.send(out(msg))

    def health(self) -> dict[str, Any]:
        """Return how many of this process's sockets seek now."""
        return {"seeking_here": len(self.held)}
