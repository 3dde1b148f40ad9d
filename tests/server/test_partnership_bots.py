"""Four-player tables with bots through the real server, the real agent process and PostgreSQL.

One person and three bots play a whole match: the agent answers every four-player seat at the level the
turn names (``partnership_levels``: "rules" first, the default; the searching levels play a deal), the
deals are stored as linked games, the match moves the four ratings once. A person who leaves a running match is replaced by a
bot (``bot_took_seat``), takes a rated loss at once, and the match rates no one else.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from server.store.models import Game, MatchRow, Move, PartnershipLeaver, UserTotals
from tests import local_http
from tests.conftest import LiveServer, wait_for_bots
from tests.forkserver import ForkedProcess, fork_module
from tests.server.client import Client, Msg, guest_token, is_table
from tests.server.db import admin_token
from tests.server.four import deal_from_rows, play_four, seen_or_wait

pytestmark = [pytest.mark.slow, pytest.mark.db]
BOT_TOKEN = "partnership-bots-token-0123456789"


@pytest.fixture
def served(pg_url: str, tmp_path: Path, start_server: Callable[..., LiveServer]) -> Iterator[LiveServer]:
    """Yield a server with a real agent connected (two-player level ``easy`` and the four-player ``rules``)."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    agent: ForkedProcess = fork_module("agent.cli", ["serve", "--server", server.url, "--capacity", "4",
                                                     "--analysis", "0", "--levels", "easy"],
                                       {**os.environ, "TRESET_BOT_TOKEN": BOT_TOKEN}, stdout=tmp_path / "agent.log")
    try:
        wait_for_bots(server.url, 1, agent, tmp_path / "agent.log")
        yield server
    finally:
        agent.terminate()
        agent.wait(10)


def _ended(msg: Msg) -> bool:
    return is_table(msg) and msg["table"]["status"] == "finished" and (msg["event"] or {}).get("kind") == "end"


def _play_match(person: Client, table_id: str) -> list[Msg]:
    """Play the person's seat to the match's end, ready for each next deal at once; return each deal's end."""
    ends: list[Msg] = []
    while True:
        end = play_four([person], table_id, timeout=120)
        ends.append(end)
        if end["table"]["match"]["end"] is not None:
            return ends
        person.send({"type": "rematch", "table_id": table_id})
        seen_or_wait(person, lambda m: is_table(m) and (m["event"] or {}).get("kind") == "start"
                     and m["table"]["deal_number"] == len(ends) + 1)


def test_a_person_and_three_bots_play_a_whole_match(served: LiveServer, pg_url: str) -> None:
    """A match to 21 with three bots of the agent: linked deals, all hands after each, one rating update."""
    token, user = guest_token(served.url)
    person = Client(served.ws_url, token)
    person.send({"type": "create_table", "game": "partnership", "opponent": "bot", "target": 21,
                 "declarations": True})
    first = seen_or_wait(person, lambda m: is_table(m) and m["table"]["status"] == "playing")
    t = first["table"]
    assert [p["username"] for p in t["players"]][1:] == ["bot-rules", "bot-rules-2", "bot-rules-3"]
    assert all(p["is_bot"] and p["level"] == "rules" for p in t["players"][1:])
    ends = _play_match(person, t["id"])
    last = ends[-1]["table"]
    match_end = last["match"]["end"]
    assert match_end["reason"] == "finished" and match_end["rated"] is True
    assert max(last["match"]["scores"]) >= 21 and match_end["winner"] in (0, 1)
    assert all(len(e["table"]["result"]["hands"]) == 4 for e in ends)

    engine = create_engine(pg_url)
    with Session(engine) as s:
        games = list(s.scalars(select(Game).where(Game.table_id == t["id"]).order_by(Game.id)))
        assert len(games) == len(ends) and {g.n_players for g in games} == {4}
        match = s.get(MatchRow, games[0].match_id)
        assert match is not None and (match.n_players, match.status, match.deals) == (4, "finished", len(ends))
        assert [g.match_deal for g in games] == list(range(1, len(ends) + 1))
        assert list(last["match"]["scores"]) == [match.score0, match.score1]
        leaders = [g.first_leader for g in games]
        assert all((b - a) % 4 == 1 for a, b in zip(leaders, leaders[1:], strict=False))  # the lead passes on
        for g in games:
            moves = list(s.scalars(select(Move).where(Move.game_id == g.id).order_by(Move.move_number)))
            assert g.options is not None
            deal = deal_from_rows(g.deck, g.first_leader, g.options, [(m.card, m.declarations, m.signal)
                                                                      for m in moves])
            assert deal.is_over and (g.points0 + (g.declared0 or 0), g.points1 + (g.declared1 or 0)) \
                == deal.outcome().score
        totals = {r.user_id: r for r in s.scalars(select(UserTotals).where(UserTotals.variant == "partnership"))}
        assert len(totals) == 4 and totals[user["id"]].games == len(ends)
        won = match_end["winner"] == 0
        assert (totals[user["id"]].rating > 1500) == won  # rated once, at the match's end
    engine.dispose()
    board = local_http.get(f"{served.url}/api/leaderboard?variant=partnership", timeout=5).json()
    assert {p["username"] for p in board["players"]} >= {user["username"], "bot-rules"}
    # The replay of a deal shows every hand; the match page its four players; the exports every move.
    auth = {"Authorization": f"Bearer {token}"}
    replay = local_http.get(f"{served.url}/api/games/{games[0].id}/replay", headers=auth, timeout=5).json()
    assert replay["game"] == "partnership" and len(replay["hands"]) == 4 and len(replay["moves"]) == 40
    assert replay["hands"] == ends[0]["table"]["result"]["hands"] and replay["score"] == ends[0]["table"]["result"]["score"]
    text = local_http.get(f"{served.url}/api/games/{games[0].id}/record.txt", headers=auth, timeout=5).text
    assert "partnership" in text and text.count(" led ") == 10
    page = local_http.get(f"{served.url}/api/matches/{games[0].match_id}", headers=auth, timeout=5).json()
    assert len(page["players"]) == 4 and len(page["deals"]) == len(ends)
    admin = {"Authorization": f"Bearer {admin_token(pg_url)}"}
    rows = local_http.get(f"{served.url}/api/admin/moves/export?variant=partnership&format=ndjson",
                          headers=admin, timeout=30).text.splitlines()
    assert len(rows) == 40 * len(ends)
    row = json.loads(rows[0])
    assert row["partner"] == (user["username"] if row["seat"] == 2 else "bot-rules-2" if row["seat"] == 0 else
                              "bot-rules-3" if row["seat"] == 1 else "bot-rules")
    assert row["partnership"] == row["seat"] % 2 and len(row["hand"]) == 10
    won = local_http.get(f"{served.url}/api/admin/games?variant=partnership&player={user['username']}&result=won",
                         headers=admin, timeout=10).json()
    assert won["total"] == sum(e["table"]["result"]["winner"] == 0 for e in ends)  # seat 0: partnership 0
    listed = local_http.get(f"{served.url}/api/admin/games?variant=partnership&player={user['username']}",
                            headers=admin, timeout=10).json()
    assert listed["total"] == len(ends) and listed["games"][0]["players"][0] == user["username"]
    assert listed["games"][0]["players"][1:] == ["bot-rules", "bot-rules-2", "bot-rules-3"]
    duel = local_http.get(f"{served.url}/api/admin/moves/export?format=ndjson", headers=admin, timeout=30).text
    assert duel.strip() == ""  # the two-player export holds two-player moves only


def test_a_leaver_is_replaced_by_a_bot_and_alone_loses_rating(served: LiveServer, pg_url: str) -> None:
    """Two people against each other with bot partners; one leaves mid-deal: a bot takes over, the match goes on."""
    ta, ua = guest_token(served.url)
    tb, ub = guest_token(served.url)
    a, b = Client(served.ws_url, ta), Client(served.ws_url, tb)
    a.send({"type": "create_table", "game": "partnership", "target": 21, "bots": [None, None, "rules", "rules"]})
    table_id = a.wait_for(is_table)["table"]["id"]
    b.send({"type": "join_table", "table_id": table_id})
    assert b.wait_for(is_table)["table"]["you"] == 1
    # Both play until eight cards are down, then b leaves.
    play_four([a, b], table_id, timeout=60,
              stop=lambda m: is_table(m) and m["table"]["view"] is not None
              and 4 * len(m["table"]["view"]["tricks"]) + len(m["table"]["view"]["table"]) >= 8)
    b.send({"type": "leave_table", "table_id": table_id})
    assert b.wait_for(lambda m: m["type"] == "left")["table_id"] == table_id
    took = a.wait_for(lambda m: is_table(m) and (m["event"] or {}).get("kind") == "bot_took_seat")
    assert took["event"] == {"kind": "bot_took_seat", "seat": 1, "replaced": ub["username"], "cause": "left"}
    seat = took["table"]["players"][1]
    assert seat["is_bot"] and seat["replaced"] == ub["username"]
    engine = create_engine(pg_url)
    with Session(engine) as s:  # the leaver's loss is rated at once
        leaver = s.scalars(select(PartnershipLeaver)).one()
        assert (leaver.seat, leaver.user_id, leaver.cause) == (1, ub["id"], "left")
        assert leaver.rating_after is not None and leaver.rating_after < 1500
        row = s.get(UserTotals, (ub["id"], "partnership"))
        assert row is not None and row.rating == leaver.rating_after
    ends = _play_match(a, table_id)
    match_end = ends[-1]["table"]["match"]["end"]
    assert match_end["reason"] == "finished" and match_end["rated"] is False
    assert all(e["table"]["result"]["rated"] is False for e in ends)
    with Session(engine) as s:
        games = list(s.scalars(select(Game).where(Game.table_id == table_id)))
        match = s.get(MatchRow, games[0].match_id)
        assert match is not None and match.unrated and match.status == "finished"
        partner_row = s.get(UserTotals, (ua["id"], "partnership"))
        assert partner_row is not None and partner_row.rating == 1500  # no one else's rating moved
        assert partner_row.games == len(ends)
    engine.dispose()


def test_the_searching_levels_play_a_deal_through_the_server(served: LiveServer) -> None:
    """The agent's four-player levels announced in ``bot_hello`` each take a seat and play a whole deal at their
    level (the turn's ``level`` reaches the search): ``master``, ``normal`` and ``beginner`` beside a person."""
    token, _ = guest_token(served.url)
    person = Client(served.ws_url, token)
    person.send({"type": "create_table", "game": "partnership", "target": 0, "declarations": True,
                 "bots": [None, "master", "normal", "beginner"]})
    first = seen_or_wait(person, lambda m: is_table(m) and m["table"]["status"] == "playing")
    assert [p["level"] for p in first["table"]["players"]] == [None, "master", "normal", "beginner"]
    end = play_four([person], first["table"]["id"], timeout=120)
    result = end["table"]["result"]
    assert sum(result["points"]) == 11 and len(result["hands"]) == 4
