"""``treset admin puzzles``: search finished games of the move log for endgame puzzles (issue #33).

    treset admin puzzles [--limit N] [--variant tressette|kifameno] [--rescan] [--batch N]

Scans the finished games no finder of this version has scanned yet (``--rescan``: all of
them again), oldest first, with the agent's finder (:mod:`agent.puzzles`), stores the
puzzles through the server's store (:mod:`server.store.puzzle_log`: checked, one per
position) and marks each game scanned (``puzzle_scans``).  A game with a stored analysis
lends its moves' ``kind`` labels for ``missed``/``after_mistake``.  Prints how many games
were scanned, puzzles found and stored, per variant and theme, and the time taken.

It lives here, not in ``server.tools.admin_cli``, because it needs the agent's solver and
the server never imports the agent; ``treset.cli`` routes ``admin puzzles`` here.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from typing import Any, get_args

from sqlalchemy import select
from tqdm import tqdm

from agent.puzzle_themes import THEMES
from agent.puzzles import FINDER_VERSION, find_puzzles
from agent.search.solver import new_table
from server.settings import get_settings
from server.store.db import session_factory, upgrade
from server.store.models import Game, Move, MoveAnalysis
from server.store.puzzle_log import games_to_scan, mark_scanned, store_puzzles
from tressette import IllegalMoveError, Variant, VariantName


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="treset admin puzzles", description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="scan at most this many games")
    parser.add_argument("--variant", choices=get_args(VariantName))
    parser.add_argument("--rescan", action="store_true", help="scan games already scanned by this finder too")
    parser.add_argument("--batch", type=int, default=200, help="games per transaction")
    return parser


def main(argv: list[str]) -> int:
    """Run ``treset admin puzzles``."""
    args = _parser().parse_args(argv)
    url = get_settings().database_url
    upgrade(url)
    totals = scan(url, limit=args.limit, variant=args.variant, rescan=args.rescan, batch=args.batch,
                  progress=sys.stderr.isatty())
    print(report(totals))
    return 0


def scan(url: str, *, limit: int | None = None, variant: str | None = None, rescan: bool = False,
         batch: int = 200, progress: bool = False) -> dict[str, Any]:
    """Scan the games (see the module); return the counts: games, found, stored, bad, failed, themes, seconds.

    A game whose moves the rules refuse is reported on stderr, counted in ``failed`` and left unscanned.
    """
    started = time.perf_counter()
    sessions = session_factory(url)
    with sessions() as session:
        ids = games_to_scan(session=session, version=FINDER_VERSION, variant=variant, limit=limit, rescan=rescan)
    games: Counter[str] = Counter()
    found: Counter[str] = Counter()
    stored: Counter[str] = Counter()
    themes: Counter[tuple[str, str]] = Counter()
    bad = failed = 0
    tt = new_table()  # one table for the run: its entries are facts about positions
    bar = tqdm(total=len(ids), unit="game", file=sys.stderr, desc="puzzles", disable=not progress)
    for at in range(0, len(ids), batch):
        chunk = ids[at:at + batch]
        with sessions() as session:
            rows = {g.id: g for g in session.scalars(select(Game).where(Game.id.in_(chunk)))}
            moves: dict[int, list[Move]] = {g: [] for g in chunk}
            for m in session.scalars(select(Move).where(Move.game_id.in_(chunk)).order_by(Move.game_id,
                                                                                             Move.move_number)):
                moves[m.game_id].append(m)
            kinds: dict[int, dict[int, str | None]] = {}
            for a in session.scalars(select(MoveAnalysis).where(MoveAnalysis.game_id.in_(chunk))):
                kinds.setdefault(a.game_id, {})[a.move_number] = a.kind
            for game_id in chunk:
                game, played = rows[game_id], moves[game_id]
                told = kinds.get(game_id)
                labels = [told.get(m.move_number) for m in played] if told and len(told) == len(played) else None
                try:
                    puzzles = find_puzzles(Variant(game.variant), game.deck, game.first_leader,
                                           [m.card for m in played], kinds=labels, tt=tt)
                except (ValueError, IllegalMoveError) as exc:  # a record the rules refuse: left unscanned
                    print(f"treset admin puzzles: game {game_id} skipped: {exc}", file=sys.stderr)
                    failed += 1
                    continue
                new, skipped = store_puzzles(session=session, game=game, moves=played, puzzles=puzzles)
                mark_scanned(session=session, game_id=game_id, version=FINDER_VERSION, found=len(puzzles) - skipped)
                games[game.variant] += 1
                found[game.variant] += len(puzzles)
                stored[game.variant] += new
                bad += skipped
                for p in puzzles:
                    themes.update((game.variant, t) for t in p["themes"])
            session.commit()
        bar.update(len(chunk))
    bar.close()
    return {"games": games, "found": found, "stored": stored, "bad": bad, "failed": failed, "themes": themes,
            "seconds": time.perf_counter() - started}


def report(totals: dict[str, Any]) -> str:
    """Return the scan's summary: games, puzzles found and stored, per 1,000 games by variant and theme, speed."""
    games, found, stored = totals["games"], totals["found"], totals["stored"]
    n, seconds = sum(games.values()), totals["seconds"]
    lines = [f"scanned {n} games in {seconds:.1f} s ({n / max(seconds, 1e-9):.1f} games/s): "
             f"{sum(found.values())} puzzles found, {sum(stored.values())} new stored, {totals['bad']} skipped as bad"
             + (f", {totals['failed']} games not replayable" if totals.get("failed") else "")]
    if n:
        variants = [v.value for v in Variant if games[v.value]]
        lines.append("per 1,000 games  " + "".join(f"{v:>12}" for v in variants))
        lines.append(f"{'games':<17}" + "".join(f"{games[v]:>12}" for v in variants))
        lines.append(f"{'puzzles':<17}" + "".join(f"{1000 * found[v] / games[v]:>12.1f}" for v in variants))
        for theme in THEMES:
            lines.append(f"  {theme:<15}" + "".join(f"{1000 * totals['themes'][(v, theme)] / games[v]:>12.1f}"
                                                     for v in variants))
    return "\n".join(lines)
