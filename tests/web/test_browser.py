"""The web client in a real headless Chromium against a real server (and a real bot)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.bot.test_bot_games import BOT_TOKEN, start_agent  # noqa: F401 - a fixture
from tests.conftest import LiveServer
from tests.forkserver import ForkedProcess
from tests.server.client import Client, guest_token
from tests.web.conftest import DESKTOP, PHONE, SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # 40 s or more in all


def _guest(browser: Browser, url: str, viewport: dict[str, int]) -> Page:
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(f"{url}/")
    page.click("#guest")
    expect(page.locator("#create")).to_be_visible()
    return page


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def _play_one(page: Page) -> bool:
    """Click a playable card if it is this page's turn; return True if it did."""
    cards = page.locator("#my-hand .card.legal")
    if cards.count() == 0:
        if page.locator("#trick.held").count():  # a taken trick stays up for people to read: skip it, as Esc does
            page.keyboard.press("Escape")
        return False
    try:
        cards.first.click(timeout=1000)
    except Exception:  # noqa: BLE001 - the page re-rendered under the click: try again next round
        return False
    return True


def test_two_browsers_play_a_whole_deal(browser: Browser, pg_url: str,
                                        start_server: Callable[..., LiveServer]) -> None:
    """Two guests in two contexts play each other by clicking only legal cards, to the summary."""
    print(f"screenshots: {SHOTS}")
    server = start_server(pg_url)
    a = _guest(browser, server.url, DESKTOP)
    b = _guest(browser, server.url, PHONE)
    # b's arrival re-draws a's lobby: a click that lands while it is redrawn is lost, so wait for it.
    expect(a.locator("#online")).to_contain_text("2 online")
    a.select_option("#variant", "kifameno")
    a.click("#create")
    expect(a.locator("#app")).to_contain_text("Waiting for an opponent")
    b.wait_for_selector("[data-join]")
    _shot(b, "lobby-phone")
    _shot(a, "waiting-desktop")
    b.click("[data-join]")
    expect(a.locator("#my-hand .card")).to_have_count(10)
    played = 0
    shot_taken = False
    deadline = time.time() + 120
    while time.time() < deadline and a.locator("#summary").count() == 0:
        for page in (a, b):
            if _play_one(page):
                played += 1
        if played >= 15 and not shot_taken:
            _shot(a, "table-desktop")
            _shot(b, "table-phone")
            shot_taken = True
        time.sleep(0.05)
    expect(a.locator("#summary")).to_be_visible()
    expect(b.locator("#summary")).to_be_visible()
    _shot(a, "summary-desktop")
    _shot(b, "summary-phone")
    assert played == 40
    text = a.locator("#summary").inner_text()
    assert "You win!" in text or "You lose." in text


def test_illegal_click_reload_and_language(browser: Browser, pg_url: str,
                                           start_server: Callable[..., LiveServer]) -> None:
    """A dimmed card is refused with a visible message; a reload restores the table; Slovenian works."""
    server = start_server(pg_url)
    a = _guest(browser, server.url, DESKTOP)
    b = _guest(browser, server.url, DESKTOP)
    a.click("#create")
    b.wait_for_selector("[data-join]")
    b.click("[data-join]")
    expect(a.locator("#my-hand .card")).to_have_count(10)
    # A double tap plays the card once: the second tap finds the hand waiting for the server, not a second move.
    leader = a if a.locator("#my-hand .card.legal").count() else b
    card = leader.locator("#my-hand .card.legal").first.get_attribute("data-card")
    leader.locator(f'#my-hand .card[data-card="{card}"]').dblclick()
    for page in (a, b):
        expect(page.locator("#trick .card")).to_have_count(1)
    leader.wait_for_timeout(500)  # a second play would be refused just after the first one's broadcast
    assert leader.locator("#toast").is_hidden(), leader.locator("#toast").inner_text()
    refused = False
    for _ in range(200):
        for page in (a, b):
            dim = page.locator("#my-hand .card.dim")
            if dim.count() > 0:
                dim.first.click()
                expect(page.locator("#toast")).to_contain_text("follow suit")
                refused = True
                break
            _play_one(page)
        if refused:
            break
        time.sleep(0.05)
    assert refused, "no position where a player had to follow suit"
    # While a taken trick is still shown, the hand leaves out the card just drawn: read it once the trick is gone.
    expect(a.locator("#trick.held")).to_have_count(0)
    hand_before = sorted(a.locator("#my-hand .card").evaluate_all("els => els.map(e => e.dataset.card)"))
    a.reload()
    expect(a.locator("#my-hand .card")).to_have_count(len(hand_before))
    assert sorted(a.locator("#my-hand .card").evaluate_all("els => els.map(e => e.dataset.card)")) == hand_before
    a.select_option("#lang", "sl")
    expect(a.locator("#leave")).to_have_text("Zapusti")
    a.fill("#chat-input", "<b>pozdrav</b>")
    a.press("#chat-input", "Enter")
    expect(b.locator("#chat")).to_contain_text("<b>pozdrav</b>")  # shown as text, never as markup
    assert b.locator("#chat b b").count() == 0


def test_guest_plays_the_bot(browser: Browser, pg_url: str, start_server: Callable[..., LiveServer],
                             start_agent: Callable[[LiveServer], ForkedProcess]) -> None:  # noqa: F811
    """A guest opens a bot table and plays a whole deal by clicking legal cards."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    start_agent(server)
    page = _guest(browser, server.url, DESKTOP)
    page.select_option("#opponent", "bot")
    page.select_option("#level", "easy")
    page.click("#create")
    deadline = time.time() + 120
    while time.time() < deadline and page.locator("#summary").count() == 0:
        _play_one(page)
        time.sleep(0.05)
    expect(page.locator("#summary")).to_be_visible()


def test_lobby_updates_keep_the_new_table_choices(browser: Browser, pg_url: str,
                                                  start_server: Callable[..., LiveServer]) -> None:
    """Choices made in the new-table form survive the live lobby updates that re-render the page."""
    server = start_server(pg_url)
    a = _guest(browser, server.url, DESKTOP)
    a.select_option("#variant", "kifameno")
    a.select_option("#opponent", "bot")
    a.select_option("#level", "strong")
    b = _guest(browser, server.url, PHONE)
    b.click("#create")
    expect(a.locator("[data-join]")).to_have_count(1)  # the lobby changed under a's form
    assert [a.locator(f"#{name}").input_value() for name in ("variant", "opponent", "level")] == \
        ["kifameno", "bot", "strong"]


def test_a_lobby_update_between_press_and_release_keeps_the_click(browser: Browser, pg_url: str,
                                                                   start_server: Callable[..., LiveServer]) -> None:
    """The lobby redraws on every update; one arriving while 'Open table' is held down waits for the release,
    so the click opens the table (before, the release landed on a new button and the click was lost)."""
    server = start_server(pg_url)
    a = _guest(browser, server.url, DESKTOP)
    expect(a.locator("#online")).to_contain_text("1 online")
    box = None
    deadline = time.monotonic() + 10
    while box is None and time.monotonic() < deadline:  # a redraw can replace the button as it is measured
        box = a.locator("#create").bounding_box()
    assert box is not None
    a.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    a.mouse.down()
    b = Client(server.ws_url, guest_token(server.url)[0])  # someone arrives: the lobby tells everyone
    b.wait_for(lambda m: m["type"] == "lobby" and m.get("online") == 2)
    a.wait_for_timeout(300)  # a's copy of the update has arrived too
    a.mouse.up()
    expect(a.locator("#app")).to_contain_text("Waiting for an opponent")
    b.wait_for(lambda m: m["type"] == "lobby" and any(t["status"] == "waiting" for t in m["tables"]))
    b.close()
