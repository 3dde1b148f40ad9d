"""Storing the puzzle finder's results: checked against the game, one puzzle per position, and the scans.

The finder lives in the agent (it needs the solver); the server stores what it is sent,
from an analysis (``server.game.analysis``) or from ``treset admin puzzles``.  Each puzzle
is checked with the rules package before it is stored: its position must be the game's
position before ``move_number`` (last ten tricks, ``seat`` to move) and its line, accepted
cards and refutations must be playable there.  A puzzle that fails is logged and skipped;
the others are stored.  The finder's exactness (which cards win) is its own, tested side.

A position already stored is not stored again (``position_key`` is unique); when the new
instance is one real players got wrong or that followed the opponent's mistake and the
stored one is neither and was never tried, the stored row takes the new game as its source.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from server.store.models import Game, Move, Puzzle, PuzzleScan
from tressette import Card, CardError, Deal, IllegalMoveError, Variant, card_name, parse_cards

log = logging.getLogger("treset.puzzles")

THEMES = frozenset(("take_ace", "give_lead", "last_trick", "low_follow", "dump_points", "one_move", "long"))
"""The theme keys (docs/protocol.md, "Puzzles")."""
BASE_RATING = 1200.0
STEP_RATING = 150.0
CARD_RATING = 30.0
MISSED_RATING = 150.0
AFTER_MISTAKE_RATING = 50.0
START_RD = 250.0
RATING_RANGE = (800.0, 2400.0)
_KEY = re.compile(r"[0-9a-f]{64}")


class PuzzleError(ValueError):
    """A puzzle the finder sent that does not fit its game (or is malformed)."""


def estimated_rating(depth: int, legal: int, missed: bool, after_mistake: bool) -> tuple[float, float]:
    """Return a new puzzle's starting Glicko-2 rating and deviation, from its features.

    A one-move puzzle with two legal cards is nearly a coin toss: ``BASE_RATING`` (1200).
    Each further move the player must find adds ``STEP_RATING`` (150), each legal card beyond
    two ``CARD_RATING`` (30: more to choose from); a real player who missed it adds
    ``MISSED_RATING`` (150: evidence it is hard), a win just handed over by the opponent's
    mistake ``AFTER_MISTAKE_RATING`` (50: players seldom look for one).  Clamped to 800..2400.
    The deviation is ``START_RD`` (250, below Glicko-2's 350 for a newcomer: an estimate is
    worth something); attempts then move both.

    >>> estimated_rating(1, 2, False, False)
    (1200.0, 250.0)
    >>> estimated_rating(3, 6, True, False)
    (1770.0, 250.0)
    """
    rating = (BASE_RATING + STEP_RATING * (max(depth, 1) - 1) + CARD_RATING * max(legal - 2, 0)
              + (MISSED_RATING if missed else 0.0) + (AFTER_MISTAKE_RATING if after_mistake else 0.0))
    return min(max(rating, RATING_RANGE[0]), RATING_RANGE[1]), START_RD


def _cards(raw: Any, what: str) -> list[Card]:
    try:
        return parse_cards(raw)
    except CardError as exc:
        raise PuzzleError(f"{what}: {exc}") from None


def _play_line(deal: Deal, line: list[Card], what: str) -> Deal:
    """Return a copy of ``deal`` with ``line`` played (every card checked)."""
    deal = deal.copy()
    for card in line:
        try:
            deal.play(card)
        except IllegalMoveError as exc:
            raise PuzzleError(f"{what}: {card_name(card)}: {exc}") from None
    return deal


def _check_data(data: Any, at: Deal) -> None:
    """Check the puzzle's ``data`` against the deal at its position (``at``: the player to move)."""
    if not isinstance(data, dict):
        raise PuzzleError("data is not an object")
    seat = at.to_move
    if (_cards(data.get("hand"), "hand") != sorted(at.hands[seat])
            or _cards(data.get("opponent_hand"), "opponent_hand") != sorted(at.hands[1 - seat])
            or _cards(data.get("inplay"), "inplay") != at.table
            or data.get("points") != at.points[seat] or data.get("opponent_points") != at.points[1 - seat]
            or data.get("variant") != at.variant.value):
        raise PuzzleError("data is not the game's position")
    solution = _cards(data.get("solution"), "solution")
    accepted = data.get("accepted")
    refutations = data.get("refutations")
    if not solution or not isinstance(accepted, list) or not isinstance(refutations, list) \
            or len(refutations) != len(accepted):
        raise PuzzleError("solution, accepted and refutations do not fit together")
    deal = at.copy()
    step = 0
    for card in solution:
        if deal.to_move == seat:
            if step >= len(accepted) or not isinstance(refutations[step], dict):
                raise PuzzleError("more player moves in the solution than accepted steps")
            right = set(_cards(accepted[step], f"accepted[{step}]"))
            legal = set(deal.legal_moves())
            wrong = set(_cards(list(refutations[step]), "refutations"))
            if card not in right or not right <= legal or right | wrong != legal or right & wrong:
                raise PuzzleError(f"step {step}: accepted and refuted cards are not the legal cards")
            for name, line in refutations[step].items():
                cards = _cards(line, f"refutation of {name}")
                if not cards or card_name(cards[0]) != name or not _play_line(deal, cards, "refutation").is_over:
                    raise PuzzleError(f"step {step}: the refutation of {name} is not a line to the end")
            step += 1
        deal = _play_line(deal, [card], "solution")
    if step != len(accepted) or solution and _last_mover(at, solution) != seat:
        raise PuzzleError("the solution does not end with the player's last accepted move")


def _last_mover(at: Deal, line: list[Card]) -> int:
    deal = at.copy()
    for card in line[:-1]:
        deal.play(card)
    return deal.to_move


def checked_row(item: Any, game: Game, cards: Sequence[Card]) -> dict[str, Any]:
    """Return the ``puzzles`` columns for one puzzle the finder sent for ``game`` (its ``cards`` in order).

    Raises:
        PuzzleError: malformed, or not a position and line of this game.
    """
    if not isinstance(item, dict):
        raise PuzzleError("a puzzle is not an object")
    key, move, seat = item.get("position_key"), item.get("move_number"), item.get("seat")
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise PuzzleError("position_key is not a sha256 hex digest")
    if not isinstance(move, int) or isinstance(move, bool) or not 0 <= move < len(cards):
        raise PuzzleError(f"move_number {move!r} is not a move of the game")
    themes = item.get("themes")
    if not isinstance(themes, list) or not set(themes) <= THEMES or len(set(themes)) != len(themes):
        raise PuzzleError(f"unknown themes: {themes!r}")
    flags = [item.get(k) for k in ("missed", "after_mistake")]
    depth, legal = item.get("depth"), item.get("legal")
    if not all(isinstance(f, bool) for f in flags) or not isinstance(depth, int) or not isinstance(legal, int):
        raise PuzzleError("depth, legal, missed or after_mistake malformed")
    try:
        at = _play_line(Deal.from_deck(list(game.deck), Variant(game.variant), game.first_leader),
                        list(cards[:move]), "the game")
    except PuzzleError:
        raise PuzzleError("the game's moves do not replay") from None
    if at.stock or at.to_move != seat or item.get("variant") != game.variant:
        raise PuzzleError(f"move {move} is not seat {seat!r}'s move in the last ten tricks")
    _check_data(item.get("data"), at)
    if depth != len(item["data"]["accepted"]) or legal != len(at.legal_moves()):
        raise PuzzleError("depth or legal do not match the data")
    rating, rd = estimated_rating(depth, legal, bool(flags[0]), bool(flags[1]))
    return {"position_key": key, "variant": game.variant, "game_id": game.id, "move_number": move, "seat": seat,
            "data": item["data"], "themes": themes, "depth": depth, "legal": legal, "missed": flags[0],
            "after_mistake": flags[1], "rating": rating, "rating_rd": rd}


def store_puzzles(*, session: Session, game: Game, moves: Sequence[Move], puzzles: Any) -> tuple[int, int]:
    """Store the finder's ``puzzles`` for ``game`` (its ``moves`` in order); return (new, skipped as bad).

    Bad puzzles are logged and skipped; a position already stored is not stored twice (see the
    module). Flushes, does not commit.
    """
    if not isinstance(puzzles, list):
        log.warning("game %s: the puzzle list is not a list: skipped", game.id)
        return 0, 0
    cards = [m.card for m in moves]
    new = bad = 0
    for item in puzzles:
        try:
            row = checked_row(item, game, cards)
        except PuzzleError as exc:
            log.warning("game %s: a puzzle skipped: %s", game.id, exc)
            bad += 1
            continue
        old = session.scalar(select(Puzzle).where(Puzzle.position_key == row["position_key"]))
        if old is not None:
            if (row["missed"] or row["after_mistake"]) and not (old.missed or old.after_mistake) \
                    and old.attempts == 0:
                for column in ("game_id", "move_number", "seat", "missed", "after_mistake", "rating", "rating_rd"):
                    setattr(old, column, row[column])
            continue
        insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
        # Another writer may store the position meanwhile: one puzzle per position, the first stays.
        done = session.execute(insert(Puzzle).values(**row).on_conflict_do_nothing(index_elements=["position_key"]))
        if not getattr(done, "rowcount", 1):
            continue
        new += 1
    session.flush()
    return new, bad


def mark_scanned(*, session: Session, game_id: int, version: str, found: int) -> None:
    """Note that ``game_id`` was searched for puzzles by finder ``version`` (``found`` puzzles). Does not commit."""
    row = session.get(PuzzleScan, game_id)
    if row is None:
        session.add(PuzzleScan(game_id=game_id, version=version[:32], found=found))
    else:
        row.version, row.found = version[:32], found
    session.flush()


def games_to_scan(*, session: Session, version: str, variant: str | None = None, limit: int | None = None,
                  rescan: bool = False, after: int = 0) -> list[int]:
    """Return the ids (ascending, above ``after``) of finished games not yet scanned by finder ``version``.

    ``rescan``: every finished game, scanned or not.
    """
    query = select(Game.id).where(Game.status == "finished", Game.id > after, Game.n_players == 2)
    if not rescan:
        query = query.outerjoin(PuzzleScan, PuzzleScan.game_id == Game.id).where(
            or_(PuzzleScan.game_id.is_(None), and_(PuzzleScan.version != version)))
    if variant is not None:
        query = query.where(Game.variant == variant)
    return list(session.scalars(query.order_by(Game.id).limit(limit)))


def store_from_analysis(*, session: Session, game_id: int, result: dict[str, Any], moves: Sequence[Move]) -> None:
    """Store the puzzles an analysis carries (``result["puzzles"]``) and mark the game scanned.

    An analysis without the field (an older agent) stores none and marks nothing; a malformed
    list or puzzle is logged and skipped, never failing the analysis. Does not commit.
    """
    puzzles = result.get("puzzles")
    version = result.get("puzzle_finder")
    if puzzles is None:
        return
    if not isinstance(puzzles, list):
        log.warning("game %s: the analysis's puzzles are not a list: skipped", game_id)
        return
    game = session.get(Game, game_id)
    if game is None:
        return
    try:
        new, bad = store_puzzles(session=session, game=game, moves=moves, puzzles=puzzles)
    except (PuzzleError, KeyError, TypeError, ValueError) as exc:  # malformed beyond the checks: keep the analysis
        log.warning("game %s: the analysis's puzzles were skipped: %s", game_id, exc)
        return
    if game.status == "finished" and isinstance(version, str) and version:
        mark_scanned(session=session, game_id=game_id, version=version, found=len(puzzles) - bad)
    log.info("game %s: %d puzzle(s) from its analysis, %d new, %d skipped", game_id, len(puzzles), new, bad)
