"""Quick pairing in a real Chromium: two browsers paired in a click, the seeking panel (desktop and phone, English
and Slovenian), Cancel, and the bot offer at the player's level."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.bot.test_bot_games import BOT_TOKEN, start_agent  # noqa: F401 - a fixture
from tests.conftest import LiveServer
from tests.forkserver import ForkedProcess
from tests.web.conftest import DESKTOP, PHONE, SHOTS

pytestmark = pytest.mark.browser


def _guest(browser: Browser, url: str, viewport: dict[str, int], lang: str = "en") -> Page:
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(f"{url}/")
    page.click("#guest")
    expect(page.locator("#play-person")).to_be_visible()
    if lang != "en":
        page.select_option("#lang", lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
    return page


def _seek(page: Page, variant: str, target: int) -> None:
    """Look for a person: the game and the format are chosen in the play panel first (issue #43)."""
    page.click(f"#pick-{variant}")
    page.click(f"#pick-{target}")
    page.click(f"[data-seek='{variant}-{target}']")


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _within(text: str) -> int:
    """The rating distance the seeking panel says opponents may be within."""
    found = re.search(r"within ±(\d+)", text)
    assert found, text
    return int(found.group(1))


def test_two_browsers_are_paired_in_one_click(browser: Browser, pg_url: str,
                                              start_server: Callable[..., LiveServer]) -> None:
    """A (desktop, English) seeks and waits; B (phone, Slovenian) tries another format, cancels, then pairs with A."""
    server = start_server(pg_url)
    a = _guest(browser, server.url, DESKTOP)
    b = _guest(browser, server.url, PHONE, "sl")
    _shot(a, "pairing-lobby-desktop-en")
    _shot(b, "pairing-lobby-phone-sl")
    _seek(a, "tressette", 0)
    expect(a.locator("#seeking")).to_contain_text("Looking for an opponent")
    expect(a.locator("#seek-figures")).to_contain_text("Nobody else is waiting")
    seek_range = a.locator("#seek-range")
    expect(seek_range).to_contain_text(re.compile(r"rating 1500: opponents within ±\d+"))
    first = _within(seek_range.inner_text())
    expect(seek_range).not_to_contain_text(f"±{first}")  # the range widens as the wait goes on
    assert 200 <= first < _within(seek_range.inner_text())
    expect(a.locator("#bot-offer")).to_have_count(0)  # no offer before its time (30 s)
    _seek(b, "kifameno", 11)
    expect(b.locator("#seeking")).to_contain_text("Iščemo nasprotnika")
    expect(b.locator("#seeking")).to_contain_text("Do 11")
    _shot(a, "pairing-seeking-desktop-en")
    _shot(b, "pairing-seeking-phone-sl")
    b.click("#cancel-seek")
    expect(b.locator("#play-person")).to_be_visible()
    expect(b.locator("#seeking")).to_have_count(0)
    _seek(b, "tressette", 0)
    for page in (a, b):  # both are taken to the new table, its deal dealt
        expect(page.locator("#my-hand .card")).to_have_count(10, timeout=15000)
    assert a.url.split("#/table/")[1] == b.url.split("#/table/")[1]
    _shot(b, "pairing-paired-phone-sl")


def test_the_bot_offer_at_the_players_level(browser: Browser, pg_url: str, start_server: Callable[..., LiveServer],
                                            start_agent: Callable[[LiveServer], ForkedProcess]  # noqa: F811
                                            ) -> None:
    """After the offer's delay (a second here) the seeker may play the bot nearest its rating; the seek then ends."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN, TRESET_BOT_OFFER_S="1")
    start_agent(server)
    a = _guest(browser, server.url, PHONE)
    expect(a.locator("[data-suggested]")).to_have_count(1)  # one suggested level for the game chosen
    _seek(a, "kifameno", 0)
    expect(a.locator("#bot-offer")).to_be_visible(timeout=5000)
    expect(a.locator("#seeking")).to_contain_text("Looking for an opponent")  # the seek stays while offered
    _shot(a, "pairing-bot-offer-phone-en")
    a.select_option("#lang", "sl")
    expect(a.locator("#bot-offer")).to_contain_text("Igraj proti robotu")
    _shot(a, "pairing-bot-offer-phone-sl")
    a.set_viewport_size(DESKTOP)
    _shot(a, "pairing-bot-offer-desktop-sl")
    a.click("#bot-offer")
    expect(a.locator("#my-hand .card")).to_have_count(10, timeout=15000)
    a.goto(f"{server.url}/#/lobby")
    expect(a.locator("#play-person")).to_be_visible()  # the seek ended when the bot's game began
