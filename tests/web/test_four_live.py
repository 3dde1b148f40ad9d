"""A table for four through the real server and the real agent process, in headless Chromium (issue #46).

One person opens a table for four from the lobby's play panel (a bot partner against two bots, the agent's
"rules" level) and plays every card through the page: a legal card each turn, the declarations the page offers
(sent with the first card), a signal the first time one is offered. A single deal (the default run) and a match
to 21 (slow) with its screenshots (``four-live-*``: desktop 1280x800 and phone 390x844, English, Italian and
Croatian); then the store holds the deals (linked in a match), the export for the variant ``partnership`` has
their moves, and the replay page of a deal shows all four hands. Quick pairing for four to its bot offer, and a
table open to people filled with bots from its waiting room, check the page's other messages against the server.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from sqlalchemy import select

from server.store.db import engine_for, session_factory
from server.store.models import Game, MatchRow, Move, User
from tests import local_http
from tests.conftest import LiveServer, launch_server
from tests.server.db import admin_token
from tests.server.four import deal_from_rows
from tests.web.conftest import real_bot, shots_in_languages
from tests.web.test_table_ux import _guest

pytestmark = [pytest.mark.browser]
BOT_TOKEN = "four-live-bots-token-0123456789abcdef"
WAIT_MS = 30_000
DESKTOP = {"width": 1280, "height": 800}
BOTS = ["bot-rules", "bot-rules-2", "bot-rules-3"]

# Keeps a copy of every message the page sends, and sends it on (the real server answers).
RECORD = """async () => {
  const { live } = await import("/js/live.js");
  window.__sent = [];
  const socket = live.socket;
  const pass = socket.send.bind(socket);
  socket.send = (msg) => { window.__sent.push(msg); pass(msg); };
}"""


@pytest.fixture(scope="module")
def site(make_pg_db: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str]]:
    """One server on PostgreSQL with the real agent (it announces the four-player level "rules"); yields it and its
    database URL."""
    tmp = tmp_path_factory.mktemp("four-live")
    db_url = make_pg_db()
    # The bot offer of quick pairing after 1 s (30 by default): the seek for four is tested to its offer.
    server = launch_server(db_url, tmp, TRESET_BOT_TOKEN=BOT_TOKEN, TRESET_BOT_OFFER_S="1")
    with real_bot(server, tmp, BOT_TOKEN):
        yield server, db_url
    server.stop()


@dataclass
class Said:
    """What the page offered and sent over the game: declarations and signals."""

    declare_offered: int = 0
    signal_offered: int = 0
    signals: list[str] = field(default_factory=list)


def _sent(page: Page, kind: str) -> list[dict[str, Any]]:
    return [m for m in page.evaluate("window.__sent") if m["type"] == kind]


def _shots(page: Page, name: str) -> None:
    """Save the page in each language at desktop and phone size as ``four-live-NAME-...`` (:func:`shots_in_languages`)."""
    shots_in_languages(page, f"four-live-{name}", DESKTOP)


def _open_four(browser: Browser, url: str, target: int) -> tuple[Page, str]:
    """Sign in as a guest and open a table for four to ``target`` against the bots from the play panel, with
    declarations and signals on; return the page and the player's name once the deal runs."""
    page = _guest(browser, url, DESKTOP)
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'on'", timeout=WAIT_MS)
    page.evaluate(RECORD)
    page.click("#pick-partnership")
    page.click(f"#pick4-{target}")
    if page.locator("#pick4-declarations").get_attribute("aria-pressed") != "true":
        page.click("#pick4-declarations")  # off by default below 31: on here, to declare when the cards allow
    expect(page.locator("#pick4-declarations")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#pick4-signals")).to_have_attribute("aria-pressed", "true")
    page.click("[data-quick4='rules']")
    expect(page.locator("#board4")).to_be_visible(timeout=WAIT_MS)
    create = _sent(page, "create_table")
    assert create == [{"type": "create_table", "game": "partnership", "variant": "tressette", "target": target,
                       "declarations": True, "signals": True, "opponent": "bot", "bot_level": "rules"}]
    me = json.loads(page.evaluate("localStorage.getItem('treset.user')"))["username"]
    for seat, bot in enumerate(BOTS, start=1):
        expect(page.locator(f"#seat-name-{seat}")).to_have_text(bot)
    return page, me


def _play_deal(page: Page, said: Said, shots: set[str] | None = None) -> None:
    """Play the person's cards until the deal's summary shows: a legal card, the declarations offered (the page
    sends them with the card unless unticked), a signal the first time one is offered. ``shots``: the screenshots
    still to take, each taken once and removed: "table" at the first turn, "choices" at the first turn where the
    page offers a declaration or a signal (before choosing)."""
    deadline = time.time() + 120
    played = len(_sent(page, "play"))
    while time.time() < deadline:
        if page.locator("#summary").count():
            return
        if not page.locator("#my-hand .card.legal").count():
            page.keyboard.press("Shift")  # ends the pause after a trick at once, as a player may
            page.wait_for_timeout(30)
            continue
        if shots is not None:
            for name in [n for n in sorted(shots) if n == "table" or page.locator("#choices").count()]:
                _shots(page, name)
                shots.discard(name)
        if page.locator("#declare-row").count():
            said.declare_offered += 1
        signal_row = page.locator("#signal-row")
        if signal_row.count():
            said.signal_offered += 1
            if not said.signals:
                button = signal_row.locator("[data-signal]").first
                kind = button.get_attribute("data-signal")
                assert kind is not None
                button.click()
                expect(signal_row.locator(f"[data-signal='{kind}']")).to_have_attribute("aria-pressed", "true")
                said.signals.append(kind)
        try:
            page.locator("#my-hand .card.legal").first.click(timeout=3000)
        except PlaywrightTimeout:
            continue
        # The next card waits for the server's answer (one card a turn: the hand takes no second one).
        sent = len(_sent(page, "play"))
        assert sent == played + 1, "the page sent no play, or two"
        played = sent
    pytest.fail("the deal did not end within 2 minutes")


def _check_plays(page: Page, said: Said) -> list[dict[str, Any]]:
    """The plays the page sent carried what it offered: every signal chosen, declarations when offered."""
    plays = _sent(page, "play")
    with_signal = [p for p in plays if p.get("signal")]
    assert [p["signal"] for p in with_signal] == said.signals
    if said.declare_offered:
        assert any(p.get("declarations") for p in plays)
    return plays


def _stored(db_url: str, table_id: str) -> list[Game]:
    with session_factory(db_url)() as session:
        return list(session.scalars(select(Game).where(Game.table_id == table_id).order_by(Game.id)))


def _check_deal_stored(db_url: str, game: Game, me: str) -> None:
    """The deal is stored with its four players and 40 moves that replay to its points by the rules."""
    with session_factory(db_url)() as session:
        moves = list(session.scalars(select(Move).where(Move.game_id == game.id).order_by(Move.move_number)))
        user = session.scalar(select(User).where(User.username == me))
        assert user is not None and game.n_players == 4 and game.player0_id == user.id
    assert len(moves) == 40 and sorted({m.seat for m in moves}) == [0, 1, 2, 3]
    assert game.options is not None
    deal = deal_from_rows(game.deck, game.first_leader, game.options, [(m.card, m.declarations, m.signal) for m in moves])
    assert deal.is_over
    assert ((game.points0 or 0) + (game.declared0 or 0), (game.points1 or 0) + (game.declared1 or 0)) == deal.outcome().score


def _check_export(server: LiveServer, db_url: str, games: list[Game], me: str) -> list[dict[str, Any]]:
    """The export of the variant ``partnership`` holds each deal's 40 moves, the person's among them."""
    admin = {"Authorization": f"Bearer {admin_token(db_url)}"}
    r = local_http.get(f"{server.url}/api/admin/moves/export", params={"variant": "partnership", "format": "ndjson"},
                       headers=admin, timeout=60)
    assert r.status_code == 200
    rows = [json.loads(line) for line in r.text.splitlines()]
    ids = {g.id for g in games}
    ours = [row for row in rows if row["game_id"] in ids]
    assert len(ours) == 40 * len(games)
    mine = [row for row in ours if row["seat"] == 0]
    assert len(mine) == 10 * len(games) and all(row["partner"] == "bot-rules-2" for row in mine)
    assert {row["partnership"] for row in ours} == {0, 1}
    return ours


def _check_replay_page(page: Page, game_id: int, me: str) -> None:
    """The replay page of the deal shows all four hands as dealt, the person's at the bottom."""
    page.goto(page.url.split("#")[0] + f"#/replay/{game_id}")
    expect(page.locator("#replay-counter")).to_have_text("Move 1 / 40", timeout=WAIT_MS)
    for seat in range(4):
        expect(page.locator(f"#replay-hand-{seat} .card")).to_have_count(10)
    expect(page.locator("#replay-seat-bottom")).to_have_attribute("data-seat", "0")
    expect(page.locator("#replay-seat-top")).to_contain_text("bot-rules-2")
    expect(page.locator(".players-line")).to_contain_text(me)


def test_a_single_deal_for_four_through_the_page(browser: Browser, site: tuple[LiveServer, str]) -> None:
    """One deal against the agent's bots through the page: stored, exported, replayed with all four hands."""
    server, db_url = site
    page, me = _open_four(browser, server.url, 0)
    expect(page.locator("#match-head")).to_contain_text("Single deal")
    said = Said()
    _play_deal(page, said)
    plays = _check_plays(page, said)
    assert len(plays) == 10
    expect(page.locator("#summary-head")).to_have_text(
        re.compile(r"^(Your side won the deal|Your side lost the deal|The deal is drawn)$"))
    expect(page.locator("#not-rated")).to_have_count(0)  # a single deal against bots is rated
    expect(page.locator("#all-hands .dealt")).to_have_count(4)
    expect(page.locator("#all-hands .dealt .card")).to_have_count(40)
    table_id = page.url.split("#/table/")[1]
    games = _stored(db_url, table_id)
    assert len(games) == 1 and games[0].match_id is None
    _check_deal_stored(db_url, games[0], me)
    rows = _check_export(server, db_url, games, me)
    assert [row["card"] for row in rows if row["seat"] == 0] == [p["card"] for p in plays]
    page.click("#replay-link")
    _check_replay_page(page, games[0].id, me)
    page.click("#copy-record")  # the deal's text (record.txt): its four players and ten tricks
    expect(page.locator("#record-text")).to_contain_text(f"{me} & bot-rules-2 vs bot-rules & bot-rules-3")
    assert page.locator("#record-text").inner_text().count(" led ") == 10
    page.context.close()


def test_quick_pairing_for_four_offers_the_bots(browser: Browser, site: tuple[LiveServer, str]) -> None:
    """"Look for players" for four: the server reads the page's seek, the page reads its answer as a seek for four
    (the game named, the offer of three bots at the four-player level), and the offer opens a table with them."""
    server, _ = site
    page = _guest(browser, server.url, DESKTOP)
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'on'", timeout=WAIT_MS)
    page.evaluate(RECORD)
    page.click("#pick-partnership")
    page.click("#pick4-21")
    page.click("[data-seek='partnership-21']")
    assert _sent(page, "seek") == [{"type": "seek", "game": "partnership", "target": 21}]
    expect(page.locator("#seeking .seek-what")).to_have_text("Tressette for four · To 21", timeout=WAIT_MS)
    expect(page.locator("#bot-offer")).to_be_visible(timeout=WAIT_MS)
    page.click("#bot-offer")
    assert _sent(page, "create_table")[-1] == {"type": "create_table", "game": "partnership", "variant": "tressette",
                                               "target": 21, "declarations": False, "signals": True,
                                               "opponent": "bot", "bot_level": "rules"}
    expect(page.locator("#board4")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#seeking")).to_have_count(0)
    for seat, bot in enumerate(BOTS, start=1):
        expect(page.locator(f"#seat-name-{seat}")).to_have_text(bot)
    page.click("#leave")
    page.click("#leave-yes")  # the last person leaves: the match ends abandoned, the table closes
    page.context.close()


def test_an_open_table_for_four_seats_bots_from_the_waiting_room(browser: Browser, site: tuple[LiveServer, str]) -> None:
    """A table for four open to people waits with three free seats (listed in another player's lobby with a
    button per seat); its creator fills them with bots one by one (`seat_bot`) and the deal starts."""
    server, _ = site
    page = _guest(browser, server.url, DESKTOP)
    other = _guest(browser, server.url, DESKTOP)
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'on'", timeout=WAIT_MS)
    page.evaluate(RECORD)
    page.click("#pick-partnership")
    page.click("#pick4-0")
    page.click("#open4")
    expect(page.locator("#waiting4")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("[data-seat-bot]")).to_have_count(3)
    table_id = page.url.split("#/table/")[1]
    row = other.locator(f"#open-tables tr[data-table='{table_id}']")
    expect(row.locator("button[data-join]")).to_have_count(3, timeout=WAIT_MS)
    for n, seat in enumerate((2, 1, 3)):
        page.click(f"[data-seat-bot='{seat}']")
        expect(page.locator("[data-seat-bot]")).to_have_count(2 - n, timeout=WAIT_MS)
    assert [(m["seat"], m["level"]) for m in _sent(page, "seat_bot")] == [(2, "rules"), (1, "rules"), (3, "rules")]
    expect(page.locator("#board4")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#seat-name-2")).to_have_text(re.compile(r"^bot-rules"))
    expect(row).to_have_count(0, timeout=WAIT_MS)  # no longer open to join
    page.click("#leave")
    page.click("#leave-yes")
    page.context.close()
    other.context.close()


@pytest.mark.slow
def test_a_match_to_21_for_four_through_the_page(browser: Browser, site: tuple[LiveServer, str]) -> None:
    """A whole match to 21 against the agent's bots through the page, with the screenshots of the table, a deal's
    end, the match's end and the replay; the deals are stored linked in one match."""
    server, db_url = site
    page, me = _open_four(browser, server.url, 21)
    expect(page.locator("#match-head")).to_contain_text("Match to 21")
    said = Said()
    shots = {"table", "choices"}
    deals = 0
    while True:
        _play_deal(page, said, shots)
        deals += 1
        if page.locator("#match-end").count():
            break
        assert deals < 10
        # A match's deals are not rated one by one: the page does not call them "not rated".
        expect(page.locator("#not-rated")).to_have_count(0)
        if deals == 1:
            _shots(page, "deal-end")
        page.click("#rematch")  # "Next deal": the bots are ready at once
        expect(page.locator("#summary")).to_have_count(0, timeout=WAIT_MS)
        expect(page.locator("#match-head")).to_contain_text(f"deal {deals + 1}", timeout=WAIT_MS)
    _check_plays(page, said)
    print(f"offered: declarations {said.declare_offered}, signals {said.signal_offered}; used {said.signals}")
    expect(page.locator("#match-end")).to_have_text(re.compile(r"^Your side (won|lost) the match \d+ : \d+$"))
    expect(page.locator("#rematch")).to_have_text("New match")
    expect(page.locator("#not-rated")).to_have_count(0)  # nobody left: the match is rated
    _shots(page, "match-end")

    table_id = page.url.split("#/table/")[1]
    games = _stored(db_url, table_id)
    assert len(games) == deals and len({g.match_id for g in games}) == 1
    with session_factory(db_url)() as session:
        match = session.get(MatchRow, games[0].match_id)
        assert match is not None
        assert (match.n_players, match.status, match.target, match.deals) == (4, "finished", 21, deals)
        assert max(match.score0, match.score1) >= 21
    assert [g.match_deal for g in games] == list(range(1, deals + 1))
    totals = [0, 0]
    for g in games:
        assert (g.match_before0, g.match_before1) == tuple(totals)
        _check_deal_stored(db_url, g, me)
        totals = [totals[0] + (g.points0 or 0) + (g.declared0 or 0), totals[1] + (g.points1 or 0) + (g.declared1 or 0)]
    assert tuple(totals) == (match.score0, match.score1)
    engine_for(db_url).dispose()
    _check_export(server, db_url, games, me)
    _check_replay_page(page, games[-1].id, me)
    page.click("#replay-last")
    expect(page.locator("#replay-tricks li")).to_have_count(10)
    _shots(page, "replay")
    page.context.close()
