"""Fill a portal database with games between two lab players, logged as the server logs moves.

    python lab/scripts/log-games.py --database-url URL --bot mcts:i2000 --person greedy --games 600

The bot side plays as a bot account (``bot-lab``, role ``bot``), the other as a player account
named after it, so ``treset-agent fit-policy --people-only`` reads only the other side's plays.
Deals alternate the seats and the variants; the moves' fields come from the server's own move
log (:func:`server.store.movelog.move_fields`) and go in through the seeder's batch insert, so
the rows are those a live server writes.
"""

from __future__ import annotations

import argparse
import random
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, func, select, text
from tqdm import tqdm

from lab.baselines import get_policy
from server.store import repos
from server.store.db import session_factory, upgrade
from server.store.models import Game
from server.store.movelog import move_fields
from server.tools.seed import _insert
from tressette import Deal, Variant, state_from_view, view_of


def main(argv: list[str]) -> int:
    """Play and log the games."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--bot", default="mcts:i2000", help="the bot side (an arena player name)")
    parser.add_argument("--person", default="greedy", help="the other side, logged as a player account")
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    upgrade(args.database_url)
    rng = random.Random(args.seed)
    players = {"bot": get_policy(args.bot), "person": get_policy(args.person)}
    with session_factory(args.database_url)() as session:
        bot = repos.ensure_user(session=session, username="bot-lab", role="bot")
        person = repos.ensure_user(session=session, username=f"lab-{args.person}"[:32].replace(":", "-"),
                                   role="player")
        totals = {(u.id, v.value): repos.totals_row(session=session, user_id=u.id, variant=v.value)
                  for u in (bot, person) for v in Variant}
        session.flush()
        engine = session.get_bind()
        assert isinstance(engine, Engine)
        first_id = (session.scalar(select(func.max(Game.id))) or 0) + 1
        start = datetime.now(UTC) - timedelta(days=1)
        games: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        for i in tqdm(range(args.games), desc="games", unit="game", file=sys.stderr):
            variant = Variant.TRESSETTE if i % 4 < 2 else Variant.KIFAMENO
            seats = (bot, person) if i % 2 == 0 else (person, bot)
            deck = list(range(40))
            rng.shuffle(deck)
            first = rng.randrange(2)
            deal = Deal.from_deck(deck, variant, first)
            game_id = first_id + i
            began = start + timedelta(seconds=200 * i)
            number = 0
            while not deal.is_over:
                seat = deal.to_move
                side = "bot" if seats[seat] is bot else "person"
                card = players[side](state_from_view(view_of(deal, seat)), rng)
                rows.append({**move_fields(deal, seat, card), "game_id": game_id, "user_id": seats[seat].id,
                             "move_number": number, "variant": variant.value,
                             "created_at": began + timedelta(seconds=4 * (number + 1))})
                deal.play(card, seat)
                number += 1
            outcome = deal.outcome()
            games.append({"id": game_id, "table_id": f"lab{game_id:x}"[:16], "deal_number": 1,
                          "variant": variant.value, "opponent": "bot", "player0_id": seats[0].id,
                          "player1_id": seats[1].id, "bot_level": args.bot[:16], "first_leader": first, "deck": deck,
                          "status": "finished", "started_at": began, "ended_at": began + timedelta(seconds=170),
                          "points0": outcome.points[0], "points1": outcome.points[1],
                          "winner_seat": outcome.winner, "end_reason": "finished"})
            repos.add_result(totals[(seats[0].id, variant.value)], totals[(seats[1].id, variant.value)],
                             points=outcome.points, winner=outcome.winner)
            if len(games) >= 200 or i == args.games - 1:
                _insert(engine, session, games, rows)
                games, rows = [], []
        if engine.dialect.name == "postgresql":
            session.execute(text("SELECT setval(pg_get_serial_sequence('games', 'id'), (SELECT max(id) FROM games))"))
        session.commit()
    print(f"{args.games} games of {args.bot} (bot-lab) against {args.person} -> {args.database_url}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
