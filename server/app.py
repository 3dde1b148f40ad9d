"""The FastAPI application: HTTP routes, the WebSocket endpoint, and the web client."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from starlette.websockets import WebSocketState

from server import repos
from server.db import session_factory
from server.deps import DB, CurrentUser
from server.hub import MAX_OVERSIZE, Connection, Hub
from server.models import User
from server.routes_admin import router as admin_router
from server.routes_stats import router as stats_router
from server.settings import Settings, get_settings

log = logging.getLogger("treset.app")
USERNAME = re.compile(r"^[A-Za-z0-9_.-]{3,32}$")
AUTH_FAILED = 4401


class Credentials(BaseModel):
    """A username and password."""

    username: str = Field(min_length=3, max_length=32)
    password: str = Field(min_length=6, max_length=200)


def _user_out(user: User) -> dict[str, Any]:
    return {"id": user.id, "username": user.username, "role": user.role}


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app for ``settings`` (from the environment by default)."""
    settings = settings or get_settings()
    sessions = session_factory(settings.database_url)
    hub = Hub(settings, sessions)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.bot_token:
            with sessions() as session:
                bot = repos.ensure_user(session=session, username="bot", role="bot")
                repos.issue_token(session=session, user=bot, kind="api", token=settings.bot_token)
                session.commit()
        restored = hub.restore()
        if restored:
            log.info("restored %d unfinished game(s)", restored)
        await hub.resume_bots()  # restored bot turns wait for (and go to) the first bot that connects
        clock = asyncio.create_task(hub.run_clock())
        try:
            yield
        finally:
            clock.cancel()

    app = FastAPI(title="treset", lifespan=lifespan)
    app.include_router(admin_router)
    app.include_router(stats_router)
    app.state.hub = hub
    app.state.sessions = sessions
    app.state.settings = settings

    @app.get("/healthz")
    def healthz(session: DB) -> dict[str, Any]:
        try:
            session.execute(text("SELECT 1"))
            db_state = "ok"
        except Exception as exc:  # noqa: BLE001 - report, do not crash the probe
            db_state = f"error: {type(exc).__name__}"
        return {"status": "ok" if db_state == "ok" else "degraded", "db": db_state, **hub.health()}

    @app.post("/api/auth/register")
    def register(body: Credentials, session: DB) -> dict[str, Any]:
        if not USERNAME.match(body.username) or body.username.lower().startswith(("guest-", "bot")):
            raise HTTPException(422, "usernames are 3-32 letters, digits, '_', '.', '-' (not guest-/bot)")
        try:
            user = repos.create_user(session=session, username=body.username, password=body.password)
            token = repos.issue_token(session=session, user=user)
            session.commit()
        except IntegrityError:
            session.rollback()
            raise HTTPException(409, f"the name {body.username!r} is taken") from None
        return {"token": token, "user": _user_out(user)}

    @app.post("/api/auth/login")
    def login(body: Credentials, session: DB) -> dict[str, Any]:
        user = repos.get_user_by_name(session=session, username=body.username)
        if user is None or not repos.check_password(user=user, password=body.password):
            raise HTTPException(401, "wrong username or password")
        token = repos.issue_token(session=session, user=user)
        session.commit()
        return {"token": token, "user": _user_out(user)}

    @app.post("/api/auth/guest")
    def guest(session: DB) -> dict[str, Any]:
        user = repos.create_user(session=session, username=f"guest-{secrets.token_hex(4)}", password=None,
                                 role="guest")
        token = repos.issue_token(session=session, user=user)
        session.commit()
        return {"token": token, "user": _user_out(user)}

    @app.get("/api/me")
    def me(user: CurrentUser) -> dict[str, Any]:
        return _user_out(user)

    @app.get("/api/tables")
    def tables() -> dict[str, Any]:
        return {"tables": hub._lobby()["tables"]}

    @app.get("/api/bot-levels")
    def bot_levels() -> dict[str, Any]:
        from server.levels import LEVEL_TIME_MS

        live = set(hub.health()["bot_levels"])
        return {"levels": [{"name": lv, "time_ms": LEVEL_TIME_MS.get(lv), "available": lv in live}
                           for lv in settings.levels]}

    @app.websocket("/ws")
    async def ws_endpoint(ws: WebSocket, token: str = "") -> None:
        await ws.accept()
        with sessions() as session:
            user = repos.user_for_token(session=session, token=token) if token else None
        if user is None:
            await ws.close(code=AUTH_FAILED, reason="sign in first: a valid token is required")
            return
        conn = Connection(send_text=ws.send_text, user_id=user.id, username=user.username, role=user.role)
        await hub.connect(conn)
        try:
            # A failed send (the client vanished) marks the socket disconnected: stop reading then.
            while ws.application_state == WebSocketState.CONNECTED:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                if raw is None:  # a binary frame: read as UTF-8, so bad bytes become bad_json
                    raw = (message.get("bytes") or b"").decode("utf-8", "replace")
                await hub.handle(conn, raw)
                if conn.oversize >= MAX_OVERSIZE:
                    await ws.close(code=1009, reason="too many oversized messages")
                    break
        except WebSocketDisconnect:
            pass
        finally:
            await hub.disconnect(conn)

    if (settings.web_dir / "index.html").exists():
        app.mount("/", StaticFiles(directory=settings.web_dir, html=True), name="web")
    return app
