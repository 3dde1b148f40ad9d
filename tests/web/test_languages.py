"""The page in Italian and Croatian in a real headless Chromium (issue #45).

The lobby, the rules, a table in play, a deal's summary, an analysis and the puzzles, each read in Italian and
in Croatian on a desktop and a phone: no raw key, no English word (names allowed), nothing wider than the screen
and no text cut off; numbers with a decimal comma, cards named and lettered as players there say them. The first
visit follows the browser's languages; the header's switch is remembered here and by the account.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

from tests import local_http
from tests.conftest import LiveServer
from tests.server.analysis_bot import AnalysisBot
from tests.server.client import Client, cards_played, is_table, my_turn, play_cards, play_until_over
from tests.web.conftest import DESKTOP, PHONE, SHOTS
from tests.web.test_analysis_page import _no_stray
from tests.web.test_language_keys import _english, _pack
from tests.web.test_puzzles_page import PASSWORD, _puzzles

pytestmark = pytest.mark.browser
BOT_TOKEN = "languages-page-bot-token"
# Words that stand on any page: the players' names, the site's, the keys named in the replay's hint.
NAMES = {"alba", "boris", "treset", "home", "end"}
RANK = {"it": r"(tre|due|asso|re|cavallo|fante|sette|sei|cinque|quattro) di (coppe|denari|spade|bastoni)",
        "hr": r"(trica|duja|as|kralj|konj|fanat|sedmica|šestica|petica|četvorka) (kupa|dinara|špada|baštona)"}
# Text that is cut off: its box hides what does not fit (an ellipsis, hidden overflow) and it does not fit.
CUT = """() => [...document.querySelectorAll('body *')].filter((e) => {
  if (!e.offsetParent || e.closest('.sr-only, svg, .scroll')) return false;
  const s = getComputedStyle(e);
  const hides = s.textOverflow === 'ellipsis' || ['hidden', 'clip'].includes(s.overflowX);
  return hides && e.textContent.trim() && e.scrollWidth > e.clientWidth + 1;
}).map((e) => `${e.tagName}#${e.id}.${e.className}: ${e.textContent.trim().slice(0, 60)}`)"""


def _words(texts: list[str]) -> set[str]:
    return {w.lower() for text in texts for w in re.findall(r"[^\W\d_]{3,}", text)}


def _english_words(lang: str) -> set[str]:
    """Return the words of the English page that the language ``lang`` never uses itself."""
    parts = ("strings", "rules", "puzzles", "themes")
    english = _words([x for p in parts for x in _english(p).values()])
    own = _words([x for p in parts for x in _pack(lang, p).values()])
    return english - own - NAMES


def _read(page: Page, lang: str, where: str) -> None:
    """Read the page as a player speaking ``lang`` would, at desktop and phone size; save both screenshots."""
    expect(page.locator("html")).to_have_attribute("lang", lang)
    english = _english_words(lang)
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)  # type: ignore[arg-type]
        page.wait_for_timeout(150)
        text = page.locator("body").inner_text()
        _no_stray(page, f"{where} {lang} {size}")
        key = re.search(r"\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z][A-Za-z]*\b", text)
        assert not key, f"{where} {lang} {size}: a raw key {key[0]!r} on the page"
        found = sorted({w for w in re.findall(r"[^\W\d_]{3,}", text) if w.lower() in english})
        assert not found, f"{where} {lang} {size}: English on the page: {found}"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{where} {lang} {size}: {width}px wide on a {viewport['width']}px screen"
        cut = page.evaluate(CUT)
        assert not cut, f"{where} {lang} {size}: text cut off: {cut}"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"lang-{where}-{size}-{lang}.png"), full_page=True, animations="disabled")
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]


def _in_both(page: Page, where: str, check: Callable[[str], None] | None = None) -> None:
    """Read the page in Italian, then in Croatian (switched in the header), then back to Italian."""
    for lang in ("it", "hr"):
        page.select_option("#lang", lang)
        if check:
            check(lang)
        _read(page, lang, where)
    page.select_option("#lang", "it")


def _login(page: Page, url: str, name: str) -> None:
    page.goto(f"{url}/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("#login")
    expect(page.locator("#whoami")).to_contain_text(name)


def _token(url: str, name: str) -> str:
    r = local_http.post(f"{url}/api/auth/login", json={"username": name, "password": PASSWORD}, timeout=10)
    r.raise_for_status()
    return str(r.json()["token"])


def _pair(url: str, ws_url: str) -> tuple[Client, Client, str]:
    a, b = Client(ws_url, _token(url, "alba")), Client(ws_url, _token(url, "boris"))
    a.send({"type": "create_table", "variant": "tressette"})
    table_id = a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "waiting")["table"]["id"]
    b.send({"type": "join_table", "table_id": table_id})
    return a, b, table_id


@pytest.mark.slow
def test_pages_in_italian_and_croatian(browser: Browser, pg_url: str,
                                       start_server: Callable[..., LiveServer]) -> None:
    """Lobby, rules, table, summary, analysis and puzzles read in Italian and Croatian, desktop and phone."""
    # Reading every page at two sizes in two languages takes a while on a busy machine: no move clock runs out.
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN, TRESET_MOVE_TIMEOUT_S="900")
    _puzzles(pg_url, server)  # alba and boris, and puzzles from their games
    a, b, analysed = _pair(server.url, server.ws_url)
    play_until_over(a, b, analysed)
    game_id = local_http.get(f"{server.url}/api/players/alba").json()["recent_games"][0]["id"]
    bot = AnalysisBot(server, BOT_TOKEN)
    bot.answer(bot.job())
    a2, b2, table_id = _pair(server.url, server.ws_url)
    play_cards(a2, b2, table_id, 7, watcher=b2)  # three tricks and a card: the opponent's card is on the table

    context = browser.new_context(viewport=DESKTOP, locale="it-IT")  # type: ignore[arg-type]
    page = context.new_page()
    _login(page, server.url, "alba")
    expect(page.locator("#nav-leaderboard")).to_have_text("Classifica")  # the browser's language, first visit

    # The lobby and the rules panel, with the cards' corner letters and names of each language.
    page.goto(f"{server.url}/#/lobby")
    expect(page.locator("#play-person")).to_be_visible()
    # Every table of yours is named, even one the page knows only from `welcome` (its finished first deal).
    names = page.locator("[data-own] td:first-child").all_inner_texts()
    assert names and all(n.strip() for n in names), f"a table of yours without a name: {names}"
    _in_both(page, "lobby")

    def letters(lang: str) -> None:
        king = page.locator("#rules-legend figure").nth(1)
        expect(king.locator("svg text").first).to_have_text({"it": "R", "hr": "K"}[lang])
        expect(page.locator("#rules-legend figure").nth(2).locator("svg text").first).to_have_text(
            {"it": "C", "hr": "Kn"}[lang])
        expect(king.locator("figcaption")).to_have_text({"it": "R = re", "hr": "K = kralj"}[lang])

    for lang in ("it", "hr"):
        page.select_option("#lang", lang)
        page.click("#rules-open")
        expect(page.locator("#rules-dialog")).to_be_visible()
        letters(lang)
        _read(page, lang, "rules")
        page.click("#rules-close")

    # A table in play: the page takes alba's seat from her socket.
    page.goto(f"{server.url}/#/table/{table_id}")
    expect(page.locator("#my-hand .card").first).to_be_visible(timeout=10_000)

    def named(lang: str) -> None:
        label = page.locator("#my-hand .card").first.get_attribute("aria-label") or ""
        assert re.fullmatch(RANK[lang], label), (lang, label)

    _in_both(page, "table", named)

    # Play the deal out from the page (boris by his socket): the summary.
    end, answered = time.time() + 120, -1
    while not page.locator("#summary").is_visible():
        assert time.time() < end, "the deal did not finish"
        legal = page.locator("#my-hand .card.legal")
        if legal.count():
            with contextlib.suppress(Exception):  # redrawn under the click: the next round tries again
                legal.first.click(timeout=500)
        with contextlib.suppress(TimeoutError):
            b2.recv(timeout=0.1)
        # boris answers the latest state he has seen (his turn may have come while the page was being read)
        last = next((m for m in reversed(b2.received) if is_table(m) and m["table"]["id"] == table_id), None)
        if last and my_turn(last) and cards_played(last) != answered:
            answered = cards_played(last)
            b2.send({"type": "play", "table_id": table_id, "card": last["table"]["view"]["legal"][0]})
    expect(page.locator("#summary")).to_contain_text("Giocate tutte le 20 prese.")  # played out, no clock ran out

    def pointed(lang: str) -> None:
        text = page.locator("#summary").inner_text()
        assert re.search({"it": r"(\d|⅓|⅔) punt[oi]\b", "hr": r"(\d|⅓|⅔) punt(a|ata)?\b"}[lang], text), text

    _in_both(page, "summary", pointed)

    # The analysis: percentages and losses with a decimal comma.
    page.goto(f"{server.url}/#/replay/{game_id}")
    expect(page.locator("#analysis-accuracy")).to_be_visible(timeout=10_000)

    def commas(lang: str) -> None:
        text = page.locator("#analysis-accuracy").inner_text()
        assert re.search(r"\d+,\d\s?%", text) and not re.search(r"\d\.\d", text), text

    _in_both(page, "analysis", commas)

    # The puzzles.
    page.goto(f"{server.url}/#/puzzles")
    expect(page.locator("#puzzle-why")).to_be_visible(timeout=10_000)
    _in_both(page, "puzzles")
    for c in (a, b, a2, b2):
        c.close()
    bot.close()


def test_language_follows_the_browser_then_the_choice(browser: Browser, pg_url: str,
                                                       start_server: Callable[..., LiveServer]) -> None:
    """A first visit speaks the browser's first language the page has (else English); a pick is remembered by
    this browser and by the account, which brings it back when signing in elsewhere."""
    server = start_server(pg_url)
    for locale, lang, lobby in (("hr-HR", "hr", "Predvorje"), ("it-CH", "it", "Sala"), ("de-DE", "en", "Lobby"),
                                ("sl-SI", "sl", "Preddverje")):
        page = browser.new_context(locale=locale).new_page()
        page.goto(f"{server.url}/")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("#lang")).to_have_value(lang)
        page.click("#guest")
        expect(page.locator("#signout")).to_be_visible()
        expect(page.locator("#nav-lobby")).to_have_text(lobby)
        page.context.close()

    page = browser.new_context(locale="hr-HR").new_page()
    page.goto(f"{server.url}/")
    page.fill("input[name=username]", "ivana")
    page.fill("input[name=password]", PASSWORD)
    page.click("#register")
    expect(page.locator("#whoami")).to_contain_text("ivana")
    expect(page.locator("#nav-lobby")).to_have_text("Predvorje")
    token = page.evaluate("localStorage.getItem('treset.token')")
    me = lambda: local_http.get(f"{server.url}/api/me", headers={"Authorization": f"Bearer {token}"}).json()  # noqa: E731
    deadline = time.time() + 10
    while me().get("lang") != "hr":  # a new account takes the page's language
        assert time.time() < deadline, (token, me())
        time.sleep(0.1)
    page.select_option("#lang", "it")
    expect(page.locator("#nav-lobby")).to_have_text("Sala")
    page.reload()
    expect(page.locator("#nav-lobby")).to_have_text("Sala")  # remembered by this browser
    while me().get("lang") != "it":
        assert time.time() < deadline, (token, me())
        time.sleep(0.1)

    other = browser.new_context(locale="en-GB").new_page()  # another device: English until signed in
    other.goto(f"{server.url}/")
    expect(other.locator("#guest")).to_have_text("Play as guest")
    _login(other, server.url, "ivana")
    expect(other.locator("#nav-lobby")).to_have_text("Sala")
    expect(other.locator("html")).to_have_attribute("lang", "it")
