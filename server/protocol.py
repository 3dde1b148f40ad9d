"""Every WebSocket message shape, declared once (documented in docs/protocol.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateTable(_Msg):
    """Open a table and sit at seat 0."""

    type: Literal["create_table"]
    variant: Literal["tressette", "kifameno"] = "tressette"
    opponent: Literal["anyone", "bot", "invite"] = "anyone"
    bot_level: str | None = None


class JoinTable(_Msg):
    """Take the free seat of a table."""

    type: Literal["join_table"]
    table_id: str = Field(max_length=32)
    invite: str | None = Field(default=None, max_length=64)


class WatchTable(_Msg):
    """Watch a table as a spectator."""

    type: Literal["watch_table"]
    table_id: str = Field(max_length=32)


class LeaveTable(_Msg):
    """Leave a table (forfeits a running deal)."""

    type: Literal["leave_table"]
    table_id: str = Field(max_length=32)


class Play(_Msg):
    """Play a card (``turn`` lets a bot's late answer be dropped)."""

    type: Literal["play"]
    table_id: str = Field(max_length=32)
    card: str = Field(max_length=16)
    turn: int | None = None


class Rematch(_Msg):
    """Ask for another deal at the same table."""

    type: Literal["rematch"]
    table_id: str = Field(max_length=32)


class Chat(_Msg):
    """A line of table chat."""

    type: Literal["chat"]
    table_id: str = Field(max_length=32)
    text: str = Field(min_length=1, max_length=200)


class Ping(_Msg):
    """Keep-alive."""

    type: Literal["ping"]


class BotHello(_Msg):
    """A bot announces the levels it plays and how many games it can hold."""

    type: Literal["bot_hello"]
    levels: list[str] = Field(min_length=1, max_length=16)
    capacity: int = Field(ge=1, le=1000)


ClientMessage = Annotated[
    CreateTable | JoinTable | WatchTable | LeaveTable | Play | Rematch | Chat | Ping | BotHello,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
CLIENT_TYPES = {"create_table", "join_table", "watch_table", "leave_table", "play", "rematch", "chat", "ping",
                "bot_hello"}


def error(code: str, message: str, ref: str | None = None) -> dict[str, Any]:
    """Return an ``error`` message."""
    return {"type": "error", "code": code, "message": message, "ref": ref}
