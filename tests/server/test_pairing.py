"""Quick pairing ("Play a person"): the pure policy, then real servers over WebSocket (one process, and two).

The policy: oldest seek first, paired with the oldest compatible one; the rating range widens with
the wait; never a user with itself; no one seated twice and no compatible seeks left unpaired.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Callable
from dataclasses import replace

import pytest
from redis.asyncio import Redis
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from server.game.cluster.seeks import RedisQueue
from server.game.pairing.policy import MemoryQueue, SeekEntry, Widening, compatible, match
from server.game.records import MemoryStore
from server.store.models import UserTotals
from tests import local_http
from tests.conftest import LiveServer
from tests.server.client import Client, Msg, guest_token, is_table
from tests.server.test_game_service import make_hub, player, send

W = Widening(start=200, per_s=10, most=1000)


def _seek(user: int, rating: float = 1500, since: float = 0, variant: str = "tressette", target: int = 0) -> SeekEntry:
    return SeekEntry(user_id=user, username=f"u{user}", role="guest", variant=variant, target=target, rating=rating,
                     since=since)


# ----- the policy, without I/O ---------------------------------------------------------------


def test_oldest_compatible_first_never_self_never_another_format() -> None:
    """The newcomer gets the one who waited longest within range; the same user or format never pairs."""
    old, older, far = _seek(1, 1600, since=5), _seek(2, 1450, since=1), _seek(3, 2000, since=0)
    new = _seek(4, 1500, since=9)
    assert [(a.user_id, b.user_id) for a, b in match([new, old, older, far], now=10, widening=W)] == [(2, 1)]
    assert match([_seek(1, since=0), _seek(1, since=3)], now=5, widening=W) == []  # one user: never a pair
    assert match([_seek(1), _seek(2, target=21)], now=1, widening=W) == []
    assert match([_seek(1), _seek(2, variant="kifameno")], now=1, widening=W) == []
    assert compatible(_seek(1, 1500), _seek(2, 1500, target=11), now=0, widening=W) is False


def test_the_range_widens_while_people_wait() -> None:
    """±200 at first, +10 a second (the older seek's wait counts), at most 1000."""
    a, b = _seek(1, 1500, since=0), _seek(2, 1900, since=15)
    assert not compatible(a, b, now=19, widening=W)  # ±390
    assert compatible(a, b, now=20, widening=W)  # ±400
    assert not compatible(_seek(1, 1000), _seek(2, 2100), now=10_000, widening=W)  # beyond the widest range


@pytest.mark.parametrize("seed", range(20))
def test_many_at_once_no_one_twice_none_left_compatible(seed: int) -> None:
    """Random queues: every pair compatible, each user at most once, no two compatible seeks left over."""
    rng = random.Random(seed)
    seeks = [_seek(rng.randrange(40), rng.gauss(1500, 300), rng.uniform(0, 30), rng.choice(["tressette", "kifameno"]),
                   rng.choice([0, 11])) for _ in range(60)]
    one_each = list({s.user_id: s for s in seeks}.values())  # the queue keeps one seek per user
    pairs = match(one_each, now=30, widening=W)
    users = [s.user_id for pair in pairs for s in pair]
    assert len(users) == len(set(users))
    assert all(compatible(a, b, now=30, widening=W) and a.since <= b.since for a, b in pairs)
    left = [s for s in one_each if s.user_id not in users]
    assert not [(a, b) for a in left for b in left if compatible(a, b, now=30, widening=W)]


def test_the_memory_queue_keeps_one_seek_per_user_and_takes_only_its_pairs() -> None:
    """A second seek replaces the first; pairs not involving this process's seeks stay in the queue."""
    async def run() -> None:
        queue = MemoryQueue()
        assert await queue.add(_seek(1, since=0)) is None
        assert (await queue.add(_seek(1, since=2))) == _seek(1, since=0)
        await queue.add(_seek(2, since=1))
        assert await queue.take_pairs(now=3, widening=W, mine=lambda s: s.user_id == 9) == []
        pairs = await queue.take_pairs(now=3, widening=W, mine=lambda s: s.user_id == 2)
        assert [(a.user_id, b.user_id) for a, b in pairs] == [(2, 1)]
        assert await queue.all() == [] and await queue.remove(1) is None
    asyncio.run(run())


def test_two_redis_queues_never_take_the_same_seeker(redis_url: str) -> None:
    """Two processes' queues on one Redis take pairs at the same moment: every seeker at most once in all."""
    async def run() -> None:
        clients = [Redis.from_url(redis_url, decode_responses=True) for _ in range(2)]
        queues = [RedisQueue(c, alive=lambda node: node in ("one", "two")) for c in clients]
        rng = random.Random(7)
        for user in range(60):
            await queues[user % 2].add(replace(_seek(user, rng.gauss(1500, 150), rng.uniform(0, 5)),
                                               node="one" if user % 2 else "two"))
        await queues[0].add(replace(_seek(99, 1500, 0), node="dead"))  # a dead process's seek: ignored
        users: list[int] = []
        for _ in range(3):  # six looks at once (three per process), three times
            taken = await asyncio.gather(*(q.take_pairs(now=10, widening=W, mine=lambda s: True) for q in queues * 3))
            users += [s.user_id for pairs in taken for pair in pairs for s in pair]
        assert len(users) == len(set(users)) > 40 and 99 not in users
        left = await queues[1].all()
        assert not [(a, b) for a in left for b in left if compatible(a, b, now=10, widening=W)]
        assert len(left) + len(users) == 60
        for c in clients:
            await c.aclose()
    asyncio.run(run())


# ----- a real server over WebSocket ----------------------------------------------------------


def _player(server: LiveServer) -> tuple[Client, Msg]:
    token, user = guest_token(server.url)
    client = Client(server.ws_url, token)
    client.wait_for(lambda m: m["type"] == "lobby")
    return client, user


def _paired(client: Client, timeout: float = 15) -> Msg:
    """Wait until ``client`` is paired; return its first snapshot of the new table (seated, playing)."""
    ended = client.wait_for(lambda m: m["type"] == "seek_ended", timeout)
    assert ended["reason"] == "paired", ended
    table_id = ended["table_id"]

    def seated(m: Msg) -> bool:
        return is_table(m) and m["table"]["id"] == table_id and m["table"]["you"] is not None

    seen = [m for m in client.received if seated(m)]
    return seen[0] if seen else client.wait_for(seated, timeout)


def _quiet(client: Client, seconds: float) -> list[Msg]:
    """Return what ``client`` receives within ``seconds``."""
    got = []
    end = time.time() + seconds
    while (left := end - time.time()) > 0:
        try:
            got.append(client.recv(left))
        except TimeoutError:
            break
    return got


def test_two_people_are_paired_at_one_table(sqlite_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A seeks and waits (with the figures), B seeks the same game and format: one running deal, both seated."""
    server = start_server(sqlite_url, TRESET_BOT_OFFER_S="7")
    (a, ua), (b, ub) = _player(server), _player(server)
    a.send({"type": "seek", "variant": "kifameno", "target": 11})
    seeking = a.wait_for(lambda m: m["type"] == "seeking")
    assert (seeking["variant"], seeking["target"], seeking["waiting"], seeking["rating"], seeking["range"],
            seeking["bot_offer_ms"]) == ("kifameno", 11, 1, 1500, 200, 7000)
    assert seeking["online"] >= 2 and abs(seeking["since"] / 1000 - time.time()) < 5
    b.send({"type": "seek", "variant": "kifameno", "target": 0})  # another format: no pair
    assert b.wait_for(lambda m: m["type"] == "seeking")["waiting"] == 1
    b.send({"type": "seek", "variant": "kifameno", "target": 11})  # replaces B's seek
    ta, tb = _paired(a)["table"], _paired(b)["table"]
    assert ta["id"] == tb["id"] and ta["variant"] == "kifameno" and ta["status"] == "playing"
    assert {ta["you"], tb["you"]} == {0, 1} and ta["you"] == 0  # the older seek sits first
    assert [p["username"] for p in ta["players"]] == [ua["username"], ub["username"]]
    assert local_http.get(f"{server.url}/healthz").json()["seeking_here"] == 0
    a.send({"type": "cancel_seek"})  # the seek is over: nothing to cancel
    assert a.error()["code"] == "not_seeking"


def test_cancel_closed_socket_self_and_bad_input(sqlite_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A cancelled seek, a closed socket's, or another socket of the same user is never paired; bad input is refused."""
    server = start_server(sqlite_url)
    (a, _), (b, _), (c, _) = _player(server), _player(server), _player(server)
    for bad in ({"type": "seek", "target": 5}, {"type": "seek", "variant": "briscola"}, {"type": "seek", "target": "11"},
                {"type": "cancel_seek", "extra": 1}):
        a.send(bad)
        assert a.error()["code"] == "bad_message"
    a.send({"type": "cancel_seek"})
    assert a.error()["code"] == "not_seeking"
    a.send({"type": "seek"})
    a.wait_for(lambda m: m["type"] == "seeking")
    a.send({"type": "cancel_seek"})
    assert a.wait_for(lambda m: m["type"] == "seek_ended")["reason"] == "cancelled"
    c.send({"type": "seek"})
    c.wait_for(lambda m: m["type"] == "seeking")
    c.close()  # a closed socket's seek ends with it
    time.sleep(0.3)
    # The same user on two sockets: the second seek replaces the first, and never pairs with it.
    b2 = Client(server.ws_url, b.token)
    b.send({"type": "seek"})
    assert b.wait_for(lambda m: m["type"] == "seeking")["waiting"] == 1
    b2.send({"type": "seek"})
    assert b.wait_for(lambda m: m["type"] == "seek_ended")["reason"] == "replaced"
    assert b2.wait_for(lambda m: m["type"] == "seeking")["waiting"] == 1
    assert not [m for m in _quiet(b2, 1.5) if m["type"] != "seeking" and m["type"] != "lobby"]
    # Opening a table ends the seek (the user plays now).
    b2.send({"type": "create_table", "variant": "tressette", "opponent": "anyone"})
    assert b2.wait_for(lambda m: m["type"] == "seek_ended")["reason"] == "table"
    assert local_http.get(f"{server.url}/healthz").json()["seeking_here"] == 0


def _rate(db_url: str, user_id: int, rating: float) -> None:
    with Session(create_engine(db_url)) as session:
        session.add(UserTotals(user_id=user_id, variant="tressette", games=5, wins=5, points=100, rating=rating))
        session.commit()


def test_ratings_far_apart_wait_until_the_range_is_wide_enough(sqlite_url: str,
                                                               start_server: Callable[..., LiveServer]) -> None:
    """Ratings 1500 and 2000: not at once (±200), paired once the range has widened (fast here)."""
    server = start_server(sqlite_url, TRESET_PAIR_RANGE_PER_S="200")
    (a, ua), (b, _) = _player(server), _player(server)
    _rate(sqlite_url, ua["id"], 2000)
    a.send({"type": "seek"})
    assert a.wait_for(lambda m: m["type"] == "seeking")["rating"] == 2000
    b.send({"type": "seek"})
    assert b.wait_for(lambda m: m["type"] == "seeking")["range"] < 500
    widened = _paired(b, timeout=10)
    assert widened["table"]["id"] == _paired(a)["table"]["id"]


def _seek_at_once(players: list[tuple[Client, Msg]], variant: str, target: int) -> dict[str, list[int]]:
    """Send every player's seek at the same moment; return each paired table's seats (each seat its own player's)."""
    go = threading.Barrier(len(players))

    def seek(client: Client) -> None:
        go.wait()
        client.send({"type": "seek", "variant": variant, "target": target})

    threads = [threading.Thread(target=seek, args=(c,)) for c, _ in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tables: dict[str, list[int]] = {}
    for client, user in players:
        table = _paired(client)["table"]
        tables.setdefault(table["id"], []).append(table["you"])
        assert table["players"][table["you"]]["username"] == user["username"]
    return tables


def test_many_seek_at_once_each_seated_once(sqlite_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Twelve people seek at the same moment: six tables, everyone at exactly one of them."""
    server = start_server(sqlite_url)
    players = [_player(server) for _ in range(12)]
    tables = _seek_at_once(players, "tressette", 21)
    assert len(tables) == 6 and all(sorted(seats) == [0, 1] for seats in tables.values())


# ----- two processes, one portal (Redis) -------------------------------------------------------


def _portal(start_server: Callable[..., LiveServer], pg_url: str, redis_url: str) -> tuple[LiveServer, LiveServer]:
    one = start_server(pg_url, TRESET_REDIS_URL=redis_url)
    two = start_server(pg_url, TRESET_REDIS_URL=redis_url)
    deadline = time.time() + 15
    while any(local_http.get(f"{s.url}/healthz").json().get("nodes") != 2 for s in (one, two)):
        assert time.time() < deadline, "the two processes never saw each other"
        time.sleep(0.2)
    return one, two


def test_pairing_across_two_processes(pg_url: str, redis_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Seekers on two processes share one queue: pairs across them play, and many at once are each seated once."""
    one, two = _portal(start_server, pg_url, redis_url)
    (a, _), (b, _) = _player(one), _player(two)
    a.send({"type": "seek", "variant": "tressette", "target": 31})
    a.wait_for(lambda m: m["type"] == "seeking")
    b.send({"type": "seek", "variant": "tressette", "target": 31})
    ta, tb = _paired(a)["table"], _paired(b)["table"]
    assert ta["id"] == tb["id"] and {ta["you"], tb["you"]} == {0, 1}
    # The deal is played across the processes: the player to move plays, the other sees it.
    first = next(m for m in (ta, tb) if m["view"]["to_move"] == m["you"])
    mover, other = (a, b) if first is ta else (b, a)
    mover.send({"type": "play", "table_id": ta["id"], "card": first["view"]["legal"][0]})
    other.wait_for(lambda m: is_table(m) and (m.get("event") or {}).get("kind") == "play")
    # A cancel on one process is seen by the other: nobody is paired with a cancelled seek.
    (c, _), (d, _) = _player(one), _player(two)
    c.send({"type": "seek", "variant": "kifameno"})
    c.wait_for(lambda m: m["type"] == "seeking")
    c.send({"type": "cancel_seek"})
    assert c.wait_for(lambda m: m["type"] == "seek_ended")["reason"] == "cancelled"
    d.send({"type": "seek", "variant": "kifameno"})
    assert d.wait_for(lambda m: m["type"] == "seeking")["waiting"] == 1
    # Joining a table of the other process ends the seek there too.
    e, _ = _player(one)
    e.send({"type": "create_table", "variant": "tressette"})
    open_id = e.wait_for(is_table)["table"]["id"]
    d.send({"type": "join_table", "table_id": open_id})
    assert d.wait_for(lambda m: m["type"] == "seek_ended")["reason"] == "table"
    assert all(local_http.get(f"{s.url}/healthz").json()["seeking_here"] == 0 for s in (one, two))
    # Ten at once, five on each process: five tables, everyone seated once.
    players = [_player(one if i % 2 else two) for i in range(10)]
    tables = _seek_at_once(players, "kifameno", 11)
    assert len(tables) == 5 and all(sorted(seats) == [0, 1] for seats in tables.values())


# ----- the matchmaker in-process (store and sockets in memory) ----------------------------------


def test_in_process_a_failed_table_ends_both_seeks_and_a_closed_socket_waits_for_nobody() -> None:
    """The store refusing the paired deal: nobody is left seated, both are told; a rating decides the order."""
    async def main() -> None:
        store = MemoryStore()
        store.ratings[(2, "tressette")] = 1650.0
        hub = make_hub(store)
        (a, ta), (b, tb) = await player(hub, 1, "ann"), await player(hub, 2, "bob")
        await send(hub, a, type="seek")
        store.fail = 1  # the deal's first write is refused
        await send(hub, b, type="seek")
        for transport in (ta, tb):
            assert transport.of_type("seek_ended")[-1]["reason"] == "failed"
            assert transport.of_type("error")[-1]["code"] == "internal"
        assert not hub.tables and not hub.pairing.held and not await hub.pairing.queue.all()
        await send(hub, b, type="seek")
        assert tb.of_type("seeking")[-1]["rating"] == 1650
        await hub.disconnect(b)  # a closed socket's seek is gone: A waits
        await send(hub, a, type="seek")
        assert ta.of_type("seeking")[-1]["waiting"] == 1 and not hub.tables
        (c, tc) = await player(hub, 3, "cid")
        await send(hub, c, type="seek")
        table = next(iter(hub.tables.values()))
        assert [s.username for s in table.seats if s] == ["ann", "cid"] and table.status == "playing"
        assert tc.of_type("seek_ended")[-1] == {"type": "seek_ended", "reason": "paired", "table_id": table.id}
    asyncio.run(main())
