"""The invite link in a real browser, under the security headers: join by the link, watch only with it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, ConsoleMessage, expect

from tests.conftest import LiveServer
from tests.web.conftest import DESKTOP
from tests.web.test_browser import _guest

pytestmark = pytest.mark.browser


def test_the_invite_link_seats_the_guest_and_lets_others_watch_only_with_it(
        browser: Browser, pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """``#/join/ID/CODE`` seats the invited guest; a third page with the link watches; without it, refused.
    No page breaks the Content-Security-Policy (no console error)."""
    server = start_server(pg_url)
    console: list[str] = []

    def errors(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            console.append(msg.text)

    a = _guest(browser, server.url, DESKTOP)
    a.on("console", errors)
    a.select_option("#opponent", "invite")
    a.click("#create")
    link = a.locator("#invite-link").inner_text()
    assert "/#/join/" in link
    table_id = link.split("/#/join/")[1].split("/")[0]

    b = _guest(browser, server.url, DESKTOP)
    b.on("console", errors)
    b.goto(link)
    expect(b.locator("#my-hand .card")).to_have_count(10)
    expect(a.locator("#my-hand .card")).to_have_count(10)

    c = _guest(browser, server.url, DESKTOP)  # the table is full: the same link lets a third person watch
    c.on("console", errors)
    c.goto(link)
    expect(c.locator("#spectating")).to_be_visible()  # a spectator: no hand of its own
    expect(c.locator("#my-hand .card.legal")).to_have_count(0)

    d = _guest(browser, server.url, DESKTOP)  # no invite: the private table is not shown
    d.goto(f"{server.url}/#/table/{table_id}")
    expect(d.locator("#toast")).to_contain_text("invite")
    expect(d.locator("#spectating")).to_have_count(0)
    assert not [m for m in console if "Content Security Policy" in m or "Refused" in m], console
