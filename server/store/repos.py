"""Repositories: keyword-only functions over a session; no game logic, no I/O besides the DB."""

from __future__ import annotations

import hashlib
import secrets
import threading
from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from server.game.records import EndRefused, aborted
from server.store import partnership
from server.store.models import AuthToken, Game, MatchRow, Move, User, UserTotals
from server.store.ratings import Rating, after_game
from server.store.totals import totals_row as totals_row  # the repositories' own, kept under their name

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters
_hash_slots = threading.BoundedSemaphore(2)
HASH_WAIT_S = 10.0
"""How long a request waits for a hashing slot before it is refused (:class:`HashingBusy`)."""
TOUCH_EVERY = timedelta(hours=1)
"""A token's ``last_used_at`` is renewed at most this often (not one write per request)."""


class HashingBusy(RuntimeError):
    """Every password-hashing slot stayed taken: the caller should answer 503 and let the client retry."""


def set_hash_concurrency(n: int) -> None:
    """Allow ``n`` password hashes (argon2, ~0.1-0.2 s of CPU each) at once in this process."""
    global _hash_slots
    _hash_slots = threading.BoundedSemaphore(max(1, n))


def _argon2(work: str, *args: str) -> object:
    """Run ``_hasher.<work>(*args)`` in a hashing slot, so a flood of sign-ins cannot take every core."""
    slots = _hash_slots
    if not slots.acquire(timeout=HASH_WAIT_S):
        raise HashingBusy("the server is busy checking passwords; try again")
    try:
        return getattr(_hasher, work)(*args)
    finally:
        slots.release()


def hash_token(token: str) -> str:
    """Return the stored form of a token (its SHA-256)."""
    return hashlib.sha256(token.encode()).hexdigest()


def create_user(*, session: Session, username: str, password: str | None, role: str = "player") -> User:
    """Create a user (password hashed with argon2id; None for guests and bots)."""
    user = User(username=username, password_hash=str(_argon2("hash", password)) if password else None, role=role)
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
        return bool(_argon2("verify", user.password_hash, password))
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


def user_for_token(*, session: Session, token: str, idle_days: float | None = None) -> User | None:
    """Return the user a token belongs to, if the token exists and has not expired.

    A session token (not an API token) unused for ``idle_days`` is deleted and names no one; a
    used one has its ``last_used_at`` renewed (hourly at most). The caller commits.
    """
    row = session.get(AuthToken, hash_token(token))
    if row is None:
        return None
    now = datetime.now(UTC)
    last = _aware(row.last_used_at or row.created_at)
    if idle_days is not None and row.kind == "session" and last is not None and now - last > timedelta(days=idle_days):
        session.delete(row)
        session.flush()
        return None
    if last is None or now - last > TOUCH_EVERY:
        row.last_used_at = now
        session.flush()
    return session.get(User, row.user_id)


def _aware(moment: datetime | None) -> datetime | None:
    """Return ``moment`` with a time zone (SQLite gives naive UTC datetimes back)."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


def revoke_user_tokens(*, session: Session, user_id: int, kind: str | None = None) -> list[str]:
    """Delete every token of ``user_id`` (of ``kind`` if given); return their hashes (to close their sockets)."""
    query = select(AuthToken.token_hash).where(AuthToken.user_id == user_id)
    if kind is not None:
        query = query.where(AuthToken.kind == kind)
    hashes = list(session.scalars(query))
    if hashes:
        session.execute(delete(AuthToken).where(AuthToken.token_hash.in_(hashes)))
        session.flush()
    return hashes


def revoke_token(*, session: Session, token: str) -> bool:
    """Delete ``token`` (a logout); return True if it existed."""
    row = session.get(AuthToken, hash_token(token))
    if row is None:
        return False
    session.delete(row)
    session.flush()
    return True


def upgrade_guest(*, session: Session, user: User, username: str, password: str) -> User:
    """Make the guest ``user`` a registered player called ``username``, keeping its id (games, totals, ratings).

    Does not check the name's form (the route does). Raises:
        ValueError: ``user`` is not a guest.
        sqlalchemy.exc.IntegrityError: the name is taken (on the flush).
    """
    if user.role != "guest":
        raise ValueError(f"{user.username!r} is not a guest account")
    user.username = username
    user.password_hash = str(_argon2("hash", password))
    user.role = "player"
    session.flush()
    return user


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


def finish_game(*, session: Session, game_id: int, points: tuple[int, int], winner: int | None, reason: str,
                moves: int, declared: tuple[int, int] | None = None) -> None:
    """Record a deal's end, computed from its first ``moves`` moves; the totals follow (:func:`apply_totals`).

    Raises:
        EndRefused: the game is not being played, or does not have exactly ``moves`` moves stored
            (an end computed from another deal than the stored one is never stored).
    """
    stored = select(func.count()).select_from(Move).where(Move.game_id == game_id).scalar_subquery()
    done = session.execute(
        update(Game)
        .where(Game.id == game_id, Game.status == "playing", stored == moves)
        .values(status="finished", ended_at=datetime.now(UTC), points0=points[0], points1=points[1],
                winner_seat=winner, end_reason=reason, moves_at_end=moves, totals_pending=True,
                **({"declared0": declared[0], "declared1": declared[1]} if declared is not None else {}))
        .execution_options(synchronize_session=False))
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise EndRefused(f"game {game_id}: not playing, or not {moves} moves stored")


def apply_totals(*, session: Session, game_id: int) -> bool:
    """Add a finished game to its players' totals and ratings, once; return False if it had been added.

    A deal of a match adds to the totals only; its match's rating update (:func:`apply_match_rating`)
    follows once the match has ended. An aborted deal (a forfeit before both players had played a card,
    :func:`~server.game.records.aborted`) adds nothing. Any process may call it (the row's
    ``totals_pending`` is the once-only guard); the caller commits.
    """
    if session.scalar(select(Game.n_players).where(Game.id == game_id)) == 4:
        return partnership.apply_deal_totals(session=session, game_id=game_id)
    row = session.execute(
        update(Game).where(Game.id == game_id, Game.totals_pending.is_(True)).values(totals_pending=False)
        .returning(Game.player0_id, Game.player1_id, Game.points0, Game.points1, Game.winner_seat, Game.variant,
                   Game.match_id, Game.end_reason, Game.moves_at_end)
        .execution_options(synchronize_session=False)).first()
    if row is None:
        return False
    p0, p1, points0, points1, winner, variant, match_id, reason, moves = row
    if aborted(reason, moves):
        return True
    # Locked in one order (by user id) so two games of the same players ending together cannot deadlock.
    totals = {uid: totals_row(session=session, user_id=uid, variant=variant, lock=True) for uid in sorted({p0, p1})}
    session.flush()
    add_result(totals[p0], totals[p1], points=(points0 or 0, points1 or 0), winner=winner or 0,
               rated=match_id is None)
    return True


def apply_match_rating(*, session: Session, match_id: int) -> bool:
    """Move the players' ratings by an ended match, once; return False if there was nothing to do.

    A match whose only deal was aborted (:func:`match_aborted`) moves no rating.
    """
    if session.scalar(select(MatchRow.n_players).where(MatchRow.id == match_id)) == 4:
        return partnership.apply_match_rating(session=session, match_id=match_id)
    row = session.execute(
        update(MatchRow).where(MatchRow.id == match_id, MatchRow.rating_pending.is_(True))
        .values(rating_pending=False)
        .returning(MatchRow.player0_id, MatchRow.player1_id, MatchRow.winner_seat, MatchRow.variant)
        .execution_options(synchronize_session=False)).first()
    if row is None:
        return False
    p0, p1, winner, variant = row
    if match_aborted(session=session, match_id=match_id):
        return True
    totals = {uid: totals_row(session=session, user_id=uid, variant=variant, lock=True) for uid in sorted({p0, p1})}
    session.flush()
    rate(totals[p0], totals[p1], winner=winner or 0)
    return True


def match_aborted(*, session: Session, match_id: int) -> bool:
    """Return True if a match ended in its first deal before both players had played a card (not rated)."""
    ends = session.execute(select(Game.end_reason, Game.moves_at_end)
                           .where(Game.match_id == match_id, Game.status == "finished")).all()
    return len(ends) == 1 and aborted(*ends[0])


def match_of(*, session: Session, game_id: int) -> int | None:
    """Return the match a game belongs to (None: a single deal)."""
    return session.scalar(select(Game.match_id).where(Game.id == game_id))


def open_match(*, session: Session, match: MatchRow) -> int:
    """Insert a new match row; return its id."""
    session.add(match)
    session.flush()
    return int(match.id)


def update_match(*, session: Session, match_id: int, scores: tuple[int, int], deals: int, winner: int | None,
                 reason: str | None) -> None:
    """Store a match's totals after a deal and, once it is over, how it ended (its rating then pending).

    Raises:
        EndRefused: the match is over already.
    """
    values: dict[str, Any] = {"score0": scores[0], "score1": scores[1], "deals": deals}
    if winner is not None:
        values.update(status="finished", winner_seat=winner, end_reason=reason, ended_at=datetime.now(UTC),
                      rating_pending=True)
    done = session.execute(update(MatchRow).where(MatchRow.id == match_id, MatchRow.status == "playing")
                           .values(**values).execution_options(synchronize_session=False))
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise EndRefused(f"match {match_id} is over already")


def pending_totals(*, session: Session, limit: int = 1000) -> list[int]:
    """Return finished games whose totals are still to be added (oldest first), and the last deal of each
    ended match whose rating is still to be moved (settling that deal moves it)."""
    games = list(session.scalars(select(Game.id).where(Game.totals_pending.is_(True)).order_by(Game.id).limit(limit)))
    last_deals = session.scalars(
        select(func.max(Game.id)).join(MatchRow, MatchRow.id == Game.match_id)
        .where(MatchRow.rating_pending.is_(True)).group_by(Game.match_id).limit(limit))
    return sorted(set(games) | {g for g in last_deals if g is not None}
                  | set(partnership.leavers_pending(session=session, limit=limit)))


def add_result(a: UserTotals, b: UserTotals, *, points: tuple[int, int], winner: int, rated: bool = True) -> None:
    """Add one game between ``a`` (seat 0) and ``b`` (seat 1) to their totals and (``rated``) Glicko-2 ratings."""
    for seat, totals in enumerate((a, b)):
        totals.games += 1
        totals.wins += int(winner == seat)
        totals.points += points[seat]
    if rated:
        rate(a, b, winner=winner)


def rate(a: UserTotals, b: UserTotals, *, winner: int) -> None:
    """Move ``a``'s (seat 0) and ``b``'s ratings by one rated game that ``winner`` won."""
    ra, rb = after_game(Rating(a.rating, a.rating_rd, a.rating_volatility),
                        Rating(b.rating, b.rating_rd, b.rating_volatility), winner)
    for totals, rating in ((a, ra), (b, rb)):
        totals.rating, totals.rating_rd, totals.rating_volatility = rating.rating, rating.rd, rating.volatility


def unfinished_games(*, session: Session, table_ids: Collection[str] | None = None) -> list[Game]:
    """Return every game still being played (at ``table_ids`` only, if given)."""
    query = select(Game).where(Game.status == "playing")
    if table_ids is not None:
        query = query.where(Game.table_id.in_(list(table_ids)))
    return list(session.scalars(query.order_by(Game.id)))


def matches_between_deals(*, session: Session, table_ids: Collection[str] | None = None) -> list[Game]:
    """Return the last deal of every match still going on whose deals are all finished (its table waits for
    the next deal)."""
    last = (select(func.max(Game.id)).join(MatchRow, MatchRow.id == Game.match_id)
            .where(MatchRow.status == "playing").group_by(Game.match_id))
    if table_ids is not None:
        last = last.where(MatchRow.table_id.in_(list(table_ids)))
    return list(session.scalars(select(Game).where(Game.id.in_(last), Game.status == "finished").order_by(Game.id)))


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

