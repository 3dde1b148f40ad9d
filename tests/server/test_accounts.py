"""Signing out revokes the token (HTTP and WebSocket); a guest becomes a registered player keeping its games."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.store.models import Game, UserTotals
from tests import local_http
from tests.conftest import LiveServer
from tests.server.client import Client, guest_token, is_table, open_pair, play_cards


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _closed_with(client: Client, code: int) -> None:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            client.recv(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == code


def test_logout_revokes_the_token(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """After a logout the token gets 401, its open socket is closed with 4401 and a new one is refused."""
    server = start_server(pg_url)
    token, user = guest_token(server.url)
    other, _ = guest_token(server.url)
    c = Client(server.ws_url, token)
    keep = Client(server.ws_url, other)
    c.wait_for(lambda m: m["type"] == "welcome")
    assert local_http.get(f"{server.url}/api/me", headers=_auth(token), timeout=5).json() == user

    r = local_http.post(f"{server.url}/api/auth/logout", headers=_auth(token), timeout=5)
    assert (r.status_code, r.json()) == (200, {})
    _closed_with(c, 4401)
    assert local_http.get(f"{server.url}/api/me", headers=_auth(token), timeout=5).status_code == 401
    assert local_http.post(f"{server.url}/api/auth/logout", headers=_auth(token), timeout=5).status_code == 401
    assert local_http.post(f"{server.url}/api/auth/logout", timeout=5).status_code == 401
    try:
        _closed_with(Client(server.ws_url, token), 4401)
    except InvalidStatus as exc:  # a server may also refuse the handshake itself
        assert exc.response.status_code in (401, 403)
    # Another person's socket is untouched.
    keep.send({"type": "ping"})
    assert keep.wait_for(lambda m: m["type"] == "pong") == {"type": "pong"}
    keep.close()


def test_guest_upgrade_keeps_the_account(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A guest becomes a player with the same id, games and totals; the table shows the new name."""
    server = start_server(pg_url)
    a, b, table_id = open_pair(server.url, server.ws_url)
    play_cards(a, b, table_id, 2, b)  # both play a card: a forfeit from here on is rated and counted
    b_seat = next(m for m in reversed(b.received) if is_table(m))["table"]["you"]
    a.send({"type": "leave_table", "table_id": table_id})  # a forfeits: one finished game for both
    b.wait_for(lambda m: is_table(m) and (m["event"] or {}).get("kind") == "leave")
    guest = local_http.get(f"{server.url}/api/me", headers=_auth(b.token), timeout=5).json()
    assert guest["role"] == "guest"

    body = {"username": "ana_b", "password": "secret-1"}
    for bad, code in (({"username": "guest-ana", "password": "secret-1"}, 422),
                      ({"username": "ana_b", "password": "short"}, 422)):
        assert local_http.post(f"{server.url}/api/auth/upgrade", json=bad, headers=_auth(b.token),
                          timeout=5).status_code == code
    assert local_http.post(f"{server.url}/api/auth/upgrade", json=body, timeout=5).status_code == 401
    r = local_http.post(f"{server.url}/api/auth/upgrade", json=body, headers=_auth(b.token), timeout=10)
    assert r.status_code == 200, r.text
    upgraded = r.json()
    assert upgraded["user"] == {"id": guest["id"], "username": "ana_b", "role": "player", "lang": None}
    assert upgraded["token"] != b.token
    renamed = b.wait_for(lambda m: is_table(m) and m["table"]["players"][b_seat]["username"] == "ana_b")
    assert renamed["table"]["id"] == table_id
    for token in (upgraded["token"], b.token):  # the old guest token keeps working
        assert local_http.get(f"{server.url}/api/me", headers=_auth(token), timeout=5).json() == upgraded["user"]
    login = local_http.post(f"{server.url}/api/auth/login", json=body, timeout=10).json()
    assert login["user"]["id"] == guest["id"]

    # A taken name is refused; a registered player is no guest.
    other, _ = guest_token(server.url)
    assert local_http.post(f"{server.url}/api/auth/upgrade", json=body, headers=_auth(other),
                      timeout=10).status_code == 409
    assert local_http.post(f"{server.url}/api/auth/upgrade", json={"username": "ana_c", "password": "secret-1"},
                      headers=_auth(upgraded["token"]), timeout=10).status_code == 403

    engine = create_engine(pg_url)
    with Session(engine) as s:
        game = s.scalars(select(Game)).one()
        assert guest["id"] in (game.player0_id, game.player1_id)
        totals = s.get(UserTotals, (guest["id"], "tressette"))
        assert totals is not None and (totals.games, totals.wins) == (1, 1)
    engine.dispose()
    a.close()
    b.close()


def test_account_keeps_the_page_language(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """The language picked in the header is kept on the account: /api/me and a later sign-in return it."""
    server = start_server(pg_url)
    token, user = guest_token(server.url)
    assert user["lang"] is None  # nothing picked yet: the page follows the browser
    r = local_http.put(f"{server.url}/api/me/lang", json={"lang": "hr"}, headers=_auth(token), timeout=5)
    assert (r.status_code, r.json()) == (200, {**user, "lang": "hr"})
    assert local_http.get(f"{server.url}/api/me", headers=_auth(token), timeout=5).json()["lang"] == "hr"
    for bad in ({"lang": "de"}, {"lang": ""}, {}, {"lang": None}):
        assert local_http.put(f"{server.url}/api/me/lang", json=bad, headers=_auth(token), timeout=5).status_code == 422
    assert local_http.put(f"{server.url}/api/me/lang", json={"lang": "it"}, timeout=5).status_code == 401
    assert local_http.get(f"{server.url}/api/me", headers=_auth(token), timeout=5).json()["lang"] == "hr"

    # A registered account: the choice comes back with the next sign-in, and the upgrade of a guest keeps it.
    creds = {"username": "lucia_it", "password": "secret-12"}
    reg = local_http.post(f"{server.url}/api/auth/register", json=creds, timeout=10).json()
    assert local_http.put(f"{server.url}/api/me/lang", json={"lang": "it"}, headers=_auth(reg["token"]),
                          timeout=5).status_code == 200
    assert local_http.post(f"{server.url}/api/auth/login", json=creds, timeout=10).json()["user"]["lang"] == "it"
    up = local_http.post(f"{server.url}/api/auth/upgrade", json={"username": "ivana_hr", "password": "secret-12"},
                         headers=_auth(token), timeout=10).json()
    assert up["user"]["lang"] == "hr"
