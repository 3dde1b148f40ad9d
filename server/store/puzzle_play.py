"""Puzzles as players meet them: serving one near the player's rating, judging attempts, Glicko-2 for both.

A puzzle is *served* to a user by a ``puzzle_attempts`` row (``answered_at`` NULL); a user has at most
one open puzzle per variant, and asking again returns it. The row keeps the player's right cards so
far; the attempt ends at the first wrong card or at the solve, and then, once, in the same transaction,
the user's and the puzzle's ratings change (a solved puzzle is a win against it) and both count the try.
Rows are locked in one order (the attempt, the puzzle, the user's rating), so concurrent attempts lose
no update and never wait on each other in a circle. Only puzzles from finished games are served, and none
more than ``HARDER_BY`` above the player's rating. One puzzle moves the player's rating by at most
``MAX_CHANGE`` points: Glicko-2 with a newcomer's deviation (350) would take ~170-190 points for a first
wrong card; the deviation still shrinks as Glicko-2 says (Lichess likewise damps puzzle rating changes).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import exists, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from server.game.puzzle_line import annotate, judge
from server.store.access import may_see
from server.store.models import Game, Puzzle, PuzzleAttempt, PuzzleRating, User
from server.store.ratings import Rating, provisional, update
from tressette import card_name, parse_card

VARIANTS = ("tressette", "kifameno")
HARDER_BY = 300.0
"""A served puzzle is rated at most this much above the player (easier ones are served when nothing is near)."""
MAX_CHANGE = 50.0
"""The most one puzzle moves the player's rating (up or down)."""


class PuzzleRefused(Exception):
    """A refused puzzle request: an HTTP status, a machine ``code`` and an English sentence."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        """Keep the status, code (``no_puzzle``, ``not_served``, ``answered``, ``out_of_step``) and detail."""
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail


def may_replay(session: Session, user: User, game_id: int) -> bool:
    """Return whether ``user`` may see the game (the replay's rule, :mod:`server.store.access`)."""
    game = session.get(Game, game_id)
    return game is not None and game.status == "finished" and may_see(user, game)


def puzzle_json(puzzle: Puzzle) -> dict[str, Any]:
    """Return the whole puzzle (admins, and players who answered it): the position, the line and its checks."""
    data = puzzle.data
    return {"id": puzzle.id, "variant": puzzle.variant, "hand": data["hand"], "opponent_hand": data["opponent_hand"],
            "inplay": data["inplay"], "points": data["points"], "opponent_points": data["opponent_points"],
            "solution": data["solution"], "accepted": data.get("accepted", []),
            "refutations": data.get("refutations", []), "rating": round(puzzle.rating, 1),
            "rd": round(puzzle.rating_rd, 1), "themes": list(puzzle.themes), "game_id": puzzle.game_id,
            "move_number": puzzle.move_number, "seat": puzzle.seat, "depth": puzzle.depth, "legal": puzzle.legal,
            "missed": puzzle.missed, "after_mistake": puzzle.after_mistake, "attempts": puzzle.attempts,
            "solved": puzzle.solved, "created_at": puzzle.created_at.isoformat() if puzzle.created_at else None}


def _rating_of(row: PuzzleRating | Puzzle) -> Rating:
    return Rating(row.rating, row.rating_rd, row.rating_volatility)


def _set_rating(row: PuzzleRating | Puzzle, rating: Rating) -> None:
    row.rating, row.rating_rd, row.rating_volatility = rating.rating, rating.rd, rating.volatility


def rating_row(*, session: Session, user_id: int) -> PuzzleRating:
    """Return the user's puzzle rating locked until the commit (a fresh 1500 row is added when missing)."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    fresh = Rating()
    session.execute(insert(PuzzleRating).values(user_id=user_id, rating=fresh.rating, rating_rd=fresh.rd,
                                                rating_volatility=fresh.volatility, attempts=0, solved=0)
                    .on_conflict_do_nothing(index_elements=[PuzzleRating.user_id]))
    return session.scalars(select(PuzzleRating).where(PuzzleRating.user_id == user_id).with_for_update()
                           .execution_options(populate_existing=True)).one()


def player_rating(*, session: Session, user_id: int) -> dict[str, Any]:
    """Return a user's puzzle rating as the page shows it (1500 ± 350 before the first puzzle; ``provisional``
    while the deviation is high)."""
    row = session.get(PuzzleRating, user_id)
    rating = _rating_of(row) if row else Rating()
    return {"rating": round(rating.rating, 1), "rd": round(rating.rd, 1), "provisional": provisional(rating.rd),
            "attempts": row.attempts if row else 0, "solved": row.solved if row else 0}


def _served(session: Session, user: User, puzzle: Puzzle, attempt: PuzzleAttempt) -> dict[str, Any]:
    """Return a served puzzle as the player sees it: the position and how far they got, never the line."""
    data = puzzle.data
    sofar = judge(data, [card_name(c) for c in attempt.cards or []])
    return {"id": puzzle.id, "variant": puzzle.variant, "hand": data["hand"],
            "opponent_hand": data["opponent_hand"], "inplay": data["inplay"], "points": data["points"],
            "opponent_points": data["opponent_points"], "rating": round(puzzle.rating, 1),
            "rd": round(puzzle.rating_rd, 1), "steps": puzzle.depth, "game_id": puzzle.game_id,
            "move_number": puzzle.move_number, "replay": may_replay(session, user, puzzle.game_id),
            "cards": [card_name(c) for c in attempt.cards or []], "moves": sofar.moves,
            "position": sofar.position, "you": player_rating(session=session, user_id=user.id)}


def _nearest(session: Session, user_id: int, variant: str | None, rating: float) -> Puzzle | None:
    """Return the unattempted puzzle of a finished game nearest ``rating`` (of ``variant``, or any), at most
    ``HARDER_BY`` above it."""
    tried = exists().where(PuzzleAttempt.puzzle_id == Puzzle.id, PuzzleAttempt.user_id == user_id)
    base = select(Puzzle).join(Game, Game.id == Puzzle.game_id).where(Game.status == "finished", ~tried)
    if variant is not None:
        base = base.where(Puzzle.variant == variant)
    above = session.scalars(base.where(Puzzle.rating >= rating, Puzzle.rating <= rating + HARDER_BY)
                            .order_by(Puzzle.rating, Puzzle.id).limit(1)).first()
    below = session.scalars(base.where(Puzzle.rating < rating).order_by(Puzzle.rating.desc(), Puzzle.id)
                            .limit(1)).first()
    found = [p for p in (above, below) if p is not None]
    return min(found, key=lambda p: (abs(p.rating - rating), p.id)) if found else None


def serve_next(*, session: Session, user: User, variant: str | None) -> dict[str, Any] | None:
    """Serve the user's open puzzle of ``variant`` (None: any), or a new one near their rating; commit.

    Returns None when no puzzle is left for them.
    """
    mine = rating_row(session=session, user_id=user.id)  # locked: one serving per user at a time
    query = (select(PuzzleAttempt, Puzzle).join(Puzzle, Puzzle.id == PuzzleAttempt.puzzle_id)
             .where(PuzzleAttempt.user_id == user.id, PuzzleAttempt.answered_at.is_(None)))
    if variant is not None:
        query = query.where(Puzzle.variant == variant)
    open_one = session.execute(query.order_by(PuzzleAttempt.id.desc()).limit(1)).first()
    if open_one is not None:
        attempt, puzzle = open_one
    else:
        found = _nearest(session, user.id, variant, mine.rating)
        if found is None:
            session.commit()
            return None
        puzzle = found
        attempt = PuzzleAttempt(puzzle_id=puzzle.id, user_id=user.id, cards=[])
        session.add(attempt)
        session.flush()
    served = _served(session, user, puzzle, attempt)
    session.commit()
    return served


def _finish(session: Session, puzzle: Puzzle, attempt: PuzzleAttempt, user_id: int,
            solved: bool) -> dict[str, Any]:
    """Answer the attempt once: both ratings and counts change together (the caller holds the attempt's lock)."""
    puzzle = session.scalars(select(Puzzle).where(Puzzle.id == puzzle.id).with_for_update()
                             .execution_options(populate_existing=True)).one()
    mine = rating_row(session=session, user_id=user_id)
    before_user, before_puzzle = _rating_of(mine), _rating_of(puzzle)
    score = 1.0 if solved else 0.0
    glicko = update(before_user, [(before_puzzle, score)])
    change = max(-MAX_CHANGE, min(MAX_CHANGE, glicko.rating - before_user.rating))
    after_user = Rating(before_user.rating + change, glicko.rd, glicko.volatility)
    after_puzzle = update(before_puzzle, [(before_user, 1.0 - score)])
    _set_rating(mine, after_user)
    _set_rating(puzzle, after_puzzle)
    mine.attempts += 1
    mine.solved += int(solved)
    puzzle.attempts += 1
    puzzle.solved += int(solved)
    attempt.answered_at = datetime.now(UTC)
    attempt.solved = solved
    attempt.rating_before, attempt.rating_after = before_user.rating, after_user.rating
    return {"rating": {"before": round(before_user.rating, 1), "after": round(after_user.rating, 1),
                       "change": round(after_user.rating - before_user.rating, 1), "rd": round(after_user.rd, 1),
                       "provisional": provisional(after_user.rd)},
            "puzzle_rating": {"before": round(before_puzzle.rating, 1), "after": round(after_puzzle.rating, 1)},
            "themes": list(puzzle.themes), "solution": annotate(puzzle.data, puzzle.data["solution"]),
            "attempts": puzzle.attempts, "solved_count": puzzle.solved}


def attempt_puzzle(*, session: Session, user: User, puzzle_id: int, cards: list[str]) -> dict[str, Any]:
    """Judge the player's ``cards`` so far (the last one new) on a puzzle served to them; commit.

    Raises:
        PuzzleRefused: no such puzzle (404), not served to this user (403), answered already (409), or
            ``cards`` not the stored cards plus one (409: a replayed or skipped step).
        BadCards: a card that is not one, or not playable there (422).
    """
    puzzle = session.get(Puzzle, puzzle_id)
    if puzzle is None:
        raise PuzzleRefused(404, "no_puzzle", "no puzzle with that id")
    attempt = session.scalars(select(PuzzleAttempt).where(PuzzleAttempt.puzzle_id == puzzle_id,
                                                          PuzzleAttempt.user_id == user.id)
                              .with_for_update().execution_options(populate_existing=True)).first()
    if attempt is None:
        raise PuzzleRefused(403, "not_served", "this puzzle was not served to you: ask for /api/puzzles/next")
    if attempt.answered_at is not None:
        raise PuzzleRefused(409, "answered", "you have answered this puzzle already")
    stored = [card_name(c) for c in attempt.cards or []]
    if len(cards) != len(stored) + 1 or cards[:-1] != stored:
        raise PuzzleRefused(409, "out_of_step", f"send the {len(stored)} card(s) played so far and one new card")
    verdict = judge(puzzle.data, cards)
    answer: dict[str, Any] = {"id": puzzle.id, "result": verdict.verdict, "reply": verdict.reply,
                              "moves": verdict.moves, "position": verdict.position}
    attempt.cards = [parse_card(c) for c in cards]  # stored as card codes, like the move log
    if verdict.verdict != "right":
        answer |= _finish(session, puzzle, attempt, user.id, solved=verdict.verdict == "solved")
        if verdict.verdict == "wrong":
            answer |= {"refutation": verdict.refutation, "refutation_points": verdict.refutation_points}
    session.commit()
    return answer


def answered_puzzle(*, session: Session, user: User, puzzle_id: int) -> dict[str, Any]:
    """Return the whole puzzle to an admin, or to a player who has answered it.

    Raises:
        PuzzleRefused: no such puzzle (404), or the caller may not see its solution yet (403).
    """
    puzzle = session.get(Puzzle, puzzle_id)
    if puzzle is None:
        raise PuzzleRefused(404, "no_puzzle", "no puzzle with that id")
    if user.role != "admin":
        answered = session.scalar(select(func.count()).select_from(PuzzleAttempt).where(
            PuzzleAttempt.puzzle_id == puzzle_id, PuzzleAttempt.user_id == user.id,
            PuzzleAttempt.answered_at.is_not(None)))
        if not answered:
            raise PuzzleRefused(403, "not_answered", "only admins, and players who answered it, may see a puzzle")
    return puzzle_json(puzzle)


def list_puzzles(*, session: Session, limit: int, offset: int, variant: str | None = None) -> dict[str, Any]:
    """Return puzzles newest first (``variant`` only, if given) with how often each was tried and solved."""
    query = select(Puzzle)
    count = select(func.count()).select_from(Puzzle)
    if variant is not None:
        query, count = query.where(Puzzle.variant == variant), count.where(Puzzle.variant == variant)
    rows = session.scalars(query.order_by(Puzzle.id.desc()).limit(limit).offset(offset))
    return {"puzzles": [puzzle_json(p) for p in rows], "total": session.scalar(count) or 0}
