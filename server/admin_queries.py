"""The admins' queries over the move log: game search, move exports, aggregate statistics.

Statements are built here and run by the HTTP routes and the shell command alike, so the
two always export the same rows. Only finished games are searched by default and only
their moves are exported (a game in progress has no result and hides cards).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

from sqlalchemy import Select, Text, and_, case, cast, func, or_, select
from sqlalchemy.orm import Session, aliased

from server.models import Game, Move, User, UserTotals
from tressette import CARD_NAMES

ExportFormat = Literal["csv", "ndjson"]
EXPORT_COLUMNS = ("game_id", "move_number", "trick_number", "variant", "player", "seat", "hand", "opponent_known",
                  "table", "won_self", "won_opponent", "card", "first_card", "score", "mover_won", "created_at")
_CARD_LIST_COLUMNS = frozenset({"hand", "opponent_known", "table", "won_self", "won_opponent"})
CSV_LIST_SEPARATOR = ";"


def day_start(day: date | None) -> datetime | None:
    """Return midnight UTC at the start of ``day``."""
    return datetime.combine(day, time(), UTC) if day else None


def day_end(day: date | None) -> datetime | None:
    """Return midnight UTC after ``day`` (date ranges include their last day)."""
    return datetime.combine(day + timedelta(days=1), time(), UTC) if day else None


@dataclass(frozen=True, slots=True)
class ExportFilters:
    """Which moves to export: by variant, date of the move, mover, and the mover's quality in that variant."""

    variant: str | None = None
    date_from: date | None = None
    date_to: date | None = None
    player: str | None = None
    min_games: int | None = None
    min_win_share: float | None = None
    min_rating: float | None = None


def export_statement(f: ExportFilters) -> Select[*tuple[Any, ...]]:
    """Return the SELECT of the exported moves in game and move order (columns as EXPORT_COLUMNS)."""
    stmt: Select[*tuple[Any, ...]] = (
        # Card lists come as JSON text and are converted here: parsing them as JSON made the export 1.7x slower.
        select(Move.game_id, Move.move_number, Move.trick_number, Move.variant, User.username, Move.seat,
               *(cast(col, Text) for col in (Move.hand, Move.opponent_known, Move.table_cards, Move.won_self,
                                             Move.won_opponent)),
               Move.card, Move.first_card, Move.score, (Game.winner_seat == Move.seat).label("mover_won"), Move.created_at)
        .join(Game, Game.id == Move.game_id)
        .join(User, User.id == Move.user_id)
        .where(Game.status == "finished")
        .order_by(Move.game_id, Move.move_number)
    )
    if f.variant:
        stmt = stmt.where(Move.variant == f.variant)
    if f.date_from:
        stmt = stmt.where(Move.created_at >= day_start(f.date_from))
    if f.date_to:
        stmt = stmt.where(Move.created_at < day_end(f.date_to))
    if f.player:
        stmt = stmt.where(User.username == f.player)
    if f.min_games is not None or f.min_win_share is not None or f.min_rating is not None:
        # The mover's record in the move's variant (the thesis's "strong players" selection).
        stmt = stmt.join(UserTotals, and_(UserTotals.user_id == Move.user_id, UserTotals.variant == Move.variant))
        if f.min_games is not None:
            stmt = stmt.where(UserTotals.games >= f.min_games)
        if f.min_win_share is not None:
            stmt = stmt.where(UserTotals.wins >= f.min_win_share * UserTotals.games, UserTotals.games > 0)
        if f.min_rating is not None:
            stmt = stmt.where(UserTotals.rating >= f.min_rating)
    return stmt


def count_exported(session: Session, f: ExportFilters) -> int:
    """Return how many moves ``f`` exports."""
    return session.scalar(select(func.count()).select_from(export_statement(f).order_by(None).subquery())) or 0


def export_rows(session: Session, f: ExportFilters, *, batch: int = 5000) -> Iterator[dict[str, Any]]:
    """Yield the exported moves as dicts keyed by EXPORT_COLUMNS, cards by name, fetched in batches."""
    result = session.execute(export_statement(f).execution_options(yield_per=batch))
    for row in result:
        record = dict(zip(EXPORT_COLUMNS, row, strict=True))
        for key in _CARD_LIST_COLUMNS:
            record[key] = _names(record[key])
        record["card"] = CARD_NAMES[record["card"]]
        record["first_card"] = CARD_NAMES[record["first_card"]] if record["first_card"] is not None else None
        record["mover_won"] = bool(record["mover_won"])
        created = record["created_at"]
        if created.tzinfo is None:  # SQLite keeps no zone; every stored time is UTC
            created = created.replace(tzinfo=UTC)
        record["created_at"] = created.isoformat()
        yield record


_NAME_OF_TEXT = {str(code): name for code, name in enumerate(CARD_NAMES)}


def _names(codes: str) -> list[str]:
    """Return the names of a JSON array of card codes given as text (``"[3, 17]"``)."""
    inner = codes.replace(" ", "")[1:-1]
    return [_NAME_OF_TEXT[token] for token in inner.split(",")] if inner else []


def encode(rows: Iterable[dict[str, Any]], fmt: ExportFormat, *, chunk: int = 500) -> Iterator[str]:
    """Yield the rows as CSV (with a header; card lists joined by ``;``) or NDJSON, in text chunks."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if fmt == "csv":
        writer.writerow(EXPORT_COLUMNS)
    for n, row in enumerate(rows, 1):
        if fmt == "csv":
            writer.writerow([CSV_LIST_SEPARATOR.join(v) if k in _CARD_LIST_COLUMNS else
                             ("" if v is None else int(v) if isinstance(v, bool) else v) for k, v in row.items()])
        else:
            buffer.write(json.dumps(row, separators=(",", ":")) + "\n")
        if n % chunk == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue()


@dataclass(frozen=True, slots=True)
class GameFilters:
    """Which games to list: by player (and that player's result), variant, start date, bot level, status."""

    player: str | None = None
    variant: str | None = None
    date_from: date | None = None
    date_to: date | None = None
    result: Literal["won", "lost"] | None = None
    bot_level: str | None = None
    status: Literal["finished", "playing", "any"] = "finished"


def search_games(session: Session, f: GameFilters, *, limit: int = 50, offset: int = 0) -> dict[str, Any]:
    """Return ``{"total", "games"}``: the games matching ``f``, newest first.

    Raises:
        ValueError: ``result`` is given without ``player``, or the player does not exist.
    """
    u0, u1 = aliased(User), aliased(User)
    stmt = select(Game, u0.username, u1.username).join(u0, u0.id == Game.player0_id).join(u1, u1.id == Game.player1_id)
    if f.status != "any":
        stmt = stmt.where(Game.status == f.status)
    if f.variant:
        stmt = stmt.where(Game.variant == f.variant)
    if f.date_from:
        stmt = stmt.where(Game.started_at >= day_start(f.date_from))
    if f.date_to:
        stmt = stmt.where(Game.started_at < day_end(f.date_to))
    if f.bot_level:
        stmt = stmt.where(or_(Game.bot_level == f.bot_level, Game.bot_level.like(f"{f.bot_level} vs %"),
                              Game.bot_level.like(f"% vs {f.bot_level}")))
    if f.result and not f.player:
        raise ValueError("a result filter needs a player")
    if f.player:
        user_id = session.scalar(select(User.id).where(User.username == f.player))
        if user_id is None:
            raise ValueError(f"no player {f.player!r}")
        stmt = stmt.where(or_(Game.player0_id == user_id, Game.player1_id == user_id))
        if f.result:
            seat_won = case((Game.player0_id == user_id, Game.winner_seat == 0), else_=Game.winner_seat == 1)
            stmt = stmt.where(seat_won if f.result == "won" else ~seat_won)
    total = session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    rows = session.execute(stmt.order_by(Game.id.desc()).limit(limit).offset(offset)).all()
    return {"total": total, "games": [
        {"id": g.id, "variant": g.variant, "players": [a, b], "points": [g.points0, g.points1],
         "winner": g.winner_seat, "reason": g.end_reason, "bot_level": g.bot_level, "status": g.status,
         "started_at": _iso(g.started_at), "ended_at": _iso(g.ended_at)} for g, a, b in rows]}


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def aggregates(session: Session, *, days: int = 30, today: date | None = None) -> dict[str, Any]:
    """Return games per day over the last ``days`` days, average points by variant, and bot win rates per level."""
    since = day_start((today or datetime.now(UTC).date()) - timedelta(days=days - 1))
    day = func.date(Game.ended_at)
    per_day = session.execute(
        select(day, Game.variant, func.count()).where(Game.status == "finished", Game.ended_at >= since)
        .group_by(day, Game.variant).order_by(day, Game.variant)).all()
    winner_points = case((Game.winner_seat == 0, Game.points0), else_=Game.points1)
    loser_points = case((Game.winner_seat == 0, Game.points1), else_=Game.points0)
    points = session.execute(
        select(Game.variant, func.count(), func.avg(winner_points), func.avg(loser_points))
        .where(Game.status == "finished", Game.end_reason == "finished")
        .group_by(Game.variant).order_by(Game.variant)).all()
    return {
        "days": days,
        "games_per_day": [{"day": str(d), "variant": v, "games": n} for d, v, n in per_day],
        "points_by_variant": [{"variant": v, "games": n, "avg_winner_points": round(float(w), 2),
                               "avg_loser_points": round(float(lo), 2)} for v, n, w, lo in points],
        "bot_win_rates": _bot_win_rates(session),
    }


def _bot_win_rates(session: Session) -> list[dict[str, Any]]:
    """Win rates of the bot seats (accounts ``bot-LEVEL``) per level, variant and kind of opponent."""
    totals: dict[tuple[str, str, str], list[int]] = {}
    for seat in (0, 1):
        me, other = aliased(User), aliased(User)
        mine, theirs = (Game.player0_id, Game.player1_id) if seat == 0 else (Game.player1_id, Game.player0_id)
        rows = session.execute(
            select(me.username, Game.variant, other.role, func.count(),
                   func.sum(case((Game.winner_seat == seat, 1), else_=0)))
            .join(me, me.id == mine).join(other, other.id == theirs)
            .where(Game.status == "finished", me.role == "bot")
            .group_by(me.username, Game.variant, other.role)).all()
        for username, variant, other_role, games, wins in rows:
            level = username.split("-")[1] if username.count("-") else username
            key = (level, variant, "bots" if other_role == "bot" else "people")
            acc = totals.setdefault(key, [0, 0])
            acc[0] += games
            acc[1] += int(wins or 0)
    return [{"level": level, "variant": variant, "opponents": kind, "games": g, "wins": w,
             "win_share": round(w / g, 4)} for (level, variant, kind), (g, w) in sorted(totals.items())]
