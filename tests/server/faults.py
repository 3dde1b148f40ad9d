"""What the fault tests share: a PostgreSQL and a Redis they can stop, many tables driven at once, and a
check of every stored game against a replay by the rules package."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from sqlalchemy import select
from websockets.exceptions import ConnectionClosed

from server.store.models import Game, Move
from tests import local_http
from tests.conftest import free_port
from tests.server.client import Client, Msg, cards_played, guest_token, is_table, my_turn
from tests.server.db import db_session
from tressette import Deal, Variant, card_name, parse_state


class OwnPostgres:
    """A PostgreSQL cluster of the test's own, from the local binaries, that the test may stop and start."""

    def __init__(self) -> None:
        """Create and start the cluster (``initdb`` as ``postgres`` when we are root)."""
        initdb = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb")) or [shutil.which("initdb") or ""]
        assert initdb[-1], "no PostgreSQL binaries to start a cluster from"
        self.bindir = Path(initdb[-1]).parent
        self.data = Path(tempfile.mkdtemp(prefix="treset-pg-fault-"))
        self.port = free_port()
        self.as_pg = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_pg:
            shutil.chown(self.data, "postgres", "postgres")
        subprocess.run([*self.as_pg, str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U",
                        "postgres"], check=True, capture_output=True)
        self.start()
        subprocess.run([*self.as_pg, str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
                        "postgres", "treset"], check=True, capture_output=True)

    @property
    def url(self) -> str:
        """Return the SQLAlchemy URL of its database."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/treset"

    def start(self) -> None:
        """Start the server (and wait until it answers)."""
        subprocess.run([*self.as_pg, str(self.bindir / "pg_ctl"), "-D", str(self.data), "-w", "-l",
                        str(self.data / "log"), "-o", f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1",
                        "start"], check=True, capture_output=True)

    def stop(self) -> None:
        """Stop the server at once (connections are cut, as in an outage)."""
        subprocess.run([*self.as_pg, str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"],
                       capture_output=True)

    def remove(self) -> None:
        """Stop the server and delete the cluster."""
        self.stop()
        shutil.rmtree(self.data, ignore_errors=True)


class OwnRedis:
    """A ``redis-server`` of the test's own, keeping nothing on disk: a restart starts it empty."""

    def __init__(self, tmp: Path) -> None:
        """Start it on a free port."""
        self.port = free_port()
        self.tmp = tmp
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        """Return its URL."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server (empty) and wait until it answers."""
        binary = shutil.which("redis-server")
        assert binary, "no redis-server binary"
        self.proc = subprocess.Popen([binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", str(self.tmp)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.time() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            assert time.time() < deadline, "redis-server did not start"
            time.sleep(0.05)

    def kill(self) -> None:
        """Kill the server (SIGKILL): every key is gone."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
            self.proc = None


@dataclass
class Person:
    """A player's socket at one table, playing the first legal card whenever it is its turn."""

    client: Client
    table_id: str
    last: Msg | None = None
    sent_for: int = -1
    sent_at: float = 0.0


@dataclass
class Driver:
    """Drive many tables at once from one thread: people play, a scripted bot answers its turns.

    A card refused (the database away, the table moving) is sent again after ``resend_s``; every
    error code seen is counted; a socket the server closes fails the test (nobody reloads).
    """

    people: list[Person] = field(default_factory=list)
    bots: list[Client] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    resend_s: float = 1.0
    hold_at: int | None = None
    """While set, people play no card once their deal has this many (the fault comes mid-deal)."""

    def add(self, client: Client, table_id: str) -> Person:
        """Drive ``client`` at ``table_id``."""
        person = Person(client, table_id)
        self.people.append(person)
        return person

    def step(self) -> None:
        """Read what arrived (a little from every socket) and answer it."""
        for person in self.people:
            for msg in self._drain(person.client):
                if is_table(msg) and msg["table"]["id"] == person.table_id:
                    person.last = msg
        now = time.time()
        for person in self.people:
            m = person.last
            if m is None or not my_turn(m):
                continue
            played = cards_played(m)
            if self.hold_at is not None and played >= self.hold_at:
                continue
            if played != person.sent_for or now - person.sent_at > self.resend_s:
                person.client.send({"type": "play", "table_id": person.table_id,
                                    "card": m["table"]["view"]["legal"][0]})
                person.sent_for, person.sent_at = played, now
        for bot in self.bots:
            for msg in self._drain(bot):
                if msg["type"] == "bot_turn":
                    card = card_name(parse_state(msg["state"]).legal_moves()[0])
                    bot.send({"type": "play", "table_id": msg["table_id"], "card": card, "turn": msg["turn"]})

    def _drain(self, client: Client) -> list[Msg]:
        got = []
        for _ in range(50):
            try:
                msg = client.recv(timeout=0.005)
            except TimeoutError:
                break
            except ConnectionClosed as exc:
                raise AssertionError(f"the server closed a socket: {exc}") from exc
            if msg["type"] == "error":
                self.errors[msg["code"]] += 1
            got.append(msg)
        return got

    def run(self, seconds: float) -> None:
        """Drive for ``seconds``."""
        end = time.time() + seconds
        while time.time() < end:
            self.step()

    def finished(self) -> bool:
        """Return True once every person's table shows its deal finished."""
        return all(p.last is not None and p.last["table"]["status"] == "finished" for p in self.people)

    def summary(self) -> list[tuple[object, ...]]:
        """Return where each person's table stands, as last seen: (table, seat, status, cards, to move, event)."""
        return [(p.table_id, t["you"], t["status"], cards_played(p.last), (t["view"] or {}).get("to_move"),
                 (p.last.get("event") or {}).get("kind"))
                for p in self.people if p.last is not None for t in [p.last["table"]]]

    def run_to_end(self, timeout: float = 120) -> None:
        """Drive until every table's deal is over."""
        end = time.time() + timeout
        while not self.finished():
            assert time.time() < end, f"not every deal finished: {self.summary()}"
            self.step()


def split_table(owner: str, owner_ws: str, other: str, other_ws: str, driver: Driver,
                variant: str = "tressette") -> str:
    """Open a table at ``owner`` and seat the second player from the ``other`` process; drive both."""
    ta, _ = guest_token(owner)
    tb, _ = guest_token(other)
    a, b = Client(owner_ws, ta), Client(other_ws, tb)
    a.send({"type": "create_table", "variant": variant})
    table_id: str = a.wait_for(is_table)["table"]["id"]
    deadline = time.time() + 15
    while True:  # the other process knows the table once the lobby says so
        b.send({"type": "join_table", "table_id": table_id})
        joined = b.wait_for(lambda m: is_table(m) or m["type"] == "error")
        if is_table(joined):
            break
        assert time.time() < deadline, joined
        time.sleep(0.2)
    driver.add(a, table_id)
    driver.add(b, table_id).last = joined
    return table_id


def wait_health(url: str, pred: object, timeout: float = 20) -> dict[str, object]:
    """Poll ``/healthz`` until ``pred(health)`` holds; return it."""
    deadline = time.time() + timeout
    while True:
        with contextlib.suppress(httpx.HTTPError):
            health: dict[str, object] = local_http.get(f"{url}/healthz", timeout=3).json()
            if pred(health):  # type: ignore[operator]
                return health
        assert time.time() < deadline, "the health check never said so"
        time.sleep(0.2)


def check_stored_games(db_url: str) -> dict[str, int]:
    """Replay every stored game by the rules package; assert its moves and its end agree with the replay.

    Every move is legal and its seat's turn, numbered 0.. once each; a finished game's end counts
    exactly its moves (none after it); a deal played out has the replay's points and winner; a
    timeout is lost by the player the replay has to move. Returns how many games ended how.
    """
    ends: Counter[str] = Counter()
    with db_session(db_url) as s:
        for game in s.scalars(select(Game).order_by(Game.id)):
            moves = list(s.scalars(select(Move).where(Move.game_id == game.id).order_by(Move.move_number)))
            assert [m.move_number for m in moves] == list(range(len(moves))), f"game {game.id}: numbering"
            deal = Deal.from_deck(list(game.deck), Variant(game.variant), game.first_leader)
            for m in moves:
                assert m.seat == deal.to_move, f"game {game.id}: move {m.move_number} out of turn"
                deal.play(m.card, m.seat)  # raises if illegal
            ends[game.end_reason or game.status] += 1
            if game.status != "finished":
                continue
            assert game.moves_at_end == len(moves), f"game {game.id}: {len(moves)} moves, end after {game.moves_at_end}"
            if game.end_reason == "finished":
                outcome = deal.outcome()
                assert deal.is_over and (game.points0, game.points1) == outcome.points
                assert game.winner_seat == outcome.winner, f"game {game.id}: the stored winner is not the replay's"
            else:
                assert not deal.is_over, f"game {game.id}: a deal played out cannot be forfeited"
                if game.end_reason == "timeout":
                    assert game.winner_seat == 1 - deal.to_move, f"game {game.id}: the timeout of the wrong seat"
                assert (game.points0, game.points1) == deal.final_points()
    return dict(ends)
