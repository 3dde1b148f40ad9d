"""The README's screenshot of a table, written on every run so that it shows the page as it is.

A guest plays the easy bot in real headless Chromium against a real server and a real bot; a few tricks
in, at the moment a trick is held on the table with both cards, the page is saved at 1280x800 to
``docs/screenshot-table.png`` (the README's picture) and beside the other screenshots.
"""

from __future__ import annotations

import contextlib
import json
import struct
import time
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.bot.test_bot_games import BOT_TOKEN
from tests.conftest import ROOT, LiveServer, launch_server
from tests.web.conftest import SHOTS, real_bot

pytestmark = [pytest.mark.browser]
README_SHOT = ROOT / "docs" / "screenshot-table.png"
VIEWPORT = {"width": 1280, "height": 800}
WAIT_MS = 30_000
TRICKS_FIRST = 3
"""Tricks taken before the picture: a few cards won on each side, a hand still full."""


@pytest.fixture(scope="module")
def site(make_pg_db: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server on PostgreSQL with one real bot."""
    tmp = tmp_path_factory.mktemp("readme")
    server = launch_server(make_pg_db(), tmp, TRESET_BOT_TOKEN=BOT_TOKEN)
    with real_bot(server, tmp, BOT_TOKEN):
        yield server
    server.stop()


def _png_size(data: bytes) -> tuple[int, int]:
    """Return a PNG's width and height from its header (the IHDR chunk)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _held_trick_after(page: Page, tricks: int, seconds: float = 120) -> None:
    """Play the first playable card until ``tricks`` tricks were taken and the next one is held on the table."""
    taken = 0
    was_held = False
    deadline = time.time() + seconds
    while time.time() < deadline:
        held = page.locator("#trick.held .card").count() == 2
        if held and taken >= tricks:
            return
        if was_held and not held:
            taken += 1
        was_held = held
        if not held:
            cards = page.locator("#my-hand .card.legal")
            if cards.count():
                with contextlib.suppress(Exception):  # the page re-rendered under the click: try again
                    cards.first.click(timeout=1000)
        time.sleep(0.03)
    pytest.fail(f"no trick held on the table after {taken} tricks")


def test_the_readme_shows_a_table_as_it_is(browser: Browser, site: LiveServer) -> None:
    """A Tressette table against the bot, a trick held with both cards, saved as the README's picture."""
    context = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
    context.add_init_script(f"localStorage.setItem('treset.lang', {json.dumps('en')});")
    page = context.new_page()
    page.goto(f"{site.url}/")
    page.click("#guest")
    button = page.locator('[data-quick="tressette-easy"]')
    expect(button).to_be_enabled(timeout=WAIT_MS)
    button.click()
    expect(page.locator("#my-hand .card")).to_have_count(10, timeout=WAIT_MS)
    expect(page.locator("#game-name")).to_have_text("Tressette")

    _held_trick_after(page, TRICKS_FIRST)
    expect(page.locator("#trick .card.winner")).to_have_count(1)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= VIEWPORT["width"], f"the table is {width}px wide on a {VIEWPORT['width']}px screen"
    page.evaluate("window.scrollTo(0, 0)")  # a click may have scrolled the hand into view: the page from its top
    data = page.screenshot(animations="disabled")
    README_SHOT.write_bytes(data)
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "readme-table-desktop-en.png").write_bytes(data)
    assert _png_size(README_SHOT.read_bytes()) == (VIEWPORT["width"], VIEWPORT["height"])
