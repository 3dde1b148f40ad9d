"""Seed a database with generated games, to measure the admins' queries on millions of moves.

Games are played by the rules package between generated players of varied skill (a skill
is the chance to play a sensible card instead of a random legal one), logged with the same
move fields as live games (``server.store.movelog``), and rated with the same Glicko-2 update.
Rows go in by COPY on PostgreSQL (executemany on SQLite) in batches, so a million moves
take about a minute.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, func, insert, select, text
from sqlalchemy.orm import Session

from server.store import repos
from server.store.models import Game, Move, UserTotals
from server.store.movelog import move_fields
from tressette import POINTS, STRENGTH, Card, Deal, Variant, suit_of

MOVES_PER_GAME = 40
GAME_COLUMNS = ("id", "table_id", "deal_number", "variant", "opponent", "player0_id", "player1_id", "bot_level",
                "first_leader", "deck", "status", "started_at", "ended_at", "points0", "points1", "winner_seat",
                "end_reason")
MOVE_COLUMNS = ("game_id", "user_id", "move_number", "variant", "seat", "trick_number", "n_players", "hand",
                "opponent_known", "table_cards", "won_self", "won_opponent", "card", "first_card", "score",
                "created_at")
_JSON_COLUMNS = frozenset({"deck", "hand", "opponent_known", "table_cards", "won_self", "won_opponent"})


def sensible_card(deal: Deal, legal: list[Card]) -> Card:
    """Return a one-ply sensible card: take a trick worth taking, else give away as little as possible.

    In Kifameno the aim is reversed (avoid taking points). A seeding policy, not the bot.
    """
    take = deal.variant is Variant.TRESSETTE
    if deal.table:
        led = deal.table[0]
        winners = [c for c in legal if suit_of(c) == suit_of(led) and STRENGTH[c] > STRENGTH[led]]
        stake = POINTS[led]
        if take and winners and stake + max(POINTS[c] for c in winners) > 0:
            return max(winners, key=lambda c: (POINTS[c], -STRENGTH[c]))
        losers = [c for c in legal if c not in winners] or legal
        if take:
            return min(losers, key=lambda c: (POINTS[c], STRENGTH[c]))
        return max(losers, key=lambda c: (POINTS[c], STRENGTH[c]))  # unload points on the opponent's trick
    return min(legal, key=lambda c: (POINTS[c], STRENGTH[c]) if take else (STRENGTH[c], POINTS[c]))


@dataclass(slots=True)
class SeedPlayer:
    """A generated player: account id, skill, and running totals and rating per variant."""

    user_id: int
    skill: float
    totals: dict[str, UserTotals]


def _players(session: Session, count: int, rng: random.Random) -> list[SeedPlayer]:
    players = []
    for i in range(count):
        user = repos.ensure_user(session=session, username=f"seed-{i + 1:04d}", role="player")
        totals = {v.value: repos.totals_row(session=session, user_id=user.id, variant=v.value) for v in Variant}
        players.append(SeedPlayer(user.id, skill=rng.random(), totals=totals))
    session.flush()
    return players


def _play(deal: Deal, skills: tuple[float, float], rng: random.Random) -> Iterator[tuple[dict[str, Any], int]]:
    """Play ``deal`` out, yielding each move's fields (before the card) and the move number (from 0, as live)."""
    number = 0
    while not deal.is_over:
        seat = deal.to_move
        legal = deal.legal_moves()
        card = sensible_card(deal, legal) if rng.random() < skills[seat] else rng.choice(legal)
        yield move_fields(deal, seat, card), number
        deal.play(card, seat)
        number += 1


def generate(session: Session, *, moves: int, players: int = 200, seed: int = 1, days: int = 90,
             batch_games: int = 500, progress: Callable[[int], None] | None = None) -> dict[str, int]:
    """Generate and insert at least ``moves`` moves (whole games); return the counts inserted.

    Players are drawn with a heavy tail (a few play most games, as on a real portal).
    ``progress`` is called with the number of moves added after each batch.
    """
    rng = random.Random(seed)
    roster = _players(session, players, rng)
    weights = [1.0 / (i + 1) for i in range(players)]
    engine = session.get_bind()
    assert isinstance(engine, Engine)
    first_id = (session.scalar(select(func.max(Game.id))) or 0) + 1
    n_games = -(-moves // MOVES_PER_GAME)
    start = datetime.now(UTC) - timedelta(days=days)
    step = timedelta(days=days) / max(1, n_games)
    games: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    made = 0
    for i in range(n_games):
        a, b = rng.choices(roster, weights, k=2)
        while b is a:
            b = rng.choice(roster)
        variant = Variant.TRESSETTE if rng.random() < 0.6 else Variant.KIFAMENO
        deck = list(range(40))
        rng.shuffle(deck)
        first = rng.randrange(2)
        deal = Deal.from_deck(deck, variant, first)
        began = start + step * i
        game_id = first_id + i
        for fields, number in _play(deal, (a.skill, b.skill), rng):
            rows.append({**fields, "game_id": game_id, "user_id": (a, b)[fields["seat"]].user_id,
                         "move_number": number, "variant": variant.value,
                         "created_at": began + timedelta(seconds=4 * (number + 1))})
        outcome = deal.outcome()
        games.append({"id": game_id, "table_id": f"seed{game_id:x}"[:16], "deal_number": 1, "variant": variant.value,
                      "opponent": "anyone", "player0_id": a.user_id, "player1_id": b.user_id, "bot_level": None,
                      "first_leader": first, "deck": deck, "status": "finished", "started_at": began,
                      "ended_at": began + timedelta(seconds=4 * MOVES_PER_GAME + 2),
                      "points0": outcome.points[0], "points1": outcome.points[1], "winner_seat": outcome.winner,
                      "end_reason": "finished"})
        repos.add_result(a.totals[variant.value], b.totals[variant.value], points=outcome.points,
                         winner=outcome.winner)
        if len(games) >= batch_games or i == n_games - 1:
            _insert(engine, session, games, rows)
            made += len(rows)
            if progress:
                progress(len(rows))
            games, rows = [], []
    if engine.dialect.name == "postgresql":  # ids were given explicitly: move the sequence past them
        session.execute(text("SELECT setval(pg_get_serial_sequence('games', 'id'), (SELECT max(id) FROM games))"))
    session.commit()
    if engine.dialect.name == "postgresql":
        # Fresh statistics: until autovacuum gets to the new rows the planner takes the tables for nearly
        # empty and joins the export's per-player rows by nested loops (8x slower on 200,000 moves).
        with engine.begin() as conn:  # committed: statistics written in a rolled-back transaction are lost
            conn.execute(text("ANALYZE games, moves, users, user_totals"))
    return {"games": n_games, "moves": made, "players": players}


def _insert(engine: Engine, session: Session, games: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    """Insert a batch in the session's transaction (COPY on PostgreSQL)."""
    if engine.dialect.name != "postgresql":
        session.execute(insert(Game), games)
        session.execute(insert(Move), rows)
        return
    raw = session.connection().connection.driver_connection
    assert raw is not None
    with raw.cursor() as cur:
        for table, columns, batch in (("games", GAME_COLUMNS, games), ("moves", MOVE_COLUMNS, rows)):
            with cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in batch:
                    copy.write_row([json.dumps(row[c]) if c in _JSON_COLUMNS else row[c] for c in columns])
