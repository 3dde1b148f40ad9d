"""The four-player bot levels through the real server and PostgreSQL: the lobby lists them, a table gets the one chosen.

A scripted bot announces three four-player levels (``bot_hello``'s ``partnership_levels``, weakest first, two of them
rated). The lobby lists the levels served (``partnership_levels``) and their ratings (``partnership_ratings``), and
drops them when the bot goes; a level chosen for a seat (``seat_bot``, ``create_table``'s ``bot_level``) is the seat's
level and the level of the bot turn the seat is asked (docs/protocol-four.md, "Bots").
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import LiveServer
from tests.server.client import Client, Msg, guest_token, is_table

pytestmark = [pytest.mark.db]
BOT_TOKEN = "partnership-levels-token-0123456789"
LADDER = [{"name": "beginner", "time_ms": 50, "rating": 1180}, {"name": "rules", "time_ms": 100, "rating": None},
          {"name": "master", "time_ms": 1000, "rating": 1720}]


def _is_lobby(m: Msg) -> bool:
    return bool(m["type"] == "lobby")


def _bot(server: LiveServer) -> Client:
    """Connect a scripted bot playing the two-player ``easy`` and the four-player :data:`LADDER`."""
    bot = Client(server.ws_url, BOT_TOKEN)
    bot.send({"type": "bot_hello", "levels": ["easy"], "capacity": 4, "partnership_levels": LADDER})
    return bot


def test_the_lobby_lists_the_four_player_levels_served_with_their_ratings(
        pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """No bot: no four-player level; a bot's ladder in its order with the ratings it measured; gone with it."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    person = Client(server.ws_url, guest_token(server.url)[0])
    first = person.wait_for(_is_lobby)
    assert (first["partnership_levels"], first["partnership_ratings"]) == ([], {})
    bot = _bot(server)
    served = person.wait_for(lambda m: _is_lobby(m) and m["partnership_levels"] != [])
    assert served["partnership_levels"] == ["beginner", "rules", "master"]  # weakest first, as announced
    assert served["partnership_ratings"] == {"beginner": 1180, "master": 1720}  # "rules" is unrated
    assert served["bot_levels"] == ["easy"] and "rules" not in served["bot_ratings"]  # the two ladders apart
    bot.close()
    person.wait_for(lambda m: _is_lobby(m) and m["partnership_levels"] == [])
    person.close()


def test_a_chosen_level_reaches_the_seat_and_its_bot_turns(pg_url: str,
                                                          start_server: Callable[..., LiveServer]) -> None:
    """``seat_bot`` at "master" and "beginner" seats bots of those levels; a level nobody announced is refused;
    the table's first bot turn names its seat's level. ``create_table`` with ``bot_level`` fills seats 1-3 at it,
    without one at ``rules``."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    bot = _bot(server)
    person = Client(server.ws_url, guest_token(server.url)[0])
    person.wait_for(lambda m: _is_lobby(m) and m["partnership_levels"] != [])
    person.send({"type": "create_table", "game": "partnership", "target": 0})
    table_id = person.wait_for(is_table)["table"]["id"]
    person.send({"type": "seat_bot", "table_id": table_id, "seat": 1, "level": "master"})
    person.send({"type": "seat_bot", "table_id": table_id, "seat": 3, "level": "beginner"})
    person.send({"type": "seat_bot", "table_id": table_id, "seat": 2, "level": "grandmaster"})
    assert person.error()["code"] == "bad_message"  # no bot announced it
    person.send({"type": "seat_bot", "table_id": table_id, "seat": 2, "level": "rules"})
    started = person.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")["table"]
    assert [p["level"] for p in started["players"]] == [None, "master", "rules", "beginner"]
    to_move = started["view"]["to_move"]
    if to_move != 0:  # the first lead is drawn: the bot seat to lead is asked at its own level
        turn = bot.wait_for(lambda m: m["type"] == "bot_turn" and m["table_id"] == table_id)
        assert (turn["game"], turn["state"]["seat"], turn["level"]) == ("partnership", to_move,
                                                                         started["players"][to_move]["level"])
    # The lobby's one click: three bots of the level chosen.
    other = Client(server.ws_url, guest_token(server.url)[0])
    other.send({"type": "create_table", "game": "partnership", "target": 0, "opponent": "bot", "bot_level": "master"})
    table = other.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")["table"]
    assert [p["level"] for p in table["players"]] == [None, "master", "master", "master"]
    # No level named: "rules", though the bot announced "beginner" first.
    third = Client(server.ws_url, guest_token(server.url)[0])
    third.send({"type": "create_table", "game": "partnership", "target": 0, "opponent": "bot"})
    table = third.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")["table"]
    assert [p["level"] for p in table["players"]] == [None, "rules", "rules", "rules"]
    for client in (third, other, person, bot):
        client.close()
