"""Accounts over HTTP: register, log in, guests; passwords are stored as argon2id hashes."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from server.models import User
from tests.conftest import LiveServer


def test_accounts(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Register, log in, refuse a taken name and a wrong password, make guests; /healthz answers."""
    server = start_server(pg_url)
    u = server.url
    r = httpx.post(f"{u}/api/auth/register", json={"username": "ana", "password": "secret-pw"})
    assert r.status_code == 200
    token = r.json()["token"]
    assert httpx.get(f"{u}/api/me", headers={"Authorization": f"Bearer {token}"}).json()["username"] == "ana"
    assert httpx.post(f"{u}/api/auth/register", json={"username": "ana", "password": "other-pw"}).status_code == 409
    assert httpx.post(f"{u}/api/auth/register", json={"username": "a b", "password": "secret-pw"}).status_code == 422
    assert httpx.post(f"{u}/api/auth/login", json={"username": "ana", "password": "wrong-pw"}).status_code == 401
    login = httpx.post(f"{u}/api/auth/login", json={"username": "ana", "password": "secret-pw"})
    assert login.status_code == 200 and login.json()["token"] != token
    g = httpx.post(f"{u}/api/auth/guest").json()
    assert g["user"]["role"] == "guest" and g["user"]["username"].startswith("guest-")
    health = httpx.get(f"{u}/healthz").json()
    assert health["status"] == "ok" and health["db"] == "ok" and health["bots_connected"] == 0
    engine = create_engine(pg_url)
    with Session(engine) as s:
        ana = s.scalars(select(User).where(User.username == "ana")).one()
        assert ana.password_hash is not None and ana.password_hash.startswith("$argon2id$")
        assert "secret-pw" not in ana.password_hash
    engine.dispose()
