"""Public statistics and replays: leaderboard, player profiles, finished games move by move, matches.

A game in progress is never exposed; a finished game (and its match's page) is public unless it was played at a
private table (``server.store.access``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Query
from fastapi.responses import PlainTextResponse
from sqlalchemy import or_, select

from server.api.deps import DB, CurrentUser
from server.api.partnership_replay import partnership_record
from server.game.records import aborted
from server.protocol import MAX_DB_INT
from server.store import repos
from server.store.access import is_public, may_see
from server.store.analyses import analysed_accuracy
from server.store.models import Analysis, Game, MatchRow, Move, PuzzleRating, User, UserTotals
from server.store.rankings import RankOrder, ranking
from server.store.ratings import provisional
from tressette import Deal, Variant, VariantName, card_name, deal_score, trick_to_dict

router = APIRouter(prefix="/api", tags=["stats"])
GameId = Annotated[int, Path(ge=1, le=MAX_DB_INT, description="a game's id (ids beyond the column's range: 422)")]
MatchId = Annotated[int, Path(ge=1, le=MAX_DB_INT, description="a match's id (ids beyond the column's range: 422)")]


@router.get("/leaderboard")
def leaderboard(session: DB, variant: VariantName | Literal["partnership"] = "tressette", min_games: Annotated[int, Query(ge=0, le=MAX_DB_INT)] = 1,
                order: RankOrder = "rating", limit: Annotated[int, Query(ge=1, le=500)] = 100) -> dict[str, Any]:
    """Rank the players of ``variant`` with ``min_games`` or more by rating (default), win share or games.

    ``partnership``: the four-player game's separate ratings (docs/protocol-four.md).
    """
    return {"variant": variant, "order": order,
            "players": ranking(session, variant=variant, min_games=min_games, order=order, limit=limit)}


@router.get("/players/{username}")
def profile(username: Annotated[str, Path(max_length=64)], session: DB) -> dict[str, Any]:
    """Return a player's per-variant totals, recent finished games and puzzle rating (None before a first try)."""
    user = session.scalar(select(User).where(User.username == username))
    if user is None:
        raise HTTPException(404, f"no player {username!r}")
    totals = {t.variant: {"games": t.games, "wins": t.wins, "points": t.points,
                          "win_share": round(t.wins / t.games, 4) if t.games else 0.0,
                          "rating": round(t.rating, 1), "rd": round(t.rating_rd, 1),
                          "provisional": provisional(t.rating_rd)}
              for t in session.scalars(select(UserTotals).where(UserTotals.user_id == user.id))}
    for variant, (accuracy, analysed) in analysed_accuracy(session=session, user_id=user.id).items():
        if variant in totals:  # the average accuracy of its analysed games (docs/admin.md)
            totals[variant].update(accuracy=accuracy, analysed=analysed)
    seats = (Game.player0_id, Game.player1_id, Game.player2_id, Game.player3_id)
    games = session.scalars(select(Game).where(or_(*(seat == user.id for seat in seats)), Game.status == "finished")
                            .order_by(Game.id.desc()).limit(20))
    recent = []
    for g in games:
        if g.n_players == 4:
            recent.append(_recent_four(g, user.id, session))
            continue
        seat = 0 if g.player0_id == user.id else 1
        opponent = session.get(User, g.player1_id if seat == 0 else g.player0_id)
        recent.append({"id": g.id, "variant": g.variant, "opponent": opponent.username if opponent else None,
                       "points": [g.points0, g.points1][seat], "opponent_points": [g.points0, g.points1][1 - seat],
                       "won": g.winner_seat == seat, "reason": g.end_reason, "match_id": g.match_id,
                       "rated": not aborted(g.end_reason, g.moves_at_end), "public": is_public(g),
                       "ended_at": g.ended_at.isoformat() if g.ended_at else None})
    solver = session.get(PuzzleRating, user.id)
    puzzles = ({"rating": round(solver.rating, 1), "rd": round(solver.rating_rd, 1),
                "provisional": provisional(solver.rating_rd), "attempts": solver.attempts,
                "solved": solver.solved} if solver is not None and solver.attempts else None)
    return {"username": user.username, "role": user.role, "totals": totals, "recent_games": recent,
            "puzzles": puzzles}


def _recent_four(g: Game, user_id: int, session: DB) -> dict[str, Any]:
    """Return a four-player deal as the profile's recent games list it, seen from ``user_id``'s partnership.

    ``score``/``opponent_score``: whole points with declarations (not thirds as a two-player game's ``points``);
    ``won`` and ``draw`` (a single deal may end level).
    """
    ids = [g.player0_id, g.player1_id, g.player2_id, g.player3_id]
    seat = ids.index(user_id)  # the first seat if one account held several (a bot)
    side = seat % 2

    def name(uid: int | None) -> str | None:
        user = session.get(User, uid) if uid is not None else None
        return user.username if user else None

    finished = g.end_reason == "finished"
    score = [(g.points0 or 0) + (g.declared0 or 0), (g.points1 or 0) + (g.declared1 or 0)]
    return {"id": g.id, "game": "partnership", "variant": g.variant, "seat": seat,
            "partner": name(ids[(seat + 2) % 4]), "opponents": [name(ids[(seat + 1) % 4]), name(ids[(seat + 3) % 4])],
            "score": score[side], "opponent_score": score[1 - side],
            "won": g.winner_seat == side, "draw": finished and g.winner_seat is None, "reason": g.end_reason,
            "match_id": g.match_id, "rated": not g.unrated, "public": is_public(g),
            "ended_at": g.ended_at.isoformat() if g.ended_at else None}


def _game_for(game_id: int, session: DB, user: User) -> Game:
    game = session.get(Game, game_id)
    if game is None or game.status != "finished":
        raise HTTPException(404, "no finished game with that id")  # games in progress are never exposed
    if not may_see(user, game):
        raise HTTPException(403, "a private table's games are for its players and admins")
    return game


def replay_record(game: Game, moves: list[Move], names: tuple[str, str]) -> dict[str, Any]:
    """Return a finished game's full record: deal, every card with the mover's hand, tricks and draws."""
    deal = Deal.from_deck(game.deck, Variant(game.variant), game.first_leader)
    records = []
    for m in moves:
        records.append({"move": m.move_number, "trick": m.trick_number, "seat": m.seat, "card": card_name(m.card),
                        "hand": [card_name(c) for c in sorted(deal.hands[m.seat])],
                        "opponent_hand": [card_name(c) for c in sorted(deal.hands[1 - m.seat])],
                        "table": [card_name(c) for c in deal.table], "points": list(deal.points)})
        deal.play(m.card, m.seat)
    return {
        "id": game.id, "variant": game.variant, "players": list(names), "first_leader": game.first_leader,
        "deck": [card_name(c) for c in game.deck],
        "hands": [[card_name(c) for c in game.deck[:10]], [card_name(c) for c in game.deck[10:20]]],
        "moves": records, "tricks": [trick_to_dict(t) for t in deal.history],
        "points": [game.points0, game.points1], "winner": game.winner_seat, "reason": game.end_reason,
        "rated": not aborted(game.end_reason, game.moves_at_end),
        "match": ({"id": game.match_id, "deal": game.match_deal, "before": [game.match_before0, game.match_before1]}
                  if game.match_id is not None else None),
    }


def _load(game_id: int, session: DB, user: User) -> dict[str, Any]:
    game = _game_for(game_id, session, user)
    moves = list(session.scalars(select(Move).where(Move.game_id == game.id).order_by(Move.move_number)))
    if game.n_players == 4:
        ids = (game.player0_id, game.player1_id, game.player2_id, game.player3_id)
        return partnership_record(game, moves, [u.username if (u := session.get(User, uid)) else "?" for uid in ids])
    names = tuple((session.get(User, uid).username if session.get(User, uid) else "?")  # type: ignore[union-attr]
                  for uid in (game.player0_id, game.player1_id))
    return replay_record(game, moves, (names[0], names[1]))


@router.get("/games/{game_id}/replay")
def replay(game_id: GameId, session: DB, user: CurrentUser) -> dict[str, Any]:
    """Return a finished game move by move (JSON)."""
    return _load(game_id, session, user)


@router.get("/matches/{match_id}")
def match_page(match_id: MatchId, session: DB, user: CurrentUser) -> dict[str, Any]:
    """Return a match and its finished deals (each with its replay's game id): public unless at a private table."""
    match = session.get(MatchRow, match_id)
    if match is None:
        raise HTTPException(404, "no match with that id")
    if not may_see(user, match):
        raise HTTPException(403, "a private table's match is for its players and admins")
    ids = (match.player0_id, match.player1_id, match.player2_id, match.player3_id)[:match.n_players or 2]
    names = [u.username if (u := session.get(User, uid)) else "?" for uid in ids]
    games = session.execute(select(Game, Analysis.status).outerjoin(Analysis, Analysis.game_id == Game.id)
                            .where(Game.match_id == match.id, Game.status == "finished").order_by(Game.match_deal))
    deals = [{"game_id": g.id, "deal": g.match_deal, "before": [g.match_before0, g.match_before1],
              "points": [g.points0, g.points1], "whole": _whole(g),
              "winner": g.winner_seat, "reason": g.end_reason, "analysis": status} for g, status in games]
    return {"id": match.id, "variant": match.variant, "target": match.target, "players": names,
            "status": match.status, "scores": [match.score0, match.score1], "winner": match.winner_seat,
            "reason": match.end_reason, "rated": not repos.match_aborted(session=session, match_id=match.id),
            "started_at": match.started_at.isoformat(),
            "ended_at": match.ended_at.isoformat() if match.ended_at else None, "deals": deals}


@router.get("/games/{game_id}/record.txt", response_class=PlainTextResponse)
def record_text(game_id: GameId, session: DB, user: CurrentUser) -> str:
    """Return a compact text record of a finished game, to paste into a bug report."""
    r = _load(game_id, session, user)
    if r.get("game") == "partnership":
        return _four_text(r)
    lines = [f"treset game {r['id']} · {r['variant']} · {r['players'][0]} vs {r['players'][1]} · "
             f"first lead seat {r['first_leader']}", "deck: " + ", ".join(r["deck"])]
    for i, t in enumerate(r["tricks"], 1):
        draws = "; ".join(f"{s} drew {c}" for s, c in t["draws"])
        lines.append(f"{i:2}. seat {t['leader']} led {t['cards'][0]}, {t['cards'][1]} -> seat {t['winner']}"
                     + (f" ({draws})" if draws else ""))
    lines.append(f"result: {r['points'][0]}-{r['points'][1]}, winner seat {r['winner']} ({r['reason']})")
    return "\n".join(lines) + "\n"


def _four_text(r: dict[str, Any]) -> str:
    """Return a four-player deal's text record (see :func:`record_text`)."""
    lines = [f"treset game {r['id']} · partnership · {r['players'][0]} & {r['players'][2]} vs "
             f"{r['players'][1]} & {r['players'][3]} · first lead seat {r['first_leader']}",
             "deck: " + ", ".join(r["deck"])]
    for i, t in enumerate(r["tricks"], 1):
        signal = f" ({t['signal']})" if t["signal"] else ""
        lines.append(f"{i:2}. seat {t['leader']} led{signal} " + ", ".join(t["cards"]) + f" -> seat {t['winner']}")
    lines.append(f"result: {r['score'][0]}-{r['score'][1]} (declared {r['declared'][0]}-{r['declared'][1]}), "
                 f"winner partnership {r['winner']} ({r['reason']})")
    return "\n".join(lines) + "\n"


def _whole(g: Game) -> list[int]:
    """Return a match deal's whole points per side: two-player thirds rounded, a four-player deal's scores."""
    if g.end_reason != "finished":
        return [0, 0]
    if g.n_players == 4:  # whole card points already, plus what was declared
        return [(g.points0 or 0) + (g.declared0 or 0), (g.points1 or 0) + (g.declared1 or 0)]
    return list(deal_score((g.points0 or 0, g.points1 or 0)))
