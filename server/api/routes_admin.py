"""Admin-only HTTP routes (every route refuses players, guests, bots and anonymous callers)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from server.api.deps import DB, CurrentUser
from server.protocol import MAX_DB_INT
from server.store.admin_queries import (
    AnalysisStatus,
    ExportFilters,
    ExportFormat,
    FilterError,
    GameFilters,
    aggregates,
    check_filters,
    encode,
    export_rows,
    parse_share,
    search_games,
)
from server.store.models import User
from server.store.partnership_export import (
    PARTNERSHIP_CARD_LISTS,
    PARTNERSHIP_EXPORT_COLUMNS,
    partnership_export_rows,
)
from tressette import Variant, VariantName


def require_admin(user: CurrentUser) -> User:
    """Return the caller if an admin, else answer 403."""
    if user.role != "admin":
        raise HTTPException(403, "admins only")
    return user


Admin = Annotated[User, Depends(require_admin)]
router = APIRouter(prefix="/api/admin", tags=["admin"])


class BotSeries(BaseModel):
    """A series of bot-versus-bot deals."""

    level_a: str
    level_b: str
    games: int = Field(ge=1, le=1000)
    variant: VariantName = "tressette"


@router.post("/bot-series")
async def bot_series(body: BotSeries, request: Request, _: Admin) -> dict[str, Any]:
    """Start a bot-versus-bot table that plays ``games`` deals; every move is logged like any other."""
    hub = request.app.state.hub
    try:
        table = await hub.start_bot_series(level_a=body.level_a, level_b=body.level_b, games=body.games,
                                           variant=Variant(body.variant))
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    except LookupError as exc:
        raise HTTPException(409, str(exc)) from None
    return {"table_id": table.id, "games": body.games}


@router.get("/games")
def games(session: DB, _: Admin, player: str | None = None, variant: VariantName | Literal["partnership"] | None = None,
          date_from: date | None = None, date_to: date | None = None, result: Literal["won", "lost"] | None = None,
          bot_level: str | None = None, status: Literal["finished", "playing", "any"] = "finished",
          limit: Annotated[int, Query(ge=1, le=500)] = 50, offset: Annotated[int, Query(ge=0, le=MAX_DB_INT)] = 0,
          analysis: AnalysisStatus | None = None) -> dict[str, Any]:
    """Search games by player (and that player's result), variant, start date, bot level, status and analysis."""
    try:
        return search_games(session, GameFilters(player=player, variant=variant, date_from=date_from, date_to=date_to,
                                                 result=result, bot_level=bot_level, status=status,
                                                 analysis=analysis),
                            limit=limit, offset=offset)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None


@router.get("/moves/export")
def export_moves(request: Request, session: DB, _: Admin, format: ExportFormat = "csv",
                 variant: VariantName | Literal["partnership"] | None = None, date_from: date | None = None,
                 date_to: date | None = None, player: str | None = None, min_games: Annotated[int | None, Query(ge=0, le=MAX_DB_INT)] = None,
                 min_win_share: Annotated[Decimal | None, Query(ge=0, le=1)] = None,
                 min_rating: Annotated[float | None, Query(allow_inf_nan=False)] = None) -> StreamingResponse:
    """Stream the moves of finished games matching the filters as CSV or NDJSON (cards by name).

    ``variant=partnership``: the four-player moves, with their columns (docs/admin.md); else two-player moves only.

    The share arrives as a decimal and is compared exactly; bad filters answer 422 before any row is sent.
    """
    try:
        check_filters(session, player=player, date_from=date_from, date_to=date_to)
        share = parse_share(min_win_share) if min_win_share is not None else None
    except FilterError as exc:
        raise HTTPException(422, str(exc)) from None
    filters = ExportFilters(variant=variant, date_from=date_from, date_to=date_to, player=player,
                            min_games=min_games, min_win_share=share, min_rating=min_rating)
    sessions = request.app.state.sessions

    def body() -> Iterator[str]:
        # Its own session: the request's session closes before a streamed body is sent.
        with sessions() as session:
            if variant == "partnership":  # the four-player moves, with their own columns
                yield from encode(partnership_export_rows(session, filters), format,
                                  columns=PARTNERSHIP_EXPORT_COLUMNS, lists=PARTNERSHIP_CARD_LISTS)
            else:
                yield from encode(export_rows(session, filters), format)

    media = "text/csv" if format == "csv" else "application/x-ndjson"
    name = f"moves.{'csv' if format == 'csv' else 'ndjson'}"
    return StreamingResponse(body(), media_type=f"{media}; charset=utf-8",
                             headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.get("/stats")
def stats(session: DB, _: Admin, days: Annotated[int, Query(ge=1, le=3650)] = 30) -> dict[str, Any]:
    """Return games per day, average points by variant and bot win rates per level."""
    return aggregates(session, days=days)
