"""The lobby's four-player choices in a real Chromium against the real server (issues #46/#47).

A scripted bot announces a ladder of three four-player levels (two rated, one not). The page offers them, each
named with its rating ("unrated" for the other), in the play panel, in the new-table form and in the waiting room of
an open table, and the level picked is the level of the seat the server fills. Quick pairing for four takes a
friend's name (`partner`): two players who name each other sit across. Screenshots (``lobby-four-*``): desktop and
phone, English and Italian.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.conftest import LiveServer
from tests.server.client import Client, guest_token
from tests.web.conftest import DESKTOP, PHONE, SHOTS
from tests.web.test_four_live import RECORD

pytestmark = pytest.mark.browser
BOT_TOKEN = "lobby-four-bot-token-0123456789"
LADDER = [{"name": "beginner", "time_ms": 50, "rating": 1180}, {"name": "rules", "time_ms": 100, "rating": None},
          {"name": "master", "time_ms": 1000, "rating": 1720}]
LABELS = {"en": ["beginner · ≈1180", "rule-based · unrated", "master · ≈1720"],
          "it": ["principiante · ≈1180", "a regole · senza valutazione", "maestro · ≈1720"]}
STAR = "★ "  # before the level nearest the player's rating (1500 for a newcomer: master, ≈1720, of this ladder)
WAIT_MS = 15_000

# The levels of a table's seats as the page holds the table the server sent.
LEVELS = """async (id) => {
  const { live } = await import("/js/live.js");
  return live.tables[id]?.players.map((p) => p && p.level);
}"""


@pytest.fixture
def site(pg_url: str, start_server: Callable[..., LiveServer]) -> Iterator[LiveServer]:
    """A server with a scripted bot that announces :data:`LADDER` (it seats bots; their turns are not answered)."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    bot = Client(server.ws_url, BOT_TOKEN)
    bot.send({"type": "bot_hello", "levels": ["easy"], "level_info": [{"name": "easy", "time_ms": 100, "rating": 1450}],
              "capacity": 20, "partnership_levels": LADDER})
    yield server
    bot.close()


def _guest(browser: Browser, url: str, viewport: dict[str, int] = DESKTOP) -> Page:
    """Sign in a guest, wait for the lobby to name the four-player levels, record what the page sends."""
    page = browser.new_context(viewport=viewport).new_page()  # type: ignore[arg-type]
    page.goto(f"{url}/")
    page.click("#guest")
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'on'", timeout=WAIT_MS)
    page.evaluate(RECORD)
    page.click("#pick-partnership")
    expect(page.locator("#bot-levels4 button:not([disabled])")).to_have_count(3, timeout=WAIT_MS)
    return page


def _sent(page: Page, kind: str) -> list[dict[str, Any]]:
    return [m for m in page.evaluate("window.__sent") if m["type"] == kind]


def _table_id(page: Page) -> str:
    page.wait_for_url("**/#/table/*", timeout=WAIT_MS)
    return page.url.split("#/table/")[1]


def _shots(page: Page, name: str, check: Callable[[str], None] | None = None) -> None:
    """Save the page at desktop and phone size in English and Italian (nothing wider than the screen); ``check``
    runs in each language; the page is left in English at desktop size."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang in ("en", "it"):
        page.select_option("#lang", lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        if check:
            check(lang)
        for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(viewport)  # type: ignore[arg-type]
            page.wait_for_timeout(150)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"], f"{name} ({lang}, {size}): {width}px wide on a {viewport['width']}px screen"
            page.screenshot(path=str(SHOTS / f"lobby-four-{name}-{size}-{lang}.png"), full_page=True,
                            animations="disabled")
    page.select_option("#lang", "en")
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]


def test_the_levels_are_offered_with_their_ratings_and_reach_the_seats(browser: Browser, site: LiveServer) -> None:
    """The play panel's buttons and the new-table form's list name each level with its rating or "unrated"; the
    form's choice (master) is every bot seat's level at the table the server opens."""
    page = _guest(browser, site.url)

    def labelled(lang: str) -> None:
        expect(page.locator("#bot-levels4 button")).to_have_text([*LABELS[lang][:2], STAR + LABELS[lang][2]])
        expect(page.locator("#bot-levels4 [data-suggested]")).to_have_attribute("data-quick4", "master")
        expect(page.locator("#strength-note4")).to_be_visible()

    _shots(page, "panel", labelled)
    page.select_option("#variant", "partnership")
    page.select_option("#opponent4", "bot")
    expect(page.locator("#level4 option")).to_have_text(LABELS["en"])
    page.select_option("#level4", "master")
    page.click("#create")
    table_id = _table_id(page)
    assert _sent(page, "create_table")[-1]["bot_level"] == "master"
    page.wait_for_function(f"async () => (await ({LEVELS})('{table_id}'))?.[1] === 'master'", timeout=WAIT_MS)
    assert page.evaluate(LEVELS, table_id) == [None, "master", "master", "master"]
    page.context.close()


def test_the_star_waits_for_the_players_rating(browser: Browser, site: LiveServer) -> None:
    """Right after sign-in the lobby is drawn before the player's ratings arrive: neither row stars a level (a guess
    at 1500 would flash the wrong one) until they do (#43's leftover)."""
    page = browser.new_context(viewport=DESKTOP).new_page()  # type: ignore[arg-type]
    held: list[Route] = []
    page.route("**/api/players/*", lambda route: held.append(route))  # the profile (and its ratings) waits until released
    page.goto(f"{site.url}/")
    page.click("#guest")
    expect(page.locator("#bot-levels [data-quick='tressette-easy']")).to_be_enabled(timeout=WAIT_MS)
    expect(page.locator("#bot-levels [data-suggested]")).to_have_count(0)
    page.click("#pick-partnership")
    expect(page.locator("#bot-levels4 button:not([disabled])")).to_have_count(3, timeout=WAIT_MS)
    expect(page.locator("#bot-levels4 [data-suggested]")).to_have_count(0)
    assert held, "the page asked for the player's ratings"
    for route in held:
        route.continue_()
    expect(page.locator("#bot-levels4 [data-suggested]")).to_have_attribute("data-quick4", "master")
    page.click("#pick-tressette")
    expect(page.locator("#bot-levels [data-suggested]")).to_have_attribute("data-quick", "tressette-easy")
    page.context.close()


def test_the_waiting_room_seats_a_bot_of_the_level_chosen(browser: Browser, site: LiveServer) -> None:
    """An open table's creator picks a level (named with its rating) for each free seat; each seat gets its own."""
    page = _guest(browser, site.url)
    page.click("#pick4-0")
    page.click("#open4")
    expect(page.locator("#waiting4")).to_be_visible(timeout=WAIT_MS)
    table_id = _table_id(page)
    _shots(page, "waiting", lambda lang: expect(page.locator("#seat-bot-level option")).to_have_text(LABELS[lang]))
    for seat, level in ((1, "master"), (3, "beginner"), (2, "rules")):
        page.select_option("#seat-bot-level", level)
        page.click(f"[data-seat-bot='{seat}']")
        expect(page.locator(f"[data-seat-bot='{seat}']")).to_have_count(0, timeout=WAIT_MS)
    assert [(m["seat"], m["level"]) for m in _sent(page, "seat_bot")] == [(1, "master"), (3, "beginner"), (2, "rules")]
    page.wait_for_function(f"async () => (await ({LEVELS})('{table_id}'))?.every((lv, s) => s === 0 || lv)",
                           timeout=WAIT_MS)
    assert page.evaluate(LEVELS, table_id) == [None, "master", "rules", "beginner"]
    page.context.close()


def test_two_friends_who_name_each_other_sit_across(browser: Browser, site: LiveServer) -> None:
    """A and B each name the other in quick pairing for four (the seek carries ``partner``); two more seekers come;
    the table made seats A and B across, as partners."""
    a = _guest(browser, site.url)
    b = _guest(browser, site.url, PHONE)
    names = [page.locator("#username").inner_text() for page in (a, b)]
    for page, friend in ((a, names[1]), (b, names[0])):
        page.click("#pick4-0")
        page.fill("#seek-partner", f" {friend} ")  # spaces around a name typed are not part of it
        page.click("[data-seek='partnership-0']")
    assert _sent(a, "seek") == [{"type": "seek", "game": "partnership", "target": 0, "partner": names[1]}]
    assert _sent(b, "seek") == [{"type": "seek", "game": "partnership", "target": 0, "partner": names[0]}]
    expect(b.locator("#seek-partner-named")).to_contain_text(names[0], timeout=WAIT_MS)
    expect(b.locator("#seeking-title")).to_have_text("Looking for players…")
    expect(b.locator("#seek-figures")).to_contain_text("Waiting for a table of four: 2 of 4 here")
    SHOTS.mkdir(parents=True, exist_ok=True)
    b.screenshot(path=str(SHOTS / "lobby-four-seeking-partner-phone-en.png"), full_page=True)
    others = [Client(site.ws_url, guest_token(site.url)[0]) for _ in range(2)]
    for c in others:
        c.send({"type": "seek", "game": "partnership", "target": 0})
    table_id = _table_id(a)
    assert _table_id(b) == table_id
    you = {}
    for page, name in zip((a, b), names, strict=True):
        page.wait_for_function(f"async () => {{ const {{ live }} = await import('/js/live.js'); "
                               f"return live.tables['{table_id}']?.you != null; }}", timeout=WAIT_MS)
        you[name] = page.evaluate(f"async () => (await import('/js/live.js')).live.tables['{table_id}'].you")
    assert (you[names[0]] + 2) % 4 == you[names[1]], you  # across: partners
    for c in others:
        c.close()
    a.context.close()
    b.context.close()
