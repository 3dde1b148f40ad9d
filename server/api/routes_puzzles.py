"""Puzzles over HTTP: the next puzzle for the signed-in player, attempts, and the whole puzzles for admins.

Refusals carry a ``code`` beside the English ``detail`` (docs/protocol.md, "Puzzles"): ``no_puzzle``
(404), ``not_served`` (403: attempt only a puzzle ``next`` gave you), ``answered`` (409),
``out_of_step`` (409: a replayed or skipped step), ``bad_card``/``illegal_card``/``too_many_cards``
(422), ``throttled`` (429). Each user has a budget of puzzle requests per window (``puzzle_requests``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, Field

from server.api.deps import DB, CurrentUser
from server.api.routes_admin import Admin
from server.api.routes_auth import FormError, Throttles
from server.game.puzzle_line import BadCards
from server.protocol import MAX_DB_INT
from server.store import puzzle_play
from server.store.models import User
from server.store.puzzle_play import PuzzleRefused
from tressette import VariantName

router = APIRouter(prefix="/api/puzzles", tags=["puzzles"])
PuzzleId = Annotated[int, Path(ge=1, le=MAX_DB_INT, description="a puzzle's id")]


class Attempt(BaseModel):
    """The player's cards in this puzzle so far, in order: the cards already accepted, then the new one."""

    cards: list[Annotated[str, Field(max_length=12)]] = Field(min_length=1, max_length=20)


def _throttle(request: Request, user: User) -> None:
    throttles: Throttles = request.app.state.throttles
    throttles.check("puzzles", f"user:{user.id}")


def _refused(exc: PuzzleRefused | BadCards) -> FormError:
    if isinstance(exc, BadCards):
        return FormError(422, exc.code, str(exc))
    return FormError(exc.status, exc.code, exc.detail)


@router.get("/next")
def next_puzzle(request: Request, session: DB, user: CurrentUser,
                variant: VariantName | Literal["any"] = "tressette") -> dict[str, Any]:
    """Serve the player's open puzzle of ``variant``, or a new one near their puzzle rating (no line shown).

    ``{"puzzle": null, "you": {...}}`` when none is left.
    """
    _throttle(request, user)
    served = puzzle_play.serve_next(session=session, user=user, variant=None if variant == "any" else variant)
    if served is None:
        return {"puzzle": None, "you": puzzle_play.player_rating(session=session, user_id=user.id)}
    return {"puzzle": served, "you": served.pop("you")}


@router.post("/{puzzle_id}/attempt")
def attempt(puzzle_id: PuzzleId, body: Attempt, request: Request, session: DB, user: CurrentUser) -> dict[str, Any]:
    """Judge the player's cards so far: ``right`` (the opponent's reply), ``solved`` or ``wrong`` (the refutation)."""
    _throttle(request, user)
    try:
        return puzzle_play.attempt_puzzle(session=session, user=user, puzzle_id=puzzle_id, cards=body.cards)
    except (PuzzleRefused, BadCards) as exc:
        session.rollback()
        raise _refused(exc) from None


@router.get("/{puzzle_id}")
def get_puzzle(puzzle_id: PuzzleId, session: DB, user: CurrentUser) -> dict[str, Any]:
    """Return a whole puzzle (with its line): to admins, and to players who have answered it."""
    try:
        return puzzle_play.answered_puzzle(session=session, user=user, puzzle_id=puzzle_id)
    except PuzzleRefused as exc:
        raise _refused(exc) from None


@router.get("")
def list_puzzles(session: DB, _: Admin, limit: Annotated[int, Query(ge=1, le=500)] = 50,
                 offset: Annotated[int, Query(ge=0, le=MAX_DB_INT)] = 0,
                 variant: VariantName | None = None) -> dict[str, Any]:
    """Return puzzles newest first, each whole, with how often it was tried and solved (admins only)."""
    return puzzle_play.list_puzzles(session=session, limit=limit, offset=offset, variant=variant)
