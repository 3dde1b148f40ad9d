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


# ----- server -> client ------------------------------------------------------------------


class UserOut(_Msg):
    """An account as clients see it."""

    id: int
    username: str
    role: Literal["player", "guest", "bot", "admin"]


class Welcome(_Msg):
    """The first message on every accepted socket."""

    type: Literal["welcome"] = "welcome"
    user: UserOut


class Lobby(_Msg):
    """The open tables (sent on connect and on every change)."""

    type: Literal["lobby"] = "lobby"
    tables: list[dict[str, Any]]


class TableMessage(_Msg):
    """A table as this client may see it (``Table.snapshot``), and the event that changed it."""

    type: Literal["table"] = "table"
    table: dict[str, Any]
    event: dict[str, Any] | None = None


class ChatLine(_Msg):
    """A line of table chat, relayed to the players and spectators."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    type: Literal["chat"] = "chat"
    table_id: str
    from_: str = Field(alias="from")
    text: str
    at: int


class ErrorMessage(_Msg):
    """A refusal: the message ``ref`` was not accepted and changed nothing."""

    type: Literal["error"] = "error"
    code: str
    message: str
    ref: str | None = None


class Pong(_Msg):
    """The answer to ``ping``."""

    type: Literal["pong"] = "pong"


class BotTurn(_Msg):
    """Ask a bot for the move of a bot seat (``state`` is the agent JSON state of RULES.md)."""

    type: Literal["bot_turn"] = "bot_turn"
    table_id: str
    turn: int
    level: str
    time_ms: int
    state: dict[str, Any]


ServerMessage = Welcome | Lobby | TableMessage | ChatLine | ErrorMessage | Pong | BotTurn


def out(msg: ServerMessage) -> dict[str, Any]:
    """Return ``msg`` as the JSON object sent on the wire."""
    return msg.model_dump(by_alias=True)


def error(code: str, message: str, ref: str | None = None) -> dict[str, Any]:
    """Return an ``error`` message.

    >>> error("bad_json", "the message is not valid JSON")["type"]
    'error'
    """
    return out(ErrorMessage(code=code, message=message, ref=ref))
