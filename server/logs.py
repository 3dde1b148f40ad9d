"""The server's logs: plain text or one JSON object a line, the probes left out, the ids of what is being served.

``TRESET_LOG_FORMAT=json`` writes every record (ours and uvicorn's) as one JSON object a line:
``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``, and, when known, ``request_id`` (an
HTTP request or a socket: the proxy's ``X-Request-ID``, else one of our own), ``user_id`` (the
socket's account) and ``table_id`` (the table command being handled); an access line also has
``client``, ``method``, ``path`` and ``status``; an exception its ``exc_info`` text. The ids live in
context variables, set by :class:`RequestIds` and the WebSocket endpoint and router, so every
record logged while serving them carries them without passing them around.

The health probes and the metrics scrapes (``/healthz``, ``/readyz``, ``/metrics``) are not
access-logged unless ``TRESET_LOG_PROBES=1``: they come every few seconds and bury the rest.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import secrets
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID: ContextVar[str | None] = ContextVar("treset_request_id", default=None)
USER_ID: ContextVar[int | None] = ContextVar("treset_user_id", default=None)
TABLE_ID: ContextVar[str | None] = ContextVar("treset_table_id", default=None)
PROBES = frozenset({"/healthz", "/readyz", "/metrics"})
"""Paths asked every few seconds by machines: not access-logged by default."""
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_GOOD_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
"""What a request id from the proxy may look like (anything else is replaced: it goes into logs)."""


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON object on one line (see the module's docstring for the fields)."""

    def format(self, record: logging.LogRecord) -> str:
        """Return ``record`` as a line of JSON."""
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, var in (("request_id", REQUEST_ID), ("user_id", USER_ID), ("table_id", TABLE_ID)):
            value = getattr(record, key, None) or var.get()  # ``extra=`` wins over the context
            if value is not None:
                entry[key] = value
        if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
            client, method, path, _, status = record.args
            entry.update(client=client, method=method, path=path, status=status)
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class QuietProbes(logging.Filter):
    """Drop the access log's lines for the probes and scrapes (:data:`PROBES`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Return False for a probe's line."""
        args = record.args if isinstance(record.args, tuple) else ()
        return not any(isinstance(a, str) and a.split("?")[0] in PROBES for a in args)


def log_config(*, fmt: str = "text", probes: bool = False) -> dict[str, Any]:
    """Return uvicorn's logging setup (``dictConfig``) in ``fmt`` (``text``/``json``), probes logged if ``probes``.

    In ``json`` every logger, the root one included, writes through the JSON formatter; in ``text``
    uvicorn's loggers keep their format and ours (the root's) have :data:`TEXT_FORMAT`.
    """
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    if not probes:
        config.setdefault("filters", {})["quiet_probes"] = {"()": "server.logs.QuietProbes"}
        config["handlers"]["access"]["filters"] = ["quiet_probes"]
    if fmt == "json":
        config["formatters"] = {name: {"()": "server.logs.JsonFormatter"} for name in config["formatters"]}
        config["root"] = {"handlers": ["default"], "level": "INFO"}
    else:  # our loggers in our format, in every process (``--workers N`` starts fresh interpreters)
        config["formatters"]["treset"] = {"format": TEXT_FORMAT}
        config["handlers"]["treset"] = {"class": "logging.StreamHandler", "formatter": "treset",
                                        "stream": "ext://sys.stderr"}
        config["root"] = {"handlers": ["treset"], "level": "INFO"}
    return config


def setup(fmt: str) -> None:
    """Set up the root logger before uvicorn runs (its ``log_config`` does the rest)."""
    if fmt == "json":
        handler = logging.StreamHandler()
        handler.setFormatter(JsonFormatter())
        logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    else:
        logging.basicConfig(level=logging.INFO, format=TEXT_FORMAT)


class RequestIds:
    """ASGI middleware: give each request and socket an id (the proxy's ``X-Request-ID`` if sane), logged with it.

    The id is sent back in ``X-Request-ID``, so a user's report can be found in the logs.
    """

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app``."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request with its id in :data:`REQUEST_ID`."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"x-request-id"), "")
        request_id = given if _GOOD_ID.match(given) else secrets.token_hex(8)
        token = REQUEST_ID.set(request_id)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id if scope["type"] == "http" else send)
        finally:
            REQUEST_ID.reset(token)
