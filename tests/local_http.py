"""Plain-HTTP requests to the servers the tests start, through one client per thread.

``httpx.get`` and its kin build a new client for every call, and with it a TLS context loaded from certifi's
bundle: about 50 ms of CPU for a request to 127.0.0.1 that uses no TLS at all, and the suite makes well over a
thousand (every guest, every health poll). These functions take the same arguments as ``httpx``'s and answer
the same way. Like ``httpx.get``, each request opens its own connection (none is kept alive, so a server
killed or restarted between two requests is never reached through a stale one) and keeps no cookie.
"""

from __future__ import annotations

import threading
from typing import Any

import httpx

_local = threading.local()


def _client() -> httpx.Client:
    client: httpx.Client | None = getattr(_local, "client", None)
    if client is None:
        client = _local.client = httpx.Client(limits=httpx.Limits(max_keepalive_connections=0))
    return client


def request(method: str, url: str, **kwargs: Any) -> httpx.Response:
    """Send ``method`` to ``url`` as :func:`httpx.request` would."""
    client = _client()
    try:
        return client.request(method, url, **kwargs)
    finally:
        client.cookies.clear()


def get(url: str, **kwargs: Any) -> httpx.Response:
    """GET ``url`` as :func:`httpx.get` would."""
    return request("GET", url, **kwargs)


def post(url: str, **kwargs: Any) -> httpx.Response:
    """POST to ``url`` as :func:`httpx.post` would."""
    return request("POST", url, **kwargs)


def put(url: str, **kwargs: Any) -> httpx.Response:
    """PUT to ``url`` as :func:`httpx.put` would."""
    return request("PUT", url, **kwargs)


def patch(url: str, **kwargs: Any) -> httpx.Response:
    """PATCH ``url`` as :func:`httpx.patch` would."""
    return request("PATCH", url, **kwargs)


def delete(url: str, **kwargs: Any) -> httpx.Response:
    """DELETE ``url`` as :func:`httpx.delete` would."""
    return request("DELETE", url, **kwargs)
