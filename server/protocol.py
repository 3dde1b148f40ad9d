"""Every WebSocket message shape, declared once (documented in docs/protocol.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_validator

from server.protocol_four import CreatePartnershipTable, PartnershipBotTurn, SeatBot, SeekPartnership
from tressette import MATCH_TARGETS, VariantName

MAX_DB_INT = 2**31 - 1
"""The largest id or count a database column holds (PostgreSQL ``integer``): larger ones name nothing."""
ERROR_CODES = frozenset({
    "bad_json", "bad_message", "too_large", "rate_limited", "no_table", "not_seated", "table_full", "bad_invite",
    "no_bot", "not_your_turn", "illegal_card", "game_over", "internal", "too_many_tables", "auth_failed",
    "table_unavailable", "unavailable", "not_seeking", "seat_taken",
})
"""Every ``error.code`` the server sends (docs/protocol.md, "Errors")."""


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Auth(_Msg):
    """The first message on a socket: who is connecting (the token never goes in the URL, which gets logged)."""

    type: Literal["auth"]
    token: str = Field(min_length=1, max_length=256)


AUTH: TypeAdapter[Auth] = TypeAdapter(Auth)


def _a_format(target: int) -> int:
    """Return ``target`` if it names a format: 0 (a single deal) or one of ``tressette.MATCH_TARGETS``."""
    if target != 0 and target not in MATCH_TARGETS:
        raise ValueError(f"target is 0 (a single deal) or one of {list(MATCH_TARGETS)}")
    return target


class CreateTable(_Msg):
    """Open a table and sit at seat 0."""

    type: Literal["create_table"]
    game: Literal["duel"] = "duel"
    """The two-player game; ``"partnership"`` is read as ``protocol_four.CreatePartnershipTable``."""
    variant: VariantName = "tressette"
    opponent: Literal["anyone", "bot", "invite"] = "anyone"
    bot_level: str | None = None
    target: int = Field(default=0, strict=True)
    """0: a single deal; else a match to one of ``tressette.MATCH_TARGETS`` whole points."""

    _format = field_validator("target")(_a_format)


class Seek(_Msg):
    """Play a person: be paired with someone seeking the same game and format, or wait in the queue."""

    type: Literal["seek"]
    game: Literal["duel"] = "duel"
    """The two-player game; ``"partnership"`` is read as ``protocol_four.SeekPartnership``."""
    variant: VariantName = "tressette"
    target: int = Field(default=0, strict=True)
    """The format, as in :class:`CreateTable`."""

    _format = field_validator("target")(_a_format)


class CancelSeek(_Msg):
    """Stop looking for an opponent."""

    type: Literal["cancel_seek"]


class JoinTable(_Msg):
    """Take the free seat of a table."""

    type: Literal["join_table"]
    table_id: str = Field(max_length=32)
    invite: str | None = Field(default=None, max_length=64)
    seat: int | None = Field(default=None, ge=0, le=3, strict=True)
    """At a four-player table: the seat to take (default the first free one)."""


class WatchTable(_Msg):
    """Watch a table as a spectator (a private table only with its ``invite``)."""

    type: Literal["watch_table"]
    table_id: str = Field(max_length=32)
    invite: str | None = Field(default=None, max_length=64)


class OpenTable(_Msg):
    """Open a table: take your seat over on this connection if you sit there, else watch it."""

    type: Literal["open_table"]
    table_id: str = Field(max_length=32)
    invite: str | None = Field(default=None, max_length=64)


class LeaveTable(_Msg):
    """Leave a table (forfeits a running deal)."""

    type: Literal["leave_table"]
    table_id: str = Field(max_length=32)


class Play(_Msg):
    """Play a card (``turn`` lets a bot's late answer be dropped)."""

    type: Literal["play"]
    table_id: str = Field(max_length=32)
    card: str = Field(max_length=16)
    turn: int | None = Field(default=None, ge=0, le=MAX_DB_INT)
    declarations: list[dict[str, Any]] | None = Field(default=None, max_length=8)
    """At a four-player table: what is declared with the card (the rules' JSON, docs/protocol-four.md)."""
    signal: Literal["busso", "volo", "striscio"] | None = None
    """At a four-player table: the signal given with a card that leads a trick."""


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


class LevelInfo(_Msg):
    """A level a bot plays, as the agent defines it (``agent/levels.py``): its name, per-move time and
    measured strength on the portal's rating scale (optional)."""

    name: str = Field(min_length=1, max_length=32)
    time_ms: int = Field(ge=1, le=600_000)
    rating: int | None = Field(default=None, ge=0, le=4000)


class BotHello(_Msg):
    """A bot announces the levels it plays, how many games it can hold and how many analyses it runs at once.

    An analysis-only worker sends no levels and capacity 0 with ``analysis`` >= 1.  ``level_info``
    gives the levels' per-move times (optional: the server falls back to ``server/levels.py``).
    """

    type: Literal["bot_hello"]
    levels: list[str] = Field(max_length=16)
    level_info: list[LevelInfo] = Field(default_factory=list, max_length=16)
    capacity: int = Field(ge=0, le=1000)
    analysis: int = Field(default=0, ge=0, le=64)
    partnership_levels: list[LevelInfo] = Field(default_factory=list, max_length=16)
    """The four-player levels the bot plays (docs/protocol-four.md, "Bots"); none: no four-player turns."""

    @model_validator(mode="after")
    def _serves_something(self) -> BotHello:
        if self.analysis == 0 and (self.capacity == 0 or not (self.levels or self.partnership_levels)):
            raise ValueError("a bot plays (levels and capacity >= 1) or analyses (analysis >= 1)")
        return self


class AnalysisReport(_Msg):
    """A bot's answer to ``analyse``: the analysis (a JSON object, see docs/protocol.md) or an ``error``."""

    type: Literal["analysis"]
    job: str = Field(max_length=64)
    game_id: int = Field(ge=1, le=MAX_DB_INT)
    version: str = Field(default="", max_length=64)
    analysis: dict[str, Any] | None = None
    error: str | None = Field(default=None, max_length=2000)

    @model_validator(mode="after")
    def _one_of(self) -> AnalysisReport:
        if (self.analysis is None) == (self.error is None):
            raise ValueError("send either analysis or error")
        return self


ClientMessage = Annotated[
    CreateTable | JoinTable | WatchTable | OpenTable | LeaveTable | Play | Rematch | Chat | Ping | BotHello | AnalysisReport
    | Seek | CancelSeek | SeatBot,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
CREATE_PARTNERSHIP: TypeAdapter[CreatePartnershipTable] = TypeAdapter(CreatePartnershipTable)
SEEK_PARTNERSHIP: TypeAdapter[SeekPartnership] = TypeAdapter(SeekPartnership)
"""A ``create_table`` whose ``game`` is ``"partnership"`` is read with this shape instead (docs/protocol-four.md)."""
CLIENT_TYPES = {"create_table", "join_table", "watch_table", "open_table", "leave_table", "play", "rematch", "chat", "ping",
                "bot_hello", "analysis", "seek", "cancel_seek", "seat_bot"}


# ----- server -> client ------------------------------------------------------------------


class UserOut(_Msg):
    """An account as clients see it."""

    id: int
    username: str
    role: Literal["player", "guest", "bot", "admin"]


class SeatOut(_Msg):
    """A table where the user is seated, listed in ``welcome``."""

    table_id: str
    seat: int
    status: Literal["waiting", "playing", "finished"]
    elsewhere: bool
    """True when another live connection holds the seat (``open_table`` takes it over)."""


class Welcome(_Msg):
    """The first message on every accepted socket."""

    type: Literal["welcome"] = "welcome"
    user: UserOut
    seats: list[SeatOut] = Field(default_factory=list)


class Lobby(_Msg):
    """The open and running public tables, people online, bot levels served (sent on connect and on change)."""

    type: Literal["lobby"] = "lobby"
    tables: list[dict[str, Any]]
    online: int = 0
    bot_levels: list[str] = Field(default_factory=list)
    bot_ratings: dict[str, int] = Field(default_factory=dict)
    """Each served level's rating as its bots announce it (``level_info``)."""
    partnership_levels: list[str] = Field(default_factory=list)
    """The four-player levels a connected bot plays now, weakest first (docs/protocol-four.md, "Bots")."""
    partnership_ratings: dict[str, int] = Field(default_factory=dict)
    """Each four-player level's rating as its bots announce it (``partnership_levels`` of ``bot_hello``)."""


class TableMessage(_Msg):
    """A table as this client may see it (``Table.snapshot``), and the event that changed it."""

    type: Literal["table"] = "table"
    table: dict[str, Any]
    event: dict[str, Any] | None = None


class SeatMoved(_Msg):
    """Your seat at ``table_id`` was taken over by another connection of yours (``open_table``)."""

    type: Literal["seat_moved"] = "seat_moved"
    table_id: str


class Left(_Msg):
    """``leave_table`` was done: no more ``table`` messages for ``table_id`` unless you open or join it again."""

    type: Literal["left"] = "left"
    table_id: str


class ChatLine(_Msg):
    """A line of table chat, relayed to the players and spectators."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    type: Literal["chat"] = "chat"
    table_id: str
    from_: str = Field(alias="from")
    text: str
    at: int


class ErrorMessage(_Msg):
    """A refusal: the message ``ref`` was not accepted and changed nothing.

    ``code`` and ``params`` are for the page to word in its language; ``message`` is English for logs.
    """

    type: Literal["error"] = "error"
    code: str
    message: str
    ref: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class Seeking(_Msg):
    """You are in the queue for ``variant`` and ``target`` (sent on ``seek``, then when a figure changes)."""

    type: Literal["seeking"] = "seeking"
    variant: str
    target: int
    since: int
    """When the seek began (ms since epoch)."""
    rating: int
    """Your rating in ``variant`` (1500 for a new player), which the pairing goes by."""
    range: int
    """You are paired with someone whose rating is within this of yours (it widens while you wait)."""
    waiting: int
    """People seeking this game and format now, you included."""
    online: int
    """People online (as in ``lobby``)."""
    bot_offer_ms: int
    """After this long waiting, the client offers a bot of your level (``TRESET_BOT_OFFER_S``)."""


class SeekEnded(_Msg):
    """Your seek is over: ``paired`` (at ``table_id``, whose ``table`` follows), ``cancelled``, ``table``
    (you started or joined another table), ``replaced`` (another socket of yours seeks now), ``failed``."""

    type: Literal["seek_ended"] = "seek_ended"
    reason: Literal["paired", "cancelled", "table", "replaced", "failed"]
    table_id: str | None = None


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


class Analyse(_Msg):
    """Ask a bot to analyse a finished game (``record``: deck in dealing order, first leader, every card)."""

    type: Literal["analyse"] = "analyse"
    job: str
    game_id: int
    record: dict[str, Any]


ServerMessage = (Welcome | Lobby | TableMessage | SeatMoved | Left | ChatLine | ErrorMessage | Pong | BotTurn | Analyse
                 | Seeking | SeekEnded | PartnershipBotTurn)


def out(msg: ServerMessage) -> dict[str, Any]:
    """Return ``msg`` as the JSON object sent on the wire."""
    return msg.model_dump(by_alias=True)


def table_message(table: dict[str, Any], event: dict[str, Any] | None) -> dict[str, Any]:
    """Return the :class:`TableMessage` of ``table`` and ``event`` as :func:`out` would, without the model.

    It goes to every player at every move: building and dumping the model cost a tenth of the
    server's time per move.

    >>> table = {"id": "t", "view": {"hand": ["K 3"]}}
    >>> table_message(table, {"kind": "start"}) == out(TableMessage(table=table, event={"kind": "start"}))
    True
    """
    return {"type": "table", "table": table, "event": event}


def error(code: str, message: str, ref: str | None = None, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return an ``error`` message (``params`` the refusal's data, ``{}`` when none).

    >>> error("no_table", "no table 'x'", "play", {"table_id": "x"})["params"]
    {'table_id': 'x'}
    """
    return out(ErrorMessage(code=code, message=message, ref=ref, params=params or {}))


RETRY_AFTER_MS = 1000
"""What ``table_unavailable`` advises: try again after this long."""


def table_unavailable(table_id: str, ref: str | None) -> dict[str, Any]:
    """Return the error for a command whose table's process cannot be reached now (try again shortly)."""
    return error("table_unavailable", "the table's server cannot be reached right now; try again in a moment",
                 ref, {"table_id": table_id, "retry_after_ms": RETRY_AFTER_MS})
