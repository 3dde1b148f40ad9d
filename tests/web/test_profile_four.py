"""A player's profile shows the four-player game (issue #46), in a real Chromium against the real server.

Four registered players play one four-player deal through the server's WebSocket (tests/server/four.py); the
profile of one of them then shows the game's totals ("Tressette for four") and the deal in the recent games:
the opponents and the partner, the partnership's score, the result, and a link to the deal's replay, which
opens the four-player replay page. Screenshots (``profile-four-*``): desktop and phone, four languages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests import local_http
from tests.conftest import LiveServer, launch_server
from tests.server.client import Client, is_table
from tests.server.four import play_four
from tests.web.conftest import DESKTOP, PHONE, SHOTS

pytestmark = [pytest.mark.browser]
PASSWORD = "secret-pw-4"
NAMES = ("ana", "bruno", "carla", "dino")  # by seat: ana and carla against bruno and dino
WORDS = {"en": ("Tressette for four", "Partner"), "sl": ("Tressette v štiri", "Soigralec")}


@dataclass
class Played:
    """The server and the deal the four played: its game id and end (``result`` of the table message)."""

    server: LiveServer
    game_id: int
    result: dict[str, Any]


@pytest.fixture(scope="module")
def played(make_pg_db: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """A server on a fresh database where the four played one single deal at a table for four."""
    server = launch_server(make_pg_db(), tmp_path_factory.mktemp("profile-four"))
    try:
        tokens = []
        for name in NAMES:
            r = local_http.post(f"{server.url}/api/auth/register", json={"username": name, "password": PASSWORD},
                                timeout=10)
            r.raise_for_status()
            tokens.append(str(r.json()["token"]))
        clients = [Client(server.ws_url, token) for token in tokens]
        clients[0].send({"type": "create_table", "game": "partnership", "target": 0})
        table_id = clients[0].wait_for(is_table)["table"]["id"]
        for seat, c in enumerate(clients[1:], 1):
            c.send({"type": "join_table", "table_id": table_id, "seat": seat})
            assert c.wait_for(is_table)["table"]["you"] == seat
        end = play_four(clients, table_id)["table"]
        for c in clients:
            c.close()
        yield Played(server, int(end["game_id"]), end["result"])
    finally:
        server.stop()


def _shots(page: Page, name: str) -> None:
    """Save the page at desktop and phone size; at phone size nothing may stick out sideways."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(150)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{name}: the page is {width}px wide on a {viewport['width']}px screen"
        # The header's language switch keeps one look at every width: Chromium leaves a select blank when a media
        # query changes its `appearance` on a resize (as here: desktop, then phone).
        assert page.evaluate("getComputedStyle(document.getElementById('lang')).appearance") == "none"
        # Nor inside the page: the tables fit their box (no column left to scroll to sideways).
        for table in ("#profile-totals", "#recent-games"):
            inner = page.evaluate(f"(() => {{ const b = document.querySelector('{table}').parentElement; "
                                  "return [b.scrollWidth, b.clientWidth]; })()")
            assert inner[0] <= inner[1], f"{name} {size}: {table} is {inner[0]}px wide in a {inner[1]}px box"
        page.screenshot(path=str(SHOTS / f"{name}-{size}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def test_profile_shows_the_four_player_game(played: Played, contexts: Callable[..., Page]) -> None:
    """Carla's profile: the four-player totals and the deal with Dino and Bruno (after and before her) against, Ana her partner."""
    page = contexts()
    page.goto(f"{played.server.url}/")
    page.fill("input[name=username]", "carla")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login")
    expect(page.locator("#username")).to_have_text("carla")
    prof = local_http.get(f"{played.server.url}/api/players/carla", timeout=10).json()
    ours, theirs = played.result["score"][0], played.result["score"][1]  # carla sits at seat 2: partnership 0
    won = played.result["winner"] == 0
    page.goto(f"{played.server.url}/#/player/carla")

    totals = page.locator("#profile-totals tbody tr[data-variant=partnership]")
    expect(totals).to_have_count(1)
    x = prof["totals"]["partnership"]
    expect(totals.locator("td").nth(0)).to_have_text("Tressette for four")
    expect(totals.locator("td").nth(1)).to_have_text(str(x["games"]))
    expect(totals.locator("td").nth(2)).to_have_text(str(x["wins"]))
    expect(totals.locator("td").nth(4)).to_have_text(str(x["points"]))  # whole points, not thirds
    assert x["points"] == ours
    expect(totals.locator("td").nth(5)).to_contain_text(str(round(x["rating"])))

    row = page.locator(f"#recent-games tbody tr[data-game='{played.game_id}']")
    expect(row).to_have_attribute("data-game-kind", "partnership")
    cells = row.locator("td")
    expect(cells.nth(1)).to_have_text("Tressette for four")
    expect(cells.nth(2)).to_have_text("dino & bruno (Partner: ana)")
    expect(cells.nth(3)).to_have_text(f"{ours} : {theirs}")
    expect(cells.nth(4)).to_have_text("won" if won else "draw" if played.result["winner"] is None else "lost")
    expect(row.locator("a.player-link")).to_have_count(3)
    _shots(page, "profile-four-en")
    for lang in ("sl", "it", "hr"):
        page.select_option("#lang", lang)
        expect(cells.nth(1)).not_to_have_text("Tressette for four")
        if lang in WORDS:
            expect(cells.nth(1)).to_have_text(WORDS[lang][0])
            expect(cells.nth(2)).to_contain_text(f"({WORDS[lang][1]}: ana)")
        _shots(page, f"profile-four-{lang}")
    page.select_option("#lang", "en")

    # The link opens the four-player replay of the deal.
    link = row.locator("a.replay-link")
    expect(link).to_have_attribute("href", f"#/replay/{played.game_id}")
    link.click()
    expect(page).to_have_url(re.compile(rf"#/replay/{played.game_id}$"))
    expect(page.locator("#replay-board4")).to_be_visible()
    for seat in range(4):
        expect(page.locator(f"#replay-hand-{seat}")).to_be_visible()

    # The leaderboard lists the four-player game too, its points whole as on the profile.
    page.goto(f"{played.server.url}/#/leaderboard")
    expect(page.locator("#lb-variant option[value=partnership]")).to_have_text("Tressette for four")
    page.select_option("#lb-variant", "partnership")
    carla = page.locator("#leaderboard tbody tr[data-username=carla]")
    expect(carla).to_have_count(1)
    expect(carla.locator("td").nth(5)).to_have_text(str(x["points"]))
