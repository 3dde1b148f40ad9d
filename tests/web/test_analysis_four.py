"""A four-player deal's double-dummy analysis in the replay, in a real headless Chromium.

Four registered players play a deal through the real server; an analysis bot answers the job with the
agent's own analysis of the record (:func:`agent.partnership.analysis.analyse`), and the page is checked
against those exact values move by move: the label, the loss, the best card(s), every card's value, the four
players' accuracy and both partnerships' points on the graph.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from agent.partnership.analysis import analyse
from tests import local_http
from tests.conftest import LiveServer
from tests.server.analysis_bot import AnalysisBot
from tests.server.client import Client, is_table
from tests.server.four import play_four
from tests.web.conftest import DESKTOP, PHONE, SHOTS
from tests.web.test_analysis_page import _login, _no_stray, _register, _shot

pytestmark = pytest.mark.browser
BOT_TOKEN = "analysis-four-page-bot-token"
NAMES = ("alba", "boris", "cara", "dino")


def points(thirds: float) -> str:
    """Return thirds as the page writes them (web/js/i18n.js ``points``): 17 -> "5⅔", 1 -> "⅓"."""
    n = round(thirds)
    whole, part = n // 3, ["", "⅓", "⅔"][n % 3]
    return part if whole == 0 and part else f"{whole}{part}"


def _play(server: LiveServer) -> int:
    """The four play a deal to its end (seats in name order); return its game id."""
    clients = [Client(server.ws_url, _register(server.url, name)) for name in NAMES]
    clients[0].send({"type": "create_table", "game": "partnership", "target": 31})
    table_id = clients[0].wait_for(is_table)["table"]["id"]
    for seat, c in enumerate(clients[1:], 1):
        c.send({"type": "join_table", "table_id": table_id, "seat": seat})
        assert c.wait_for(is_table)["table"]["you"] == seat
    play_four(clients, table_id)
    for c in clients:
        c.close()
    return int(local_http.get(f"{server.url}/api/players/cara").json()["recent_games"][0]["id"])


def _check_moves(page: Page, result: dict[str, Any]) -> None:
    """Click every move: its label, loss, best cards, every card's value and the partnerships' points shown."""
    moves = result["moves"]
    before = result["start"]["points"]
    for m in moves:
        page.click(f"#analysis-moves [data-move='{m['move']}']")
        current = page.locator("#analysis-current")
        expect(current.locator(".an-line-played")).to_have_text(re.compile(rf"^{m['move'] + 1}\. {NAMES[m['seat']]} "))
        tag = current.locator(".an-tag").inner_text()
        assert m["label"] in tag, (m, tag)
        assert ("lost" in tag) == (m["loss"] > 0) and (m["loss"] == 0 or f"lost {points(m['loss'])}" in tag), (m, tag)
        best = current.locator(".an-best-pair .card").evaluate_all("els => els.map(e => e.dataset.card)")
        assert best == (m["best_cards"] if m["label"] not in ("best", "good") else []), (m, best)
        values = current.locator(".an-card-value").all_inner_texts()
        if len(m["cards"]) > 1:
            assert sorted(v.rsplit(" ", 1)[1] for v in values) == sorted(points(c["value"]) for c in m["cards"]), (m, values)
            played = current.locator(".an-card-value.played").inner_text()
            assert played.endswith(f" {points(m['value'])}"), (m, played)
            best_values = current.locator(".an-card-value.best").all_inner_texts()  # every best card marked
            assert len(best_values) == len(m["best_cards"]) and all(v.endswith(f" {points(m['best_value'])}")
                                                                    for v in best_values), (m, best_values)
        for team in (0, 1):
            expect(page.locator(f"#analysis-now-{team}")).to_contain_text(points(before[team]))
        before = m["eval"]["points"]


@pytest.mark.slow
def test_four_player_analysis_page(browser: Browser, pg_url: str, start_server: Callable[..., LiveServer],
                                   contexts: Callable[..., Page]) -> None:
    """The analysis of a four-player deal: queued, then the solver's values on every move, desktop and phone."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    game_id = _play(server)
    page = contexts(DESKTOP)
    _login(page, server.url, "cara")  # seat 2: partnership 0, with alba
    page.goto(f"{server.url}/#/replay/{game_id}")
    expect(page.locator("#analysis-status")).to_have_text("Analysis in progress (position 1 in the queue)")

    bot = AnalysisBot(server, BOT_TOKEN)
    job = bot.job()
    result = analyse(job["record"])
    bot.client.send({"type": "analysis", "job": job["job"], "game_id": game_id, "version": result["version"],
                     "analysis": result})
    expect(page.locator("#analysis-accuracy")).to_be_visible(timeout=10_000)
    moves = result["moves"]
    assert any(m["loss"] > 0 for m in moves), moves  # first-legal play loses points somewhere
    expect(page.locator("#analysis-moves li")).to_have_count(40)
    expect(page.locator("#analysis-accuracy .an-player")).to_have_count(4)
    for p in result["players"]:
        box = page.locator(f"#analysis-accuracy .an-player[data-seat='{p['seat']}']")
        expect(box).to_contain_text(NAMES[p["seat"]])
        expect(box).to_contain_text(f"{p['accuracy']:.1f}%")
        assert f"team-{p['seat'] % 2}" in (box.get_attribute("class") or "")
    expect(page.locator("#analysis-graph polyline.an-team")).to_have_count(2)
    ticks = page.locator("#analysis-graph .an-axis").evaluate_all("els => els.map(e => e.textContent)")
    assert ticks == ["0", "3", "6", "9", "11", "2", "4", "6", "8"], ticks  # whole points, then tricks of 10
    expect(page.locator("#analysis .an-metric")).to_have_count(0)  # exact: no chance-to-win view
    expect(page.locator("#analysis-explain")).to_contain_text("All four hands open")
    expect(page.locator("#analysis-now-0")).to_contain_text("alba & cara")
    _no_stray(page, "the four-player analysis")
    _check_moves(page, result)

    # The end of the deal: every card in the list of tricks carries its mark; the graph ends at the thirds taken.
    page.click("#replay-last")
    marked = page.locator("#replay-tricks .trick-cards .card.an-marked").evaluate_all(
        "els => els.map(e => [e.dataset.card, [...e.classList].find(c => /^an-(best|good|inaccuracy|mistake|blunder)$/.test(c))])")
    by_card = {m["card"]: m for m in moves}
    assert len(marked) == 40 and all(label == f"an-{by_card[card]['label']}" for card, label in marked), marked
    for team in (0, 1):
        expect(page.locator(f"#analysis-now-{team}")).to_contain_text(points(moves[-1]["eval"]["points"][team]))
    worst = max(moves, key=lambda m: (m["loss"], m["move"]))
    page.click(f"#analysis-moves [data-move='{worst['move']}']")
    expect(page.locator("#analysis-next-tag")).to_contain_text(worst["label"])
    page.locator("#analysis").scroll_into_view_if_needed()
    _shot(page, "analysis-four-desktop", DESKTOP["width"])
    page.locator("#analysis").screenshot(path=str(SHOTS / "analysis-four-desktop-panel.png"))
    page.goto(f"{server.url}/#/player/cara")  # the profile averages the four-player accuracy (seat 2's here)
    expect(page.locator("#profile-totals [data-variant='partnership']")).to_contain_text(
        f"{result['players'][2]['accuracy']:.1f}% (1)")

    phone = contexts(PHONE)
    _login(phone, server.url, "boris")  # partnership 1: its line is the filled one
    phone.goto(f"{server.url}/#/replay/{game_id}")
    expect(phone.locator("#analysis-accuracy .an-player")).to_have_count(4)
    phone.click(f"#analysis-moves [data-move='{worst['move']}']")
    expect(phone.locator("#analysis-next-tag")).to_be_visible()
    expect(phone.locator("#analysis-graph polyline.an-team.team-1")).to_have_count(1)
    _no_stray(phone, "the four-player analysis on a phone")
    _shot(phone, "analysis-four-phone", PHONE["width"])
    # The move with the most best cards shown: they wrap, nothing sticks out sideways.
    many = max(moves, key=lambda m: (m["label"] not in ("best", "good"), len(m["best_cards"])))
    phone.click(f"#analysis-moves [data-move='{many['move']}']")
    _shot(phone, "analysis-four-phone-best-cards", PHONE["width"])
    phone.locator("#analysis").screenshot(path=str(SHOTS / "analysis-four-phone-panel.png"))
    phone.select_option("#lang", "sl")
    expect(phone.locator("#analysis-explain")).to_contain_text("Vse štiri roke odprte")
    expect(phone.locator("#analysis .an-graph-title")).to_have_text("Točke ob odprtih kartah")
    # The partnership's points as players count them: "4", "4⅓", or "⅔" alone (no digit: thirds under one point).
    now = phone.locator("#analysis-now-1").inner_text()
    assert re.search(r": (\d+[⅓⅔]?|[⅓⅔])$", now), now
    _shot(phone, "analysis-four-phone-sl", PHONE["width"])
    bot.close()
