"""The reveal of the two cards drawn after each trick, in real headless Chromium against a real server on PostgreSQL.

Two guests play tricks against each other by clicking, a third watches. Every page records the WebSocket
messages it receives; after each trick the reveal must show exactly the draws of the server's ``trick``
event, with the right labels for each viewer, and go away afterwards. The deck (revealed when a player
leaves) replays the same moves in the rules package, which must draw the same cards, the winner first.
Each page's clock is Playwright's fake clock, paused: the reveal's 2.5 s pass only when the test says so.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest
from playwright.sync_api import Browser, FloatRect, Page, ViewportSize, expect

from tests.conftest import LiveServer
from tests.web.conftest import DESKTOP, PHONE, SHOTS
from tressette import Variant, card_name, parse_card, replay

pytestmark = pytest.mark.browser
TRICKS = 4  # tricks played (the stock holds 20 cards: each of them has draws)
WAIT_MS = 30_000  # generous: the machine may be busy
REVEAL_GONE_MS = 2500 + 300 + 200  # web/js/reveal.js: REVEAL_MS + FADE_MS, and a margin
TRICK_SHOWN_MS = 1300 + 400 + 50  # web/js/table.js: HOLD_MS + COLLECT_MS (the trick shown, then taken), a margin


@dataclass
class Viewer:
    """One browser page and the JSON messages its WebSocket received."""

    page: Page
    name: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)

    def tables(self) -> list[dict[str, Any]]:
        """Return the ``table`` messages received so far."""
        self.page.evaluate("1")  # lets Playwright deliver pending WebSocket events
        return [m for m in self.messages if m.get("type") == "table"]

    def wait_table(self, pred: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """Return the first received ``table`` message matching ``pred`` (waiting for it)."""
        deadline = time.time() + WAIT_MS / 1000
        while time.time() < deadline:
            found = [m for m in self.tables() if pred(m)]
            if found:
                return found[0]
            time.sleep(0.05)
        raise AssertionError(f"{self.name}: no table message {what}")

    def reveal(self) -> list[tuple[int, str, str]]:
        """Return the reveal's entries in order: (seat, card, label)."""
        return [(int(seat), card, label) for seat, card, label in self.page.locator("#draw-reveal .drawn").evaluate_all(
            "els => els.map(e => [e.dataset.seat, e.querySelector('.card').dataset.card,"
            " e.querySelector('figcaption').textContent])")]


def _viewer(chromium: Browser, url: str, viewport: dict[str, int],
            reduced_motion: Literal["reduce", "no-preference"] = "no-preference") -> Viewer:
    """Sign in a guest in a new context whose WebSocket messages are recorded and whose clock is fake."""
    size = ViewportSize(width=viewport["width"], height=viewport["height"])
    page = chromium.new_context(viewport=size, reduced_motion=reduced_motion).new_page()
    viewer = Viewer(page)
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: viewer.messages.append(json.loads(payload))))
    page.clock.install()
    page.goto(f"{url}/")
    page.click("#guest")
    expect(page.locator("#create")).to_be_visible()
    viewer.name = page.locator("#username").inner_text()
    assert viewer.name.startswith("guest-")
    return viewer


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), animations="disabled")


def _play(players: list[Viewer]) -> tuple[Viewer, str]:
    """Click the first playable card of whichever player is to move; return that player and the card."""
    deadline = time.time() + WAIT_MS / 1000
    while time.time() < deadline:
        for v in players:
            cards = v.page.locator("#my-hand .card.legal").evaluate_all("els => els.map(e => e.dataset.card)")
            if cards:
                v.page.locator(f'#my-hand .card.legal[data-card="{cards[0]}"]').click(timeout=WAIT_MS)
                return v, cards[0]
        time.sleep(0.05)
    raise AssertionError("nobody could play a card")


def _box(page: Page, selector: str) -> FloatRect:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not laid out"
    return box


def _overlap(a: FloatRect, b: FloatRect) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def _trick_message(table_id: str, n: int) -> Callable[[dict[str, Any]], bool]:
    """Return a test for the ``table`` message of table ``table_id`` whose event ends trick ``n``."""
    def match(m: dict[str, Any]) -> bool:
        event = m.get("event") or {}
        return bool(m["table"]["id"] == table_id and event.get("kind") == "trick"
                    and len(m["table"]["view"]["history"]) == n)
    return match


def _check_layout(v: Viewer) -> None:
    """The reveal sits in the table's centre, covers neither hand and lets clicks through."""
    panel = _box(v.page, "#draw-reveal")
    assert not _overlap(panel, _box(v.page, "#my-hand")), f"{v.name}: the reveal covers the player's hand"
    assert not _overlap(panel, _box(v.page, "#opp-hand")), f"{v.name}: the reveal covers the opponent's hand"
    assert not _overlap(panel, _box(v.page, ".stock")), f"{v.name}: the reveal covers the stock"
    assert not _overlap(panel, _box(v.page, "#last-trick")), f"{v.name}: the reveal covers the last-trick button"
    viewport = v.page.viewport_size
    assert viewport is not None
    assert panel["x"] >= 0 and panel["x"] + panel["width"] <= viewport["width"], f"{v.name}: the reveal leaves the screen"
    assert v.page.locator("#draw-reveal").evaluate("e => getComputedStyle(e).pointerEvents") == "none"
    # What a click at the panel's centre reaches: never the panel (hit-testing skips it).
    hit = v.page.evaluate("([x, y]) => !!document.elementFromPoint(x, y)?.closest('#draw-reveal')",
                          [panel["x"] + panel["width"] / 2, panel["y"] + panel["height"] / 2])
    assert hit is False, f"{v.name}: the reveal takes clicks"


@pytest.mark.slow
def test_draws_are_revealed_as_cards(browser: Browser, pg_url: str,
                                     start_server: Callable[..., LiveServer]) -> None:
    """After each trick both players and a spectator see exactly the two drawn cards, the winner's first."""
    server = start_server(pg_url)
    a = _viewer(browser, server.url, DESKTOP)
    b = _viewer(browser, server.url, PHONE)
    c = _viewer(browser, server.url, DESKTOP, reduced_motion="reduce")  # the spectator
    a.page.click("#create")  # Tressette against anyone
    b.page.wait_for_selector("[data-join]")
    b.page.click("[data-join]")
    for v in (a, b):
        expect(v.page.locator("#my-hand .card")).to_have_count(10)
    start = a.wait_table(lambda m: m["table"]["status"] == "playing", "of the started deal")["table"]
    table_id = start["id"]
    c.page.locator("tr", has_text=a.name).get_by_role("button", name="Watch").click()
    expect(c.page.locator("#opp-hand .card")).to_have_count(10)
    seat = {a.name: start["you"], b.name: 1 - start["you"]}
    assert [p["username"] for p in start["players"]] == sorted(seat, key=seat.__getitem__)
    for v in (a, b, c):
        v.page.clock.pause_at(time.time() + 5)  # from now on timers fire only when the test says

    revealed: list[list[tuple[int, str]]] = []
    tricks: list[dict[str, Any]] = []
    for n in range(1, TRICKS + 1):
        _play([a, b])
        for v in (a, b, c):  # the card led shows beside the previous trick's draws (until their time is up)
            expect(v.page.locator("#trick .card")).to_have_count(1, timeout=WAIT_MS)
            expect(v.page.locator("#draw-reveal")).to_have_count(1 if n in (2, 3) else 0)
            if n in (2, 3):
                _check_layout(v)
                assert not _overlap(_box(v.page, "#draw-reveal"), _box(v.page, "#trick .card")), \
                    f"{v.name}: the reveal covers the card led"
        _play([a, b])
        events = []
        for v in (a, b, c):  # the trick stays on the table, both cards, until it is taken; then the draws show
            expect(v.page.locator("#trick.held .card")).to_have_count(2, timeout=WAIT_MS)
            expect(v.page.locator("#draw-reveal")).to_have_count(0)
            v.page.clock.run_for(TRICK_SHOWN_MS)
            expect(v.page.locator("#draw-reveal")).to_have_attribute("data-trick", str(n), timeout=WAIT_MS)
            expect(v.page.locator("#taken")).to_contain_text("took the trick")
            msg = v.wait_table(_trick_message(table_id, n), f"for trick {n}")
            events.append(msg["event"]["trick"])
        trick = events[0]
        assert events[1] == trick and events[2] == trick, "the three viewers were told different tricks"
        draws = [(s, card) for s, card in trick["draws"]]
        assert len(draws) == 2 and {s for s, _ in draws} == {0, 1}
        assert draws[0][0] == trick["winner"], "the trick's winner draws first"
        for v in (a, b, c):
            entries = v.reveal()
            assert [(s, card) for s, card, _ in entries] == draws, f"{v.name} sees other cards than the server drew"
            for s, _, label in entries:
                if v is c:
                    want = f"{start['players'][s]['username']} drew"
                else:
                    want = "You drew" if s == seat[v.name] else "Opponent drew"
                assert label == want, f"{v.name}: seat {s} labelled {label!r}"
            _check_layout(v)
        # Each player's drawn card shows in their own hand and face up in the opponent's row.
        for v, other in ((a, b), (b, a)):
            mine = dict(draws)[seat[v.name]]
            theirs = dict(draws)[seat[other.name]]
            expect(v.page.locator(f'#my-hand .card[data-card="{mine}"]')).to_have_count(1)
            expect(v.page.locator(f'#opp-hand .card[data-card="{theirs}"]')).to_have_count(1)
        expect(c.page.locator(f'#my-hand .card[data-card="{dict(draws)[0]}"]')).to_have_count(1)
        expect(c.page.locator(f'#opp-hand .card[data-card="{dict(draws)[1]}"]')).to_have_count(1)
        # The players' page animates the reveal; the spectator asked for reduced motion.
        assert a.page.locator("#draw-reveal").evaluate("e => getComputedStyle(e).animationName") == "reveal-in"
        assert c.page.locator("#draw-reveal").evaluate("e => getComputedStyle(e).animationName") == "none"
        if n == 1:
            _shot(a.page, "draw-reveal-desktop")
            _shot(b.page, "draw-reveal-phone")
            _shot(c.page, "draw-reveal-spectator-desktop")
        if n == 2:  # Slovenian labels, and a redraw keeps the reveal
            b.page.select_option("#lang", "sl")
            slovene = ["Vzel si" if s == seat[b.name] else "Nasprotnik je vzel" for s, _ in draws]
            expect(b.page.locator("#draw-reveal figcaption")).to_have_text(slovene)
            b.page.select_option("#lang", "en")
            expect(b.page.locator("#draw-reveal figcaption")).to_have_count(2)
        if n == 3:  # left alone, the reveal goes after its time, and the hands do not move
            for v in (a, b, c):
                expect(v.page.locator("#draw-reveal")).to_be_visible()
                hand = _box(v.page, "#my-hand")
                v.page.clock.run_for(REVEAL_GONE_MS)
                expect(v.page.locator("#draw-reveal")).to_have_count(0, timeout=WAIT_MS)
                assert _box(v.page, "#my-hand")["y"] == hand["y"], f"{v.name}: the reveal moved the hand"
        revealed.append(draws)
        tricks.append(trick)

    # A player leaving ends the deal and reveals the deck: the rules package draws the same cards.
    b.page.click("#leave")
    b.page.click("#leave-yes")  # leaving a running deal asks first: it loses the deal
    result = a.wait_table(lambda m: m["table"]["id"] == table_id and m["table"]["result"] is not None,
                          "with the result")["table"]["result"]
    assert result["reason"] == "left"
    moves = [parse_card(card) for trick in tricks for card in trick["cards"]]
    deal = replay([parse_card(x) for x in result["deck"]], Variant(start["variant"]), start["view"]["first_leader"], moves)
    assert len(deal.history) == TRICKS
    for n, (ours, rules) in enumerate(zip(revealed, deal.history, strict=True), 1):
        assert rules.draws[0][0] == rules.winner, f"trick {n}: the rules drew the loser first"
        assert [(s, card_name(x)) for s, x in rules.draws] == ours, f"trick {n}: the reveal differs from the rules"
