"""The replay's analysis panel in a real headless Chromium: waiting for a bot, then marks, graph, accuracy.

A scripted analysis bot (tests/server/analysis_bot.py) answers the server's ``analyse`` with made-up
figures of the right shape, so the page is checked against known labels and losses.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import psycopg
import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy.engine import make_url

from tests.conftest import LiveServer
from tests.server.analysis_bot import AnalysisBot
from tests.server.client import Client, is_table, play_until_over
from tests.web.conftest import DESKTOP, PHONE, SHOTS

pytestmark = pytest.mark.browser
BOT_TOKEN = "analysis-page-bot-token"
PASSWORD = "secret-pw-1"


def _conninfo(url: str) -> str:
    u = make_url(url)
    return f"host={u.host} port={u.port or 5432} user={u.username} dbname={u.database}"


def _register(url: str, name: str) -> str:
    r = httpx.post(f"{url}/api/auth/register", json={"username": name, "password": PASSWORD}, timeout=10)
    r.raise_for_status()
    return str(r.json()["token"])


def _login(page: Page, url: str, name: str) -> None:
    page.goto(f"{url}/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("#login")
    expect(page.locator("#whoami")).to_contain_text(name)


def _shot(page: Page, name: str, width: int) -> None:
    """Save the whole page; nothing may stick out sideways."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(200)
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{name}: the page is {scroll}px wide in a {width}px window"
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_replay_shows_the_analysis(browser: Browser, pg_url: str,
                                   start_server: Callable[..., LiveServer], contexts: Callable[..., Page]) -> None:
    """Queued without a bot (polling), then every played card marked, the best card beside it, graph, accuracy."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    tokens = {name: _register(server.url, name) for name in ("alba", "boris")}
    a, b = Client(server.ws_url, tokens["alba"]), Client(server.ws_url, tokens["boris"])
    a.send({"type": "create_table", "variant": "tressette"})
    table_id = a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "waiting")["table"]["id"]
    b.send({"type": "join_table", "table_id": table_id})
    play_until_over(a, b, table_id)
    game_id = httpx.get(f"{server.url}/api/players/alba").json()["recent_games"][0]["id"]

    page = contexts(DESKTOP)
    _login(page, server.url, "alba")
    page.goto(f"{server.url}/#/replay/{game_id}")
    expect(page.locator("#analysis-status")).to_have_text("Analysis in progress (position 1 in the queue)")
    expect(page.locator("#analysis .an-nobot")).to_be_visible()

    bot = AnalysisBot(server, BOT_TOKEN)
    job = bot.job()
    bot.answer(job)
    expect(page.locator("#analysis-accuracy")).to_be_visible(timeout=10_000)  # the page polls
    analysis = httpx.get(f"{server.url}/api/games/{game_id}/analysis",
                         headers={"Authorization": f"Bearer {tokens['alba']}"}).json()
    moves = analysis["moves"]
    expect(page.locator("#analysis-moves li")).to_have_count(len(moves))
    expect(page.locator("#analysis-graph polyline")).to_have_count(1)
    players = analysis["players"]
    text = page.inner_text("#analysis-accuracy")
    for p in players:
        assert f"{p['accuracy']:.1f}%" in text

    # Jump to a mistake from the move list: the replay steps there, the card is marked, the best shown beside.
    k = next(m["move"] for m in moves if m["label"] in ("mistake", "blunder") and m["move"] >= 14)
    page.click(f"#analysis-moves [data-move='{k}']")
    expect(page.locator("#replay-counter")).to_have_text(f"Move {k} / {len(moves)}")
    tag = page.locator("#analysis-next-tag")
    expect(tag).to_contain_text(moves[k]["label"])
    cards = page.locator("#replay-next-move .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert cards == [moves[k]["card"], moves[k]["best"]]
    expect(page.locator("#analysis-current")).to_contain_text("lost")
    # Every played card in the list of tricks carries its mark, coloured by its label.
    marked = page.locator("#replay-tricks .trick-cards .card.an-marked").evaluate_all(
        "els => els.map(e => [e.dataset.card, [...e.classList].find(c => /^an-(best|good|inaccuracy|mistake|blunder)$/.test(c))])")
    by_card = {m["card"]: m for m in moves}
    assert len(marked) == 2 * (k // 2)
    assert all(label == f"an-{by_card[card]['label']}" for card, label in marked)
    expect(page.locator("#analysis-now")).to_have_count(1)
    x_now = float(page.locator("#analysis-now").get_attribute("x1") or 0)
    page.click("#replay-next")
    assert float(page.locator("#analysis-now").get_attribute("x1") or 0) > x_now  # the graph follows the step
    page.click("#replay-prev")
    page.click("#analysis .an-metric:not(.on)")  # the chance to win instead of the points
    expect(page.locator("#analysis .an-graph-title")).to_contain_text("chance to win")
    page.click("#analysis .an-metric:not(.on)")
    _shot(page, "analysis-desktop", DESKTOP["width"])

    # The other player on a phone, in Slovenian; the profile shows the average accuracy.
    phone = contexts(PHONE)
    _login(phone, server.url, "boris")
    phone.goto(f"{server.url}/#/replay/{game_id}")
    expect(phone.locator("#analysis-accuracy")).to_be_visible()
    phone.click(f"#analysis-moves [data-move='{k}']")
    expect(phone.locator("#analysis-next-tag")).to_be_visible()
    expect(phone.locator("#analysis .an-graph-title")).to_contain_text("boris")
    _shot(phone, "analysis-phone", PHONE["width"])
    phone.click("#lang")
    expect(phone.locator("#analysis h2")).to_have_text("Analiza")
    expect(phone.locator("#analysis-accuracy")).to_contain_text("natančnost")
    _shot(phone, "analysis-phone-sl", PHONE["width"])
    phone.goto(f"{server.url}/#/player/boris")
    seat = 0 if httpx.get(f"{server.url}/api/games/{game_id}/replay",
                          headers={"Authorization": f"Bearer {tokens['boris']}"}).json()["players"][0] == "boris" else 1
    expect(phone.locator("#profile-totals")).to_contain_text(re.compile(rf"{players[seat]['accuracy']:.1f}%"))

    # An older game (no analysis stored): the player asks for it with the button, and it comes.
    with psycopg.connect(_conninfo(pg_url), autocommit=True) as conn:
        conn.execute("DELETE FROM analyses WHERE game_id = %s", (game_id,))
    page.goto(f"{server.url}/#/lobby")
    page.goto(f"{server.url}/#/replay/{game_id}")
    expect(page.locator("#analysis-status")).to_have_text("This game has not been analysed yet.")
    page.click("#analysis-request")
    expect(page.locator("#analysis-status")).to_contain_text("Analysis in progress")
    bot.answer(bot.job(), version="test-2")
    expect(page.locator("#analysis-accuracy")).to_be_visible(timeout=10_000)
    expect(page.locator("#analysis .an-version")).to_contain_text("test-2")
    a.close()
    b.close()
    bot.close()
