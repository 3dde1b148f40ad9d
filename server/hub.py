"""The game service: connections, tables, moves (persisted, then broadcast), clocks and bots.

Every handler validates with the rules package first and changes nothing on
bad input; every move is committed to the database before anyone hears of it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from sqlalchemy.orm import Session

from server import repos
from server.models import Game, Move, User
from server.movelog import move_fields
from server.protocol import (
    CLIENT_MESSAGE,
    CLIENT_TYPES,
    BotHello,
    BotTurn,
    Chat,
    ChatLine,
    CreateTable,
    JoinTable,
    LeaveTable,
    Lobby,
    Ping,
    Play,
    Pong,
    Rematch,
    TableMessage,
    UserOut,
    WatchTable,
    Welcome,
    error,
    out,
)
from server.settings import Settings
from server.tables import Seat, Table
from tressette import (
    CardError,
    Deal,
    IllegalMoveError,
    Variant,
    card_name,
    parse_card,
    state_from_view,
    trick_to_dict,
    view_of,
)

log = logging.getLogger("treset.hub")

SendFn = Callable[[str], Any]
MAX_OVERSIZE = 3


@dataclass(eq=False)
class Connection:
    """One WebSocket client: a person (or guest, admin) or a bot."""

    send_text: SendFn
    user_id: int
    username: str
    role: str
    seats: set[tuple[str, int]] = field(default_factory=set)
    watching: set[str] = field(default_factory=set)
    levels: list[str] = field(default_factory=list)
    capacity: int = 0
    oversize: int = 0
    last_chat: float = 0.0
    closed: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def is_bot(self) -> bool:
        """Return True for a bot account that said ``bot_hello``."""
        return self.role == "bot" and self.capacity > 0

    async def send(self, msg: dict[str, Any]) -> None:
        """Send ``msg``; a dead socket is ignored (its disconnect is handled elsewhere)."""
        if self.closed:
            return
        async with self.lock:
            try:
                await self.send_text(json.dumps(msg))
            except Exception:  # noqa: BLE001 - any transport failure means the client is gone
                self.closed = True


class Hub:
    """All live tables and connections of one server process."""

    def __init__(self, settings: Settings, sessions: Callable[[], Session]) -> None:
        """Create an empty hub persisting through ``sessions``."""
        self.settings = settings
        self.sessions = sessions
        self.tables: dict[str, Table] = {}
        self.conns: set[Connection] = set()
        self.seat_conn: dict[tuple[str, int], Connection] = {}
        self.watchers: dict[str, set[Connection]] = {}
        self.bots: list[Connection] = []
        self.bot_turns: dict[str, tuple[int, Connection | None]] = {}
        self.lobby_dirty = False

    # ----- connections -------------------------------------------------------------------

    async def connect(self, conn: Connection) -> None:
        """Register ``conn``, greet it, and give it back any seat it holds."""
        self.conns.add(conn)
        await conn.send(out(Welcome(user=UserOut(id=conn.user_id, username=conn.username,
                                                 role=conn.role))))  # type: ignore[arg-type]
        await conn.send(self._lobby())
        for table in list(self.tables.values()):
            seat = table.seat_of(conn.user_id)
            if seat is None or table.status == "closed":
                continue
            key = (table.id, seat)
            if key in self.seat_conn:
                await conn.send(error("seat_taken", f"you are already connected to table {table.id}", "connect"))
                continue
            self._attach(conn, table, seat)
            await self._broadcast(table, {"kind": "reconnect", "seat": seat})

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
        self.conns.discard(conn)
        for table_id, seat in list(conn.seats):
            if self.seat_conn.get((table_id, seat)) is conn:
                del self.seat_conn[(table_id, seat)]
                table = self.tables.get(table_id)
                s = table.seats[seat] if table else None
                if table and s:
                    s.connected = False
                    s.disconnected_at = time.time()
                    await self._broadcast(table, {"kind": "disconnect", "seat": seat})
        for table_id in conn.watching:
            self.watchers.get(table_id, set()).discard(conn)
            if table_id in self.tables:
                self.tables[table_id].spectators = len(self.watchers.get(table_id, ()))
        if conn in self.bots:
            self.bots.remove(conn)
            for table_id, (turn, bot) in list(self.bot_turns.items()):
                if bot is conn:
                    self.bot_turns[table_id] = (turn, None)
                    await self._dispatch_bot(self.tables[table_id])

    async def handle(self, conn: Connection, raw: str) -> None:
        """Handle one raw message from ``conn``; bad input gets an ``error`` and changes nothing."""
        if len(raw.encode()) > self.settings.max_message_bytes:
            conn.oversize += 1
            await conn.send(error("too_large", f"messages are limited to {self.settings.max_message_bytes} bytes"))
            return
        try:
            data = json.loads(raw)
        except ValueError:
            await conn.send(error("bad_json", "the message is not valid JSON"))
            return
        kind = data.get("type") if isinstance(data, dict) else None
        if kind not in CLIENT_TYPES:
            await conn.send(error("bad_message", f"unknown message type {kind!r}", str(kind) if kind else None))
            return
        try:
            msg = CLIENT_MESSAGE.validate_python(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"][1:]) or "message"
            await conn.send(error("bad_message", f"{kind}: {where}: {first['msg']}", kind))
            return
        handler = {
            CreateTable: self._create, JoinTable: self._join, WatchTable: self._watch, LeaveTable: self._leave,
            Play: self._play, Rematch: self._rematch, Chat: self._chat, Ping: self._ping, BotHello: self._bot_hello,
        }[type(msg)]
        try:
            await handler(conn, msg)  # type: ignore[operator]
        except Exception:
            # E.g. the database refused a commit: the move was not applied, so the game is unchanged.
            log.exception("handling %s failed", kind)
            await conn.send(error("internal", "the server could not handle this message; try again", kind))

    # ----- lobby and seats ---------------------------------------------------------------

    def _lobby(self) -> dict[str, Any]:
        tables = [t.summary() for t in self.tables.values() if t.status != "closed" and t.opponent != "invite"]
        return out(Lobby(tables=tables))

    async def _lobby_changed(self) -> None:
        # Coalesced: the clock sends at most one lobby update per tick.
        self.lobby_dirty = True

    async def _send_lobby(self) -> None:
        self.lobby_dirty = False
        msg = self._lobby()
        # Players in a running deal do not need the lobby; they get it when they come back.
        busy = {c for (t, _), c in self.seat_conn.items() if self.tables[t].status == "playing"}
        await asyncio.gather(*(c.send(msg) for c in list(self.conns) if c.role != "bot" and c not in busy))

    async def _create(self, conn: Connection, msg: CreateTable) -> None:
        if conn.role == "bot":
            await conn.send(error("bad_message", "bots do not open tables", msg.type))
            return
        level = None
        if msg.opponent == "bot":
            level = msg.bot_level or "normal"
            if level not in self.settings.levels:
                await conn.send(error("bad_message", f"unknown bot level {level!r}", msg.type))
                return
            if not any(level in b.levels for b in self.bots):
                await conn.send(error("no_bot", f"no bot is connected for level {level!r}; try again later",
                                      msg.type))
                return
        table = Table(id=secrets.token_hex(4), variant=Variant(msg.variant), opponent=msg.opponent,
                      bot_level=level, invite=secrets.token_urlsafe(8) if msg.opponent == "invite" else None)
        table.seats[0] = Seat(conn.user_id, conn.username, is_bot=False)
        self.tables[table.id] = table
        self._attach(conn, table, 0)
        if level is not None:
            table.seats[1] = self._bot_seat(level)
            await self._start_deal(table)
        else:
            await self._send_table(conn, table, 0, None)
        await self._lobby_changed()

    def _bot_seat(self, level: str, second: bool = False) -> Seat:
        with self.sessions() as session:
            name = f"bot-{level}" + ("-2" if second else "")
            user = repos.ensure_user(session=session, username=name, role="bot")
            session.commit()
            return Seat.bot(user.id, user.username)

    async def start_bot_series(self, *, level_a: str, level_b: str, games: int, variant: Variant) -> Table:
        """Open a bot-versus-bot table that plays ``games`` deals (every move logged as usual)."""
        for level in (level_a, level_b):
            if level not in self.settings.levels:
                raise ValueError(f"unknown bot level {level!r}")
        if not any(level_a in b.levels for b in self.bots) or not any(level_b in b.levels for b in self.bots):
            raise LookupError("no bot is connected for one of these levels")
        table = Table(id=secrets.token_hex(4), variant=variant, opponent="bot", bot_level=f"{level_a} vs {level_b}",
                      series_left=games - 1)
        table.seats[0] = self._bot_seat(level_a)
        table.seats[1] = self._bot_seat(level_b, second=level_a == level_b)
        self.tables[table.id] = table
        await self._start_deal(table)
        await self._lobby_changed()
        return table

    async def _join(self, conn: Connection, msg: JoinTable) -> None:
        table = self.tables.get(msg.table_id)
        if table is None or table.status == "closed":
            await conn.send(error("no_table", f"no table {msg.table_id!r}", msg.type))
            return
        if table.seat_of(conn.user_id) is not None:
            await conn.send(error("bad_message", "you are already seated at this table", msg.type))
            return
        if table.invite is not None and msg.invite != table.invite:
            await conn.send(error("bad_invite", "this table is private: the invite code is wrong", msg.type))
            return
        free = [i for i, s in enumerate(table.seats) if s is None]
        if not free or conn.role == "bot":
            await conn.send(error("table_full", "both seats are taken; you may watch", msg.type))
            return
        seat = free[0]
        table.seats[seat] = Seat(conn.user_id, conn.username, is_bot=False)
        self._attach(conn, table, seat)
        await self._start_deal(table)
        await self._lobby_changed()

    async def _watch(self, conn: Connection, msg: WatchTable) -> None:
        table = self.tables.get(msg.table_id)
        if table is None or table.status == "closed":
            await conn.send(error("no_table", f"no table {msg.table_id!r}", msg.type))
            return
        self.watchers.setdefault(table.id, set()).add(conn)
        conn.watching.add(table.id)
        table.spectators = len(self.watchers[table.id])
        await self._send_table(conn, table, None, None)

    async def _leave(self, conn: Connection, msg: LeaveTable) -> None:
        table = self.tables.get(msg.table_id)
        if table is None:
            await conn.send(error("no_table", f"no table {msg.table_id!r}", msg.type))
            return
        if msg.table_id in conn.watching:
            conn.watching.discard(msg.table_id)
            self.watchers.get(table.id, set()).discard(conn)
            table.spectators = len(self.watchers.get(table.id, ()))
            return
        seat = table.seat_of(conn.user_id)
        if seat is None:
            await conn.send(error("not_seated", "you are not at this table", msg.type))
            return
        if table.status == "playing":
            await self._end_deal(table, loser=seat, reason="left")
        await self._vacate(table, seat)

    async def _vacate(self, table: Table, seat: int) -> None:
        conn = self.seat_conn.pop((table.id, seat), None)
        if conn:
            conn.seats.discard((table.id, seat))
        table.seats[seat] = None
        table.rematch = [False, False]
        if not any(s is not None and not s.is_bot for s in table.seats):
            table.status = "closed"
            self.tables.pop(table.id, None)
            self.bot_turns.pop(table.id, None)
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
        with self.sessions() as session:
            game = repos.create_game(session=session, game=Game(
                table_id=table.id, deal_number=table.deal_number + 1, variant=table.variant.value,
                opponent=table.opponent, player0_id=seats[0].user_id, player1_id=seats[1].user_id,
                bot_level=table.bot_level, first_leader=first, deck=list(deal.deck), status="playing"))
            session.commit()
            table.game_id = game.id
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
            await conn.send(error("no_table", f"no table {msg.table_id!r}", msg.type))
            return
        if conn.is_bot:
            pending = self.bot_turns.get(table.id)
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
            await conn.send(error("not_seated", "you are not playing at this table", msg.type))
            return
        deal = table.deal
        if deal is None or table.status != "playing":
            await conn.send(error("game_over", "no deal is being played at this table", msg.type))
            return
        try:
            card = parse_card(msg.card)
            deal.check_move(card, seat)
        except CardError as exc:
            await conn.send(error("illegal_card", str(exc), msg.type))
            return
        except IllegalMoveError as exc:
            code = "not_your_turn" if "not your turn" in str(exc) else "illegal_card"
            await conn.send(error(code, str(exc), msg.type))
            return
        await self._apply(table, seat, card)

    def _move_row(self, table: Table, seat: int, card: int) -> Move:
        deal = table.deal
        assert deal is not None and table.game_id is not None and table.seats[seat] is not None
        return Move(game_id=table.game_id, user_id=table.seats[seat].user_id,  # type: ignore[union-attr]
                    move_number=table.move_number, variant=table.variant.value, **move_fields(deal, seat, card))

    async def _apply(self, table: Table, seat: int, card: int) -> None:
        deal = table.deal
        assert deal is not None
        row = self._move_row(table, seat, card)
        probe = deal.copy()
        probe.play(card, seat)
        with self.sessions() as session:
            repos.add_move(session=session, move=row)
            if probe.is_over:
                outcome = probe.outcome()
                self._finish_row(session, table, outcome.points, outcome.winner, "finished")
            session.commit()  # the move is durable before anyone is told of it
        trick = deal.play(card, seat)
        self.bot_turns.pop(table.id, None)
        table.deadline = time.time() + self.settings.move_timeout_s
        event: dict[str, Any] = {"kind": "play", "seat": seat, "card": card_name(card)}
        if trick is not None:
            event = {"kind": "trick", "seat": seat, "card": card_name(card), "trick": trick_to_dict(trick)}
        if deal.is_over:
            outcome = deal.outcome()
            self._close_deal(table, outcome.points, outcome.winner, "finished")
            await self._broadcast(table, event)
            await self._broadcast(table, {"kind": "end"})
            await self._lobby_changed()
            await self._dispatch_waiting()
            return
        await self._broadcast(table, event)
        await self._dispatch_waiting()  # turns that waited for room go first
        await self._dispatch_bot(table)

    def _finish_row(self, session: Session, table: Table, points: tuple[int, int], winner: int, reason: str) -> None:
        assert table.game_id is not None and table.seats[0] and table.seats[1]
        repos.finish_game(session=session, game_id=table.game_id, points=points, winner=winner, reason=reason,
                          variant=table.variant.value,
                          players=(table.seats[0].user_id, table.seats[1].user_id))

    def _close_deal(self, table: Table, points: tuple[int, int], winner: int, reason: str) -> None:
        table.status = "finished"
        table.deadline = None
        table.result = table.result_of(points, winner, reason)
        table.match_wins[winner] += 1
        table.rematch = [bool(s and s.is_bot) for s in table.seats]
        self.bot_turns.pop(table.id, None)
        if all(table.rematch) and table.series_left > 0:
            table.series_left -= 1
            asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self._start_deal(table)))

    async def _end_deal(self, table: Table, *, loser: int, reason: str) -> None:
        """End the deal by forfeit: ``loser`` ran out of time or left; it counts as a loss."""
        deal = table.deal
        assert deal is not None
        points = deal.final_points()
        with self.sessions() as session:
            self._finish_row(session, table, points, 1 - loser, reason)
            session.commit()
        self._close_deal(table, points, 1 - loser, reason)
        await self._broadcast(table, {"kind": "end", "reason": reason, "seat": loser})
        await self._lobby_changed()
        await self._dispatch_waiting()

    async def _rematch(self, conn: Connection, msg: Rematch) -> None:
        table = self.tables.get(msg.table_id)
        seat = table.seat_of(conn.user_id) if table else None
        if table is None or seat is None:
            await conn.send(error("not_seated", "you are not at this table", msg.type))
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
            await conn.send(error("not_seated", "you are not at this table", msg.type))
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
        conn.levels = [lv for lv in msg.levels if lv in self.settings.levels]
        conn.capacity = msg.capacity
        if conn not in self.bots:
            self.bots.append(conn)
        await self._dispatch_waiting()

    async def _dispatch_waiting(self) -> None:
        """Give waiting bot turns to bots that have room again (in the order the turns were asked)."""
        for table_id, (_, bot) in list(self.bot_turns.items()):
            if bot is None and table_id in self.tables:
                if not any(self.bot_load(b) < b.capacity for b in self.bots if not b.closed):
                    return
                await self._dispatch_bot(self.tables[table_id])

    def bot_load(self, bot: Connection) -> int:
        """Return how many bot tables ``bot`` is currently thinking for."""
        return sum(1 for _, b in self.bot_turns.values() if b is bot)

    async def _dispatch_bot(self, table: Table) -> None:
        deal = table.deal
        if deal is None or table.status != "playing":
            return
        seat = deal.to_move
        s = table.seats[seat]
        if s is None or not s.is_bot:
            return
        turn = table.move_number
        self.bot_turns.pop(table.id, None)  # this table's own turn does not count against a bot's capacity
        candidates = [b for b in self.bots if s.level in b.levels and not b.closed]
        free = [b for b in candidates if self.bot_load(b) < b.capacity]
        bot = min(free, key=self.bot_load) if free else None
        self.bot_turns[table.id] = (turn, bot)
        # No bot, no clock: a bot seat does not forfeit for want of a bot; the clock restarts with one.
        if bot is None:
            table.deadline = None
        elif table.deadline is None:
            table.deadline = time.time() + self.settings.move_timeout_s
        notice = (None if bot else "every bot is busy: the bot's turn waits for one" if candidates
                  else "no bot is connected: the bot's turn waits for one")
        if notice != table.notice:
            table.notice = notice
            await self._broadcast(table, {"kind": "notice"})
        if bot is None:
            return
        state = state_from_view(view_of(deal, seat))
        remaining_ms = int(max(0.05, (table.deadline or time.time()) - time.time()) * 1000)
        assert s.level is not None
        await bot.send(out(BotTurn(table_id=table.id, turn=turn, level=s.level,
                                   time_ms=min(remaining_ms // 2, 5000), state=state.to_dict())))

    # ----- clocks ------------------------------------------------------------------------

    async def tick(self) -> None:
        """Forfeit a player whose move clock ran out, or who stayed away past the grace period."""
        now = time.time()
        for table in list(self.tables.values()):
            if table.status == "playing" and table.deal is not None:
                if table.deadline is not None and now > table.deadline:
                    await self._end_deal(table, loser=table.deal.to_move, reason="timeout")
                    continue
                for seat, s in enumerate(table.seats):
                    if (s and not s.is_bot and s.disconnected_at is not None
                            and now - s.disconnected_at > self.settings.reconnect_grace_s):
                        await self._end_deal(table, loser=seat, reason="left")
                        break
            elif table.status in ("waiting", "finished"):
                gone = [i for i, s in enumerate(table.seats) if s and not s.is_bot and s.disconnected_at is not None
                        and now - s.disconnected_at > self.settings.reconnect_grace_s]
                for seat in gone:
                    await self._vacate(table, seat)

    async def run_clock(self) -> None:
        """Tick forever (a background task of the app)."""
        while True:
            await asyncio.sleep(0.2)
            try:
                await self.tick()
                if self.lobby_dirty:
                    await self._send_lobby()
            except Exception:
                log.exception("clock tick failed")

    # ----- restart -----------------------------------------------------------------------

    def restore(self) -> int:
        """Rebuild every unfinished game from the database (deck order + moves); return how many."""
        count = 0
        with self.sessions() as session:
            for game in repos.unfinished_games(session=session):
                deal = Deal.from_deck(game.deck, Variant(game.variant), game.first_leader)
                for move in repos.moves_of(session=session, game_id=game.id):
                    deal.play(move.card, move.seat)
                users = [session.get(User, uid) for uid in (game.player0_id, game.player1_id)]
                table = Table(id=game.table_id, variant=Variant(game.variant), opponent=game.opponent,
                              bot_level=game.bot_level, deal=deal, game_id=game.id, deal_number=game.deal_number,
                              status="playing", next_first_leader=1 - game.first_leader)
                now = time.time()
                for seat, user in enumerate(users):
                    assert user is not None
                    table.seats[seat] = (Seat.bot(user.id, user.username) if user.role == "bot" else
                                         Seat(user.id, user.username, is_bot=False, disconnected_at=now))
                table.deadline = now + self.settings.move_timeout_s
                self.tables[table.id] = table
                count += 1
        return count

    async def resume_bots(self) -> None:
        """Ask for the bot moves of restored tables (they wait until a bot connects)."""
        for table in list(self.tables.values()):
            await self._dispatch_bot(table)

    # ----- sending -----------------------------------------------------------------------

    def _audience(self, table: Table) -> list[Connection]:
        conns = [c for (t, _), c in self.seat_conn.items() if t == table.id]
        return conns + list(self.watchers.get(table.id, ()))

    async def _send_table(self, conn: Connection, table: Table, seat: int | None, event: dict[str, Any] | None) -> None:
        await conn.send(out(TableMessage(table=table.snapshot(seat, with_invite=seat == 0), event=event)))

    async def _broadcast(self, table: Table, event: dict[str, Any] | None) -> None:
        sends = []
        for seat in (0, 1):
            conn = self.seat_conn.get((table.id, seat))
            if conn is not None:
                sends.append(self._send_table(conn, table, seat, event))
        for conn in list(self.watchers.get(table.id, ())):
            sends.append(self._send_table(conn, table, None, event))
        await asyncio.gather(*sends)

    def health(self) -> dict[str, Any]:
        """Return the bot pool's figures for ``/healthz``."""
        live = [b for b in self.bots if not b.closed]
        return {
            "bots_connected": len(live),
            "bot_capacity": sum(max(0, b.capacity - self.bot_load(b)) for b in live),
            "bot_levels": sorted({lv for b in live for lv in b.levels}),
            "tables": len(self.tables),
            "connections": len(self.conns),
        }
