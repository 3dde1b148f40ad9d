"""The export of four-player moves: what an analyst needs of each card of a partnership deal (docs/admin.md).

``GET /api/admin/moves/export?variant=partnership`` and ``treset admin export --variant partnership``
write these columns (the two-player export keeps its own, two-player moves only). Finished deals only.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC
from typing import Any

from sqlalchemy import case, select
from sqlalchemy.orm import Session, aliased

from server.store.admin_queries import ExportFilters, day_end, day_start, mover_filters
from server.store.models import Game, Move, MoveAnalysis, User, UserTotals
from tressette import CARD_NAMES

PARTNERSHIP_EXPORT_COLUMNS = (
    "game_id", "move_number", "trick_number", "variant", "username", "seat", "partnership", "partner",
    "hand", "table_cards", "won_partnership", "won_opponents", "card", "first_card", "partnership_points",
    "declarations", "declared_points", "signal", "created_at", "deal_number", "first_leader",
    "option_declarations", "option_signals", "end_reason", "rated", "final_score", "final_opponent_score",
    "partnership_won", "match_id", "match_deal", "match_score", "match_opponent_score", "rating",
    "loss", "label", "best_card")
"""docs/admin.md, "Four-player export columns", describes each. The last three come from the deal's
double-dummy analysis (empty when it has none), as in the two-player export."""
PARTNERSHIP_CARD_LISTS = frozenset({"hand", "table_cards", "won_partnership", "won_opponents"})


def _player_of(seat: Any) -> Any:
    return case((seat == 0, Game.player0_id), (seat == 1, Game.player1_id), (seat == 2, Game.player2_id),
                else_=Game.player3_id)


def partnership_export_rows(session: Session, f: ExportFilters, *, batch: int = 2000) -> Iterator[dict[str, Any]]:
    """Yield the four-player moves of finished deals matching ``f`` (game and move order), cards by name."""
    partner, mine = aliased(User), aliased(UserTotals)
    stmt = (select(Move, Game, User.username, partner.username, mine.rating, MoveAnalysis)
            .join(Game, Game.id == Move.game_id).join(User, User.id == Move.user_id)
            .join(partner, partner.id == _player_of((Move.seat + 2) % 4))
            .outerjoin(mine, (mine.user_id == Move.user_id) & (mine.variant == "partnership"))
            .outerjoin(MoveAnalysis, (MoveAnalysis.game_id == Move.game_id)
                       & (MoveAnalysis.move_number == Move.move_number))
            .where(Game.status == "finished", Game.n_players == 4)
            .order_by(Move.game_id, Move.move_number))
    if f.date_from:
        stmt = stmt.where(Move.created_at >= day_start(f.date_from))
    if f.date_to:
        stmt = stmt.where(Move.created_at < day_end(f.date_to))
    stmt = mover_filters(stmt, f, mine)
    for m, g, username, partner_name, rating, a in session.execute(stmt.execution_options(yield_per=batch)):
        side = m.seat % 2
        final = [(g.points0 or 0) + (g.declared0 or 0), (g.points1 or 0) + (g.declared1 or 0)]
        before = [g.match_before0, g.match_before1]
        created = m.created_at if m.created_at.tzinfo else m.created_at.replace(tzinfo=UTC)
        yield {
            "game_id": m.game_id, "move_number": m.move_number, "trick_number": m.trick_number,
            "variant": m.variant, "username": username, "seat": m.seat, "partnership": side,
            "partner": partner_name, "hand": [CARD_NAMES[c] for c in m.hand],
            "table_cards": [CARD_NAMES[c] for c in m.table_cards],
            "won_partnership": [CARD_NAMES[c] for c in m.won_self],
            "won_opponents": [CARD_NAMES[c] for c in m.won_opponent],
            "card": CARD_NAMES[m.card], "first_card": None if m.first_card is None else CARD_NAMES[m.first_card],
            "partnership_points": m.score,
            "declarations": ",".join(_label(d) for d in m.declarations or ()),
            "declared_points": sum(int(d.get("points", 0)) for d in m.declarations or ()),
            "signal": m.signal, "created_at": created.isoformat(), "deal_number": g.deal_number,
            "first_leader": g.first_leader, "option_declarations": bool((g.options or {}).get("declarations")),
            "option_signals": bool((g.options or {}).get("signals")), "end_reason": g.end_reason,
            "rated": not g.unrated, "final_score": final[side], "final_opponent_score": final[1 - side],
            "partnership_won": g.winner_seat == side, "match_id": g.match_id, "match_deal": g.match_deal,
            "match_score": before[side], "match_opponent_score": before[1 - side], "rating": rating,
            "loss": None if a is None else a.loss, "label": None if a is None else a.label,
            "best_card": None if a is None else CARD_NAMES[a.best_card],
        }


def _label(d: dict[str, Any]) -> str:
    """Return a declaration as one word a spreadsheet keeps: ``napoletana-B``, ``three-AS-noD``, ``four-3``."""
    if d.get("kind") == "napoletana":
        return f"napoletana-{d.get('suit')}"
    if d.get("kind") == "three":
        return f"three-{d.get('rank')}-no{d.get('missing')}"
    return f"four-{d.get('rank')}"
