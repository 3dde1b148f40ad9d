"""What the game service sends through: a transport per connection, and one in memory for tests.

The API layer (``server.api.app``) wraps each WebSocket in a transport; the service only calls
``send_text`` and ``close``, so it runs the same over a socket or over :class:`MemoryTransport`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol


class Transport(Protocol):
    """One client's channel: text frames out, and a way to close it."""

    async def send_text(self, text: str) -> None:
        """Send one text frame (raises if the client is gone)."""
        ...

    async def close(self, code: int, reason: str) -> None:
        """Close the channel with a WebSocket close code and reason."""
        ...


@dataclass
class MemoryTransport:
    """A :class:`Transport` that keeps what was sent (decoded) and how it was closed."""

    sent: list[dict[str, Any]] = field(default_factory=list)
    closed: tuple[int, str] | None = None

    async def send_text(self, text: str) -> None:
        """Keep the decoded message."""
        self.sent.append(json.loads(text))

    async def close(self, code: int, reason: str) -> None:
        """Remember the close."""
        self.closed = (code, reason)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        """Return the messages of ``type`` ``kind``, oldest first."""
        return [m for m in self.sent if m.get("type") == kind]
