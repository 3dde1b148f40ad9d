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
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Literal, TypeVar

from sqlalchemy import BigInteger, ColumnElement, Integer, Select, Text, and_, case, cast, func, or_, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import QueryableAttribute, Session, aliased
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from server.store.models import Analysis, Game, Move, MoveAnalysis, User, UserTotals
from tressette import CARD_NAMES, POINTS

ExportFormat = Literal["csv", "ndjson"]
AnalysisStatus = Literal["none", "queued", "running", "done", "failed"]
EXPORT_COLUMNS = ("game_id", "move_number", "trick_number", "variant", "username", "seat", "hand", "opponent_known",
                  "table_cards", "won_self", "won_opponent", "card", "first_card", "score", "opponent_score",
                  "stock_size", "drawn_self", "drawn_opponent", "mover_won", "created_at", "deal_number",
                  "first_leader", "opponent", "rating", "opponent_rating", "end_reason", "final_score",
                  "final_opponent_score", "margin", "match_id", "match_deal", "match_score", "match_opponent_score",
                  "loss", "label", "best_card")
"""Named as in the SQL views (``moves_named``; ``player`` and ``table`` were renamed ``username`` and
``table_cards`` for that, issue #26); docs/admin.md describes each. The last three come from the
game's analysis (empty when it has none): points the card lost against the best one (thirds), its label
(best .. blunder) and the best card."""
_CARD_LIST_COLUMNS = frozenset({"hand", "opponent_known", "table_cards", "won_self", "won_opponent"})
_CARD_COLUMNS = ("card", "first_card", "drawn_self", "drawn_opponent", "best_card")
CSV_LIST_SEPARATOR = ";"
HAND_SIZE, STOCK_SIZE, STOCK_TRICKS = 10, 20, 10
MAX_GAMES = 2**31 - 1
"""The most games a ``user_totals`` row can count (a 32-bit integer column)."""


AnySelect = TypeVar("AnySelect", bound=Select[*tuple[Any, ...]])


class FilterError(ValueError):
    """A filter that cannot select what was meant (unknown player, inverted dates, bad share): answered 422."""


def day_start(day: date | None) -> datetime | None:
    """Return midnight UTC at the start of ``day``."""
    return datetime.combine(day, time(), UTC) if day else None


def day_end(day: date | None) -> datetime | None:
    """Return midnight UTC after ``day`` (date ranges include their last day)."""
    return datetime.combine(day + timedelta(days=1), time(), UTC) if day else None


def _variant_and_days(stmt: AnySelect, f: ExportFilters | GameFilters, variant: QueryableAttribute[str],
                      moment: QueryableAttribute[datetime]) -> AnySelect:
    """Narrow ``stmt`` to ``f``'s variant and days (both ends included), read from ``variant`` and ``moment``."""
    if f.variant:
        stmt = stmt.where(variant == f.variant)
    if f.date_from:
        stmt = stmt.where(moment >= day_start(f.date_from))
    if f.date_to:
        stmt = stmt.where(moment < day_end(f.date_to))
    return stmt


@dataclass(frozen=True, slots=True)
class ExportFilters:
    """Which moves to export: by variant, date of the move, mover, and the mover's quality in that variant."""

    variant: str | None = None
    date_from: date | None = None
    date_to: date | None = None
    player: str | None = None
    min_games: int | None = None
    min_win_share: Fraction | None = None
    """Exact: a mover qualifies when ``wins >= min_win_share * games`` holds in rationals (see parse_share)."""
    min_rating: float | None = None


def parse_share(value: str | Decimal | Fraction | float) -> Fraction:
    """Return a win share given as a decimal (``"0.28"``) as an exact fraction (7/25).

    A float is read as its shortest decimal (``0.28``, not the binary ``0.28000000000000003``).

    Raises:
        FilterError: it is not a number from 0 to 1.
    """
    try:
        share = value if isinstance(value, Fraction) else Fraction(Decimal(repr(value) if isinstance(value, float)
                                                                           else str(value).strip()))
    except (InvalidOperation, ValueError, ZeroDivisionError):
        raise FilterError(f"min_win_share must be a decimal number from 0 to 1, not {value!r}") from None
    if not 0 <= share <= 1:
        raise FilterError(f"min_win_share must be from 0 to 1, not {value}")
    return share


def share_ceiling(share: Fraction, max_den: int = MAX_GAMES) -> Fraction:
    """Return the smallest fraction with denominator at most ``max_den`` that is ``>= share``.

    For every ``games <= max_den``, ``wins >= share * games`` exactly when ``wins >= q * games`` for
    this ``q``, so the SQL comparison ``wins * q.den >= q.num * games`` stays within 64-bit integers
    (both factors below 2**31) however many decimals the share was given with.

    >>> share_ceiling(Fraction(1, 3), 10), share_ceiling(Fraction(2857, 10000), 10)
    (Fraction(1, 3), Fraction(2, 7))
    """
    if share.denominator <= max_den:
        return share
    # The Farey neighbours of ``share`` of order ``max_den`` (as in Fraction.limit_denominator): one lies
    # below it, one above; the one above is the answer.
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = share.numerator, share.denominator
    while True:
        a = n // d
        q2 = q0 + a * q1
        if q2 > max_den:
            break
        p0, q0, p1, q1 = p1, q1, p0 + a * p1, q2
        n, d = d, n - a * d
    k = (max_den - q0) // q1
    candidates = (Fraction(p0 + k * p1, q0 + k * q1), Fraction(p1, q1))
    return min(c for c in candidates if c >= share)


def share_at_least(wins: QueryableAttribute[int], games: QueryableAttribute[int], share: Fraction) -> ColumnElement[bool]:
    """Return the SQL condition ``wins >= share * games`` in integers (exact; no floating point)."""
    q = share_ceiling(share)
    return cast(wins, BigInteger) * q.denominator >= cast(games, BigInteger) * q.numerator


def check_filters(session: Session, *, player: str | None, date_from: date | None, date_to: date | None) -> None:
    """Refuse filters that would silently select nothing: an unknown player, ``date_from`` after ``date_to``.

    Raises:
        FilterError: with the reason, for a 422 (or the shell's error message).
    """
    if date_from and date_to and date_from > date_to:
        raise FilterError(f"date_from ({date_from}) is after date_to ({date_to})")
    if player and session.scalar(select(User.id).where(User.username == player)) is None:  # "" is no filter
        raise FilterError(f"no player {player!r}")


class _DeckCard(FunctionElement[int]):
    """The card at a 0-based position (an SQL expression) of ``games.deck``, a JSON array."""

    type = Integer()
    inherit_cache = True
    name = "deck_card"


@compiles(_DeckCard, "postgresql")
def _deck_card_pg(element: _DeckCard, compiler: SQLCompiler, **kw: Any) -> str:
    deck, index = list(element.clauses)
    return f"CAST(({compiler.process(deck, **kw)} ->> ({compiler.process(index, **kw)})) AS INTEGER)"


@compiles(_DeckCard)
def _deck_card_sqlite(element: _DeckCard, compiler: SQLCompiler, **kw: Any) -> str:
    deck, index = list(element.clauses)
    return f"json_extract({compiler.process(deck, **kw)}, '$[' || ({compiler.process(index, **kw)}) || ']')"


def _drawn(*, mover: bool) -> ColumnElement[int | None]:
    """The card the mover (or the opponent) drew after the trick this move completes, while the stock lasts."""
    # The mover takes the trick iff it follows suit with a stronger card (a lower rank index, codes suit*10+rank);
    # the trick's winner draws the stock's top card (deck position 20 + 2 * trick), the other the next.
    took = and_(Move.card - Move.card % 10 == Move.first_card - Move.first_card % 10,
                Move.card % 10 < Move.first_card % 10)
    offset = case((took, 0 if mover else 1), else_=1 if mover else 0)
    return case((and_(Move.first_card.is_not(None), Move.trick_number < STOCK_TRICKS),
                 _DeckCard(Game.deck, 2 * HAND_SIZE + 2 * Move.trick_number + offset)), else_=None)


def export_statement(f: ExportFilters) -> Select[*tuple[Any, ...]]:
    """Return the SELECT of the exported moves in game and move order (columns as EXPORT_COLUMNS).

    ``opponent_score`` comes out as the opponent's won pile (JSON text); export_rows sums its points.
    """
    opponent, mine, theirs = aliased(User), aliased(UserTotals), aliased(UserTotals)
    opponent_id = case((Move.seat == 0, Game.player1_id), else_=Game.player0_id)
    own_final = case((Move.seat == 0, Game.points0), else_=Game.points1)
    their_final = case((Move.seat == 0, Game.points1), else_=Game.points0)
    columns: list[Any] = [
        # Card lists come as JSON text and are converted here: parsing them as JSON made the export 1.7x slower.
        Move.game_id, Move.move_number, Move.trick_number, Move.variant, User.username, Move.seat,
        *(cast(col, Text) for col in (Move.hand, Move.opponent_known, Move.table_cards, Move.won_self,
                                      Move.won_opponent)),
        Move.card, Move.first_card, Move.score, cast(Move.won_opponent, Text),
        case((Move.trick_number < STOCK_TRICKS, STOCK_SIZE - 2 * Move.trick_number), else_=0),
        _drawn(mover=True), _drawn(mover=False),
        Game.winner_seat == Move.seat, Move.created_at,
        Game.deal_number, Game.first_leader, opponent.username, mine.rating, theirs.rating, Game.end_reason,
        own_final, their_final, own_final - their_final,
        Game.match_id, Game.match_deal, case((Move.seat == 0, Game.match_before0), else_=Game.match_before1),
        case((Move.seat == 0, Game.match_before1), else_=Game.match_before0),
        MoveAnalysis.loss, MoveAnalysis.label, MoveAnalysis.best_card]
    stmt: Select[*tuple[Any, ...]] = (
        # Labelled with the export's names: two columns read the same won pile, and the result needs them apart.
        select(*(column.label(name) for column, name in zip(columns, EXPORT_COLUMNS, strict=True)))
        .select_from(Move)
        .join(Game, Game.id == Move.game_id)
        .join(User, User.id == Move.user_id)
        .join(opponent, opponent.id == opponent_id)
        .outerjoin(mine, and_(mine.user_id == Move.user_id, mine.variant == Move.variant))
        .outerjoin(theirs, and_(theirs.user_id == opponent_id, theirs.variant == Move.variant))
        .outerjoin(MoveAnalysis, and_(MoveAnalysis.game_id == Move.game_id,
                                      MoveAnalysis.move_number == Move.move_number))
        .where(Game.status == "finished", Game.n_players == 2)  # four-player moves: partnership_export.py
        .order_by(Move.game_id, Move.move_number)
    )
    return mover_filters(_variant_and_days(stmt, f, Move.variant, Move.created_at), f, mine)


def mover_filters(stmt: AnySelect, f: ExportFilters, mine: type[UserTotals]) -> AnySelect:
    """Narrow an export of moves joined to the mover (``User``) to ``f``'s mover and the mover's record.

    ``mine`` is the mover's ``user_totals`` row in the move's variant, outer-joined (the thesis's "strong
    players" selection); a condition on it also drops movers without one, as an inner join would.
    """
    if f.player:
        stmt = stmt.where(User.username == f.player)
    if f.min_games is not None:
        stmt = stmt.where(mine.games >= f.min_games)
    if f.min_win_share is not None:
        stmt = stmt.where(share_at_least(mine.wins, mine.games, f.min_win_share), mine.games > 0)
    if f.min_rating is not None:
        stmt = stmt.where(mine.rating >= f.min_rating)
    return stmt


def count_exported(session: Session, f: ExportFilters) -> int:
    """Return how many moves ``f`` exports."""
    return session.scalar(select(func.count()).select_from(export_statement(f).order_by(None).subquery())) or 0


def export_rows(session: Session, f: ExportFilters, *, batch: int = 5000) -> Iterator[dict[str, Any]]:
    """Yield the exported moves as dicts keyed by EXPORT_COLUMNS, cards by name, fetched in batches."""
    result = session.execute(export_statement(f).execution_options(yield_per=batch))
    for row in result:
        record = dict(zip(EXPORT_COLUMNS, row, strict=True))
        record["opponent_score"] = _points(record["opponent_score"])
        for key in _CARD_LIST_COLUMNS:
            record[key] = _names(record[key])
        for key in _CARD_COLUMNS:
            record[key] = CARD_NAMES[record[key]] if record[key] is not None else None
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


_POINTS_OF_TEXT = {str(code): points for code, points in enumerate(POINTS)}


def _points(codes: str) -> int:
    """Return the points (thirds) of a JSON array of card codes given as text: a won pile's score."""
    inner = codes.replace(" ", "")[1:-1]
    return sum(_POINTS_OF_TEXT[token] for token in inner.split(",")) if inner else 0


def encode(rows: Iterable[dict[str, Any]], fmt: ExportFormat, *, chunk: int = 500,
           columns: tuple[str, ...] = EXPORT_COLUMNS, lists: frozenset[str] = _CARD_LIST_COLUMNS) -> Iterator[str]:
    """Yield the rows as CSV (with a header of ``columns``; the ``lists`` joined by ``;``) or NDJSON, in chunks."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if fmt == "csv":
        writer.writerow(columns)
    for n, row in enumerate(rows, 1):
        if fmt == "csv":
            writer.writerow([CSV_LIST_SEPARATOR.join(v) if k in lists else
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
    """Which games to list: by player (and that player's result), variant, start date, bot level, status,
    analysis status (``none``: never asked for)."""

    player: str | None = None
    variant: str | None = None
    date_from: date | None = None
    date_to: date | None = None
    result: Literal["won", "lost"] | None = None
    bot_level: str | None = None
    status: Literal["finished", "playing", "any"] = "finished"
    analysis: AnalysisStatus | None = None


def search_games(session: Session, f: GameFilters, *, limit: int = 50, offset: int = 0) -> dict[str, Any]:
    """Return ``{"total", "games"}``: the games matching ``f``, newest first.

    Raises:
        FilterError: ``result`` is given without ``player``, the player does not exist, or ``date_from``
            is after ``date_to``.
    """
    check_filters(session, player=f.player, date_from=f.date_from, date_to=f.date_to)
    u0, u1 = aliased(User), aliased(User)
    stmt = (select(Game, u0.username, u1.username, Analysis.status).join(u0, u0.id == Game.player0_id)
            .join(u1, u1.id == Game.player1_id).outerjoin(Analysis, Analysis.game_id == Game.id))
    if f.analysis:
        stmt = stmt.where(Analysis.status.is_(None) if f.analysis == "none" else Analysis.status == f.analysis)
    if f.status != "any":
        stmt = stmt.where(Game.status == f.status)
    stmt = _variant_and_days(stmt, f, Game.variant, Game.started_at)
    if f.bot_level:
        stmt = stmt.where(or_(Game.bot_level == f.bot_level, Game.bot_level.like(f"{f.bot_level} vs %"),
                              Game.bot_level.like(f"% vs {f.bot_level}")))
    if f.result and not f.player:
        raise FilterError("a result filter needs a player")
    if f.player:
        user_id = session.scalar(select(User.id).where(User.username == f.player))
        stmt = stmt.where(or_(Game.player0_id == user_id, Game.player1_id == user_id, Game.player2_id == user_id,
                              Game.player3_id == user_id))
        if f.result:  # (a four-player deal's winner_seat is a partnership: seats 0 and 2 are partnership 0)
            seat_won = case((or_(Game.player0_id == user_id, Game.player2_id == user_id), Game.winner_seat == 0),
                            else_=Game.winner_seat == 1)
            stmt = stmt.where(seat_won if f.result == "won" else ~seat_won)
    total = session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    rows = session.execute(stmt.order_by(Game.id.desc()).limit(limit).offset(offset)).all()
    return {"total": total, "games": [
        {"id": g.id, "variant": g.variant, "points": [g.points0, g.points1],
         "players": [a, b] if g.n_players != 4 else [u.username if (u := session.get(User, uid)) else None for uid in
                                                     (g.player0_id, g.player1_id, g.player2_id, g.player3_id)],
         "winner": g.winner_seat, "reason": g.end_reason, "bot_level": g.bot_level, "status": g.status,
         "started_at": _iso(g.started_at), "ended_at": _iso(g.ended_at), "analysis": analysis,
         "match_id": g.match_id, "match_deal": g.match_deal}
        for g, a, b, analysis in rows]}


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
