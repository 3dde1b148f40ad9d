"""Browser fixtures for the web tests: Debian's headless Chromium and fresh contexts, and the screen sizes."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.conftest import ROOT, LiveServer, wait_for_bots
from tests.forkserver import fork_module

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(os.environ.get("TRESET_SCREENSHOTS", ROOT / "test-artifacts" / "screenshots"))
DESKTOP = {"width": 1200, "height": 850}
PHONE = {"width": 390, "height": 844}
SHOT_LANGS = ("en", "it", "hr")
"""The languages a page's screenshots are taken in by :func:`shots_in_languages`."""


def shots_in_languages(page: Page, name: str, desktop: dict[str, int] = DESKTOP) -> None:
    """Save the page at ``desktop`` and phone size in English, Italian and Croatian as ``NAME-SIZE-LANG.png``
    (nothing may stick out sideways); leave it in English at ``desktop`` size."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang in SHOT_LANGS:
        page.select_option("#lang", lang)
        for size, viewport in (("desktop", desktop), ("phone", PHONE)):
            page.set_viewport_size(viewport)  # type: ignore[arg-type]
            page.wait_for_timeout(150)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"], f"{name} ({lang}, {size}): {width}px wide on a {viewport['width']}px screen"
            page.screenshot(path=str(SHOTS / f"{name}-{size}-{lang}.png"), full_page=True, animations="disabled")
    page.select_option("#lang", "en")
    page.set_viewport_size(desktop)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """A headless Debian Chromium (no browser download), one for a module.

    Not one for the test process: Playwright's synchronous API keeps an event loop running in the thread
    while it is open, and the tests after it that call ``asyncio.run`` would fail.
    """
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is required: apt-get install chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-background-networking", "--disable-gpu", "--no-first-run",
            "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Browser]:
    """The test process's Chromium; every page the test opened is closed after it.

    A page left open would stay connected and redraw on every lobby update of a server a module shares, for
    the rest of the module, and take its share of the CPU from the tests after it.
    """
    yield chromium
    for context in chromium.contexts:
        context.close()


@pytest.fixture
def contexts(browser: Browser) -> Callable[..., Page]:
    """Return a function opening a page in a new browser context (closed after the test by ``browser``)."""

    def new_page(viewport: dict[str, int] = DESKTOP) -> Page:
        return browser.new_context(viewport=viewport).new_page()

    return new_page


@contextlib.contextmanager
def real_bot(server: LiveServer, tmp: Path, token: str) -> Iterator[None]:
    """Run one real bot (``treset-agent serve``, 4 tables at once) for ``server`` while the block runs.

    It analyses no deal (``--analysis 0``): the pages that show analyses have tests of their own, and an
    analysis would take a core for seconds after each deal and delay the bot's exit.
    """
    agent = fork_module("agent.cli", ["serve", "--server", server.url, "--capacity", "4", "--analysis", "0"],
                        {**os.environ, "TRESET_BOT_TOKEN": token}, stdout=tmp / "agent.log")
    try:
        wait_for_bots(server.url, 1, agent, tmp / "agent.log")
        yield
    finally:
        agent.terminate()
        agent.wait(15)
