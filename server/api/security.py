"""Cross-cutting protections: security headers, URLs with NUL bytes, tokens kept out of logs, Origin checks.

Each is small and independent of the routes; :func:`server.api.app.create_app` wires them in.
See docs/security.md for what they protect against.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""The web client is plain ES modules and stylesheets from its own origin, with no inline script."""
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
DOCS_PATHS = ("/docs", "/redoc")
"""FastAPI's documentation pages load their scripts from a CDN: no CSP there (they exist only if enabled)."""
RESERVED = re.compile(r"^(admin|administrator|root|system|sysop|treset|moderator|mod|support|staff|server|"
                      r"official|null|undefined|anonymous|guest|everyone|bot.*|guest-.*)$", re.IGNORECASE)
"""Names nobody may register: they would pass for the site, its staff or its bots."""
_SECRET_PARAM = re.compile(r"([?&](?:token|ticket)=)[^&\s\"']*", re.IGNORECASE)


def reserved_name(username: str) -> bool:
    """Return True if ``username`` may not be registered (``bot-easy``, ``Admin``, ``guest-1234``, ...).

    >>> reserved_name("Admin"), reserved_name("bot-easy"), reserved_name("robert")
    (True, True, False)
    """
    return bool(RESERVED.match(username))


class SecurityHeaders:
    """ASGI middleware: add the security headers to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app``."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Add the headers to the response start."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = scope["path"].startswith(DOCS_PATHS)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in HEADERS if k not in present and not (docs and k.startswith(b"content-sec"))]
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)


class RejectNul:
    """ASGI middleware: answer 422 to a URL whose path or query holds a NUL byte.

    No route needs one, and PostgreSQL refuses them in text (a 500 otherwise).
    """

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app``."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse or pass on."""
        if scope["type"] == "http" and ("\x00" in scope["path"] or b"%00" in scope["query_string"]
                                        or b"\x00" in scope["query_string"]):
            body = json.dumps({"detail": "a URL may not contain a NUL byte (%00)"}).encode()
            await send({"type": "http.response.start", "status": 422,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def redact(text: str) -> str:
    """Return ``text`` with the values of ``token=`` and ``ticket=`` query parameters hidden.

    >>> redact('GET /ws?token=abc&x=1 HTTP/1.1')
    'GET /ws?token=[redacted]&x=1 HTTP/1.1'
    """
    return _SECRET_PARAM.sub(r"\1[redacted]", text)


class RedactSecrets(logging.Filter):
    """A logging filter hiding tokens in URLs (uvicorn logs every request line and socket path)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message arguments; keep the record."""
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()}
        return True


def install_log_redaction() -> None:
    """Add :class:`RedactSecrets` to uvicorn's loggers (after uvicorn configured them; idempotent)."""
    for name in ("uvicorn.access", "uvicorn.error", "uvicorn"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())


def origin_allowed(origin: str | None, host: str | None, allowed: str) -> bool:
    """Return True if a socket from ``origin`` may connect.

    No Origin (bots, scripts: not a browser) is allowed; a browser's Origin must be one of
    ``allowed`` (comma-separated), or, when that is empty, on the host the request was made to.

    >>> origin_allowed(None, "x.org", ""), origin_allowed("https://x.org", "x.org", "")
    (True, True)
    >>> origin_allowed("https://evil.example", "x.org", ""), origin_allowed("https://a.org/", "x", "https://a.org")
    (False, True)
    >>> origin_allowed("http://x.org:8000", "x.org:8000", ""), origin_allowed("http://x.org:8000", "x.org:9000", "")
    (True, False)
    >>> origin_allowed("http://localhost:8000", "localhost", ""), origin_allowed("null", "x.org", "")
    (True, False)
    """
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    if allowed.strip():
        return origin in {o.strip().rstrip("/").lower() for o in allowed.split(",") if o.strip()}
    try:
        seen, asked = urlsplit(origin), urlsplit(f"//{(host or '').strip().lower()}")
        if not seen.hostname or seen.hostname != asked.hostname:
            return False
        # A proxy may pass the host without its port (nginx's ``$host``): the name must match then.
        return asked.port is None or (seen.port or {"http": 80, "https": 443}.get(seen.scheme)) == asked.port
    except ValueError:  # a malformed port
        return False


def client_address(scope: Any) -> str:
    """Return the peer's address for per-address limits (behind a proxy: see uvicorn's --proxy-headers)."""
    client = scope.get("client") if isinstance(scope, dict) else None
    return str(client[0]) if client else "unknown"
