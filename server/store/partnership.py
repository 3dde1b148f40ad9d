"""Repositories of the four-player partnership game: its totals, ratings and leavers (keyword-only, no I/O but the DB).

A four-player deal's ``games`` row holds four players (seats 0 and 2 against 1 and 3), each
partnership's whole card points (``points0``/``points1``), declared points and the winning
partnership (``winner_seat``; None: a drawn single deal). The totals and ratings are kept under
the variant key ``partnership`` (docs/protocol-four.md, "Leaving, time and ratings"):

- every deal adds to each of its four players' games, wins (their partnership won) and points
  (their partnership's score);
- a rated result (a single deal, or a match once it ends) moves each player's Glicko-2 rating by
  one game against the opposing pair's average rating and deviation;
- a person who left (a bot took the seat) takes a rated loss at once (:func:`rate_leavers`); the
  deal and its match then move no one else's rating (``unrated``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from server.game.records import Leave
from server.store.models import Game, MatchRow, PartnershipLeaver, UserTotals
from server.store.ratings import Rating
from server.store.ratings import update as glicko
from server.store.totals import totals_row

VARIANT = "partnership"
"""The totals' and ratings' key of the four-player game (and its ``games.variant``)."""


def _rating(totals: UserTotals) -> Rating:
    return Rating(totals.rating, totals.rating_rd, totals.rating_volatility)


def pair_average(a: Rating, b: Rating) -> Rating:
    """Return the opposing pair as one opponent: the mean of their ratings and of their deviations.

    >>> pair_average(Rating(1400.0, 100.0), Rating(1600.0, 300.0)).rating
    1500.0
    """
    return Rating((a.rating + b.rating) / 2, (a.rd + b.rd) / 2)


def rate_four(players: list[UserTotals], winner: int | None) -> None:
    """Move the four seats' ratings (seats 0..3) by one game each against the opposing pair's average.

    ``winner``: the partnership that won (None: a draw, half a point each). The ratings before the
    game are used for everyone.
    """
    before = [_rating(t) for t in players]
    for seat, totals in enumerate(players):
        opponents = pair_average(before[(seat + 1) % 4], before[(seat + 3) % 4])
        score = 0.5 if winner is None else float(winner == seat % 2)
        after = glicko(before[seat], [(opponents, score)])
        totals.rating, totals.rating_rd, totals.rating_volatility = after.rating, after.rd, after.volatility


def _four_totals(session: Session, ids: list[int]) -> dict[int, UserTotals]:
    # Locked in one order (by user id) so two games of the same players ending together cannot deadlock.
    totals = {uid: totals_row(session=session, user_id=uid, variant=VARIANT, lock=True) for uid in sorted(set(ids))}
    session.flush()
    return totals


def apply_deal_totals(*, session: Session, game_id: int) -> bool:
    """Add a finished four-player deal to its players' totals (and, a rated single deal, their ratings), once.

    Returns False if it had been added. The caller commits.
    """
    row = session.execute(
        update(Game).where(Game.id == game_id, Game.totals_pending.is_(True)).values(totals_pending=False)
        .returning(Game.player0_id, Game.player1_id, Game.player2_id, Game.player3_id, Game.points0,
                   Game.points1, Game.declared0, Game.declared1, Game.winner_seat, Game.match_id, Game.end_reason,
                   Game.unrated)
        .execution_options(synchronize_session=False)).first()
    if row is None:
        return False
    *players, p0, p1, d0, d1, winner, match_id, reason, unrated = row
    ids = [int(uid or 0) for uid in players]
    if reason != "finished":  # abandoned (every person left): nothing to count
        return True
    totals = _four_totals(session, ids)
    scores = ((p0 or 0) + (d0 or 0), (p1 or 0) + (d1 or 0))
    for seat, uid in enumerate(ids):
        t = totals[uid]
        t.games += 1
        t.wins += int(winner == seat % 2)
        t.points += scores[seat % 2]
    if match_id is None and not unrated and len(set(ids)) == 4:
        rate_four([totals[uid] for uid in ids], winner)
    return True


def apply_match_rating(*, session: Session, match_id: int) -> bool:
    """Move the four players' ratings by an ended four-player match, once (none if a person left it)."""
    row = session.execute(
        update(MatchRow).where(MatchRow.id == match_id, MatchRow.rating_pending.is_(True))
        .values(rating_pending=False)
        .returning(MatchRow.player0_id, MatchRow.player1_id, MatchRow.player2_id, MatchRow.player3_id,
                   MatchRow.winner_seat, MatchRow.unrated, MatchRow.end_reason)
        .execution_options(synchronize_session=False)).first()
    if row is None:
        return False
    *players, winner, unrated, reason = row
    ids = [int(uid or 0) for uid in players]
    if unrated or reason != "finished" or len(set(ids)) != 4:
        return True
    totals = _four_totals(session, ids)
    rate_four([totals[uid] for uid in ids], winner)
    return True


def record_leaver(*, session: Session, leave: Leave) -> None:
    """Note that a person left a four-player deal: the deal and its match rate no one else now.

    Once per deal and seat (a second call changes nothing). The leaver's loss is rated by
    :func:`rate_leavers`.
    """
    if session.get(PartnershipLeaver, (leave.game_id, leave.seat)) is not None:
        return
    session.add(PartnershipLeaver(game_id=leave.game_id, seat=leave.seat, user_id=leave.user_id, cause=leave.cause,
                                  left_at=datetime.now(UTC)))
    session.execute(update(Game).where(Game.id == leave.game_id).values(unrated=True)
                    .execution_options(synchronize_session=False))
    if leave.match_id is not None:
        session.execute(update(MatchRow).where(MatchRow.id == leave.match_id).values(unrated=True)
                        .execution_options(synchronize_session=False))


def rate_leavers(*, session: Session, game_id: int) -> bool:
    """Rate each leaver of ``game_id`` not yet rated: a loss against the opposing pair's average; return True if any."""
    leavers = list(session.scalars(select(PartnershipLeaver).where(PartnershipLeaver.game_id == game_id,
                                                                   PartnershipLeaver.rating_after.is_(None))
                                   .with_for_update()))
    if not leavers:
        return False
    game = session.get(Game, game_id)
    assert game is not None
    ids = [game.player0_id, game.player1_id, game.player2_id or 0, game.player3_id or 0]
    for leaver in leavers:
        opponents = [ids[(leaver.seat + 1) % 4], ids[(leaver.seat + 3) % 4]]
        rows = _four_totals(session, [leaver.user_id, *opponents])
        mine = rows[leaver.user_id]
        against = pair_average(_rating(rows[opponents[0]]), _rating(rows[opponents[1]]))
        before = _rating(mine)
        after = glicko(before, [(against, 0.0)])
        mine.rating, mine.rating_rd, mine.rating_volatility = after.rating, after.rd, after.volatility
        leaver.rating_before, leaver.rating_after = before.rating, after.rating
    return True


def leavers_pending(*, session: Session, limit: int = 1000) -> list[int]:
    """Return the deals with a leaver whose loss is still to be rated."""
    return list(session.scalars(select(PartnershipLeaver.game_id).where(PartnershipLeaver.rating_after.is_(None))
                                .distinct().limit(limit)))


def leavers(*, session: Session, game_id: int) -> list[dict[str, Any]]:
    """Return who left a deal, for the exports: seat, user id, cause, ratings before and after."""
    rows = session.scalars(select(PartnershipLeaver).where(PartnershipLeaver.game_id == game_id)
                           .order_by(PartnershipLeaver.seat))
    return [{"seat": r.seat, "user_id": r.user_id, "cause": r.cause, "rating_before": r.rating_before,
             "rating_after": r.rating_after} for r in rows]
