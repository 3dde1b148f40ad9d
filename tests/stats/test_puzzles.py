"""Puzzles in the move log: planted deals found once, duplicates stored once, analyses' puzzles checked.

Planted deals are chosen from seeded random deals by plain minimax on the rules engine (not by
the finder): in the last four tricks, the opponent throws away a win and the player then has
exactly one winning class of cards. They go into a real PostgreSQL move log beside generated
games; ``treset admin puzzles`` (``treset.puzzles.scan``) must find each planted position,
store it once, and store a deal played twice once.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from agent.endgame import Endgame
from agent.puzzles import FINDER_VERSION, find_puzzles, position_key
from agent.search.solver import new_table, solve_reference
from server.store import repos
from server.store.db import session_factory, upgrade
from server.store.models import Game, Move, Puzzle, PuzzleScan
from server.store.movelog import move_fields
from server.store.puzzle_log import estimated_rating, store_from_analysis
from server.tools.seed import generate
from tests.forkserver import run_module
from treset.puzzles import report, scan
from tressette import POINTS, TOTAL_POINTS, Card, Deal, Variant


def _wins(variant: Variant, points: int) -> bool:
    return variant.winner((points, TOTAL_POINTS - points)) == 0


def _winners(deal: Deal) -> set[Card]:
    seat = deal.to_move
    won = set()
    for card in deal.legal_moves():
        child = deal.copy()
        child.play(card)
        if _wins(deal.variant, solve_reference(child, seat)):
            won.add(card)
    return won


def _one_class(deal: Deal, won: set[Card]) -> bool:
    live = set(deal.hands[1 - deal.to_move]) | set(deal.table)
    return len({POINTS[c] for c in won}) == 1 and all(
        a // 10 == b // 10 and not any(c in live for c in range(min(a, b) + 1, max(a, b))) for a in won for b in won)


def planted(count: int, variant: Variant) -> list[tuple[list[Card], int, list[Card], str]]:
    """Return ``count`` deals (deck, first leader, moves, the planted position's key), by minimax."""
    out = []
    seed = 0
    while len(out) < count:
        seed += 1
        rng = random.Random(seed * 7919 + variant.cfm)
        deck = list(range(40))
        rng.shuffle(deck)
        deal = Deal.from_deck(deck, variant, seed % 2)
        moves: list[Card] = []
        key = None
        while not deal.is_over:
            card = rng.choice(deal.legal_moves())
            if key is None and deal.trick_number >= 16 and len(deal.legal_moves()) > 1:
                won = _winners(deal)
                after = deal.copy()
                after.play(card)
                if won and card not in won and not after.is_over and after.to_move != deal.to_move \
                        and len(after.legal_moves()) > 1:
                    theirs = _winners(after)
                    if theirs and len(theirs) < len(after.legal_moves()) and _one_class(after, theirs):
                        key = position_key(Endgame.from_deal(after))
            moves.append(card)
            deal.play(card)
        if key is not None:
            out.append((deck, seed % 2, moves, key))
    return out


def _add_game(session: Session, variant: Variant, deck: list[Card], first: int, moves: list[Card]) -> int:
    users = [repos.ensure_user(session=session, username=f"plant-{s}", role="player") for s in (0, 1)]
    session.flush()
    deal = Deal.from_deck(deck, variant, first)
    game = Game(table_id="planted", variant=variant.value, player0_id=users[0].id, player1_id=users[1].id,
                first_leader=first, deck=deck, status="finished")
    session.add(game)
    session.flush()
    for k, card in enumerate(moves):
        seat = deal.to_move
        session.add(Move(game_id=game.id, user_id=users[seat].id, move_number=k, variant=variant.value,
                         **move_fields(deal, seat, card)))
        deal.play(card)
    if deal.is_over:
        out = deal.outcome()
        game.points0, game.points1, game.winner_seat = out.points[0], out.points[1], out.winner
    session.flush()
    return game.id


def test_planted_puzzles_are_found_once(pg_url: str) -> None:
    upgrade(pg_url)
    sessions = session_factory(pg_url)
    plants = {v: planted(3, v) for v in Variant}
    with sessions() as session:
        generate(session, moves=2000, players=10, seed=3, days=5)
        twice = []
        for variant, deals in plants.items():
            for deck, first, moves, _ in deals:
                _add_game(session, variant, deck, first, moves)
            deck, first, moves, _ = deals[0]
            twice.append(_add_game(session, variant, deck, first, moves))  # the same deal again
        unfinished = _add_game(session, Variant.TRESSETTE, *plants[Variant.TRESSETTE][1][:3])
        session.get(Game, unfinished).status = "playing"  # type: ignore[union-attr]
        broken = _add_game(session, Variant.TRESSETTE, list(range(40)), 0, [])
        session.add(Move(game_id=broken, user_id=session.get(Game, broken).player0_id,  # type: ignore[union-attr]
                         move_number=0, variant="tressette", seat=0, trick_number=0, hand=[], opponent_known=[],
                         table_cards=[], won_self=[], won_opponent=[], card=15, score=0))  # seat 1's card
        session.commit()
    totals = scan(pg_url, batch=7)
    assert "per 1,000 games" in report(totals) and totals["failed"] == 1
    with sessions() as session:
        stored = session.scalars(select(Puzzle)).all()
        keys = [p.position_key for p in stored]
        assert len(keys) == len(set(keys))
        for deals in plants.values():
            for *_, key in deals:
                row = next(p for p in stored if p.position_key == key)
                assert row.after_mistake and row.game_id not in twice, "the first game keeps the puzzle"
                assert (row.rating, row.rating_rd) == estimated_rating(row.depth, row.legal, row.missed, True)
        assert sum(totals["stored"].values()) == len(stored) < sum(totals["found"].values())
        scanned = session.scalar(select(func.count()).select_from(PuzzleScan))
        games = session.scalar(select(func.count()).select_from(Game).where(Game.status == "finished"))
        assert scanned == games - 1 and {unfinished, broken}.isdisjoint(session.scalars(select(PuzzleScan.game_id)))
        # The finder's own count, game by game, in memory: every distinct position is stored.
        expect = set()
        tt = new_table()
        for game in session.scalars(select(Game).where(Game.status == "finished", Game.id != broken)):
            cards = list(session.scalars(select(Move.card).where(Move.game_id == game.id).order_by(Move.move_number)))
            expect |= {p["position_key"] for p in find_puzzles(Variant(game.variant), game.deck, game.first_leader,
                                                                 cards, tt=tt)}
        assert expect == set(keys)
    again = scan(pg_url)
    assert sum(again["games"].values()) == 0, "scanned games are not scanned again by this finder version"
    rescan = scan(pg_url, rescan=True, variant="kifameno")
    assert sum(rescan["stored"].values()) == 0 and set(rescan["games"]) == {"kifameno"}


def test_analysis_puzzles_are_checked_and_bad_ones_skipped(pg_url: str) -> None:
    upgrade(pg_url)
    sessions = session_factory(pg_url)
    deck, first, moves, key = planted(1, Variant.KIFAMENO)[0]
    puzzles = find_puzzles(Variant.KIFAMENO, deck, first, moves, tt=new_table())
    good = next(p for p in puzzles if p["position_key"] == key)
    wrong_card = copy.deepcopy(good)
    wrong_card["data"]["accepted"][0] = [next(iter(wrong_card["data"]["refutations"][0]))]
    moved = {**copy.deepcopy(good), "move_number": good["move_number"] - 1}
    themed = {**copy.deepcopy(good), "themes": ["nonsense"]}
    with sessions() as session:
        game_id = _add_game(session, Variant.KIFAMENO, deck, first, moves)
        session.commit()
        played = list(session.scalars(select(Move).where(Move.game_id == game_id).order_by(Move.move_number)))
        result: dict[str, Any] = {"puzzles": [wrong_card, moved, themed, "junk", good, good],
                                  "puzzle_finder": FINDER_VERSION}
        store_from_analysis(session=session, game_id=game_id, result=result, moves=played)
        store_from_analysis(session=session, game_id=game_id, result={"puzzles": {"not": "a list"},
                                                                      "puzzle_finder": "x"}, moves=played)
        store_from_analysis(session=session, game_id=game_id, result={}, moves=played)  # an older agent
        session.commit()
        rows = session.scalars(select(Puzzle)).all()
        assert [r.position_key for r in rows] == [key]
        scan_row = session.get(PuzzleScan, game_id)
        assert scan_row is not None and scan_row.version == FINDER_VERSION and scan_row.found == 2


def test_an_analysis_brings_its_puzzles_and_a_bad_list_does_not_fail_it(pg_url: str) -> None:
    from agent.analysis import analyse
    from server.game.analysis import AnalysisQueue, game_record
    from server.protocol import AnalysisReport
    from server.store.models import Analysis

    upgrade(pg_url)
    sessions = session_factory(pg_url)
    plants = planted(2, Variant.TRESSETTE)
    with sessions() as session:
        ids = [_add_game(session, Variant.TRESSETTE, deck, first, moves) for deck, first, moves, _ in plants]
        session.add_all([Analysis(game_id=g, status="running") for g in ids])
        session.commit()
        records = [game_record(session.get(Game, g), list(session.scalars(  # type: ignore[arg-type]
            select(Move).where(Move.game_id == g).order_by(Move.move_number)))) for g in ids]
    queue = AnalysisQueue(sessions)
    results = [analyse(r, iterations=40, seed=1) for r in records]
    assert plants[0][3] in {p["position_key"] for p in results[0]["puzzles"]}
    results[1]["puzzles"] = [{"position_key": "0" * 64}, *results[1]["puzzles"][:1], 17]
    for g, result in zip(ids, results, strict=True):
        queue._store(g, AnalysisReport(type="analysis", job="j", game_id=g, version="v", analysis=result))
    with sessions() as session:
        assert all(session.get(Analysis, g).status == "done" for g in ids)  # type: ignore[union-attr]
        stored = {p.position_key: p for p in session.scalars(select(Puzzle))}
        assert plants[0][3] in stored and stored[plants[0][3]].after_mistake
        assert len([p for p in stored.values() if p.game_id == ids[1]]) == 1
        assert [s.version for s in session.scalars(select(PuzzleScan).order_by(PuzzleScan.game_id))] == \
            [FINDER_VERSION] * 2
    assert sum(scan(pg_url)["games"].values()) == 0, "games scanned by their analysis are not scanned again"


def test_the_command(pg_url: str) -> None:
    import os

    upgrade(pg_url)
    with session_factory(pg_url)() as session:
        generate(session, moves=400, players=4, seed=5, days=1)
    env = {**os.environ, "TRESET_DATABASE_URL": pg_url}
    run = run_module("treset.cli", ["admin", "puzzles", "--limit", "4", "--variant", "tressette"], env=env,
                     timeout=300, check=True)
    assert run.stdout.startswith("scanned ") and "puzzles found" in run.stdout
    with session_factory(pg_url)() as session:
        scanned = session.scalars(select(PuzzleScan.game_id)).all()
        assert len(scanned) == 4 and {session.get(Game, g).variant for g in scanned} == {"tressette"}  # type: ignore[union-attr]
    helped = run_module("treset.cli", ["admin", "--help"], env=env, timeout=60, check=True)
    assert "treset admin puzzles" in helped.stdout


def test_the_server_never_imports_the_agent() -> None:
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "server"
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n == "agent" or n.startswith("agent.") for n in names), f"{path} imports the agent"
