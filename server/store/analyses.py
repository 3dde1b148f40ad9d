"""Analyses in the database: a job's game record, an answer's per-move rows, queue places, accuracies.

The queue that hands jobs to bots is :mod:`server.game.analysis`; this is what it reads and writes.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import case, func, or_, select
from sqlalchemy.orm import Session, aliased

from server.store.models import Analysis, Game, Move, MoveAnalysis, User
from tressette import CardError, card_name, parse_card

LABELS = ("best", "good", "inaccuracy", "mistake", "blunder")
"""A move's label in an analysis (docs/protocol.md, "Post-game analysis")."""
KINDS = (None, "threw_win", "missed_win")
"""A move's kind: set when it gave a win up."""


def game_record(game: Game, moves: list[Move]) -> dict[str, Any]:
    """Return what a bot needs to analyse ``game``: the deck in dealing order and every card played.

    A four-player deal's record adds ``"game": "partnership"`` and each move's ``declarations``
    (docs/protocol-four.md, "Analysis"); a two-player record is as docs/protocol.md has it.
    """
    four = game.n_players == 4
    record: dict[str, Any] = {
        "id": game.id, "variant": game.variant, "deck": [card_name(c) for c in game.deck],
        "first_leader": game.first_leader,
        "moves": [{"move": m.move_number, "trick": m.trick_number, "seat": m.seat, "card": card_name(m.card),
                   **({"declarations": m.declarations or []} if four else {})} for m in moves]}
    if four:
        record["game"] = "partnership"
    return record


def _number(item: dict[str, Any], key: str, *, optional: bool = False) -> float | None:
    value = item.get(key)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"move {item.get('move')}: {key} is not a number")
    return float(value)


def move_rows(game_id: int, result: dict[str, Any], moves: list[Move]) -> list[MoveAnalysis]:
    """Return the per-move rows of an analysis of the game whose moves are ``moves``.

    Raises:
        ValueError: the analysis does not describe these moves (count, order, cards) or a field is malformed.
    """
    items = result.get("moves")
    if not isinstance(items, list) or len(items) != len(moves):
        raise ValueError(f"the analysis has {len(items) if isinstance(items, list) else 'no'} moves, "
                         f"the game {len(moves)}")
    rows = []
    for m, item in zip(moves, items, strict=True):
        if not isinstance(item, dict) or item.get("move") != m.move_number or item.get("card") != card_name(m.card):
            raise ValueError(f"move {m.move_number} of the analysis is not the card played")
        if item.get("label") not in LABELS or item.get("kind") not in KINDS:
            raise ValueError(f"move {m.move_number}: unknown label or kind")
        try:
            best = parse_card(str(item.get("best")))
        except CardError as exc:
            raise ValueError(f"move {m.move_number}: best card: {exc}") from None
        loss = _number(item, "loss")
        assert loss is not None
        rows.append(MoveAnalysis(
            game_id=game_id, move_number=m.move_number, seat=m.seat, known=bool(item.get("known")), best_card=best,
            value=_number(item, "value"), best_value=_number(item, "best_value"), loss=round(max(0.0, loss), 4),
            win=_number(item, "win", optional=True), best_win=_number(item, "best_win", optional=True),
            label=item["label"], kind=item.get("kind")))
    return rows


def accuracies(result: dict[str, Any]) -> list[float | None]:
    """Return the four seats' accuracy (percent) from an analysis, None where it has none (seats 2, 3 at two)."""
    acc: list[float | None] = [None, None, None, None]
    for p in result.get("players") or []:
        if isinstance(p, dict) and p.get("seat") in (0, 1, 2, 3) and isinstance(p.get("accuracy"), int | float):
            acc[p["seat"]] = float(p["accuracy"])
    return acc


def _bots_only() -> tuple[Any, list[Any]]:
    """Return "every player is a bot" over a game's seats (two, or four) and the user aliases to join it with."""
    users = [aliased(User) for _ in range(4)]
    four_bots = or_(Game.n_players != 4, (users[2].role == "bot") & (users[3].role == "bot"))
    return (users[0].role == "bot") & (users[1].role == "bot") & four_bots, users


def _join_players(stmt: Any, users: list[Any]) -> Any:
    seats = (Game.player0_id, Game.player1_id, Game.player2_id, Game.player3_id)
    for user, seat in zip(users, seats, strict=True):
        stmt = stmt.outerjoin(user, user.id == seat)
    return stmt


def bot_games(session: Session, game_ids: list[int]) -> set[int]:
    """Return those of ``game_ids`` played by bots only (two, or four)."""
    if not game_ids:
        return set()
    bots_only, users = _bots_only()
    return set(session.scalars(_join_players(select(Game.id), users).where(Game.id.in_(game_ids), bots_only)))


def queue_position(session: Session, game_id: int) -> int:
    """Return a queued analysis's place in the portal's queue (1: next), the same from every process.

    The database's order, as the processes hand jobs out: games with a person before bot games, then
    by when they were asked for.
    """
    bots_only, users = _bots_only()
    rows = session.execute(_join_players(
        select(Analysis.game_id, bots_only, Analysis.requested_at).join(Game, Game.id == Analysis.game_id), users)
        .where(Analysis.status == "queued")).all()
    ordered = sorted(rows, key=lambda r: (bool(r[1]), r[2], r[0]))
    return next((i for i, r in enumerate(ordered, 1) if r[0] == game_id), len(ordered) + 1)


def analysed_accuracy(*, session: Session, user_id: int) -> dict[str, tuple[float, int]]:
    """Return a player's average accuracy (percent) over its analysed games, and their count, per variant
    (the four-player game's under ``partnership``)."""
    mine = case((Game.player0_id == user_id, Analysis.accuracy0), (Game.player1_id == user_id, Analysis.accuracy1),
                (Game.player2_id == user_id, Analysis.accuracy2), else_=Analysis.accuracy3)
    rows = session.execute(
        select(Game.variant, func.avg(mine), func.count(mine)).join(Analysis, Analysis.game_id == Game.id)
        .where(or_(Game.player0_id == user_id, Game.player1_id == user_id, Game.player2_id == user_id,
                   Game.player3_id == user_id), Analysis.status == "done")
        .group_by(Game.variant)).all()
    return {variant: (round(float(avg), 1), n) for variant, avg, n in rows if n}
