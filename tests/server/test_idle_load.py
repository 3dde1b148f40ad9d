"""The idle-clients load tool (``server.tools.idleload``) on a live server, at a small size."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from server.tools import idleload
from tests.conftest import LiveServer


def test_idle_clients_all_get_welcome_and_lobby(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    server = start_server(pg_url)
    # Both ways of making accounts: straight into the database, and as guests over HTTP.
    accounts = idleload.make_accounts(pg_url, 25) + asyncio.run(idleload.guest_accounts(server.url, 25, 10))
    figures = asyncio.run(idleload.run(server.url, accounts, hold_s=2, concurrency=20,
                                       server_pid=server.proc.pid, timeout=20))
    assert figures["ok"], figures
    assert figures["connected"] == 50 and figures["failures"] == 0 and not figures["error_messages"]
    assert figures["lobby_settle_seconds"] is not None  # everyone was told that 50 are online
    assert figures["probe_fanout_seconds"] is not None  # and saw the probe's table in the lobby
    assert figures["server_rss_kb_after"] > 0 and figures["bytes_per_client"] is not None
