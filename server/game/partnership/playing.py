"""A four-player room's deal: dealt and stored, each card (with its declarations and signal) checked by the
rules, stored, then told; a leaver's seat taken by a bot; the deal's end and the match.

The path of a card is the two-player one (:mod:`server.game.playing`): checked by the rules package
(``tressette.partnership``), stored through the :class:`~server.game.records.GameStore` with the
table's fence, and only then played and told. A refusal changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from server.game.connection import Connection
from server.game.partnership.table import VARIANT_KEY, FourTable, default_level
from server.game.playing import BOT_RETRY_S, NEXT_DEAL_WAIT_S
from server.game.records import GameEnd, Leave, MatchDeal, MatchEnd, NewGame
from server.game.replies import not_seated
from server.game.room_common import RoomCore
from server.game.rooms import TableLost
from server.game.tables import Seat
from server.protocol import Play, error, table_message
from server.protocol_four import PartnershipBotTurn
from server.store.movelog import partnership_move_fields
from tressette import SUITS, CardError, IllegalMoveError, card_name, parse_card, suit_of
from tressette.partnership import (
    N_SEATS,
    Declaration,
    PartnershipDeal,
    PartnershipMatch,
    PartnershipMove,
    Signal,
    view_of_partnership,
)

log = logging.getLogger("treset.hub")

BAD_DECLARATION = {"declaration_not_allowed", "false_declaration"}
BAD_SIGNAL = {"signal_not_allowed", "false_signal"}
__all__ = ["NEXT_DEAL_WAIT_S", "PartnershipPlaying"]


class PartnershipPlaying(RoomCore[FourTable]):
    """One four-player table of this process and its deal (the rest of the room: :class:`~.room.FourRoom`)."""

    async def start_deal(self) -> None:
        """Deal (CSPRNG shuffle), store the new deal (and a new match's row), then tell the players."""
        table = self.table
        assert all(table.seats)
        match, match_id = table.match, table.match_id
        if table.target and (match is None or table.match_end is not None):  # a new match (a rematch's too)
            match, match_id = PartnershipMatch(table.target, table.next_leader), None
        first = match.next_leader if match is not None else table.next_leader
        deal = PartnershipDeal.new(first, options=table.options)
        new = NewGame(table_id=table.id, deal_number=table.deal_number + 1, variant=VARIANT_KEY,
                      opponent=table.opponent, players=tuple(s.user_id for s in table.seats if s is not None),
                      bot_level=table.bot_level, first_leader=first, deck=list(deal.deck),
                      match=MatchDeal(table.target, match_id, match.deals + 1, match.scores) if match else None,
                      options=table.options.to_dict())
        table.game_id, table.fence, table.match_id = await self.stored(self.store.start_game(new, fence=table.fenced))
        if match is not table.match:
            table.match, table.match_end = match, None
        table.deal = deal
        table.deal_number += 1
        table.status = "playing"
        table.result = None
        table.rematch = [False] * N_SEATS
        table.deadline = time.time() + self.settings.move_timeout_s
        await self.broadcast({"kind": "start"})
        await self.dispatch_bot()

    async def on_play(self, conn: Connection, msg: Play) -> None:
        """Check a card with its declarations and signal (a refusal changes nothing), then :meth:`apply` it."""
        table = self.table
        deal = table.deal
        if conn.is_bot:
            pending = self.rooms.pool.turns.get(table.id)
            if pending is None or (msg.turn is not None and msg.turn != pending[0]):
                log.info("dropped a stale bot answer for %s (turn %s, pending %s)", table.id, msg.turn, pending)
                return
            to_move = deal.to_move if deal is not None else 0
            s = table.seats[to_move]
            seat = to_move if s is not None and s.is_bot else None
            if s is not None and s.level and table.bot_asked:
                self.rooms.metrics.bot_answer.labels(s.level).observe(conn.received - table.bot_asked)
        else:
            seat = table.seat_of(conn.user_id)
            if seat is not None and self.seats.seat_conn.get((table.id, seat)) is not conn:
                seat = None
        if seat is None:
            await conn.send(not_seated(table.id, msg.type))
            return
        if deal is None or table.status != "playing":
            await conn.send(error("game_over", "no deal is being played at this table", msg.type))
            return
        try:
            card = parse_card(msg.card)
        except CardError as exc:
            await conn.send(error("illegal_card", str(exc), msg.type, {"card": msg.card, "reason": "bad_card"}))
            return
        try:
            declarations = tuple(Declaration.from_dict(d) for d in msg.declarations or ())
        except ValueError as exc:
            await conn.send(error("illegal_card", str(exc), msg.type, {"card": msg.card,
                                                                       "reason": "bad_declaration"}))
            return
        signal = None if msg.signal is None else Signal(msg.signal)
        try:
            deal.check_move(card, seat, declarations=declarations, signal=signal)
        except IllegalMoveError as exc:
            await conn.send(self.refusal(exc, card, msg.type))
            return
        await self.apply(seat, PartnershipMove(card, declarations, signal), received=conn.received)

    def refusal(self, exc: IllegalMoveError, card: int, ref: str) -> dict[str, Any]:
        """Return the error for a move the rules refused (``params.reason``: docs/protocol-four.md)."""
        name = card_name(card)
        if exc.reason == "not_your_turn":
            return error("not_your_turn", str(exc), ref, {"card": name})
        reason = ("bad_declaration" if exc.reason in BAD_DECLARATION else "bad_signal" if exc.reason in BAD_SIGNAL
                  else exc.reason)
        params: dict[str, Any] = {"card": name, "reason": reason}
        deal = self.table.deal
        if exc.reason == "must_follow" and deal is not None and deal.table:
            params["suit"] = SUITS[suit_of(deal.table[0])]
        if reason != exc.reason:
            params["detail"] = exc.reason
        return error("illegal_card", str(exc), ref, params)

    async def apply(self, seat: int, move: PartnershipMove, *, received: float = 0.0) -> None:
        """Store ``seat`` playing ``move`` (checked legal), then play it and tell everyone. The caller holds the lock."""
        received = received or time.perf_counter()
        table = self.table
        deal = table.deal
        s = table.seats[seat]
        assert deal is not None and table.game_id is not None and s is not None
        row = {"game_id": table.game_id, "user_id": s.user_id, "move_number": table.move_number,
               "variant": VARIANT_KEY, **partnership_move_fields(deal, seat, move)}
        end = None
        if table.move_number == 4 * 10 - 1:  # the last card: the end is stored with it
            probe = deal.copy()
            probe.play_move(move, seat)
            end = self.end_record(probe, "finished", moves=table.move_number + 1)
        try:  # the move is durable before anyone is told of it
            await self.stored(self.store.record_move(row, end, fence=table.fenced))
        except TableLost:
            raise
        except Exception:
            if s.is_bot:
                table.bot_retry_at = time.time() + BOT_RETRY_S
            raise
        self.rooms.metrics.move_stored(VARIANT_KEY, time.perf_counter() - received)
        trick = deal.play_move(move, seat)
        self.rooms.pool.turns.pop(table.id, None)
        table.bot_retry_at = None
        table.deadline = time.time() + self.settings.move_timeout_s
        event: dict[str, Any] = {"kind": "play", "seat": seat, "card": card_name(move.card),
                                 "declarations": [d.to_dict() for d in move.declarations],
                                 "signal": None if move.signal is None else move.signal.value}
        if trick is not None:
            event = {**event, "kind": "trick", "trick": trick.to_dict()}
        if deal.is_over:
            assert end is not None
            self.close_deal("finished", match=end.match)
            if end.analyse:  # queued in the same write as the end: taken up now, persons' deals first
                self.rooms.analysis.deal_ended(end.game_id)
            await self.broadcast(event)
            await self.store.settle(end.game_id)
            await self.broadcast({"kind": "end"})
            self.rooms.lobby_changed()
            await self.rooms.dispatch_waiting()
            await self.after_deal()
            return
        await self.broadcast(event)
        self.rooms.metrics.move_told(time.perf_counter() - received)
        await self.rooms.dispatch_waiting()
        await self.dispatch_bot()

    def end_record(self, deal: PartnershipDeal, reason: str, *, moves: int) -> GameEnd:
        """Return how the deal ends (``finished``: played out; ``abandoned``: every person left), with its match."""
        table = self.table
        assert table.game_id is not None
        if deal.is_over:
            outcome = deal.outcome()
            points, declared, winner = outcome.card_score, outcome.declared, outcome.winner
        else:
            declared = deal.declared_points()
            points, winner = (deal.points[0] // 3, deal.points[1] // 3), None
        match = None
        if table.match is not None and table.match_id is not None:
            if deal.is_over:
                after = table.match.after(deal.outcome())
                match = MatchEnd(table.match_id, after.scores, after.deals, after.winner,
                                 "finished" if after.is_over else None)
            else:
                match = MatchEnd(table.match_id, table.match.scores, table.match.deals + 1, None, reason)
        players = tuple(s.user_id if s else 0 for s in table.seats)
        bots_only = all(s is not None and s.is_bot for s in table.seats)
        return GameEnd(game_id=table.game_id, points=points, winner=winner, reason=reason, variant=VARIANT_KEY,
                       players=players, moves=moves, analyse=self.rooms.analysis.wanted(bots_only=bots_only, moves=moves),
                       match=match, declared=declared)

    def close_deal(self, reason: str, *, match: MatchEnd | None) -> None:
        """Mark the deal over (stored already) and take the match's record in."""
        table = self.table
        table.status = "finished"
        table.deadline = None
        table.result = table.result_of(reason)
        table.result["rated"] = table.match is None and reason == "finished" and not any(table.replaced)
        if match is not None and table.match is not None:
            before = table.match.scores
            table.match = PartnershipMatch(table.target, table.match.first_leader, match.scores, match.deals)
            if match.winner is not None or match.reason is not None:
                table.match_end = {"winner": match.winner, "margin": abs(match.scores[0] - match.scores[1]),
                                   "reason": match.reason or "finished", "rated": not any(table.replaced)}
            table.result["match"] = {"id": match.match_id, "before": list(before), "scores": list(match.scores),
                                     "deal": match.deals}
        table.rematch = [bool(s and s.is_bot) for s in table.seats]
        self.rooms.pool.turns.pop(table.id, None)

    async def after_deal(self) -> None:
        """Start the others' wait for the next deal of a match once someone is ready (bots are at once)."""
        table = self.table
        if table.match_going_on and any(table.rematch) and table.deadline is None:
            table.deadline = time.time() + NEXT_DEAL_WAIT_S
        if table.match_going_on and all(table.rematch) and all(table.seats):
            await self.start_deal()

    async def bot_takes_seat(self, seat: int, cause: str) -> None:
        """A person left a running deal or match (or ran out of time): a bot of the table's level takes the seat.

        The leaver's rated loss is stored first (and the deal and its match rate no one else).
        The caller holds the lock and detaches the person's connection.
        """
        table = self.table
        s = table.seats[seat]
        assert s is not None and not s.is_bot and table.game_id is not None
        opponents = [table.seats[(seat + 1) % N_SEATS], table.seats[(seat + 3) % N_SEATS]]
        await self.stored(self.store.leave_partnership(Leave(
            game_id=table.game_id, match_id=table.match_id, seat=seat, user_id=s.user_id,
            opponents=(opponents[0].user_id if opponents[0] else 0, opponents[1].user_id if opponents[1] else 0),
            cause=cause), fence=table.fenced))
        substitute = await self.bot_seat(self.substitute_level())
        self.seats.detach(table.id, seat)
        table.seats[seat] = substitute
        table.replaced[seat] = s.username
        if table.status == "finished":
            table.rematch[seat] = True
        else:  # the bot's own clock starts now
            table.deadline = time.time() + self.settings.move_timeout_s
        await self.broadcast({"kind": "bot_took_seat", "seat": seat, "replaced": s.username, "cause": cause})
        self.rooms.lobby_changed()
        if table.status == "playing":
            await self.dispatch_bot()
        else:
            await self.after_deal()

    async def bot_seat(self, level: str) -> Seat:
        """Return a bot seat of ``level`` with an account no other seat of the table uses (``bot-LEVEL-2``, ...)."""
        taken = {s.username for s in self.table.seats if s is not None}
        name = next(n for n in (f"bot-{level}", *(f"bot-{level}-{i}" for i in range(2, 9))) if n not in taken)
        player = await self.store.bot_account(name)
        return Seat.bot(player.user_id, player.username)

    def substitute_level(self) -> str:
        """Return the level of the bot that takes a leaver's seat: the table's, else :func:`default_level`."""
        table = self.table
        if table.bot_level:
            return table.bot_level
        return default_level(self.rooms.pool.partnership_served())

    async def dispatch_bot(self) -> None:
        """If a bot is to move, give the turn to a bot of its level with room (or note that it waits)."""
        await self.ask_bot(self._bot_turn, four=True)

    def _bot_turn(self, seat: int, turn: int, level: str, time_ms: int) -> PartnershipBotTurn:
        """Return the four-player ``bot_turn``: the seat's view, with the match."""
        table = self.table
        assert table.deal is not None
        state = view_of_partnership(table.deal, seat, table.match).to_dict()
        return PartnershipBotTurn(table_id=table.id, turn=turn, level=level, time_ms=time_ms, state=state)

    async def send_table(self, conn: Connection, seat: int | None, event: dict[str, Any] | None) -> None:
        """Send ``conn`` the table as ``seat`` (None: a spectator) sees it, with ``event``."""
        snapshot = self.table.snapshot(seat, with_invite=seat == 0,
                                       reconnect_grace_s=self.settings.reconnect_grace_s)
        await conn.send(table_message(snapshot, event))

    async def broadcast(self, event: dict[str, Any] | None) -> None:
        """Tell each seat its own view and every spectator the public one (encoded once for them all)."""
        table = self.table
        sends = []
        for seat in range(N_SEATS):
            conn = self.seats.seat_conn.get((table.id, seat))
            if conn is not None:
                sends.append(self.send_table(conn, seat, event))
        watchers = list(self.seats.watchers.get(table.id, ()))
        if watchers:
            snapshot = table.snapshot(None, reconnect_grace_s=self.settings.reconnect_grace_s)
            text = json.dumps(table_message(snapshot, event))
            sends.extend(c.send_encoded(text) for c in watchers)
        await asyncio.gather(*sends)
