"""Post-game analyses over HTTP: read a game's analysis, or ask for one (same access as the replay)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse

from server.api.deps import DB, CurrentUser
from server.api.routes_stats import GameId, _game_for
from server.store.models import Game

router = APIRouter(prefix="/api", tags=["analysis"])


def _finished_game(game_id: int, session: DB, user: CurrentUser) -> Game:
    return _game_for(game_id, session, user)


# Async routes: the queue's state lives on the event loop with the game service (the hub); their reads run in a thread.
@router.get("/games/{game_id}/analysis")
async def get_analysis(game_id: GameId, request: Request, session: DB, user: CurrentUser) -> JSONResponse:
    """Return a finished game's analysis (200), or where it waits (202 with ``position`` and ``bots``)."""
    game = await asyncio.to_thread(_finished_game, game_id, session, user)
    status, body = await asyncio.to_thread(request.app.state.hub.analysis.status, session, game.id)
    return JSONResponse(body, status_code=status)


@router.post("/games/{game_id}/analysis")
async def request_analysis(game_id: GameId, request: Request, session: DB, user: CurrentUser,
                           force: bool = False) -> JSONResponse:
    """Queue a finished game's analysis (if missing, failed, or by an older agent; ``force``: admins re-run it)."""
    game = await asyncio.to_thread(_finished_game, game_id, session, user)
    if force and user.role != "admin":
        raise HTTPException(403, "only admins may force a re-run")
    queue = request.app.state.hub.analysis
    await queue.request(game.id, force=force)
    session.expire_all()  # the queue wrote through its own session
    status, body = await asyncio.to_thread(queue.status, session, game.id)
    if body["status"] == "done":  # nothing to do: the analysis is current
        body = {key: body[key] for key in ("status", "version", "outdated")}
    return JSONResponse(body, status_code=status if status == 202 else 200)
