"""Admin-only HTTP routes (every route refuses players, guests, bots and anonymous callers)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import BaseModel, Field

from server.deps import CurrentUser
from server.models import User
from tressette import Variant


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
    variant: Literal["tressette", "kifameno"] = "tressette"


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
