"""The FastAPI application: HTTP routes, the WebSocket endpoint, and the web client."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from prometheus_client import ProcessCollector
from pydantic import ValidationError
from sqlalchemy import text
from sqlalchemy.exc import DataError, DBAPIError
from starlette.websockets import WebSocketState

from server.api.deps import DB
from server.api.metrics import ServiceCollector
from server.api.metrics import router as metrics_router
from server.api.routes_admin import router as admin_router
from server.api.routes_analysis import router as analysis_router
from server.api.routes_auth import FormError, Throttles, form_error_response
from server.api.routes_auth import router as auth_router
from server.api.routes_puzzles import router as puzzles_router
from server.api.routes_stats import router as stats_router
from server.api.security import RejectNul, SecurityHeaders, install_log_redaction, origin_allowed
from server.game.analysis import AnalysisQueue
from server.game.cluster.node import Cluster
from server.game.connection import Connection
from server.game.hub import Hub
from server.game.router import MAX_OVERSIZE
from server.logs import USER_ID, RequestIds
from server.metrics import Metrics
from server.protocol import AUTH, error
from server.settings import Settings, get_settings
from server.store import repos
from server.store.db import session_factory, writer_sessions
from server.store.gamestore import SqlGameStore
from server.store.models import User
from server.store.writer import MoveWriter

log = logging.getLogger("treset.app")
AUTH_FAILED = 4401
TRY_AGAIN_LATER = 1013
"""The WebSocket close code for "try again later" (RFC 6455 registry): the database is away."""
RETRY_AFTER_S = 5
"""What a client told the database is away should wait before trying again."""


GC_THRESHOLDS = (50_000, 50, 1000)
"""The collector's thresholds while serving (Python's defaults: 700, 10, 10).

Measured with 1,000 tables of people (2 s a card) over two processes with every table split
(``python -m server.tools.loadtest ... --split --think-ms 2000``): the move round trip's p99 was
251 ms with the defaults, 70 ms with these (and the startup's objects frozen), 54 ms with no
collection at all: the tail was the collector's pauses over the many live objects of the tables.
"""


def _tune_gc() -> None:
    """Collect less often while serving; what startup built (modules, settings) is never scanned again."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app for ``settings`` (from the environment by default)."""
    settings = settings or get_settings()
    sessions = session_factory(settings.database_url)
    metrics = Metrics()  # this app's own registry: GET /metrics
    # The game's writes, off the event loop, committed in groups (on a pool of their own, without pings).
    writer = MoveWriter(writer_sessions(settings.database_url), metrics=metrics)
    store = SqlGameStore(sessions, writer)
    hub = Hub(settings, store,
              AnalysisQueue(sessions, timeout_s=settings.analysis_timeout_s, metrics=metrics), metrics)
    metrics.registry.register(ServiceCollector(hub, writer))
    ProcessCollector(registry=metrics.registry)  # CPU, memory, open files: process_* (standard names)
    repos.set_hash_concurrency(settings.hash_concurrency)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        cluster: Cluster | None = None
        install_log_redaction()  # here: uvicorn has configured its loggers by now
        writer.start()
        if settings.bot_token:
            with sessions() as session:
                bot = repos.ensure_user(session=session, username="bot", role="bot")
                repos.issue_token(session=session, user=bot, kind="api", token=settings.bot_token)
                session.commit()
        if settings.redis_url:  # one of several processes: it takes only the deals no live process owns
            cluster = Cluster(hub, settings.redis_url, lease_s=settings.cluster_lease_s)
            hub.cluster = cluster
            await cluster.start()
            restored = await cluster.claim_unfinished()
            hub.analysis.restore(running=hub.health()["nodes"] == 1)  # others may be running some
            log.info("joined the portal as node %s", cluster.node)
        else:
            restored = hub.restore()
        if restored:
            log.info("restored %d unfinished game(s)", restored)
        await hub.resume_bots()  # restored bot turns wait for (and go to) the first bot that connects
        _tune_gc()
        clock = asyncio.create_task(hub.run_clock())
        lag = asyncio.create_task(metrics.watch_loop_lag())  # treset_event_loop_lag_seconds
        try:
            yield
        finally:
            clock.cancel()
            lag.cancel()
            if cluster is not None:
                await cluster.stop()  # its tables go to the other processes at once
            await asyncio.to_thread(writer.stop)  # what is queued is committed first
            await asyncio.to_thread(store.stop)

    docs = settings.api_docs  # the API's own documentation is for developers (TRESET_API_DOCS=1)
    app = FastAPI(title="treset", lifespan=lifespan, docs_url="/docs" if docs else None,
                  redoc_url="/redoc" if docs else None, openapi_url="/openapi.json" if docs else None)
    app.add_middleware(RejectNul)
    app.add_middleware(SecurityHeaders)  # outside RejectNul, so even its answers carry the headers
    app.add_middleware(RequestIds)  # outermost: every log line of a request or socket carries its id

    @app.exception_handler(DataError)
    async def _out_of_range(request: Request, exc: DataError) -> JSONResponse:
        # A safety net behind the routes' own checks: the database refused a value (too big, a NUL byte).
        log.warning("the database refused a value in %s %s: %s", request.method, request.url.path,
                    str(exc.orig).splitlines()[0] if exc.orig else type(exc).__name__)
        return JSONResponse({"detail": "a value is out of range"}, status_code=422)

    app.add_exception_handler(FormError, form_error_response)  # account forms' refusals carry a code
    @app.exception_handler(DBAPIError)
    async def _database_away(request: Request, exc: DBAPIError) -> JSONResponse:
        # The database cannot be reached (or failed): a client should try again, not see a 500.
        log.warning("the database failed in %s %s: %s", request.method, request.url.path,
                    str(exc.orig or exc).splitlines()[0])
        return JSONResponse({"detail": "the database is unavailable; try again shortly", "code": "unavailable"},
                            status_code=503, headers={"Retry-After": str(RETRY_AFTER_S)})

    app.include_router(auth_router)
    app.include_router(admin_router)
    app.include_router(stats_router)
    app.include_router(analysis_router)
    app.include_router(puzzles_router)
    app.include_router(metrics_router)
    app.state.hub = hub
    app.state.sessions = sessions
    app.state.settings = settings
    app.state.throttles = Throttles(settings, metrics)
    app.state.metrics = metrics

    @app.get("/healthz")
    def healthz(session: DB) -> dict[str, Any]:
        try:
            session.execute(text("SELECT 1"))
            db_state = "ok"
        except Exception as exc:  # noqa: BLE001 - report, do not crash the probe
            db_state = f"error: {type(exc).__name__}"
        return {"status": "ok" if db_state == "ok" else "degraded", "db": db_state, **hub.health()}

    @app.get("/readyz")
    def readyz(session: DB) -> JSONResponse:
        """Readiness: 200 while the database answers, else 503 (a proxy or orchestrator stops sending traffic)."""
        try:
            session.execute(text("SELECT 1"))
        except Exception as exc:  # noqa: BLE001 - any failure means not ready
            return JSONResponse({"status": "unavailable", "db": f"error: {type(exc).__name__}"}, status_code=503,
                                headers={"Retry-After": str(RETRY_AFTER_S)})
        return JSONResponse({"status": "ready", "db": "ok"})

    @app.get("/api/tables")
    def tables() -> dict[str, Any]:
        return {"tables": hub.lobby.message()["tables"]}

    @app.get("/api/bot-levels")
    def bot_levels() -> dict[str, Any]:
        live = set(hub.health()["bot_levels"])
        return {"levels": [{"name": lv, "time_ms": ms, "available": lv in live}
                           for lv, ms in hub.offered_levels().items()]}

    @app.websocket("/ws")
    async def ws_endpoint(ws: WebSocket, token: str = "") -> None:
        # A browser page of another site must not use a visitor's token: its Origin is checked.
        if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), settings.allowed_origins):
            await ws.close(code=1008, reason="this origin may not connect")  # before accept: HTTP 403
            return
        await ws.accept()
        user, token = await _authenticate(ws, token)
        if user is None:
            return
        USER_ID.set(user.id)  # this socket's task: its log lines name the account
        conn = Connection(send_text=ws.send_text, user_id=user.id, username=user.username, role=user.role,
                          token_hash=repos.hash_token(token),
                          close_socket=lambda code, reason: ws.close(code=code, reason=reason))
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
                if conn.limited >= settings.ws_abuse_close:
                    await ws.close(code=1008, reason="too many messages, too fast")
                    break
        except WebSocketDisconnect:
            pass
        finally:
            await hub.disconnect(conn)

    async def _authenticate(ws: WebSocket, token: str) -> tuple[User | None, str]:
        """Return the socket's user and token: from its first message ``{"type":"auth","token"}``.

        ``?token=`` in the URL still works for old clients (the access log hides it); anything
        else first, a bad or expired token, or silence past ``ws_auth_timeout_s`` closes with 4401.
        """
        if not token:
            try:
                raw = await asyncio.wait_for(ws.receive_text(), timeout=settings.ws_auth_timeout_s)
                token = AUTH.validate_json(raw).token if len(raw) <= 1024 else ""
            except (TimeoutError, ValidationError, KeyError, RuntimeError, WebSocketDisconnect):
                token = ""  # KeyError/RuntimeError: a binary frame or a socket already gone
            if not token:
                metrics.error_sent("auth_failed")
                with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                    await ws.send_text(json.dumps(error("auth_failed", 'send {"type":"auth","token":TOKEN} first')))
                    await ws.close(code=AUTH_FAILED, reason="sign in first: send an auth message with your token")
                return None, ""
        try:
            user = await asyncio.to_thread(_user_for, token) if len(token) <= 256 else None  # off the event loop
        except Exception as exc:  # noqa: BLE001 - the database is away: say so before closing, try again later
            log.warning("a socket's sign-in failed: the database is away (%s)", type(exc).__name__)
            metrics.error_sent("unavailable")
            with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                await ws.send_text(json.dumps(error("unavailable", "the server cannot check sign-ins right now; "
                                                    "reconnect shortly", None,
                                                    {"retry_after_ms": RETRY_AFTER_S * 1000})))
                await ws.close(code=TRY_AGAIN_LATER, reason="the database is unavailable; reconnect shortly")
            return None, ""
        if user is None:
            metrics.error_sent("auth_failed")
            with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                await ws.send_text(json.dumps(error("auth_failed", "the token is unknown, revoked or expired")))
                await ws.close(code=AUTH_FAILED, reason="sign in first: a valid token is required")
        return user, token

    def _user_for(token: str) -> User | None:
        with sessions() as session:
            user = repos.user_for_token(session=session, token=token, idle_days=settings.session_idle_days)
            session.commit()  # an expired token's deletion, or the renewed last use
            return user

    if (settings.web_dir / "index.html").exists():
        app.mount("/", StaticFiles(directory=settings.web_dir, html=True), name="web")
    else:  # an API-only server; said aloud, since a missing client once went unnoticed (issue #23)
        log.warning("no web client at %s (TRESET_WEB_DIR): / is not served", settings.web_dir)
    return app
