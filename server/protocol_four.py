"""The four-player (partnership) message shapes: the extension of :mod:`server.protocol` (docs/protocol-four.md).

A ``create_table`` with ``"game": "partnership"`` is read as :class:`CreatePartnershipTable`
(:func:`create_table_adapter` picks the shape); ``seat_bot`` is new; a four-player bot turn is
:class:`PartnershipBotTurn`. The two-player shapes are unchanged.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tressette.partnership import N_SEATS, PARTNERSHIP_TARGETS

MAX_LEVEL_NAME = 32


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _a_partnership_format(target: int) -> int:
    """Return ``target`` if it names a four-player format: 0 (a single deal) or 21, 31, 41."""
    if target != 0 and target not in PARTNERSHIP_TARGETS:
        raise ValueError(f"target is 0 (a single deal) or one of {list(PARTNERSHIP_TARGETS)}")
    return target


class CreatePartnershipTable(_Msg):
    """Open a four-player table and sit at seat 0 (docs/protocol-four.md)."""

    type: Literal["create_table"]
    game: Literal["partnership"]
    variant: Literal["tressette"] = "tressette"
    opponent: Literal["anyone", "bot", "invite"] = "anyone"
    bot_level: str | None = Field(default=None, max_length=MAX_LEVEL_NAME)
    target: int = Field(default=0, strict=True)
    declarations: bool | None = Field(default=None, strict=True)
    """None: on for matches to 31 and 41, off otherwise."""
    signals: bool = Field(default=True, strict=True)
    bots: list[str | None] | None = Field(default=None, min_length=N_SEATS, max_length=N_SEATS)
    """A bot level per seat to fill now (seat 0, the creator's, is None)."""

    _format = field_validator("target")(_a_partnership_format)

    @model_validator(mode="after")
    def _creator_sits_first(self) -> CreatePartnershipTable:
        if self.bots is not None:
            if self.bots[0] is not None:
                raise ValueError("bots[0] must be null: seat 0 is the creator's")
            if any(b is not None and not 0 < len(b) <= MAX_LEVEL_NAME for b in self.bots):
                raise ValueError("a bot level is a name of 1 to 32 characters")
        return self


class SeekPartnership(_Msg):
    """Quick pairing for four: wait for three more seekers of ``target`` (or a named friend and two more)."""

    type: Literal["seek"]
    game: Literal["partnership"]
    target: int = Field(default=0, strict=True)
    partner: str | None = Field(default=None, min_length=1, max_length=32)
    """A friend's username: two seekers who name each other sit across, as partners."""

    _format = field_validator("target")(_a_partnership_format)


class SeatBot(_Msg):
    """The table's creator fills a free seat of a waiting four-player table with a bot of ``level``."""

    type: Literal["seat_bot"]
    table_id: str = Field(max_length=32)
    seat: int = Field(ge=1, le=N_SEATS - 1, strict=True)
    level: str = Field(min_length=1, max_length=MAX_LEVEL_NAME)


class PartnershipBotTurn(_Msg):
    """Ask a bot for a four-player seat's move: ``state`` is the seat's ``PartnershipView.to_dict()`` with the match."""

    type: Literal["bot_turn"] = "bot_turn"
    table_id: str
    turn: int
    level: str
    time_ms: int
    game: Literal["partnership"] = "partnership"
    state: dict[str, Any]
