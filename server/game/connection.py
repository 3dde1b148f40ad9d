"""One client as the game service sees it: a socket of this process, or a client of another one (a proxy).

The service only calls :meth:`Connection.send` / :meth:`Connection.send_encoded` and, to sign a
client out, ``close_socket``; the API layer (``server.api.app``) and the cluster
(``server.game.cluster``) supply those.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from server.game.limits import TokenBucket

SendFn = Callable[[str], Any]
CloseFn = Callable[[int, str], Awaitable[None]]


@dataclass(eq=False)
class Connection:
    """One WebSocket client: a person (or guest, admin) or a bot."""

    send_text: SendFn
    user_id: int
    username: str
    role: str
    seats: set[tuple[str, int]] = field(default_factory=set)
    watching: set[str] = field(default_factory=set)
    levels: list[str] = field(default_factory=list)
    partnership_levels: list[str] = field(default_factory=list)
    """The four-player levels a bot plays (``bot_hello``'s ``partnership_levels``)."""
    capacity: int = 0
    analysis: int = 0
    """How many post-game analyses this bot runs at once (``bot_hello``), apart from ``capacity``."""
    oversize: int = 0
    last_chat: float = 0.0
    closed: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    token_hash: str = ""
    """The stored hash of the token the socket signed in with (a logout closes the socket)."""
    close_socket: CloseFn | None = None
    """Close the socket with a code and reason (None in tests that have no socket)."""
    rate: TokenBucket | None = None
    """A person's message budget (``ws_rate_per_s``, ``ws_rate_burst``); bots have none."""
    limited: int = 0
    """Messages refused in a row for going too fast; at ``ws_abuse_close`` the socket is closed."""
    lobby_seen: str = ""
    """The last lobby sent to this socket (encoded): an unchanged lobby is not sent again."""
    node: str | None = None
    """None for a socket of this process; a client of another process (``server.game.cluster``): that process."""
    received: float = 0.0
    """When the message being handled arrived (``time.perf_counter``): a card's latency starts there."""
    on_error: Callable[[str], None] | None = None
    """Called with the code of each ``error`` message sent (the metrics' count; the router sets it)."""

    @property
    def is_bot(self) -> bool:
        """Return True for a bot account that said ``bot_hello``."""
        return self.role == "bot" and self.capacity > 0

    async def send(self, msg: dict[str, Any]) -> None:
        """Send ``msg``; a dead socket is ignored (its disconnect is handled elsewhere)."""
        if not self.closed:
            if self.on_error is not None and msg.get("type") == "error":
                self.on_error(msg["code"])
            await self.send_encoded(json.dumps(msg))

    async def send_encoded(self, text: str) -> None:
        """Send a message already encoded as JSON (one encoding for many sockets)."""
        if self.closed:
            return
        async with self.lock:
            try:
                await self.send_text(text)
            except Exception:  # noqa: BLE001 - any transport failure means the client is gone
                self.closed = True
