"""The sign-in, registration and guest limits shared through Redis (issue #34), and the failed sign-in policy.

Against the real Redis at ``TEST_REDIS_URL`` (default 127.0.0.1:6379, shared: every test writes under
its own key prefix and deletes its keys after) and two live processes on a throwaway Redis.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator

import pytest
import redis

from server.api.routes_auth import Throttles
from server.game.cluster.shared_limits import RedisLimits, limiters
from server.game.limits import Limiter
from server.settings import Settings
from tests import local_http
from tests.conftest import LiveServer, free_port
from tests.server.client import Client, guest_token

SHARED_REDIS = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def prefix() -> Iterator[str]:
    """Yield a key prefix of this test's own on the shared Redis; delete its keys afterwards."""
    client = redis.Redis.from_url(SHARED_REDIS)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.fail(f"no Redis at {SHARED_REDIS}: {exc}")
    mine = f"test:{uuid.uuid4().hex}:"
    yield mine
    keys = list(client.scan_iter(f"{mine}*"))
    if keys:
        client.delete(*keys)
    client.close()


def _two_processes(prefix: str, limit: int, window_s: float = 3600.0) -> tuple[Limiter, Limiter]:
    """Two limiters as two processes would hold them: their own clients, one Redis, one name."""
    one = RedisLimits(redis.Redis.from_url(SHARED_REDIS), prefix).throttle("login", limit, window_s)
    two = RedisLimits(redis.Redis.from_url(SHARED_REDIS), prefix).throttle("login", limit, window_s)
    return one, two


def test_two_processes_share_one_budget(prefix: str) -> None:
    """Hits spread over two limiters get the limit between them, not twice it; other keys keep theirs."""
    one, two = _two_processes(prefix, limit=5)
    allowed = [(one if i % 2 else two).hit("carla") == 0 for i in range(12)]
    assert allowed == [True] * 5 + [False] * 7
    # An hour's window refills a token every 720 s: the refused wait says so, and refusals counted nothing.
    assert 700 < one.hit("carla") <= 720 and 700 < two.blocked("carla") <= 720
    assert one.hit("dora") == 0 and two.hit("dora") == 0
    assert not one.fresh("carla") and not two.fresh("dora") and one.fresh("nobody")
    client = redis.Redis.from_url(SHARED_REDIS)
    # The bucket expires once it would be full again (5 tokens at 720 s each), so Redis forgets idle keys.
    assert 5 * 720_000 <= client.pttl(f"{prefix}login:carla") <= 5 * 720_000 + 1000
    assert client.pttl(f"{prefix}login:nobody") == -2  # looked at, never written
    client.close()


def test_blocked_and_fresh_count_nothing(prefix: str) -> None:
    """Only ``hit`` spends: looking a thousand times leaves the budget whole."""
    one, two = _two_processes(prefix, limit=2)
    for _ in range(1000 // 2):
        assert one.blocked("erin") == 0 and two.fresh("erin")
    assert [one.hit("erin"), two.hit("erin")] == [0, 0] and one.hit("erin") > 0


def test_an_unreachable_redis_fails_open_to_the_process(caplog: pytest.LogCaptureFixture) -> None:
    """No Redis: no error, one warning, and the limit still holds in the process."""
    dead = f"redis://127.0.0.1:{free_port()}/0"  # a port nobody listens on
    limiter = limiters(dead, "test:")("guests", 3, 600.0)
    with caplog.at_level(logging.WARNING, logger="treset.limits"):
        assert [limiter.hit("10.0.0.1") == 0 for _ in range(4)] == [True, True, True, False]
        assert limiter.blocked("10.0.0.1") > 0 and limiter.hit("10.0.0.2") == 0
    warnings = [r for r in caplog.records if r.name == "treset.limits"]
    assert len(warnings) == 1 and "did not answer" in warnings[0].getMessage()


@pytest.mark.parametrize("shared", [False, True], ids=["in-process", "redis"])
def test_a_stranger_cannot_lock_the_owner_out(shared: bool, prefix: str) -> None:
    """Failures count per account and address; the account's all-address budget refuses only addresses
    with failures of their own on it, so the owner's address stays open whatever others do."""
    settings = Settings(redis_url=SHARED_REDIS if shared else None, limits_prefix=prefix,
                        login_per_account=3, login_per_account_all=5, auth_window_s=3600)
    throttles = Throttles(settings)
    owner, stranger = "192.0.2.1", "203.0.113.9"
    for _ in range(3):
        assert throttles.login_wait("carla", stranger) == 0
        throttles.login_failed("carla", stranger)
    assert throttles.login_wait("carla", stranger) > 0  # the stranger's own address: locked
    assert throttles.login_wait("carla", owner) == 0  # the owner's: untouched
    # Many addresses: the first failure of each is counted; once the account's budget of 5 is spent,
    # an address that failed before waits, a fresh one (the owner's) does not.
    for i in range(2):
        throttles.login_failed("carla", f"198.51.100.{i}")
    assert throttles.login_wait("carla", "198.51.100.0") > 0
    assert throttles.login_wait("carla", owner) == 0 and throttles.login_wait("dora", "198.51.100.0") == 0
    # The owner mistypes once in the middle of that attack: a back-off of one refill (720 s here),
    # then (with the default figures: 6 s) the right password goes through.
    throttles.login_failed("carla", owner)
    assert 0 < throttles.login_wait("carla", owner) <= 3600 / 5


def _login(url: str, username: str, password: str, address: str | None = None) -> int:
    headers = {"X-Forwarded-For": address} if address else {}
    return local_http.post(f"{url}/api/auth/login", json={"username": username, "password": password},
                      headers=headers, timeout=30).status_code


def test_two_processes_hold_the_limits_together(pg_url: str, redis_url: str,
                                                start_server: Callable[..., LiveServer]) -> None:
    """Two servers on one Redis: failed sign-ins and guests spread over both get what one process allows;
    the owner, from another address, still signs in after the stranger's failures."""
    env = {"TRESET_REDIS_URL": redis_url, "TRESET_LOGIN_PER_ACCOUNT": "3", "TRESET_AUTH_WINDOW_S": "3600",
           "TRESET_GUESTS_PER_ADDRESS": "4", "TRESET_GUEST_WINDOW_S": "3600"}
    one, two = start_server(pg_url, **env), start_server(pg_url, **env)
    creds = {"username": "carla", "password": "right-password"}
    assert local_http.post(f"{one.url}/api/auth/register", json=creds, timeout=30).status_code == 200
    # The stranger's address reaches the servers as the proxy would tell it (uvicorn trusts 127.0.0.1).
    stranger = "203.0.113.9"
    answers = [_login(server.url, "carla", "wrong-password", stranger) for server in (one, two, one, two, one, two)]
    assert answers == [401, 401, 401, 429, 429, 429]
    assert _login(two.url, "carla", "right-password", stranger) == 429  # even the right password, from there
    assert _login(one.url, "carla", "right-password") == 200 == _login(two.url, "carla", "right-password")
    guests = [local_http.post(f"{server.url}/api/auth/guest", headers={"X-Forwarded-For": "198.51.100.7"},
                         timeout=30).status_code for server in (one, two) * 3]
    assert guests == [200] * 4 + [429] * 2


def test_a_users_table_limits_hold_across_two_processes(pg_url: str, redis_url: str,
                                                        start_server: Callable[..., LiveServer]) -> None:
    """One user's four sockets, two on each process, open twelve tables at once: three (the waiting
    limit) are opened in all, the nine others refused with ``too_many_tables``."""
    env = {"TRESET_REDIS_URL": redis_url, "TRESET_MAX_WAITING_TABLES": "3"}
    one, two = start_server(pg_url, **env), start_server(pg_url, **env)
    token, user = guest_token(one.url)
    sockets = [Client(server.ws_url, token) for server in (one, two, one, two)]
    try:
        for client in sockets:
            client.wait_for(lambda m: m["type"] == "welcome")
        for client in sockets:
            for _ in range(3):
                client.send({"type": "create_table", "variant": "tressette", "opponent": "anyone"})
        opened, refused = set(), 0
        for client in sockets:
            answers = 0
            while answers < 3:
                msg = client.wait_for(lambda m: m["type"] == "error" or (
                    m["type"] == "table" and m["table"]["you"] == 0 and m["event"] is None))
                if msg["type"] == "error":
                    assert msg["code"] == "too_many_tables", msg
                    refused += 1
                else:
                    opened.add(msg["table"]["id"])
                answers += 1
        assert len(opened) == 3 and refused == 9
        time.sleep(1.5)  # both lobbies list them (they are public): three tables of this user's
        listed = local_http.get(f"{two.url}/api/tables", timeout=10).json()["tables"]
        assert {t["id"] for t in listed if user["username"] in t["players"]} == opened
    finally:
        for client in sockets:
            client.close()
