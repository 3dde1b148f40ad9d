"""The game service: connections, tables, moves (persisted, then broadcast), clocks and bots.

Every handler validates with the rules package first and changes nothing on
bad input; every move is durable in the store (:mod:`server.game.records`) before anyone
hears of it, and the deal in memory only advances once it is. The service does no I/O of
its own: it awaits the store and sends through each connection's transport.

One table's commands run one at a time (``Table.lock``): while a table's move is being
committed, the next command for that table waits, so it is checked against the committed
deal; other tables go on meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from server.game.analysis import AnalysisQueue
from server.game.botpool import BotPool
from server.game.connection import Connection
from server.game.limits import TokenBucket
from server.game.records import FenceRefused, GameEnd, GameStore, NewGame, SavedGame
from server.game.tables import Seat, Table
from server.protocol import (
    CLIENT_MESSAGE,
    CLIENT_TYPES,
    AnalysisReport,
    BotHello,
    BotTurn,
    Chat,
    ChatLine,
    CreateTable,
    JoinTable,
    LeaveTable,
    Left,
    LevelInfo,
    Lobby,
    OpenTable,
    Ping,
    Play,
    Pong,
    Rematch,
    SeatMoved,
    SeatOut,
    UserOut,
    WatchTable,
    Welcome,
    error,
    out,
    table_message,
    table_unavailable,
)
from server.settings import Settings
from server.store.movelog import move_fields
from tressette import (
    SUITS,
    CardError,
    Deal,
    IllegalMoveError,
    Variant,
    card_name,
    parse_card,
    state_from_view,
    suit_of,
    trick_to_dict,
    view_of,
)

if TYPE_CHECKING:
    from server.game.cluster import Cluster

log = logging.getLogger("treset.hub")
T = TypeVar("T")

MAX_OVERSIZE = 3
LOBBY_LIMIT = 50
"""The lobby lists at most this many waiting tables and as many playing ones (newest first)."""
LOBBY_EVERY_S = 1.0
"""The lobby goes out at most this often: with thousands online, every change at once would be a flood."""
PAUSE_S = 2.0
"""A clock tick this late means the process could not run (paused, or starved): the time lost is nobody's."""
SETTLE_EVERY_S = 10.0
"""How often ended deals whose totals could not be added at once are settled."""
BOT_ANSWER_S = 15.0
"""A bot turn unanswered this long is asked again (a message lost between processes); a bot thinks ≤ 5 s."""
BOT_RETRY_S = 1.0
"""A bot's move the store could not take is asked for again after this long (the store may be back)."""
ONLINE_SENDS_PER_S = 1000
"""A lobby whose only news is the number of people online goes to everyone at most every
``sockets / ONLINE_SENDS_PER_S`` seconds (at least LOBBY_EVERY_S): with 10,000 online someone comes or
goes every second, and a lobby to 10,000 sockets costs about half a second of CPU (every 10 s, then)."""


class Hub:
    """All live tables and connections of one server process."""

    def __init__(self, settings: Settings, store: GameStore, analysis: AnalysisQueue) -> None:
        """Create an empty hub persisting through ``store``, queueing finished deals' analyses on ``analysis``."""
        self.settings = settings
        self.store = store
        self._tasks: set[asyncio.Task[None]] = set()
        self.tables: dict[str, Table] = {}
        self.conns: set[Connection] = set()
        self.seat_conn: dict[tuple[str, int], Connection] = {}
        self.watchers: dict[str, set[Connection]] = {}
        self.pool = BotPool(settings.levels)
        self.analysis = analysis
        self.lobby_dirty = False
        self.online_dirty = False
        self.lobby_sent_at = 0.0
        self.lobby_text = ""
        """The lobby last sent to everyone (encoded), given as it is to each newcomer until it changes."""
        self.online: Counter[int] = Counter()
        """The sockets of each person (not bot) online here."""
        self.cluster: Cluster | None = None
        """Set when several processes share the portal over Redis (``TRESET_REDIS_URL``)."""
        self._last_tick = time.monotonic()

    # ----- connections -------------------------------------------------------------------

    async def connect(self, conn: Connection) -> None:
        """Register ``conn``, greet it, and give it back every seat of its user that no live connection holds.

        A seat another live connection holds stays there: ``welcome.seats`` lists it with
        ``elsewhere: true`` and ``open_table`` takes it over.
        """
        self.conns.add(conn)
        if conn.role != "bot":
            self.online[conn.user_id] += 1
        if self.cluster:
            self.cluster.connected(conn)
        mine: list[tuple[Table, int, bool]] = []
        for table in list(self.tables.values()):
            seat = table.seat_of(conn.user_id)
            s = table.seats[seat] if seat is not None else None
            if seat is None or s is None or s.is_bot or table.status == "closed":
                continue
            holder = self.seat_conn.get((table.id, seat))
            mine.append((table, seat, holder is not None and not holder.closed))
        seats = [SeatOut.model_validate({"table_id": t.id, "seat": seat, "status": t.status, "elsewhere": held})
                 for t, seat, held in mine]
        remote = self.cluster.remote_seats(conn.user_id) if self.cluster else []
        seats += [SeatOut.model_validate({"table_id": t, "seat": seat, "status": status, "elsewhere": False})
                  for t, seat, status in remote]
        await conn.send(out(Welcome(user=UserOut(id=conn.user_id, username=conn.username,
                                                 role=conn.role), seats=seats)))  # type: ignore[arg-type]
        conn.lobby_seen = self.lobby_text if self.lobby_text and not self.lobby_dirty else json.dumps(self._lobby())
        await conn.send_encoded(conn.lobby_seen)
        for table, seat, held in mine:
            if not held:
                self._attach(conn, table, seat)
                await self._broadcast(table, {"kind": "reconnect", "seat": seat})
        for table_id, _, _ in remote:  # their owners seat it again there, if no live socket holds the seat
            assert self.cluster is not None
            self.cluster.reclaim(conn, table_id)
        self.online_dirty = True

    def _attach(self, conn: Connection, table: Table, seat: int) -> None:
        self.seat_conn[(table.id, seat)] = conn
        conn.seats.add((table.id, seat))
        s = table.seats[seat]
        assert s is not None
        s.connected = True
        s.disconnected_at = None

    async def disconnect(self, conn: Connection) -> None:
        """Forget ``conn``: its seats start their reconnect grace, its bot turns move on."""
        conn.closed = True
        if conn in self.conns and conn.role != "bot":
            self.online[conn.user_id] -= 1
            if self.online[conn.user_id] <= 0:
                del self.online[conn.user_id]
            self.online_dirty = True
        self.conns.discard(conn)
        for table_id, seat in list(conn.seats):
            if self.seat_conn.get((table_id, seat)) is conn:
                del self.seat_conn[(table_id, seat)]
                table = self.tables.get(table_id)
                s = table.seats[seat] if table else None
                if table and s:
                    async with table.lock:
                        s.connected = False
                        s.disconnected_at = time.time()
                        await self._broadcast(table, {"kind": "disconnect", "seat": seat})
        for table_id in conn.watching:
            self.watchers.get(table_id, set()).discard(conn)
            if table_id in self.tables:
                self.tables[table_id].spectators = len(self.watchers.get(table_id, ()))
        await self.analysis.connection_lost(conn)  # its analyses go to another bot
        if self.cluster and conn.node is None:
            await self.cluster.disconnected(conn)
        for table_id, turn in self.pool.remove(conn):  # its turns go to another bot
            table = self.tables.get(table_id)
            if table is not None:
                async with table.lock:
                    if self.pool.turns.get(table_id) == (turn, None):
                        await self._dispatch_bot(table)
        if conn.role == "bot":
            await self._lobby_changed()  # the bot levels served may have changed

    async def handle(self, conn: Connection, raw: str) -> None:
        """Handle one raw message from ``conn``; bad input gets an ``error`` and changes nothing.

        Whatever arrives (any JSON, not JSON, nested thousands deep, a list as ``type``) is
        answered with a documented error or handled; none reaches the log as a traceback.
        """
        if conn.role != "bot":  # bots are trusted accounts whose pace the server sets (bot_turn)
            if conn.rate is None:
                conn.rate = TokenBucket(self.settings.ws_rate_per_s, self.settings.ws_rate_burst)
            if not conn.rate.take():
                conn.limited += 1
                await conn.send(error("rate_limited", "you are sending messages too fast", None,
                                      {"retry_after_ms": int(conn.rate.wait() * 1000) + 1}))
                return
            conn.limited = 0
        # Bots send analyses (tens of KB); people's messages stay small.
        limit = self.settings.max_bot_message_bytes if conn.role == "bot" else self.settings.max_message_bytes
        if len(raw.encode()) > limit:
            conn.oversize += 1
            await conn.send(error("too_large", f"messages are limited to {limit} bytes", None, {"limit": limit}))
            return
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
            await conn.send(error("bad_json", "the message is not valid JSON (or nested too deeply)"))
            return
        kind = data.get("type") if isinstance(data, dict) else None
        if not isinstance(kind, str) or kind not in CLIENT_TYPES:
            shown = repr(kind)[:40] if isinstance(kind, str) else type(kind).__name__
            await conn.send(error("bad_message", f"unknown message type {shown}", None))
            return
        try:
            msg = CLIENT_MESSAGE.validate_python(data)
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(p) for p in first["loc"][1:])[:80] or "message"
            await conn.send(error("bad_message", f"{kind}: {where}: {first['msg'][:200]}", kind))
            return
        except RecursionError:  # a field of free JSON (an analysis) nested too deeply to check
            await conn.send(error("bad_message", f"{kind}: nested too deeply", kind))
            return
        handler = {
            CreateTable: self._create, JoinTable: self._join, WatchTable: self._open, OpenTable: self._open,
            LeaveTable: self._leave,
            Play: self._play, Rematch: self._rematch, Chat: self._chat, Ping: self._ping, BotHello: self._bot_hello,
            AnalysisReport: self._analysis_report,
        }[type(msg)]
        try:
            if self.cluster:  # after a pause, know which tables are still this process's before acting
                await self.cluster.ensure_leases()
            if self.cluster and conn.node is None and await self._forwarded(conn, msg, raw):
                return
            if (self.cluster and conn.node is not None and isinstance(msg, (*TABLE_COMMANDS, Chat))
                    and msg.table_id not in self.tables and await self.cluster.reroute(conn, msg.table_id, raw)):
                return  # a command that waited here while this process could not run: its table moved on
            table = self.tables.get(msg.table_id) if isinstance(msg, TABLE_COMMANDS) else None
            if table is None:
                await handler(conn, msg)  # type: ignore[operator]
            else:
                async with table.lock:  # the handler looks the table up again: it may have closed meanwhile
                    await handler(conn, msg)  # type: ignore[operator]
        except TableLost as lost:  # another process serves the table now: the command goes there
            if self.cluster is None or not await self.cluster.reroute(conn, lost.table_id, raw):
                await conn.send(table_unavailable(lost.table_id, kind))
        except Exception:
            # E.g. the database refused a commit: the move was not applied, so the game is unchanged.
            log.exception("handling %s failed", kind)
            await conn.send(error("internal", "the server could not handle this message; try again", kind))

    async def _forwarded(self, conn: Connection, msg: Any, raw: str) -> bool:
        """Send ``msg`` to the process that owns its table (or gave out its analysis); False if that is this one."""
        assert self.cluster is not None
        target = msg.table_id if isinstance(msg, (*TABLE_COMMANDS, Chat)) else None
        if target is not None and target not in self.tables:
            return await self.cluster.forward(conn, target, raw)
        if isinstance(msg, AnalysisReport):
            return self.cluster.forward_report(conn, msg.job, raw)
        return False

    # ----- lobby and seats ---------------------------------------------------------------

    def _lobby(self) -> dict[str, Any]:
        lines = [t.summary() for t in self.tables.values() if t.opponent != "invite"]
        if self.cluster:
            lines += self.cluster.remote_summaries()
        newest = sorted(lines, key=lambda t: -t["created_at"])
        tables = ([t for t in newest if t["status"] == "waiting"][:LOBBY_LIMIT]
                  + [t for t in newest if t["status"] == "playing"][:LOBBY_LIMIT])
        online = len(self.online) + (self.cluster.remote_online if self.cluster else 0)
        return out(Lobby(tables=tables, online=online, bot_levels=self.pool.levels_served(),
                         bot_ratings=self.pool.ratings))

    async def _lobby_changed(self) -> None:
        # Coalesced: the clock sends at most one lobby update every LOBBY_EVERY_S.
        self.lobby_dirty = True

    async def _send_lobby(self) -> None:
        self.lobby_dirty = self.online_dirty = False
        self.lobby_sent_at = time.monotonic()
        text = self.lobby_text = json.dumps(self._lobby())  # encoded once for everyone
        # Players in a running deal do not need the lobby; they get it when they come back.
        busy = {c for (t, _), c in self.seat_conn.items() if t in self.tables and self.tables[t].status == "playing"}
        if self.cluster:
            busy |= self.cluster.playing_elsewhere()
        # Those who saw this very lobby last get nothing (a private table's end changes no one's lobby).
        targets = [c for c in self.conns if c.role != "bot" and c not in busy and c.lobby_seen != text]
        for c in targets:
            c.lobby_seen = text
        await asyncio.gather(*(c.send_encoded(text) for c in targets))

    async def _create(self, conn: Connection, msg: CreateTable) -> None:
        if conn.role == "bot":
            await conn.send(error("bad_message", "bots do not open tables", msg.type))
            return
        if await self._over_table_limit(conn, msg.type, waiting=msg.opponent != "bot"):
            return
        level = None
        if msg.opponent == "bot":
            level = msg.bot_level or "normal"
            if level not in self.offered_levels():
                await conn.send(error("bad_message", f"unknown bot level {level!r}", msg.type))
                return
            if not self.pool.serves(level):
                await conn.send(error("no_bot", f"no bot is connected for level {level!r}; try again later",
                                      msg.type, {"level": level}))
                return
        table = Table(id=secrets.token_hex(4), variant=Variant(msg.variant), opponent=msg.opponent,
                      bot_level=level, invite=secrets.token_urlsafe(8) if msg.opponent == "invite" else None)
        table.seats[0] = Seat(conn.user_id, conn.username, is_bot=False)
        if level is not None:
            table.seats[1] = await self._bot_seat(level)  # before the table is listed: a failure leaves none
        if self.cluster:  # the lease first: a table listed here is renewed as this process's
            await self.cluster.own(table)
        self.tables[table.id] = table
        self._attach(conn, table, 0)
        if level is not None:
            async with table.lock:
                await self._start_deal(table)
        else:
            await self._send_table(conn, table, 0, None)
        await self._lobby_changed()

    async def _bot_seat(self, level: str, second: bool = False) -> Seat:
        player = await self.store.bot_account(f"bot-{level}" + ("-2" if second else ""))
        return Seat.bot(player.user_id, player.username)

    async def start_bot_series(self, *, level_a: str, level_b: str, games: int, variant: Variant) -> Table:
        """Open a bot-versus-bot table that plays ``games`` deals (every move logged as usual)."""
        for level in (level_a, level_b):
            if level not in self.offered_levels():
                raise ValueError(f"unknown bot level {level!r}")
        if not self.pool.serves(level_a) or not self.pool.serves(level_b):
            raise LookupError("no bot is connected for one of these levels")
        table = Table(id=secrets.token_hex(4), variant=variant, opponent="bot", bot_level=f"{level_a} vs {level_b}",
                      series_left=games - 1)
        table.seats[0] = await self._bot_seat(level_a)
        table.seats[1] = await self._bot_seat(level_b, second=level_a == level_b)
        if self.cluster:
            await self.cluster.own(table)
        self.tables[table.id] = table
        async with table.lock:
            await self._start_deal(table)
        await self._lobby_changed()
        return table

    async def _join(self, conn: Connection, msg: JoinTable) -> None:
        table = self.tables.get(msg.table_id)
        if table is None or table.status == "closed":
            await conn.send(_no_table(msg.table_id, msg.type))
            return
        if table.seat_of(conn.user_id) is not None:
            await conn.send(error("bad_message", "you are already seated at this table", msg.type))
            return
        if table.invite is not None and msg.invite != table.invite:
            await conn.send(error("bad_invite", "this table is private: the invite code is wrong", msg.type,
                                  {"table_id": table.id}))
            return
        free = [i for i, s in enumerate(table.seats) if s is None]
        if not free or conn.role == "bot":
            await conn.send(error("table_full", "both seats are taken; you may watch", msg.type, {"table_id": table.id}))
            return
        if await self._over_table_limit(conn, msg.type, waiting=False):
            return
        seat = free[0]
        table.seats[seat] = Seat(conn.user_id, conn.username, is_bot=False)
        self._attach(conn, table, seat)
        try:
            await self._start_deal(table)
        except Exception:  # the deal could not be stored: the joiner is not seated (and may join again)
            if self.tables.get(table.id) is table:
                table.seats[seat] = None
            self.seat_conn.pop((table.id, seat), None)
            conn.seats.discard((table.id, seat))
            raise
        await self._lobby_changed()

    async def _open(self, conn: Connection, msg: OpenTable | WatchTable) -> None:
        """Seat ``conn`` at its user's seat (taking it over from another connection), or let it watch."""
        table = self.tables.get(msg.table_id)
        if table is None or table.status == "closed":
            await conn.send(_no_table(msg.table_id, msg.type))
            return
        seat = table.seat_of(conn.user_id)
        s = table.seats[seat] if seat is not None else None
        if seat is None or s is None or s.is_bot:
            # A private table is for those it was shared with: its players need no code, others the invite.
            if table.invite is not None and not secrets.compare_digest(msg.invite or "", table.invite):
                await conn.send(error("bad_invite", "this table is private: the invite code is wrong", msg.type,
                                      {"table_id": table.id}))
                return
            await self._watch(conn, table)
            return
        key = (table.id, seat)
        previous = self.seat_conn.get(key)
        was_away = not s.connected
        self._unwatch(conn, table.id)
        if previous is not None and previous is not conn:
            previous.seats.discard(key)
        self._attach(conn, table, seat)  # before any await: from here on only ``conn`` hears the seat's view
        if previous is not None and previous is not conn:
            await previous.send(out(SeatMoved(table_id=table.id)))
        if was_away:
            await self._broadcast(table, {"kind": "reconnect", "seat": seat})
        else:
            await self._send_table(conn, table, seat, None)

    async def _over_table_limit(self, conn: Connection, ref: str, *, waiting: bool) -> bool:
        """Refuse (``too_many_tables``) a table past the user's limits; return True if refused.

        ``waiting``: the new table will wait for an opponent (else its deal starts at once).
        """
        statuses = [t.status for t in self.tables.values() if t.seat_of(conn.user_id) is not None]
        if self.cluster:  # and the user's tables at the other processes (as of the last look, a second ago)
            statuses += [status for _, _, status in self.cluster.remote_seats(conn.user_id)]
        waiting_now = statuses.count("waiting")
        playing_now = statuses.count("playing")
        limit, count, kind = ((self.settings.max_waiting_tables, waiting_now, "waiting") if waiting
                              else (self.settings.max_playing_tables, playing_now, "playing"))
        if count < limit:
            return False
        await conn.send(error("too_many_tables", f"you have {count} {kind} tables already (at most {limit})", ref,
                              {"limit": limit, "status": kind}))
        return True

    async def _watch(self, conn: Connection, table: Table) -> None:
        self.watchers.setdefault(table.id, set()).add(conn)
        conn.watching.add(table.id)
        table.spectators = len(self.watchers[table.id])
        await self._send_table(conn, table, None, None)

    def _unwatch(self, conn: Connection, table_id: str) -> None:
        conn.watching.discard(table_id)
        self.watchers.get(table_id, set()).discard(conn)
        if table_id in self.tables:
            self.tables[table_id].spectators = len(self.watchers.get(table_id, ()))

    async def _leave(self, conn: Connection, msg: LeaveTable) -> None:
        table = self.tables.get(msg.table_id)
        if table is None:
            await conn.send(_no_table(msg.table_id, msg.type))
            return
        if msg.table_id in conn.watching:
            self._unwatch(conn, table.id)
            await conn.send(out(Left(table_id=table.id)))
            return
        seat = table.seat_of(conn.user_id)
        s = table.seats[seat] if seat is not None else None
        holder = self.seat_conn.get((table.id, seat)) if seat is not None else None
        # A connection whose seat moved to another one of the user's may not leave for it.
        if seat is None or s is None or s.is_bot or (holder is not None and holder is not conn):
            await conn.send(_not_seated(msg.table_id, msg.type))
            return
        def detach() -> None:  # the leaver hears only ``left``, not the forfeit it caused
            self.seat_conn.pop((table.id, seat), None)
            conn.seats.discard((table.id, seat))

        if table.status == "playing":
            await self._end_deal(table, loser=seat, reason="left", then=detach)  # stored first: may refuse
        detach()
        await self._vacate(table, seat)
        await conn.send(out(Left(table_id=table.id)))

    async def _vacate(self, table: Table, seat: int) -> None:
        conn = self.seat_conn.pop((table.id, seat), None)
        if conn:
            conn.seats.discard((table.id, seat))
        table.seats[seat] = None
        table.rematch = [False, False]
        if not any(s is not None and not s.is_bot for s in table.seats):
            table.status = "closed"
            self.tables.pop(table.id, None)
            self.pool.turns.pop(table.id, None)
            for watcher in self.watchers.pop(table.id, set()):  # a closed table keeps no one watching
                watcher.watching.discard(table.id)
        else:
            if table.status != "playing":
                table.status = "waiting"
            await self._broadcast(table, {"kind": "leave", "seat": seat})
        await self._lobby_changed()

    # ----- deals -------------------------------------------------------------------------

    async def _start_deal(self, table: Table) -> None:
        seats = table.seats
        assert seats[0] is not None and seats[1] is not None
        first = table.next_first_leader
        deal = Deal.new(table.variant, first)  # CSPRNG shuffle; the deck stays on the server
        new = NewGame(table_id=table.id, deal_number=table.deal_number + 1, variant=table.variant.value,
                      opponent=table.opponent, players=(seats[0].user_id, seats[1].user_id),
                      bot_level=table.bot_level, first_leader=first, deck=list(deal.deck))
        # A table's first deal takes its fencing token in the same write (token 0 until then: nothing to guard).
        table.game_id, table.fence = await self._stored(table, self.store.start_game(new, fence=table.fenced))
        table.next_first_leader = 1 - first
        table.deal = deal
        table.deal_number += 1
        table.status = "playing"
        table.result = None
        table.rematch = [False, False]
        table.deadline = time.time() + self.settings.move_timeout_s
        await self._broadcast(table, {"kind": "start"})
        await self._dispatch_bot(table)

    async def _play(self, conn: Connection, msg: Play) -> None:
        table = self.tables.get(msg.table_id)
        if table is None:
            await conn.send(_no_table(msg.table_id, msg.type))
            return
        if conn.is_bot:
            pending = self.pool.turns.get(table.id)
            if pending is None or (msg.turn is not None and msg.turn != pending[0]):
                log.info("dropped a stale bot answer for %s (turn %s, pending %s)", table.id, msg.turn, pending)
                return  # a stale answer: the turn moved on (or went to another bot)
            to_move = table.deal.to_move if table.deal is not None else 0
            seat_of_bot = table.seats[to_move]
            seat = to_move if seat_of_bot is not None and seat_of_bot.is_bot else None
        else:
            seat = table.seat_of(conn.user_id)
            if seat is not None and self.seat_conn.get((table.id, seat)) is not conn:
                seat = None
        if seat is None:
            await conn.send(_not_seated(table.id, msg.type))
            return
        deal = table.deal
        if deal is None or table.status != "playing":
            await conn.send(error("game_over", "no deal is being played at this table", msg.type))
            return
        try:
            card = parse_card(msg.card)
        except CardError as exc:
            await conn.send(error("illegal_card", str(exc), msg.type, {"card": msg.card, "reason": "bad_card"}))
            return
        try:
            deal.check_move(card, seat)
        except IllegalMoveError as exc:
            await conn.send(_refusal(exc, card, deal, msg.type))
            return
        await self._apply(table, seat, card)

    async def _stored(self, table: Table, write: Awaitable[T]) -> T:
        """Await a write for ``table``; if its fence was refused, drop the table at once and raise :class:`TableLost`.

        A refused fence means another process took the table while this one could not run: nothing
        more may be told, timed or ended here (the new owner has the deal as stored).
        """
        try:
            return await write
        except FenceRefused:
            self.lose(table.id)
            raise TableLost(table.id) from None

    def lose(self, table_id: str) -> None:
        """Forget a table another process serves now, telling no one (they hear from the new owner)."""
        if self.cluster is not None:
            self.cluster.drop(table_id)
            return
        table = self.tables.pop(table_id, None)  # one process alone: a second one on the same database took it
        if table is not None:
            log.warning("table %s: the store refused this process's fence; dropped", table_id)
            for seat in (0, 1):
                conn = self.seat_conn.pop((table_id, seat), None)
                if conn is not None:
                    conn.seats.discard((table_id, seat))
            for conn in self.watchers.pop(table_id, set()):
                conn.watching.discard(table_id)
            self.pool.turns.pop(table_id, None)

    def _move_row(self, table: Table, seat: int, card: int) -> dict[str, Any]:
        deal = table.deal
        s = table.seats[seat]
        assert deal is not None and table.game_id is not None and s is not None
        return {"game_id": table.game_id, "user_id": s.user_id, "move_number": table.move_number,
                "variant": table.variant.value, **move_fields(deal, seat, card)}

    async def _apply(self, table: Table, seat: int, card: int) -> None:
        """Store ``seat`` playing ``card`` (checked legal), then advance the deal and tell everyone.

        The caller holds ``table.lock``. If the store refuses, this raises before anything changed.
        """
        deal = table.deal
        assert deal is not None
        row = self._move_row(table, seat, card)
        end = None
        if deal.last_card:  # the end is stored with the move: play it on a copy first
            probe = deal.copy()
            probe.play(card, seat)
            outcome = probe.outcome()
            end = self._end_record(table, outcome.points, outcome.winner, "finished", moves=table.move_number + 1)
        try:  # the move is durable before anyone is told of it
            await self._stored(table, self.store.record_move(row, end, fence=table.fenced))
        except TableLost:
            raise
        except Exception:
            mover = table.seats[seat]
            if mover is not None and mover.is_bot:  # the bot is asked again once the store may be back
                table.bot_retry_at = time.time() + BOT_RETRY_S
            await self._resync(table)
            raise
        if end is not None:  # the totals and ratings, apart from the move writer (never holding up other tables)
            assert table.game_id is not None
            await self.store.settle(table.game_id)
        trick = deal.play(card, seat)
        self.pool.turns.pop(table.id, None)
        table.bot_retry_at = None
        table.deadline = time.time() + self.settings.move_timeout_s
        event: dict[str, Any] = {"kind": "play", "seat": seat, "card": card_name(card)}
        if trick is not None:
            event = {"kind": "trick", "seat": seat, "card": card_name(card), "trick": trick_to_dict(trick)}
        if deal.is_over:
            outcome = deal.outcome()
            self._close_deal(table, outcome.points, outcome.winner, "finished", analyse=end is not None and end.analyse)
            await self._broadcast(table, event)
            await self._broadcast(table, {"kind": "end"})
            await self._lobby_changed()
            await self._dispatch_waiting()
            return
        await self._broadcast(table, event)
        await self._dispatch_waiting()  # turns that waited for room go first
        await self._dispatch_bot(table)

    def _end_record(self, table: Table, points: tuple[int, int], winner: int, reason: str, *, moves: int
                    ) -> GameEnd:
        """Return how the deal ends, after ``moves`` cards (its analysis is queued with it if wanted)."""
        assert table.game_id is not None and table.seats[0] and table.seats[1]
        bots_only = all(s is not None and s.is_bot for s in table.seats)
        return GameEnd(game_id=table.game_id, points=points, winner=winner, reason=reason,
                       variant=table.variant.value, players=(table.seats[0].user_id, table.seats[1].user_id),
                       moves=moves, analyse=self.analysis.wanted(bots_only=bots_only, moves=moves))

    def _close_deal(self, table: Table, points: tuple[int, int], winner: int, reason: str, *, analyse: bool) -> None:
        table.status = "finished"
        table.deadline = None
        table.result = table.result_of(points, winner, reason)
        table.match_wins[winner] += 1
        if analyse and table.game_id is not None:
            self.analysis.deal_ended(table.game_id)
        table.rematch = [bool(s and s.is_bot) for s in table.seats]
        self.pool.turns.pop(table.id, None)
        if all(table.rematch) and table.series_left > 0:
            table.series_left -= 1
            task = asyncio.get_running_loop().create_task(self._next_in_series(table))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _next_in_series(self, table: Table) -> None:
        async with table.lock:
            if table.status == "finished" and self.tables.get(table.id) is table:
                try:
                    await self._start_deal(table)
                except Exception:
                    log.exception("the next deal of series %s could not start", table.id)

    async def _end_deal(self, table: Table, *, loser: int, reason: str, then: Callable[[], None] | None = None,
                        cause: str | None = None) -> None:
        """End the deal by forfeit: ``loser`` ran out of time or left; it counts as a loss.

        The end is stored first (if the store refuses, this raises and nothing changed); ``then``
        runs after that, before anyone is told. ``cause`` (default ``reason``) tells the players why:
        ``"left"`` (clicked Leave), ``"connection"`` (away past the grace) or ``"timeout"``.
        """
        deal = table.deal
        assert deal is not None
        points = deal.final_points()
        end = self._end_record(table, points, 1 - loser, reason, moves=table.move_number)
        await self._stored(table, self.store.end_game(end, fence=table.fenced))
        await self.store.settle(end.game_id)
        if then is not None:
            then()
        self._close_deal(table, points, 1 - loser, reason, analyse=end.analyse)
        if table.result is not None:
            table.result["cause"] = cause or reason
        await self._broadcast(table, {"kind": "end", "reason": reason, "seat": loser, "cause": cause or reason})
        await self._lobby_changed()
        await self._dispatch_waiting()

    async def _rematch(self, conn: Connection, msg: Rematch) -> None:
        table = self.tables.get(msg.table_id)
        seat = table.seat_of(conn.user_id) if table else None
        if table is None or seat is None:
            await conn.send(_not_seated(msg.table_id, msg.type))
            return
        if table.status != "finished":
            await conn.send(error("bad_message", "a rematch is possible once the deal is over", msg.type))
            return
        table.rematch[seat] = True
        if all(table.rematch) and all(table.seats):
            await self._start_deal(table)
        else:
            await self._broadcast(table, {"kind": "rematch", "seat": seat})

    async def _chat(self, conn: Connection, msg: Chat) -> None:
        table = self.tables.get(msg.table_id)
        if table is None or (table.seat_of(conn.user_id) is None and msg.table_id not in conn.watching):
            await conn.send(_not_seated(msg.table_id, msg.type))
            return
        now = time.time()
        if now - conn.last_chat < 0.5:
            await conn.send(error("rate_limited", "you are sending messages too fast", msg.type))
            return
        conn.last_chat = now
        line = out(ChatLine.model_validate({"table_id": table.id, "from": conn.username, "text": msg.text.strip(),
                                            "at": int(now * 1000)}))
        await asyncio.gather(*(c.send(line) for c in self._audience(table)))

    async def _ping(self, conn: Connection, msg: Ping) -> None:
        await conn.send(out(Pong()))

    # ----- bots --------------------------------------------------------------------------

    async def _bot_hello(self, conn: Connection, msg: BotHello) -> None:
        if conn.role != "bot":
            await conn.send(error("bad_message", "only bot accounts may say bot_hello", msg.type))
            return
        await self.register_bot(conn, levels=msg.levels, capacity=msg.capacity, analysis=msg.analysis,
                                level_info=msg.level_info)
        if self.cluster and conn.node is None:
            await self.cluster.bot_hello(conn, msg)

    async def register_bot(self, conn: Connection, *, levels: list[str], capacity: int, analysis: int,
                           level_info: list[LevelInfo]) -> None:
        """Seat the bot ``conn`` (here or, as a proxy, at another process) for ``levels`` from now on."""
        self.pool.register(conn, levels=levels, capacity=capacity, analysis=analysis, level_info=level_info)
        await self.analysis.hello(conn)
        await self._dispatch_waiting()
        await self._lobby_changed()  # the lobby lists the bot levels served

    async def _analysis_report(self, conn: Connection, msg: AnalysisReport) -> None:
        if conn.role != "bot":
            await conn.send(error("bad_message", "only bots send analyses", msg.type))
            return
        await self.analysis.report(conn, msg)

    async def _dispatch_waiting(self) -> None:
        """Give waiting bot turns to bots that have room again (in the order the turns were asked)."""
        for table_id in self.pool.waiting():
            if table_id in self.tables:
                if not self.pool.has_room():
                    return
                await self._dispatch_bot(self.tables[table_id])

    def offered_levels(self) -> dict[str, int | None]:
        """Return the bot levels a table may ask for, with their per-move times (see :mod:`server.game.levels`)."""
        return self.pool.offered()

    async def _dispatch_bot(self, table: Table) -> None:
        deal = table.deal
        if deal is None or table.status != "playing":
            return
        seat = deal.to_move
        s = table.seats[seat]
        if s is None or not s.is_bot:
            return
        turn = table.move_number
        assert s.level is not None
        bot, served = self.pool.assign(table.id, turn, s.level)
        # No bot, no clock: a bot seat does not forfeit for want of a bot; the clock restarts with one.
        if bot is None:
            table.deadline = None
        elif table.deadline is None:
            table.deadline = time.time() + self.settings.move_timeout_s
        notice = (None if bot else NOTICE_BOTS_BUSY if served else NOTICE_NO_BOT)
        if notice != table.notice:
            table.notice = notice
            await self._broadcast(table, {"kind": "notice"})
        if bot is None:
            return
        table.bot_retry_at = time.time() + BOT_ANSWER_S
        state = state_from_view(view_of(deal, seat))
        remaining_ms = int(max(0.05, (table.deadline or time.time()) - time.time()) * 1000)
        await bot.send(out(BotTurn(table_id=table.id, turn=turn, level=s.level,
                                   time_ms=min(remaining_ms // 2, 5000), state=state.to_dict())))

    # ----- clocks ------------------------------------------------------------------------

    async def tick(self) -> None:
        """Forfeit a player whose move clock ran out, or who stayed away past the grace period.

        After a pause (the process stopped, or starved past ``PAUSE_S``) the tables this process
        lost are dropped first, and the clocks of the others move on by the time lost: it was nobody's.
        """
        lost = time.monotonic() - self._last_tick
        self._last_tick = time.monotonic()
        if self.cluster:
            await self.cluster.ensure_leases()
        if lost > PAUSE_S:
            log.warning("the clock could not run for %.1f s: clocks move on by that much", lost)
            self._shift_clocks(lost)
        now = time.time()
        for table in list(self.tables.values()):
            if table.lock.locked():  # a command is under way there (it restarts the clock); the next tick looks
                continue
            async with table.lock:
                try:
                    await self._tick_table(table, now)
                except TableLost:
                    pass
                except Exception:  # e.g. the store refused a forfeit: the next tick tries again
                    log.exception("the clock of table %s failed", table.id)

    def _shift_clocks(self, seconds: float) -> None:
        """Give every move clock and reconnect grace ``seconds`` more (time the process could not run)."""
        for table in self.tables.values():
            if table.deadline is not None:
                table.deadline += seconds
            for s in table.seats:
                if s is not None and s.disconnected_at is not None:
                    s.disconnected_at += seconds

    async def _tick_table(self, table: Table, now: float) -> None:
        if self.tables.get(table.id) is not table:
            return
        if table.bot_retry_at is not None and now >= table.bot_retry_at:
            table.bot_retry_at = None
            await self._dispatch_bot(table)
        if table.status == "playing" and table.deal is not None:
            if table.deadline is not None and now > table.deadline:
                await self._end_deal(table, loser=table.deal.to_move, reason="timeout")
                return
            for seat, s in enumerate(table.seats):
                if (s and not s.is_bot and s.disconnected_at is not None
                        and now - s.disconnected_at > self.settings.reconnect_grace_s):
                    await self._end_deal(table, loser=seat, reason="left", cause="connection")
                    break
        elif table.status in ("waiting", "finished"):
            gone = [i for i, s in enumerate(table.seats) if s and not s.is_bot and s.disconnected_at is not None
                    and now - s.disconnected_at > self.settings.reconnect_grace_s]
            for seat in gone:
                await self._vacate(table, seat)

    async def run_clock(self) -> None:
        """Tick forever (a background task of the app)."""
        settled_at = 0.0
        while True:
            await asyncio.sleep(0.2)
            try:
                await self.tick()
                await self.analysis.tick()
                if time.monotonic() - settled_at > SETTLE_EVERY_S:  # totals a lock or an outage held up
                    settled_at = time.monotonic()
                    await self.store.settle_pending()
                since = time.monotonic() - self.lobby_sent_at
                online_every_s = max(LOBBY_EVERY_S, len(self.conns) / ONLINE_SENDS_PER_S)
                if (self.lobby_dirty and since >= LOBBY_EVERY_S) or (self.online_dirty and since >= online_every_s):
                    await self._send_lobby()
            except Exception:
                log.exception("clock tick failed")

    # ----- restart -----------------------------------------------------------------------

    def restore(self) -> int:
        """Rebuild every unfinished game from the database (deck order + moves); return how many."""
        count = 0
        fences, games = self.store.claim(None)
        for game in games:
            self.restore_game(game, fence=fences[game.table_id])
            count += 1
        self.analysis.restore()  # queued and running analyses wait for the next analysis bot
        return count

    def restore_game(self, game: SavedGame, *, fence: int = 0, into: Table | None = None) -> Table:
        """Rebuild the table of one stored unfinished deal: its people away (their grace starts now), a fresh clock.

        ``fence``: the token this process took for the table (``GameStore.claim``). ``into``: a table
        this process has: only its deal (and clock) is replaced.
        """
        deal = Deal.from_deck(game.deck, Variant(game.variant), game.first_leader)
        for seat, card in game.moves:
            deal.play(card, seat)
        if into is not None:
            into.deal = deal
            into.deadline = time.time() + self.settings.move_timeout_s
            return into
        table = Table(id=game.table_id, variant=Variant(game.variant), opponent=game.opponent,
                      bot_level=game.bot_level, deal=deal, game_id=game.game_id, deal_number=game.deal_number,
                      status="playing", next_first_leader=1 - game.first_leader, fence=fence)
        now = time.time()
        for seat, user in enumerate(game.players):
            table.seats[seat] = (Seat.bot(user.user_id, user.username) if user.role == "bot" else
                                 Seat(user.user_id, user.username, is_bot=False, disconnected_at=now))
        table.deadline = now + self.settings.move_timeout_s  # the time the table was away is nobody's
        self.tables[table.id] = table
        return table

    async def _resync(self, table: Table) -> None:
        """After a refused write: if the store holds more of the deal than memory, take the stored deal.

        Only another process can have written it (one that served the table while this one stalled
        past its lease, ``server.game.cluster``); its players then see the deal as stored.
        """
        try:
            games = await asyncio.to_thread(self.store.unfinished_games, [table.id])
        except Exception:  # noqa: BLE001 - the store is down: the refusal stands, nothing to compare
            return
        saved = next((g for g in games if g.game_id == table.game_id), None)
        if saved is None or len(saved.moves) <= table.move_number:
            return
        log.warning("table %s: the store has %d moves, memory %d: taking the stored deal",
                    table.id, len(saved.moves), table.move_number)
        self.restore_game(saved, into=table)
        await self._broadcast(table, None)
        await self._dispatch_bot(table)

    async def reclaim(self, conn: Connection, table_id: str) -> None:
        """Seat ``conn`` again at its user's seat unless a live connection holds it; else let it watch a public table.

        What a process asks for a client that came back (``welcome``) or whose table moved to this process.
        """
        table = self.tables.get(table_id)
        if table is None or table.status == "closed":
            return
        async with table.lock:
            seat = table.seat_of(conn.user_id)
            s = table.seats[seat] if seat is not None else None
            if seat is None or s is None or s.is_bot:
                if table.invite is None and table_id not in conn.watching:
                    await self._watch(conn, table)
                return
            holder = self.seat_conn.get((table.id, seat))
            if holder is not None and holder is not conn and not holder.closed:
                return
            self._attach(conn, table, seat)
            await self._broadcast(table, {"kind": "reconnect", "seat": seat})

    async def resume_bots(self) -> None:
        """Ask for the bot moves of restored tables (they wait until a bot connects)."""
        for table in list(self.tables.values()):
            async with table.lock:
                await self._dispatch_bot(table)

    # ----- sending -----------------------------------------------------------------------

    async def resend_tables(self) -> None:
        """Send every table of this process to its players and spectators again (messages may have been lost).

        A bot turn under way is asked again too: the bot may never have had it (a late second answer is dropped).
        """
        for table in list(self.tables.values()):
            async with table.lock:
                if self.tables.get(table.id) is not table:
                    continue
                await self._broadcast(table, None)
                if table.id in self.pool.turns:
                    await self._dispatch_bot(table)

    def _audience(self, table: Table) -> list[Connection]:
        conns = [c for (t, _), c in self.seat_conn.items() if t == table.id]
        return conns + list(self.watchers.get(table.id, ()))

    async def _send_table(self, conn: Connection, table: Table, seat: int | None, event: dict[str, Any] | None) -> None:
        snapshot = table.snapshot(seat, with_invite=seat == 0, reconnect_grace_s=self.settings.reconnect_grace_s)
        await conn.send(table_message(snapshot, event))

    async def _broadcast(self, table: Table, event: dict[str, Any] | None) -> None:
        sends = []
        for seat in (0, 1):
            conn = self.seat_conn.get((table.id, seat))
            if conn is not None:
                sends.append(self._send_table(conn, table, seat, event))
        watchers = list(self.watchers.get(table.id, ()))
        if watchers:  # every spectator sees the same: encoded once
            snapshot = table.snapshot(None, reconnect_grace_s=self.settings.reconnect_grace_s)
            text = json.dumps(table_message(snapshot, event))
            sends.extend(conn.send_encoded(text) for conn in watchers)
        await asyncio.gather(*sends)

    def health(self) -> dict[str, Any]:
        """Return the bot pool's figures for ``/healthz``."""
        return {
            **self.pool.health(),
            "tables": len(self.tables),
            "connections": len(self.conns),
            **self.analysis.health(),
            **self.store.health(),
            **(self.cluster.health() if self.cluster else {}),
        }

    # ----- accounts ----------------------------------------------------------------------

    async def rename(self, *, user_id: int, username: str, role: str) -> None:
        """Show a user's new name and role (a guest who made an account) on its connections and seats."""
        if self.cluster:
            self.cluster.broadcast("rename", user_id=user_id, username=username, role=role)
        await self.rename_here(user_id=user_id, username=username, role=role)

    async def rename_here(self, *, user_id: int, username: str, role: str) -> None:
        """:meth:`rename` in this process only."""
        for conn in self.conns:
            if conn.user_id == user_id:
                conn.username, conn.role = username, role
        for table in list(self.tables.values()):
            seat = table.seat_of(user_id)
            s = table.seats[seat] if seat is not None else None
            if s is not None and not s.is_bot:
                s.username = username
                await self._broadcast(table, None)
        await self._lobby_changed()

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
        doomed = [c for c in list(self.conns) if c.token_hash in token_hashes and c.close_socket is not None]
        for conn in doomed:
            assert conn.close_socket is not None
            try:
                await conn.close_socket(4401, "signed out")
            except Exception:  # noqa: BLE001 - a socket already gone needs no closing
                log.info("closing a signed-out socket failed", exc_info=True)
            conn.closed = True
        return len(doomed)


TABLE_COMMANDS = (JoinTable, WatchTable, OpenTable, LeaveTable, Play, Rematch)
"""The commands that change a table: one at a time per table (``Table.lock``)."""
NOTICE_NO_BOT = {"code": "no_bot", "message": "no bot is connected: the bot's turn waits for one"}
NOTICE_BOTS_BUSY = {"code": "bots_busy", "message": "every bot is busy: the bot's turn waits for one"}


class TableLost(Exception):
    """The store refused this process's fence for a table: another process serves it now."""

    def __init__(self, table_id: str) -> None:
        """Name the table lost."""
        super().__init__(table_id)
        self.table_id = table_id


def _no_table(table_id: str, ref: str) -> dict[str, Any]:
    return error("no_table", f"no table {table_id!r}", ref, {"table_id": table_id})


def _not_seated(table_id: str, ref: str) -> dict[str, Any]:
    return error("not_seated", "you are not playing at this table", ref, {"table_id": table_id})


def _refusal(exc: IllegalMoveError, card: int, deal: Deal, ref: str) -> dict[str, Any]:
    """Return the error for a card the rules refused, with the card (and the suit led) as data."""
    name = card_name(card)
    if exc.reason == "not_your_turn":
        return error("not_your_turn", str(exc), ref, {"card": name})
    params: dict[str, Any] = {"card": name, "reason": exc.reason}
    if exc.reason == "must_follow" and deal.table:
        params["suit"] = SUITS[suit_of(deal.table[0])]
    return error("illegal_card", str(exc), ref, params)
