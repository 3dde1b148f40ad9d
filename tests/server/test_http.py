"""Accounts over HTTP: register, log in, guests; passwords are stored as argon2id hashes."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session
from websockets.sync.client import connect

from server.store.models import User
from tests import local_http
from tests.conftest import LiveServer, free_port
from tests.forkserver import fork_module, run_module


def test_accounts(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Register, log in, refuse a taken name and a wrong password, make guests; /healthz answers."""
    server = start_server(pg_url)
    u = server.url
    r = local_http.post(f"{u}/api/auth/register", json={"username": "ana", "password": "secret-pw"})
    assert r.status_code == 200
    token = r.json()["token"]
    assert local_http.get(f"{u}/api/me", headers={"Authorization": f"Bearer {token}"}).json()["username"] == "ana"
    assert local_http.post(f"{u}/api/auth/register", json={"username": "ana", "password": "other-pw"}).status_code == 409
    assert local_http.post(f"{u}/api/auth/register", json={"username": "a b", "password": "secret-pw"}).status_code == 422
    assert local_http.post(f"{u}/api/auth/login", json={"username": "ana", "password": "wrong-pw"}).status_code == 401
    login = local_http.post(f"{u}/api/auth/login", json={"username": "ana", "password": "secret-pw"})
    assert login.status_code == 200 and login.json()["token"] != token
    g = local_http.post(f"{u}/api/auth/guest").json()
    assert g["user"]["role"] == "guest" and g["user"]["username"].startswith("guest-")
    health = local_http.get(f"{u}/healthz").json()
    assert health["status"] == "ok" and health["db"] == "ok" and health["bots_connected"] == 0
    engine = create_engine(pg_url)
    with Session(engine) as s:
        ana = s.scalars(select(User).where(User.username == "ana")).one()
        assert ana.password_hash is not None and ana.password_hash.startswith("$argon2id$")
        assert "secret-pw" not in ana.password_hash
    engine.dispose()


def test_default_database_and_account_commands(tmp_path: Path) -> None:
    """``treset serve`` with no DATABASE_URL makes ./var/treset.sqlite3; server.tools.bots makes admins and bots."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TRESET_DATABASE_URL")}

    def bots(*args: str) -> subprocess.CompletedProcess[str]:
        return run_module("server.tools.bots", list(args), cwd=tmp_path, env=env, timeout=60)

    port = free_port()
    proc = fork_module("treset.cli", ["serve", "--port", str(port)], env, cwd=tmp_path, stdout=tmp_path / "serve.log")
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(150):
            with contextlib.suppress(httpx.HTTPError):
                if local_http.get(f"{url}/healthz", timeout=2).json()["db"] == "ok":
                    break
            time.sleep(0.2)
        assert (tmp_path / "var" / "treset.sqlite3").exists()
        made = bots("admin", "boss", "--password", "boss-password")
        assert made.returncode == 0, made.stderr
        me = local_http.get(f"{url}/api/me", headers={"Authorization": f"Bearer {made.stdout.strip()}"}).json()
        assert me["username"] == "boss" and me["role"] == "admin"
        again = bots("admin", "boss", "--password", "boss-password")
        assert again.returncode == 2 and "exists" in again.stderr
        short = bots("admin", "boss2", "--password", "x")
        assert short.returncode == 2 and "6 characters" in short.stderr
        assert bots("create", "boss").returncode == 2  # not a bot account
        bot = bots("create", "robo")
        assert bot.returncode == 0, bot.stderr
        with connect(f"ws://127.0.0.1:{port}/ws") as ws:
            ws.send(json.dumps({"type": "auth", "token": bot.stdout.strip()}))
            assert json.loads(ws.recv(timeout=10))["user"] == {"id": 2, "username": "robo", "role": "bot"}
    finally:
        proc.terminate()
        proc.wait(15)
