"""Repositories: keyword-only functions over a session; no game logic, no I/O besides the DB."""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from server.models import AuthToken, Game, Move, User, UserTotals
from server.ratings import Rating, after_game

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters


def hash_token(token: str) -> str:
    """Return the stored form of a token (its SHA-256)."""
    return hashlib.sha256(token.encode()).hexdigest()


def create_user(*, session: Session, username: str, password: str | None, role: str = "player") -> User:
    """Create a user (password hashed with argon2id; None for guests and bots)."""
    user = User(username=username, password_hash=_hasher.hash(password) if password else None, role=role)
    session.add(user)
    session.flush()
    return user


def get_user_by_name(*, session: Session, username: str) -> User | None:
    """Return the user called ``username``, if any."""
    return session.scalar(select(User).where(User.username == username))


def check_password(*, user: User, password: str) -> bool:
    """Return True if ``password`` is the user's."""
    if not user.password_hash:
        return False
    try:
        return _hasher.verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def issue_token(*, session: Session, user: User, kind: str = "session", token: str | None = None) -> str:
    """Create a token for ``user`` (or register the given one) and return it in clear, once."""
    token = token or secrets.token_urlsafe(32)
    h = hash_token(token)
    if session.get(AuthToken, h) is None:
        session.add(AuthToken(token_hash=h, user_id=user.id, kind=kind))
        session.flush()
    return token


def user_for_token(*, session: Session, token: str) -> User | None:
    """Return the user a token belongs to, if the token exists."""
    row = session.get(AuthToken, hash_token(token))
    return session.get(User, row.user_id) if row else None


def ensure_user(*, session: Session, username: str, role: str) -> User:
    """Return the user called ``username``, creating it with ``role`` if missing."""
    return get_user_by_name(session=session, username=username) or create_user(
        session=session, username=username, password=None, role=role)


def create_game(*, session: Session, game: Game) -> Game:
    """Insert a new game row."""
    session.add(game)
    session.flush()
    return game


def add_move(*, session: Session, move: Move) -> None:
    """Insert one move row."""
    session.add(move)


def finish_game(*, session: Session, game_id: int, points: tuple[int, int], winner: int, reason: str,
                variant: str, players: tuple[int, int]) -> None:
    """Record a game's end, add it to both players' totals and update both ratings (Glicko-2)."""
    game = session.get(Game, game_id)
    if game is None or game.status != "playing":
        return
    game.status = "finished"
    game.ended_at = datetime.now(UTC)
    game.points0, game.points1 = points
    game.winner_seat = winner
    game.end_reason = reason
    rows = [totals_row(session=session, user_id=user_id, variant=variant) for user_id in players]
    add_result(rows[0], rows[1], points=points, winner=winner)


def add_result(a: UserTotals, b: UserTotals, *, points: tuple[int, int], winner: int) -> None:
    """Add one game between ``a`` (seat 0) and ``b`` (seat 1) to their totals and Glicko-2 ratings."""
    ra, rb = after_game(Rating(a.rating, a.rating_rd, a.rating_volatility),
                        Rating(b.rating, b.rating_rd, b.rating_volatility), winner)
    for seat, (totals, rating) in enumerate(((a, ra), (b, rb))):
        totals.games += 1
        totals.wins += int(winner == seat)
        totals.points += points[seat]
        totals.rating, totals.rating_rd, totals.rating_volatility = rating.rating, rating.rd, rating.volatility


def totals_row(*, session: Session, user_id: int, variant: str) -> UserTotals:
    """Return a user's totals in ``variant``, adding a fresh row (unrated, no games) if missing."""
    totals = session.get(UserTotals, (user_id, variant))
    if totals is None:
        fresh = Rating()
        totals = UserTotals(user_id=user_id, variant=variant, games=0, wins=0, points=0, rating=fresh.rating,
                            rating_rd=fresh.rd, rating_volatility=fresh.volatility)
        session.add(totals)
    return totals


def unfinished_games(*, session: Session) -> list[Game]:
    """Return every game still being played."""
    return list(session.scalars(select(Game).where(Game.status == "playing").order_by(Game.id)))


def moves_of(*, session: Session, game_id: int) -> list[Move]:
    """Return a game's moves in order."""
    return list(session.scalars(select(Move).where(Move.game_id == game_id).order_by(Move.move_number)))


def create_bot_token(*, session: Session, username: str) -> str:
    """Create the bot account ``username`` if missing and return a new API token for it.

    Raises:
        ValueError: ``username`` belongs to an account that is not a bot.
    """
    user = ensure_user(session=session, username=username, role="bot")
    if user.role != "bot":
        raise ValueError(f"{username!r} is not a bot account")
    return issue_token(session=session, user=user, kind="api")


def create_admin(*, session: Session, username: str, password: str) -> tuple[User, str]:
    """Create an admin account; return it and a session token.

    Raises:
        ValueError: the name is taken or the password is shorter than 6 characters.
    """
    if len(password) < 6:
        raise ValueError("the password needs at least 6 characters")
    if get_user_by_name(session=session, username=username) is not None:
        raise ValueError(f"{username!r} exists already")
    user = create_user(session=session, username=username, password=password, role="admin")
    return user, issue_token(session=session, user=user)
