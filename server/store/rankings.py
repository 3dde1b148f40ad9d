"""The leaderboard query: players of a variant ranked by rating, win share or games."""

from __future__ import annotations

from typing import Any, Literal

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from server.store.models import User, UserTotals

RankOrder = Literal["rating", "win_share", "games"]


def ranking(session: Session, *, variant: str, min_games: int = 1, order: RankOrder = "rating",
            limit: int = 100) -> list[dict[str, Any]]:
    """Return up to ``limit`` players of ``variant`` with ``min_games`` or more (at least 1), best first.

    Ties go to more games, then to the name. Ratings are Glicko-2 (``rd`` is the deviation).
    """
    share = UserTotals.wins * 1.0 / UserTotals.games
    keys: dict[str, ColumnElement[Any]] = {"rating": UserTotals.rating.desc(), "win_share": share.desc(),
                                           "games": UserTotals.games.desc()}
    rows = session.execute(
        select(User.username, User.role, UserTotals.games, UserTotals.wins, UserTotals.points, UserTotals.rating,
               UserTotals.rating_rd)
        .join(UserTotals, UserTotals.user_id == User.id)
        .where(UserTotals.variant == variant, UserTotals.games >= max(1, min_games))
        .order_by(keys[order], UserTotals.games.desc(), User.username).limit(limit)
    ).all()
    return [{"rank": i + 1, "username": r.username, "is_bot": r.role == "bot", "games": r.games, "wins": r.wins,
             "win_share": round(r.wins / r.games, 4), "points": r.points, "rating": round(r.rating, 1),
             "rd": round(r.rating_rd, 1)} for i, r in enumerate(rows)]
