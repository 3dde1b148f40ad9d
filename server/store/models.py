"""The database schema as SQLAlchemy 2 typed models (changed only through migrations).

Card lists are stored as JSON arrays of card codes (0..39, see ``tressette.cards``:
``suit * 10 + rank``, suits B K S D, ranks 3 2 AS KRALJ KAVAL FANT 7 6 5 4).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    false,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of every model."""


class User(Base):
    """An account: a person, a guest, a bot or an admin."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(32), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16), default="player")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    lang: Mapped[str | None] = mapped_column(String(8))
    """The page language the account keeps (en, sl, it, hr), or None until its owner picks one."""


class AuthToken(Base):
    """A session or API token; only its SHA-256 is stored."""

    __tablename__ = "auth_tokens"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16), default="session")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When a request last used the token (renewed at most hourly); sessions idle too long expire."""


class UserTotals(Base):
    """A user's running totals and Glicko-2 rating in one variant."""

    __tablename__ = "user_totals"
    __table_args__ = (
        Index("ix_user_totals_variant_rating", "variant", "rating"),
        Index("ix_user_totals_variant_games", "variant", "games"),
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    variant: Mapped[str] = mapped_column(String(16), primary_key=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    points: Mapped[int] = mapped_column(Integer, default=0)
    rating: Mapped[float] = mapped_column(Float, default=1500.0, server_default="1500")
    rating_rd: Mapped[float] = mapped_column(Float, default=350.0, server_default="350")
    rating_volatility: Mapped[float] = mapped_column(Float, default=0.06, server_default="0.06")


class Game(Base):
    """One deal at a table: who played, the deck order, and how it ended."""

    __tablename__ = "games"
    __table_args__ = (Index("ix_games_variant_ended", "variant", "ended_at"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[str] = mapped_column(String(16), index=True)
    deal_number: Mapped[int] = mapped_column(Integer, default=1)
    variant: Mapped[str] = mapped_column(String(16))
    opponent: Mapped[str] = mapped_column(String(16), default="anyone")
    player0_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    player1_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    bot_level: Mapped[str | None] = mapped_column(String(16))
    first_leader: Mapped[int] = mapped_column(Integer)
    deck: Mapped[list[int]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default="playing", index=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    points0: Mapped[int | None] = mapped_column(Integer)
    points1: Mapped[int | None] = mapped_column(Integer)
    winner_seat: Mapped[int | None] = mapped_column(Integer)
    end_reason: Mapped[str | None] = mapped_column(String(16))
    moves_at_end: Mapped[int | None] = mapped_column(Integer)
    """How many moves the end was computed from; no move numbered from there on may be stored (a trigger)."""
    totals_pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """The end is stored, the players' totals and ratings not yet (they are added in their own transaction)."""
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"), index=True)
    """The match this deal belongs to (None: a single deal)."""
    match_deal: Mapped[int | None] = mapped_column(Integer)
    """The deal's number inside its match (1, 2, ...)."""
    match_before0: Mapped[int | None] = mapped_column(Integer)
    """Seat 0's match total (whole points) before this deal."""
    match_before1: Mapped[int | None] = mapped_column(Integer)
    n_players: Mapped[int] = mapped_column(Integer, default=2, server_default="2")
    """2, or 4 at a partnership deal (``variant`` ``partnership``; seats 0 and 2 against 1 and 3)."""
    player2_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    player3_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    options: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """A four-player deal's options: ``{"declarations": bool, "signals": bool}``."""
    declared0: Mapped[int | None] = mapped_column(Integer)
    """A four-player deal: the whole points partnership 0 declared (``points0`` is its card points)."""
    declared1: Mapped[int | None] = mapped_column(Integer)
    unrated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """A person left this four-player deal (a bot took the seat): no rating moves but the leaver's."""


class MatchRow(Base):
    """A match at one table: deals added up in whole points to ``target`` (``tressette.match``)."""

    __tablename__ = "matches"
    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[str] = mapped_column(String(16), index=True)
    variant: Mapped[str] = mapped_column(String(16))
    target: Mapped[int] = mapped_column(Integer)
    opponent: Mapped[str] = mapped_column(String(16))
    bot_level: Mapped[str | None] = mapped_column(String(16))
    player0_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    player1_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="playing", server_default="playing")
    score0: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    score1: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    deals: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    winner_seat: Mapped[int | None] = mapped_column(Integer)
    end_reason: Mapped[str | None] = mapped_column(String(16))
    rating_pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """The match has ended; its one rating update is still to be made (by the settler)."""
    n_players: Mapped[int] = mapped_column(Integer, default=2, server_default="2")
    player2_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    player3_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    unrated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """A person left the four-player match: its rating update is the leaver's loss alone (made at once)."""
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class TableFence(Base):
    """A table's fencing token: raised by each process that takes the table; every write checks it."""

    __tablename__ = "table_fences"
    table_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    fence: Mapped[int] = mapped_column(Integer)


class Move(Base):
    """One card played, with what the mover knew (the thesis's fields, plus numbering)."""

    __tablename__ = "moves"
    __table_args__ = (
        UniqueConstraint("game_id", "move_number", name="uq_moves_game_move"),
        Index("ix_moves_user_variant", "user_id", "variant"),
        Index("ix_moves_created_at", "created_at"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    seat: Mapped[int] = mapped_column(Integer)
    move_number: Mapped[int] = mapped_column(Integer)
    trick_number: Mapped[int] = mapped_column(Integer)
    variant: Mapped[str] = mapped_column(String(16))
    n_players: Mapped[int] = mapped_column(Integer, default=2)
    hand: Mapped[list[int]] = mapped_column(JSON)
    opponent_known: Mapped[list[int]] = mapped_column(JSON)
    table_cards: Mapped[list[int]] = mapped_column(JSON)
    won_self: Mapped[list[int]] = mapped_column(JSON)
    won_opponent: Mapped[list[int]] = mapped_column(JSON)
    card: Mapped[int] = mapped_column(Integer)
    first_card: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    declarations: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    """A four-player move: what the mover declared with the card (the rules' JSON), None otherwise."""
    signal: Mapped[str | None] = mapped_column(String(16))
    """A four-player lead: the signal given with the card (busso, volo, striscio)."""


class PartnershipLeaver(Base):
    """A person who left a four-player deal (a bot took the seat): their rated loss, taken once."""

    __tablename__ = "partnership_leavers"
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    cause: Mapped[str] = mapped_column(String(16))
    rating_before: Mapped[float | None] = mapped_column(Float)
    rating_after: Mapped[float | None] = mapped_column(Float)
    left_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class CardRow(Base):
    """The 40 cards by code, for SQL readers (filled by a migration from ``tressette.cards``)."""

    __tablename__ = "cards"
    code: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(16))
    suit: Mapped[str] = mapped_column(String(1))
    rank: Mapped[str] = mapped_column(String(8))
    points: Mapped[int] = mapped_column(Integer)
    strength: Mapped[int] = mapped_column(Integer)


class Analysis(Base):
    """A game's post-game analysis by a bot: one row per game (a re-run replaces it).

    ``status`` is ``queued``, ``running``, ``done`` or ``failed``; ``result`` is the agent's
    analysis as sent (docs/protocol.md, "Analysis"); ``accuracy0``/``accuracy1`` (and at a four-player
    deal ``accuracy2``/``accuracy3``) are the seats' accuracy (percent) copied out of it for the profile averages.
    """

    __tablename__ = "analyses"
    __table_args__ = (Index("ix_analyses_status_requested", "status", "requested_at"),)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True,
                                         autoincrement=False)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    version: Mapped[str | None] = mapped_column(String(64))
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(String(500))
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    accuracy0: Mapped[float | None] = mapped_column(Float)
    accuracy1: Mapped[float | None] = mapped_column(Float)
    accuracy2: Mapped[float | None] = mapped_column(Float)
    accuracy3: Mapped[float | None] = mapped_column(Float)
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class MoveAnalysis(Base):
    """One move's figures from its game's analysis, for SQL and the exports (loss in thirds)."""

    __tablename__ = "move_analyses"
    game_id: Mapped[int] = mapped_column(ForeignKey("analyses.game_id", ondelete="CASCADE"), primary_key=True,
                                         autoincrement=False)
    move_number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    seat: Mapped[int] = mapped_column(Integer)
    known: Mapped[bool] = mapped_column(Boolean)
    best_card: Mapped[int] = mapped_column(Integer)
    value: Mapped[float] = mapped_column(Float)
    best_value: Mapped[float] = mapped_column(Float)
    loss: Mapped[float] = mapped_column(Float)
    win: Mapped[float | None] = mapped_column(Float)
    best_win: Mapped[float | None] = mapped_column(Float)
    label: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str | None] = mapped_column(String(16))


class Puzzle(Base):
    """An endgame position where exactly one card (class) wins, with its proven solution (docs/protocol.md)."""

    __tablename__ = "puzzles"
    __table_args__ = (Index("ix_puzzles_variant_rating", "variant", "rating"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    position_key: Mapped[str] = mapped_column(String(64), unique=True)
    """The position's canonical key: one puzzle per distinct position."""
    variant: Mapped[str] = mapped_column(String(16))
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    move_number: Mapped[int] = mapped_column(Integer)
    """The position is the one before this move of the game."""
    seat: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    themes: Mapped[list[str]] = mapped_column(JSON)
    depth: Mapped[int] = mapped_column(Integer)
    legal: Mapped[int] = mapped_column(Integer)
    missed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    after_mistake: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    rating: Mapped[float] = mapped_column(Float, default=1500.0, server_default="1500")
    rating_rd: Mapped[float] = mapped_column(Float, default=350.0, server_default="350")
    rating_volatility: Mapped[float] = mapped_column(Float, default=0.06, server_default="0.06")
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    solved: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class PuzzleAttempt(Base):
    """A puzzle served to a user; answered once (``solved`` set then)."""

    __tablename__ = "puzzle_attempts"
    __table_args__ = (UniqueConstraint("puzzle_id", "user_id", name="uq_puzzle_attempts_puzzle_user"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    puzzle_id: Mapped[int] = mapped_column(ForeignKey("puzzles.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    served_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    solved: Mapped[bool | None] = mapped_column(Boolean)
    cards: Mapped[list[int] | None] = mapped_column(JSON)
    rating_before: Mapped[float | None] = mapped_column(Float)
    rating_after: Mapped[float | None] = mapped_column(Float)


class PuzzleRating(Base):
    """A user's puzzle rating (Glicko-2; a solved puzzle is a win against it)."""

    __tablename__ = "puzzle_ratings"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    rating: Mapped[float] = mapped_column(Float, default=1500.0, server_default="1500")
    rating_rd: Mapped[float] = mapped_column(Float, default=350.0, server_default="350")
    rating_volatility: Mapped[float] = mapped_column(Float, default=0.06, server_default="0.06")
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    solved: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class PuzzleScan(Base):
    """A game searched for puzzles, by which finder version, and how many it gave."""

    __tablename__ = "puzzle_scans"
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True,
                                         autoincrement=False)
    version: Mapped[str] = mapped_column(String(32))
    found: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    scanned_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
