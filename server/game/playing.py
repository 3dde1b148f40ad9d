"""A room's deal: dealt and stored, each card checked by the rules, stored, then told; its end and what follows.

A card's path: the router (:mod:`server.game.router`) hands :meth:`PlayingRoom.on_play` the parsed
message under the room's lock; the room checks it with the rules package (``tressette``), stores it
(:meth:`PlayingRoom.apply`, through the :class:`~server.game.records.GameStore` with the table's
fence) and only then advances the deal and tells its players (:meth:`PlayingRoom.broadcast`).
A refusal changes nothing; nothing changes before the store took it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from server.game.connection import Connection
from server.game.records import GameEnd, MatchDeal, MatchEnd, NewGame, SavedGame, aborted
from server.game.replies import not_seated, refusal
from server.game.room_common import RoomCore
from server.game.rooms import TableLost, deal_of
from server.game.tables import Table
from server.protocol import (
    BotTurn,
    Play,
    error,
    table_message,
)
from server.store.movelog import move_fields
from tressette import (
    CardError,
    Deal,
    IllegalMoveError,
    Match,
    MatchScore,
    card_name,
    parse_card,
    state_from_view,
    trick_to_dict,
    view_of,
)

log = logging.getLogger("treset.hub")

BOT_RETRY_S = 1.0
"""A bot's move the store could not take is asked for again after this long (the store may be back)."""
NEXT_DEAL_WAIT_S = 120.0
"""Between two deals of a match the next one starts when both players are ready ("Next deal"; a bot is at
once): no clock runs for a player who has not seen the new deal. Once one player is ready, the other has
this long to be, or loses the match (reason ``absent``): time to read the replay, not to hold the match up."""


class PlayingRoom(RoomCore[Table]):
    """One table of this process and its deal (the rest of the room: :class:`server.game.room.Room`)."""

    async def start_deal(self) -> None:
        """Deal (CSPRNG shuffle, the deck stays on the server), store the new deal, then tell the players."""
        table = self.table
        seats = table.seats
        assert seats[0] is not None and seats[1] is not None
        first = table.next_first_leader
        deal = Deal.new(table.variant, first)
        match, match_id = table.match, table.match_id
        if table.target and (match is None or table.match_end is not None):  # a new match (a rematch's too)
            match, match_id = Match(table.variant, table.target), None
        new = NewGame(table_id=table.id, deal_number=table.deal_number + 1, variant=table.variant.value,
                      opponent=table.opponent, players=(seats[0].user_id, seats[1].user_id),
                      bot_level=table.bot_level, first_leader=first, deck=list(deal.deck),
                      match=MatchDeal(table.target, match_id, match.deals + 1, match.scores) if match else None)
        # A table's first deal takes its fencing token in the same write (token 0 until then: nothing to guard).
        table.game_id, table.fence, table.match_id = await self.stored(self.store.start_game(new, fence=table.fenced))
        if match is not table.match:
            table.match, table.match_end = match, None
        table.next_first_leader = 1 - first
        table.deal = deal
        table.deal_number += 1
        table.status = "playing"
        table.result = None
        table.rematch = [False, False]
        table.deadline = time.time() + self.settings.move_timeout_s
        await self.broadcast({"kind": "start"})
        await self.dispatch_bot()

    async def on_play(self, conn: Connection, msg: Play) -> None:
        """Check a card with the rules (a refusal changes nothing), then :meth:`apply` it."""
        table = self.table
        if conn.is_bot:
            pending = self.rooms.pool.turns.get(table.id)
            if pending is None or (msg.turn is not None and msg.turn != pending[0]):
                log.info("dropped a stale bot answer for %s (turn %s, pending %s)", table.id, msg.turn, pending)
                return  # a stale answer: the turn moved on (or went to another bot)
            to_move = table.deal.to_move if table.deal is not None else 0
            seat_of_bot = table.seats[to_move]
            seat = to_move if seat_of_bot is not None and seat_of_bot.is_bot else None
            if seat_of_bot is not None and seat_of_bot.level and table.bot_asked:
                self.rooms.metrics.bot_answer.labels(seat_of_bot.level).observe(conn.received - table.bot_asked)
        else:
            seat = table.seat_of(conn.user_id)
            if seat is not None and self.seats.seat_conn.get((table.id, seat)) is not conn:
                seat = None
        if seat is None:
            await conn.send(not_seated(table.id, msg.type))
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
            await conn.send(refusal(exc, card, deal, msg.type))
            return
        await self.apply(seat, card, received=conn.received)

    async def apply(self, seat: int, card: int, *, received: float = 0.0) -> None:
        """Store ``seat`` playing ``card`` (checked legal), then advance the deal and tell everyone.

        The caller holds the lock. If the store refuses, this raises before anything changed.
        ``received``: when the card arrived (``time.perf_counter``; 0: now), for the latency metrics.
        """
        received = received or time.perf_counter()
        metrics = self.rooms.metrics
        table = self.table
        deal = table.deal
        s = table.seats[seat]
        assert deal is not None and table.game_id is not None and s is not None
        row = {"game_id": table.game_id, "user_id": s.user_id, "move_number": table.move_number,
               "variant": table.variant.value, **move_fields(deal, seat, card)}
        end = None
        if deal.last_card:  # the end is stored with the move: play it on a copy first
            probe = deal.copy()
            probe.play(card, seat)
            outcome = probe.outcome()
            end = self.end_record(outcome.points, outcome.winner, "finished", moves=table.move_number + 1)
        try:  # the move is durable before anyone is told of it
            await self.stored(self.store.record_move(row, end, fence=table.fenced))
        except TableLost:
            raise
        except Exception:
            if s.is_bot:  # the bot is asked again once the store may be back
                table.bot_retry_at = time.time() + BOT_RETRY_S
            await self.resync()
            raise
        metrics.move_stored(table.variant.value, time.perf_counter() - received)
        trick = deal.play(card, seat)
        self.rooms.pool.turns.pop(table.id, None)
        table.bot_retry_at = None
        table.deadline = time.time() + self.settings.move_timeout_s
        event: dict[str, Any] = {"kind": "play", "seat": seat, "card": card_name(card)}
        if trick is not None:
            event = {"kind": "trick", "seat": seat, "card": card_name(card), "trick": trick_to_dict(trick)}
        if deal.is_over:
            outcome = deal.outcome()
            self.close_deal(outcome.points, outcome.winner, "finished", analyse=end is not None and end.analyse,
                            match=end.match if end is not None else None)
            await self.broadcast(event)
            metrics.move_told(time.perf_counter() - received)
            # The totals and ratings, apart from the move writer and after the last card is told (a
            # second commit on the card's path was the tail of issue #42); the "end" that follows
            # goes out once they are added, so whoever reads a profile after it sees them.
            if end is not None:
                await self.store.settle(end.game_id)
            await self.broadcast({"kind": "end"})
            self.rooms.lobby_changed()
            await self.rooms.dispatch_waiting()
            return
        await self.broadcast(event)
        metrics.move_told(time.perf_counter() - received)
        await self.rooms.dispatch_waiting()  # turns that waited for room go first
        await self.dispatch_bot()

    def end_record(self, points: tuple[int, int], winner: int, reason: str, *, moves: int) -> GameEnd:
        """Return how the deal ends, after ``moves`` cards (its analysis is queued with it if wanted).

        In a match the end carries the match's totals after it: a finished deal adds its whole points,
        a forfeit (``reason`` not ``finished``) adds none and loses the match.
        """
        table = self.table
        assert table.game_id is not None and table.seats[0] and table.seats[1]
        bots_only = all(s is not None and s.is_bot for s in table.seats)
        return GameEnd(game_id=table.game_id, points=points, winner=winner, reason=reason,
                       variant=table.variant.value, players=(table.seats[0].user_id, table.seats[1].user_id),
                       moves=moves, analyse=self.rooms.analysis.wanted(bots_only=bots_only, moves=moves),
                       match=self.match_after(points, winner, reason, deals=1))

    def match_after(self, points: tuple[int, int], winner: int, reason: str, *, deals: int) -> MatchEnd | None:
        """Return the match's record after a deal ends (``deals`` 1) or a player forfeits between deals (0)."""
        table = self.table
        match = table.match
        if match is None or table.match_id is None:
            return None
        if reason == "finished":
            after = match.after(points)
            return MatchEnd(table.match_id, after.scores, after.deals, after.winner,
                            "finished" if after.is_over else None)
        return MatchEnd(table.match_id, match.scores, match.deals + deals, winner, reason)

    def close_match(self, end: MatchEnd, *, rated: bool = True) -> None:
        """Take the match's stored record after a deal (or a forfeit) into the table.

        ``rated``: False when the match ended by an aborted first deal (the store rates it so, too).
        """
        table = self.table
        assert table.match is not None
        table.match = Match(table.variant, table.target, end.scores, end.deals)
        if end.winner is not None:
            table.match_end = {"winner": end.winner, "margin": abs(end.scores[0] - end.scores[1]),
                               "reason": end.reason, "rated": rated}

    def close_deal(self, points: tuple[int, int], winner: int, reason: str, *, analyse: bool,
                   match: MatchEnd | None = None) -> None:
        """Mark the deal over (stored already); a bot series goes on with its next deal, a match with its next deal."""
        table = self.table
        table.status = "finished"
        table.deadline = None
        table.result = table.result_of(points, winner, reason)
        rated = not aborted(reason, table.move_number)  # the store's rule (repos.apply_totals)
        table.result["rated"] = rated
        table.match_wins[winner] += 1
        if match is not None:
            before = table.match.scores if table.match else (0, 0)
            self.close_match(match, rated=rated or match.deals > 1)
            table.result["match"] = {"id": match.match_id, "before": list(before), "scores": list(match.scores),
                                     "deal": match.deals}
        if analyse and table.game_id is not None:
            self.rooms.analysis.deal_ended(table.game_id)
        table.rematch = [bool(s and s.is_bot) for s in table.seats]
        self.wait_for_ready()
        self.rooms.pool.turns.pop(table.id, None)
        if all(table.rematch) and table.series_left > 0:
            table.series_left -= 1
            self.rooms.spawn(self.next_in_series())

    def wait_for_ready(self) -> None:
        """Between two deals of a match: once a player is ready, start the others' wait (``NEXT_DEAL_WAIT_S``)."""
        table = self.table
        if table.match_going_on and any(table.rematch) and table.deadline is None:
            table.deadline = time.time() + NEXT_DEAL_WAIT_S

    async def next_in_series(self) -> None:
        """Start a bot series' next deal (the table still here, the last one over)."""
        async with self.lock:
            if self.table.status == "finished" and self.rooms.by_id.get(self.table.id) is self:
                try:
                    await self.start_deal()
                except Exception:
                    log.exception("the next deal of series %s could not start", self.table.id)

    async def end_deal(self, *, loser: int, reason: str, then: Callable[[], None] | None = None,
                       cause: str | None = None) -> None:
        """End the deal by forfeit: ``loser`` ran out of time or left; it counts as a loss.

        The end is stored first (if the store refuses, this raises and nothing changed); ``then``
        runs after that, before anyone is told. ``cause`` (default ``reason``) tells the players why:
        ``"left"`` (clicked Leave), ``"connection"`` (away past the grace) or ``"timeout"``.
        """
        table = self.table
        assert table.deal is not None
        points = table.deal.final_points()
        end = self.end_record(points, 1 - loser, reason, moves=table.move_number)
        await self.stored(self.store.end_game(end, fence=table.fenced))
        await self.store.settle(end.game_id)
        if then is not None:
            then()
        self.close_deal(points, 1 - loser, reason, analyse=end.analyse, match=end.match)
        if table.result is not None:
            table.result["cause"] = cause or reason
        await self.broadcast({"kind": "end", "reason": reason, "seat": loser, "cause": cause or reason})
        self.rooms.lobby_changed()
        await self.rooms.dispatch_waiting()

    async def forfeit_match(self, *, loser: int, reason: str) -> None:
        """Between two deals of a match, ``loser`` left, stayed away, or was not ready in time (``absent``):
        the match is lost, stored first."""
        table = self.table
        end = self.match_after((0, 0), 1 - loser, reason, deals=0)
        if end is None or not table.match_going_on:
            return
        await self.stored(self.store.end_match(end, fence=table.fenced))
        if table.game_id is not None:  # the match's rating moves with its last deal's settling
            await self.store.settle(table.game_id)
        self.close_match(end)
        table.deadline = None
        await self.broadcast({"kind": "match_end", "reason": reason, "seat": loser})

    async def dispatch_bot(self) -> None:
        """If a bot is to move, give the turn to a bot with room (or note that it waits for one)."""
        await self.ask_bot(self._bot_turn, four=False)

    def _bot_turn(self, seat: int, turn: int, level: str, time_ms: int) -> BotTurn:
        """Return the two-player ``bot_turn``: the seat's state, and in a match the totals before this deal."""
        table = self.table
        assert table.deal is not None
        state = state_from_view(view_of(table.deal, seat))
        if table.match is not None:  # the bot plays for the match: it knows the totals before this deal
            scores = table.match.scores
            state = replace(state, match=MatchScore(table.target, scores[seat], scores[1 - seat]))
        return BotTurn(table_id=table.id, turn=turn, level=level, time_ms=time_ms, state=state.to_dict())

    def take(self, game: SavedGame) -> None:
        """Replace the deal by the stored one (and start its clock afresh)."""
        self.table.deal = deal_of(game)
        self.table.deadline = time.time() + self.settings.move_timeout_s

    async def resync(self) -> None:
        """After a refused write: if the store holds more of the deal than memory, take the stored deal.

        Only another process can have written it (one that served the table while this one stalled
        past its lease, ``server.game.cluster``); its players then see the deal as stored.
        """
        table = self.table
        try:
            games = await asyncio.to_thread(self.store.unfinished_games, [table.id])
        except Exception:  # noqa: BLE001 - the store is down: the refusal stands, nothing to compare
            return
        saved = next((g for g in games if g.game_id == table.game_id), None)
        if saved is None or len(saved.moves) <= table.move_number:
            return
        log.warning("table %s: the store has %d moves, memory %d: taking the stored deal",
                    table.id, len(saved.moves), table.move_number)
        self.take(saved)
        await self.broadcast(None)
        await self.dispatch_bot()

    async def send_table(self, conn: Connection, seat: int | None, event: dict[str, Any] | None) -> None:
        """Send ``conn`` the table as ``seat`` (None: a spectator) sees it, with ``event``."""
        snapshot = self.table.snapshot(seat, with_invite=seat == 0, reconnect_grace_s=self.settings.reconnect_grace_s)
        await conn.send(table_message(snapshot, event))

    async def broadcast(self, event: dict[str, Any] | None) -> None:
        """Tell each player its own view and every spectator the public one (encoded once for them all)."""
        table = self.table
        sends = []
        for seat in (0, 1):
            conn = self.seats.seat_conn.get((table.id, seat))
            if conn is not None:
                sends.append(self.send_table(conn, seat, event))
        watchers = list(self.seats.watchers.get(table.id, ()))
        if watchers:  # every spectator sees the same: encoded once
            snapshot = table.snapshot(None, reconnect_grace_s=self.settings.reconnect_grace_s)
            text = json.dumps(table_message(snapshot, event))
            sends.extend(conn.send_encoded(text) for conn in watchers)
        await asyncio.gather(*sends)
