"""``treset-agent serve``: the bot as its own process, playing the seats the server assigns it.

A thin transport in the lichess-bot manner: connect to the server's WebSocket
with a bot token, announce the levels and capacity, answer every ``bot_turn``
with a card chosen by :mod:`agent.levels`, reconnect with back-off when the
connection drops, and on SIGTERM finish the decisions in flight and leave (the
server hands any later turn to another bot).  The bot keeps no game state:
each ``bot_turn`` carries the full agent state.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypedDict
from urllib.parse import urlencode, urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from agent.levels import LEVELS, choose_card
from tressette import InvalidStateError, card_name, parse_state

log = logging.getLogger("treset.agent.service")

AUTH_FAILED = 4401
"""Close code the server uses for a bad token: retrying cannot help."""


class BotTurn(TypedDict):
    """The server's request for a card (docs/protocol.md, "Bots")."""

    type: str
    table_id: str
    turn: int
    level: str
    time_ms: int
    state: dict[str, Any]


Chooser = Callable[[dict[str, Any], str, int], str]
"""Turn a raw agent state, a level name and a time cap (ms) into a card name."""


def choose_from_message(raw_state: dict[str, Any], level: str, time_ms: int) -> str:
    """Validate the state with the rules package and pick a card at ``level``."""
    state = parse_state(raw_state)
    return card_name(choose_card(state, level, time_cap_ms=time_ms))


def websocket_url(server: str, token: str) -> str:
    """Return the ``/ws`` URL for ``server`` (http(s):// or ws(s)://) with the token."""
    parts = urlsplit(server if "://" in server else f"http://{server}")
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    path = parts.path.rstrip("/")
    if not path.endswith("/ws"):
        path += "/ws"
    return urlunsplit((scheme, parts.netloc, path, urlencode({"token": token}), ""))


class BotService:
    """One connection's worth of bot: levels, capacity and the decision threads."""

    def __init__(
        self,
        *,
        server: str,
        token: str,
        levels: list[str],
        capacity: int,
        chooser: Chooser = choose_from_message,
        max_backoff_s: float = 30.0,
    ) -> None:
        """Prepare a service for ``server``; nothing connects until :meth:`run`."""
        self.url = websocket_url(server, token)
        self.levels = levels
        self.capacity = capacity
        self.chooser = chooser
        self.max_backoff_s = max_backoff_s
        self.stop = asyncio.Event()
        self.turns_answered = 0
        self._executor = ThreadPoolExecutor(max_workers=capacity, thread_name_prefix="decide")
        self._in_flight: dict[tuple[str, int], asyncio.Task[None]] = {}

    async def run(self) -> int:
        """Serve until :attr:`stop` is set; return a process exit status."""
        delay = 0.5
        try:
            while not self.stop.is_set():
                try:
                    async with connect(self.url, open_timeout=10, max_size=2**20) as ws:
                        log.info("connected to %s", self.url.split("?")[0])
                        delay = 0.5
                        await self._serve(ws)
                except InvalidStatus as exc:
                    if exc.response.status_code in (401, 403):
                        log.error("the server refused the bot token (HTTP %s)", exc.response.status_code)
                        return 2
                    log.warning("connection refused: %s", exc)
                except ConnectionClosed as exc:
                    if exc.rcvd is not None and exc.rcvd.code == AUTH_FAILED:
                        log.error("the server refused the bot token: %s", exc.rcvd.reason)
                        return 2
                    log.warning("connection closed: %s", exc)
                except (OSError, InvalidHandshake, TimeoutError) as exc:
                    log.warning("cannot reach the server: %s", exc)
                if self.stop.is_set():
                    break
                wait = delay * (0.5 + random.random())
                log.info("reconnecting in %.1f s", wait)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop.wait(), timeout=wait)
                delay = min(delay * 2, self.max_backoff_s)
            return 0
        finally:
            self._executor.shutdown(wait=True, cancel_futures=True)

    async def _serve(self, ws: ClientConnection) -> None:
        await ws.send(json.dumps({"type": "bot_hello", "levels": self.levels, "capacity": self.capacity}))
        stop_wait = asyncio.ensure_future(self.stop.wait())
        try:
            while True:
                recv = asyncio.ensure_future(ws.recv())
                done, _ = await asyncio.wait({recv, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
                if recv not in done:
                    recv.cancel()
                    break
                self._dispatch(ws, recv.result())
            # Shutting down: answer what we are already thinking about, then leave.
            if self._in_flight:
                await asyncio.wait(list(self._in_flight.values()), timeout=5)
            await ws.close()
        finally:
            stop_wait.cancel()

    def _dispatch(self, ws: ClientConnection, raw: str | bytes) -> None:
        try:
            msg = json.loads(raw)
            kind = msg.get("type")
        except (ValueError, AttributeError):
            log.warning("unreadable message from the server: %.200r", raw)
            return
        if kind == "bot_turn":
            key = (str(msg.get("table_id")), int(msg.get("turn", -1)))
            log.debug("turn %s at %s", key[1], key[0])
            if key not in self._in_flight:  # the server may re-send a pending turn
                task = asyncio.create_task(self._answer(ws, msg))
                self._in_flight[key] = task
                task.add_done_callback(self._forget)
        elif kind == "error":
            log.warning("server error %s: %s", msg.get("code"), msg.get("message"))
        elif kind == "welcome":
            log.info("signed in as %s", (msg.get("user") or {}).get("username"))

    def _forget(self, task: asyncio.Task[None]) -> None:
        for key, t in list(self._in_flight.items()):
            if t is task:
                del self._in_flight[key]

    async def _answer(self, ws: ClientConnection, turn: BotTurn) -> None:
        level = turn.get("level") or self.levels[-1]
        time_ms = int(turn.get("time_ms") or LEVELS[level].time_ms)
        loop = asyncio.get_running_loop()
        try:
            card = await loop.run_in_executor(self._executor, self.chooser, turn["state"], level, time_ms)
        except (InvalidStateError, KeyError) as exc:
            log.error("cannot answer turn %s at %s: %s", turn.get("turn"), turn.get("table_id"), exc)
            return
        except Exception:  # a bug must show in the log, not silently stall the table
            log.exception("failed to decide turn %s at %s", turn.get("turn"), turn.get("table_id"))
            return
        log.debug("answer %s at %s: %s", turn.get("turn"), turn.get("table_id"), card)
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps(
                {"type": "play", "table_id": turn["table_id"], "card": card, "turn": turn["turn"]}
            ))
            self.turns_answered += 1


def main(argv: list[str]) -> int:
    """Run ``treset-agent serve --server URL --token TOKEN [--capacity N] [--levels a,b]``."""
    parser = argparse.ArgumentParser(prog="treset-agent serve", description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="the server's URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="the bot account's API token")
    parser.add_argument("--capacity", type=int, default=4, help="games this process thinks about at once")
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated levels to play")
    parser.add_argument("--no-warmup", action="store_true", help="skip compiling the search kernels first")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    levels = [lv for lv in args.levels.split(",") if lv]
    unknown = [lv for lv in levels if lv not in LEVELS]
    if unknown or not levels or args.capacity < 1:
        print(f"treset-agent serve: bad --levels/--capacity (levels: {', '.join(LEVELS)})", file=sys.stderr)
        return 2
    if not args.no_warmup:
        from agent.decide import warmup

        warmup()
    service = BotService(server=args.server, token=args.token, levels=levels, capacity=args.capacity)
    return asyncio.run(_run_until_signalled(service))


async def _run_until_signalled(service: BotService) -> int:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, service.stop.set)
    return await service.run()
