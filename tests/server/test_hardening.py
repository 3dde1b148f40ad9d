"""Issue #22 on the real server: socket sign-in, tokens, throttles, Origin, limits, names, headers, files."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from server.store import repos
from server.store.db import upgrade
from server.store.models import AuthToken
from tests import local_http
from tests.conftest import LiveServer
from tests.server.client import Client, guest_token, is_table
from tests.server.db import admin_token, db_session


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _closed_code(client: Client, timeout: float = 10) -> int:
    """Read until the server closes the socket; return the close code."""
    with pytest.raises(ConnectionClosed) as closed:
        end = time.time() + timeout
        while time.time() < end:
            client.recv(timeout=end - time.time())
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


def test_socket_signs_in_with_its_first_message_and_no_token_reaches_the_log(
        pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """``auth`` first: welcome. Silence, another message first, or a bad token: ``auth_failed`` and 4401.
    The old ``?token=`` still works, and neither it nor an HTTP query's token is written to the log."""
    server = start_server(pg_url, TRESET_WS_AUTH_TIMEOUT_S="1")
    token, user = guest_token(server.url)
    c = Client(server.ws_url, token)
    assert c.recv()["type"] == "welcome"
    c.close()

    with connect(server.ws_url) as ws:  # silence: closed after the deadline
        assert json.loads(ws.recv(timeout=5))["code"] == "auth_failed"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    for first in ({"type": "ping"}, {"type": "auth"}, {"type": "auth", "token": ["x"]}, "not json", b"\x00"):
        with connect(server.ws_url) as ws:
            ws.send(first if isinstance(first, str | bytes) else json.dumps(first))
            assert json.loads(ws.recv(timeout=5))["code"] == "auth_failed", first
            with pytest.raises(ConnectionClosed):
                ws.recv(timeout=5)

    with connect(f"{server.ws_url}?token={token}") as ws:  # the old way, for old clients
        assert json.loads(ws.recv(timeout=5))["user"]["id"] == user["id"]
    local_http.get(f"{server.url}/api/tables?token={token}", timeout=5)
    time.sleep(0.3)
    log = server.log()
    assert "/ws?token=[redacted]" in log and "/api/tables?token=[redacted]" in log
    assert token not in log


def test_sessions_expire_when_idle_and_admins_revoke_tokens(
        pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """An idle session is refused (and deleted); a used one slides on; API tokens never expire; admin revoke."""
    server = start_server(pg_url)
    token, user = guest_token(server.url)
    other, _ = guest_token(server.url)
    bot = None
    with db_session(pg_url) as session:
        bot = repos.create_bot_token(session=session, username="bot-test")
        for t, days in ((token, 29), (other, 31), (bot, 400)):
            row = session.get(AuthToken, repos.hash_token(t))
            assert row is not None
            row.created_at = row.last_used_at = datetime.now(UTC) - timedelta(days=days)
        session.commit()
    assert local_http.get(f"{server.url}/api/me", headers=_auth(token)).status_code == 200  # 29 days idle: still valid
    assert local_http.get(f"{server.url}/api/me", headers=_auth(other)).status_code == 401  # 31: expired
    assert local_http.get(f"{server.url}/api/me", headers=_auth(bot)).status_code == 200  # an API token
    with db_session(pg_url) as session:
        row = session.get(AuthToken, repos.hash_token(token))
        assert row is not None and row.last_used_at is not None
        assert datetime.now(UTC) - row.last_used_at < timedelta(minutes=5)  # the use renewed it
        assert session.get(AuthToken, repos.hash_token(other)) is None  # an expired session is deleted

    # An admin revokes every token of an account: its sockets close (4401), its HTTP calls get 401.
    admin = admin_token(pg_url)
    c = Client(server.ws_url, token)
    assert c.recv()["type"] == "welcome"
    name = user["username"]
    assert local_http.post(f"{server.url}/api/admin/users/{name}/revoke-tokens", headers=_auth(token)).status_code == 403
    r = local_http.post(f"{server.url}/api/admin/users/{name}/revoke-tokens", headers=_auth(admin))
    assert r.status_code == 200 and r.json() == {"username": name, "revoked": 1, "sockets_closed": 1}
    assert _closed_code(c) == 4401
    assert local_http.get(f"{server.url}/api/me", headers=_auth(token)).status_code == 401
    assert local_http.post(f"{server.url}/api/admin/users/nobody/revoke-tokens", headers=_auth(admin)).status_code == 404


def test_sign_in_registration_and_guests_are_throttled(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Failed sign-ins per account, attempts per address, guests per address: then 429 with Retry-After."""
    server = start_server(pg_url, TRESET_LOGIN_PER_ACCOUNT="3", TRESET_AUTH_PER_ADDRESS="8",
                          TRESET_AUTH_WINDOW_S="60", TRESET_GUESTS_PER_ADDRESS="3", TRESET_GUEST_WINDOW_S="60")
    creds = {"username": "carla", "password": "right-password"}
    assert local_http.post(f"{server.url}/api/auth/register", json=creds).status_code == 200
    assert local_http.post(f"{server.url}/api/auth/login", json=creds).status_code == 200  # successes cost nothing
    for _ in range(3):
        wrong = local_http.post(f"{server.url}/api/auth/login", json={**creds, "password": "wrong-password"})
        assert wrong.status_code == 401
    refused = local_http.post(f"{server.url}/api/auth/login", json=creds)  # even the right password, now
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    # The address's budget (8 in the window: 1 registration + 4 sign-ins so far; the refusal above, made
    # before the address was counted, did not count) runs out for every account.
    dora = {"username": "dora", "password": "pw-dora"}
    assert local_http.post(f"{server.url}/api/auth/register", json=dora).status_code == 200
    for _ in range(2):
        assert local_http.post(f"{server.url}/api/auth/login", json=dora).status_code == 200
    r = local_http.post(f"{server.url}/api/auth/login", json=dora)
    assert r.status_code == 429 and "Retry-After" in r.headers
    for _ in range(3):
        assert local_http.post(f"{server.url}/api/auth/guest").status_code == 200
    r = local_http.post(f"{server.url}/api/auth/guest")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1


def test_password_hashing_runs_in_a_few_slots() -> None:
    """When every hashing slot stays taken, a request is refused (``HashingBusy``, a 503) instead of queueing CPU."""
    repos.set_hash_concurrency(1)
    wait = repos.HASH_WAIT_S
    repos.HASH_WAIT_S = 0.05
    try:
        assert repos._hash_slots.acquire(timeout=1)
        with pytest.raises(repos.HashingBusy):
            repos._argon2("hash", "some-password")
        repos._hash_slots.release()
        assert str(repos._argon2("hash", "some-password")).startswith("$argon2id$")
    finally:
        repos.HASH_WAIT_S = wait
        repos.set_hash_concurrency(2)


def test_socket_origin_is_checked(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A browser page of another site is refused (403); same host, configured origins and no Origin pass."""
    server = start_server(pg_url)
    token, _ = guest_token(server.url)
    for origin in (None, f"http://127.0.0.1:{server.port}"):
        c = Client(server.ws_url, token, origin=origin)
        assert c.recv()["type"] == "welcome"
        c.close()
    with pytest.raises(InvalidStatus) as refused:
        Client(server.ws_url, token, origin="https://evil.example")
    assert refused.value.response.status_code == 403

    configured = start_server(pg_url, TRESET_ALLOWED_ORIGINS="https://treset.example, https://www.treset.example")
    c = Client(configured.ws_url, token, origin="https://www.treset.example")
    assert c.recv()["type"] == "welcome"
    with pytest.raises(InvalidStatus):
        Client(configured.ws_url, token, origin=f"http://127.0.0.1:{configured.port}")


def test_per_connection_limits(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Messages beyond the rate get ``rate_limited``, then the socket closes (1008); tables per user are capped;
    a message over the size limit gets ``too_large`` before any close."""
    server = start_server(pg_url, TRESET_WS_RATE_PER_S="5", TRESET_WS_RATE_BURST="10", TRESET_WS_ABUSE_CLOSE="30",
                          TRESET_MAX_WAITING_TABLES="2")
    token, _ = guest_token(server.url)
    c = Client(server.ws_url, token)
    for _ in range(2):
        c.send({"type": "create_table"})
        assert c.wait_for(is_table)["table"]["status"] == "waiting"
    c.send({"type": "create_table", "opponent": "invite"})
    err = c.error()
    assert (err["code"], err["params"]) == ("too_many_tables", {"limit": 2, "status": "waiting"})

    c.send("x" * 300_000)  # over 8 KiB, under the transport limit: the error, not a dropped socket
    err = c.error()
    assert (err["code"], err["params"]) == ("too_large", {"limit": 8192})
    for _ in range(15):
        c.send({"type": "ping"})
    codes: list[str] = []
    while len(codes) < 15:
        m = c.recv()
        if m["type"] in ("pong", "error"):
            codes.append(m.get("code", "pong"))
    assert "rate_limited" in codes and "pong" in codes
    for _ in range(60):  # sustained abuse: closed
        try:
            c.send({"type": "ping"})
        except ConnectionClosed:
            break
    assert _closed_code(c) == 1008


def test_reserved_names_are_refused(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """admin, root, bot…, guest-…, system, treset (any case) cannot be registered, nor taken by a guest."""
    server = start_server(pg_url)
    for name in ("admin", "Admin", "root", "bot-easy", "Bot", "guest-1234", "system", "treset", "moderator"):
        r = local_http.post(f"{server.url}/api/auth/register", json={"username": name, "password": "secret-1"})
        assert r.status_code == 422 and "reserved" in r.json()["detail"], name
    token, _ = guest_token(server.url)
    r = local_http.post(f"{server.url}/api/auth/upgrade", json={"username": "root", "password": "secret-1"},
                   headers=_auth(token))
    assert r.status_code == 422
    r = local_http.post(f"{server.url}/api/auth/register", json={"username": "ab\u0000cd", "password": "secret-1"})
    assert r.status_code == 422
    r = local_http.post(f"{server.url}/api/auth/login", json={"username": "ab\u0000cd", "password": "secret-1"})
    assert r.status_code == 422


def test_security_headers_and_api_docs(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Every answer carries the security headers; the API docs are off unless ``TRESET_API_DOCS=1``."""
    server = start_server(pg_url)
    for path in ("/", "/js/app.js", "/api/tables", "/healthz", "/api/me", "/api/players/%00"):
        r = local_http.get(f"{server.url}{path}")
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"], path
        assert "script-src 'self'" in r.headers["content-security-policy"]
        assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
    for path in ("/docs", "/redoc", "/openapi.json"):
        assert local_http.get(f"{server.url}{path}").status_code == 404
    with_docs = start_server(pg_url, TRESET_API_DOCS="1")
    assert local_http.get(f"{with_docs.url}/openapi.json").status_code == 200
    assert local_http.get(f"{with_docs.url}/docs").status_code == 200


def test_the_sqlite_file_is_private(tmp_path: Path, start_server: Callable[..., LiveServer]) -> None:
    """The database (password and token hashes) is 0600 in a 0700 folder the server made."""
    folder = tmp_path / "fresh" / "var"
    url = f"sqlite:///{folder / 'treset.sqlite3'}"
    server = start_server(url)
    guest_token(server.url)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    for name in os.listdir(folder):
        assert stat.S_IMODE(os.stat(folder / name).st_mode) & 0o077 == 0, name
    # An existing world-readable file is made private at start.
    other = tmp_path / "old.sqlite3"
    other.touch(mode=0o644)
    os.chmod(other, 0o644)
    upgrade(f"sqlite:///{other}")
    assert stat.S_IMODE(os.stat(other).st_mode) == 0o600
