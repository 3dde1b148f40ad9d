"""A user's totals row in one variant (games, wins, points, Glicko-2 rating), for the two- and four-player stores."""

from __future__ import annotations

from sqlalchemy.orm import Session

from server.store.models import UserTotals
from server.store.ratings import Rating

__all__ = ["totals_row"]


def totals_row(*, session: Session, user_id: int, variant: str, lock: bool = False) -> UserTotals:
    """Return a user's totals in ``variant``, adding a fresh row (unrated, no games) if missing.

    ``lock``: hold the row until the commit (another transaction adding a game to it waits; no update is lost).
    """
    totals = session.get(UserTotals, (user_id, variant), with_for_update=lock or None)
    if totals is None:
        fresh = Rating()
        totals = UserTotals(user_id=user_id, variant=variant, games=0, wins=0, points=0, rating=fresh.rating,
                            rating_rd=fresh.rd, rating_volatility=fresh.volatility)
        session.add(totals)
    return totals
