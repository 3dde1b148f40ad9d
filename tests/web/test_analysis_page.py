"""The replay's analysis panel in a real headless Chromium: waiting for a bot, then marks, graph, accuracy.

A scripted analysis bot (tests/server/analysis_bot.py) answers the server's ``analyse`` with made-up
figures of the right shape, so the page is checked against known labels and losses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy.engine import make_url

from tests import local_http
from tests.conftest import LiveServer
from tests.server.analysis_bot import AnalysisBot, fake_analysis
from tests.server.client import Client, is_table, play_until_over
from tests.web.conftest import DESKTOP, PHONE, SHOTS

pytestmark = pytest.mark.browser
BOT_TOKEN = "analysis-page-bot-token"
PASSWORD = "secret-pw-1"


def _conninfo(url: str) -> str:
    u = make_url(url)
    return f"host={u.host} port={u.port or 5432} user={u.username} dbname={u.database}"


def _register(url: str, name: str) -> str:
    r = local_http.post(f"{url}/api/auth/register", json={"username": name, "password": PASSWORD}, timeout=10)
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


def _no_stray(page: Page, where: str) -> None:
    text = page.locator("body").inner_text()
    found = re.search(r"\b(null|undefined|NaN)\b|\[object Object\]", text)
    assert not found, f"{where}: {found[0]!r} on the page"


def _consistent(page: Page, moves: list[dict[str, Any]]) -> None:
    """Check the analysis never contradicts itself over every move of the deal (issue #30)."""
    for seat in (0, 1):
        mine = [m for m in moves if m["seat"] == seat]
        box = page.locator(f"#analysis-accuracy .an-player[data-seat='{seat}']")
        for kind, label in (("inaccuracy", "inaccurac"), ("mistake", "mistake"), ("blunder", "blunder")):
            shown = box.locator(f".an-count.an-{kind}").inner_text()
            assert re.search(rf"\b{sum(m['label'] == kind for m in mine)} {label}", shown), shown
        avg = sum(max(0.0, m["loss"]) for m in mine) / len(mine)
        assert abs(float(box.locator(".an-avg").get_attribute("data-avg") or "nan") - avg) < 1e-3
        if any(m["label"] in ("mistake", "blunder") for m in mine):  # a counted mistake: the average is not 0
            assert not box.locator(".an-avg").inner_text().endswith(": 0"), box.locator(".an-avg").inner_text()
    for text in page.locator("#analysis-graph .an-axis").evaluate_all("els => els.map(e => e.textContent)"):
        assert re.fullmatch(r"\d+%?", text), text  # whole points and percentages
    for m in moves:
        page.click(f"#analysis-moves [data-move='{m['move']}']")
        current = page.locator("#analysis-current")
        expect(current).to_contain_text(f"{m['move'] + 1}.")
        best_shown = current.locator(".an-best-pair").count() > 0
        if m["label"] in ("best", "good"):
            assert not best_shown, (m, current.inner_text())  # "★ best" never beside another "Best:" card
            assert "lost" not in current.locator(".an-tag").inner_text() or m["label"] == "good"
        else:
            assert best_shown == (m["best"] != m["card"]), m
            expect(current.locator(".an-tag")).to_contain_text("lost")
        values = current.locator(".an-card-value").all_inner_texts()
        assert all(re.search(r" (\d+[⅓⅔]?|[⅓⅔])$", v) for v in values), values  # thirds, as the board counts


@pytest.mark.slow
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
    game_id = local_http.get(f"{server.url}/api/players/alba").json()["recent_games"][0]["id"]

    page = contexts(DESKTOP)
    _login(page, server.url, "alba")
    page.goto(f"{server.url}/#/replay/{game_id}")
    expect(page.locator("#analysis-status")).to_have_text("Analysis in progress (position 1 in the queue)")
    expect(page.locator("#analysis .an-nobot")).to_be_visible()
    _no_stray(page, "the analysis in progress")

    bot = AnalysisBot(server, BOT_TOKEN)
    job = bot.job()
    bot.answer(job)
    expect(page.locator("#analysis-accuracy")).to_be_visible(timeout=10_000)  # the page polls
    analysis = local_http.get(f"{server.url}/api/games/{game_id}/analysis",
                         headers={"Authorization": f"Bearer {tokens['alba']}"}).json()
    moves = analysis["moves"]
    expect(page.locator("#analysis-moves li")).to_have_count(len(moves))
    expect(page.locator("#analysis-graph polyline")).to_have_count(1)
    players = analysis["players"]
    text = page.inner_text("#analysis-accuracy")
    for p in players:
        assert f"{p['accuracy']:.1f}%" in text
    _no_stray(page, "the analysis")
    _consistent(page, moves)

    # Jump to a mistake from the move list: the replay steps there, the card is marked, the best shown beside.
    k = next(m["move"] for m in moves if m["label"] in ("mistake", "blunder") and m["move"] >= 14)
    page.click(f"#analysis-moves [data-move='{k}']")
    expect(page.locator("#replay-counter")).to_have_text(f"Move {k + 1} / {len(moves)}")
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
    phone.select_option("#lang", "sl")
    expect(phone.locator("#analysis h2")).to_have_text("Analiza")
    expect(phone.locator("#analysis-accuracy")).to_contain_text("natančnost")
    counts = phone.locator("#analysis-accuracy .an-count").evaluate_all("els => els.map(e => e.textContent)")
    for text in counts:  # Slovenian plurals: 1 napaka, 2 napaki, 3-4 napake, 5+ napak
        m = re.search(r"(\d+) (\S+(?: \S+)?)$", text)
        assert m, text
        n, word = int(m[1]), m[2]
        if word.endswith(("napaka", "napaki", "napake", "napak")):
            form = {1: "napaka", 2: "napaki", 3: "napake", 4: "napake"}.get(n % 100, "napak")
            assert word.endswith(form), text
    phone.click("#analysis .an-metric:not(.on)")  # the chance to win, written as the page's language writes it
    axis = phone.locator("#analysis-graph .an-axis").evaluate_all("els => els.map(e => e.textContent)")
    assert [x for x in axis if "%" in x] == ["0\u00a0%", "50\u00a0%", "100\u00a0%"], axis  # "50 %", as accuracy
    phone.click("#analysis .an-metric:not(.on)")
    _shot(phone, "analysis-phone-sl", PHONE["width"])
    phone.goto(f"{server.url}/#/player/boris")
    seat = 0 if local_http.get(f"{server.url}/api/games/{game_id}/replay",
                          headers={"Authorization": f"Bearer {tokens['boris']}"}).json()["players"][0] == "boris" else 1
    # Slovenian writes a decimal comma and a space before the percent sign (issue #45).
    expect(phone.locator("#profile-totals")).to_contain_text(
        re.compile(rf"{players[seat]['accuracy']:.1f}".replace(".", ",") + r"\s%"))

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


def _thirds(text: str) -> int:
    """Return the thirds written as players count points: "6⅓" -> 19, "⅔" -> 2."""
    m = re.fullmatch(r"(\d*)([⅓⅔]?)", text)
    assert m, text
    return 3 * int(m[1] or 0) + {"": 0, "⅓": 1, "⅔": 2}[m[2]]


@pytest.mark.slow
def test_the_analysis_agrees_with_itself_in_kifameno(pg_url: str, start_server: Callable[..., LiveServer],
                                                      contexts: Callable[..., Page]) -> None:
    """Issue #43: "best" only when no card is valued higher, cards best first (fewest points in Kifameno), the
    note says a loss is more points there, one number format (thirds) on the page, the counter names the card."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    tokens = {name: _register(server.url, name) for name in ("kira", "lojze")}
    a, b = Client(server.ws_url, tokens["kira"]), Client(server.ws_url, tokens["lojze"])
    a.send({"type": "create_table", "variant": "kifameno"})
    table_id = a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "waiting")["table"]["id"]
    b.send({"type": "join_table", "table_id": table_id})
    play_until_over(a, b, table_id)
    game_id = local_http.get(f"{server.url}/api/players/kira").json()["recent_games"][0]["id"]
    bot = AnalysisBot(server, BOT_TOKEN)
    job = bot.job()
    analysis = fake_analysis(job["record"])
    # A move the engine marked "best" while another card's estimate is a little better (fewer points), within
    # its noise: as the real analysis did before; the estimates are not whole thirds.
    k = next(m["move"] for m in analysis["moves"] if m["label"] == "best" and len(m["cards"]) >= 3 and m["move"] >= 6)
    move = analysis["moves"][k]
    values = [19.4, 19.1, 25.2] + [27.0] * (len(move["cards"]) - 3)
    played = move["card"]
    others = [c["card"] for c in move["cards"] if c["card"] != played]
    move["cards"] = [{"card": card, "value": v, "win": 0.5} for card, v in zip([played, *others], values, strict=True)]
    move.update(value=19.4, best_value=19.4, loss=0.0, best=played)
    bot.client.send({"type": "analysis", "job": job["job"], "game_id": job["game_id"], "version": "test-1",
                     "analysis": analysis})

    for viewport, lang in ((DESKTOP, "en"), (PHONE, "sl")):
        page = contexts(viewport)
        _login(page, server.url, "kira")
        page.select_option("#lang", lang)
        page.goto(f"{server.url}/#/replay/{game_id}")
        expect(page.locator("#analysis-accuracy")).to_be_visible(timeout=10_000)
        page.click(f"#analysis-moves [data-move='{k}']")
        counter = "Poteza" if lang == "sl" else "Move"
        expect(page.locator("#replay-counter")).to_have_text(f"{counter} {k + 1} / {len(analysis['moves'])}")
        shown = page.locator("#replay-next-move .card").first.get_attribute("data-card")
        assert shown == played  # "Move k+1" shows the (k+1)-th card
        current = page.locator("#analysis-current")
        good = "dobra" if lang == "sl" else "good"
        expect(current.locator(".an-tag")).to_contain_text(good)  # another card is valued better: not "best"
        cards = current.locator(".an-card-value")
        texts = cards.all_inner_texts()
        figures = [_thirds(text.rsplit(" ", 1)[1]) for text in texts]
        assert figures == sorted(figures), texts  # best first: the fewest points in Kifameno
        assert "best" in (cards.first.get_attribute("class") or "")
        assert "played" in (cards.nth(1).get_attribute("class") or "")
        panel = page.locator("#analysis").inner_text()
        assert not re.search(r"\d\.\d", re.sub(r"[\d.]+%", "", panel)), panel  # points in thirds: no "6.44" by "6⅓"
        note = page.locator("#analysis-explain")
        expect(note).to_be_visible()
        if lang == "en":
            expect(note).to_contain_text("more")
            expect(note).not_to_contain_text("fewer than")
        else:
            expect(note).to_contain_text("več lahko")
        _shot(page, f"analysis-kifameno-{'desktop' if viewport is DESKTOP else 'phone'}-{lang}", viewport["width"])
    a.close()
    b.close()
    bot.close()
