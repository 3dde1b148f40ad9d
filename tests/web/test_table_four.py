"""The page of a table for four (issue #46) in real headless Chromium: seats, declarations, signals, the end, the lobby
and the replay.

Positions a real game reaches only by chance (every kind of declaration and signal, a match's end) are set up here:
the page is fed ``table`` and ``lobby`` messages through its own socket's handlers (``live.socket.handlers``, as
ws.js dispatches what arrives), made by the real rules package (tests/web/four_fixture.py); what the page sends is
captured by wrapping its socket's ``send`` (and not passed on: the real server does not know the fixture's table). The
real server and agent play with the page in tests/web/test_four_live.py. Every card the page sends is played by the rules, so a false declaration or signal fails here as the server
would refuse it. The page itself comes from a real server on PostgreSQL, signed in as a guest.

Screenshots (desktop 1280x800 and phone 390x844, English, Italian and Croatian) go to test-artifacts/screenshots
(``four-*``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import LiveServer, launch_server
from tests.web.conftest import SHOTS, shots_in_languages
from tests.web.four_fixture import (
    TABLE_ID,
    FourTable,
    lobby_message,
    my_choice,
    seeded_deal,
    waiting_message,
)
from tressette import card_name

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT_MS = 15_000
DESKTOP = {"width": 1280, "height": 800}
SUIT_EN = {"K": "Cups", "D": "Coins", "S": "Swords", "B": "Batons"}
RANKS_EN = {"AS": "Aces", "2": "Twos", "3": "Threes"}
SIGNALS_EN = {"busso": "busso (knock)", "volo": "volo (fly)", "striscio": "striscio (drag)"}

# Passes every message but the fixture's tables' (and new tables and seeks: they would open real ones).
CAPTURE = """async () => {
  const { live } = await import("/js/live.js");
  window.__sent = [];
  const socket = live.socket;
  const pass = socket.send.bind(socket);
  socket.send = (msg) => {
    window.__sent.push(msg);
    const ours = msg.table_id || ["create_table", "seek", "join_table", "seat_bot"].includes(msg.type);
    if (!ours) pass(msg);
  };
}"""
INJECT = """async (msg) => {
  const { live } = await import("/js/live.js");
  live.socket.handlers[msg.type](msg);
}"""


@pytest.fixture(scope="module")
def site(make_pg_db: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A real server (the page, guests and the lobby); no bot is needed."""
    server = launch_server(make_pg_db(), tmp_path_factory.mktemp("four"))
    yield server
    server.stop()


def _open(browser: Browser, url: str, viewport: dict[str, int] = DESKTOP, lang: str = "en") -> tuple[Page, str]:
    """Open the site as a new guest in ``lang``, with the page's outgoing messages captured; return it and the name."""
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    context.add_init_script(f"localStorage.setItem('treset.lang', {json.dumps(lang)});")
    page = context.new_page()
    page.goto(f"{url}/")
    page.click("#guest")
    expect(page.locator("#create")).to_be_visible(timeout=WAIT_MS)
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'on'", timeout=WAIT_MS)
    page.evaluate(CAPTURE)
    name = json.loads(page.evaluate("localStorage.getItem('treset.user')"))["username"]
    return page, name


def _inject(page: Page, msg: dict[str, Any]) -> None:
    page.evaluate(INJECT, msg)


def _sent(page: Page, kind: str) -> list[dict[str, Any]]:
    return [m for m in page.evaluate("window.__sent") if m["type"] == kind]


def _stamp(msg: dict[str, Any]) -> dict[str, Any]:
    """Give a playing table's clock 25 seconds from now (the turn line shows the seconds left)."""
    if msg["table"]["turn_deadline"]:
        msg["table"]["turn_deadline"] = int(time.time() * 1000) + 25_000
    return msg


def _shots(page: Page, name: str) -> None:
    """Save the page in each language at desktop and phone size as ``four-NAME-...`` (:func:`shots_in_languages`)."""
    shots_in_languages(page, f"four-{name}", DESKTOP)


def _english(d: dict[str, Any]) -> str:
    """Return a declaration as the English page says it."""
    if d["kind"] == "napoletana":
        return f"napoletana of {SUIT_EN[d['suit']]}"
    if d["kind"] == "three":
        return f"three {RANKS_EN[d['rank']]} (no {SUIT_EN[d['missing']]})"
    return f"four {RANKS_EN[d['rank']]}"


def _my_turn(page: Page) -> None:
    """Wait until the hand takes a card (a key ends the pause after a trick)."""
    deadline = time.time() + WAIT_MS / 1000
    while time.time() < deadline:
        if page.locator("#my-hand .card.legal").count():
            return
        page.keyboard.press("Shift")
        page.wait_for_timeout(50)
    pytest.fail("the hand never took a card")


def _bots_until_me(page: Page, ft: FourTable, signals_seen: list[tuple[int, str]]) -> None:
    """Play the bots' moves (as the server would send them) until seat 0 is to play or the deal is over."""
    while not ft.deal.is_over and ft.deal.to_move != 0:
        seat, card, decls, signal = ft.bot_move()
        if signal:
            signals_seen.append((seat, signal))
        for msg in ft.play(seat, card, decls, signal):
            _inject(page, _stamp(msg))
        if signal and not ft.deal.is_over:  # said aloud: everyone at the table hears it
            expect(page.locator("#talk-lines")).to_contain_text(f"{ft.names[seat]}: “{SIGNALS_EN[signal]}”", timeout=WAIT_MS)


def test_a_deal_for_four_seats_declarations_signals_and_the_end(browser: Browser, site: LiveServer) -> None:
    """The four seats sit where players expect them; declarations and a signal are offered as buttons and sent
    with the card; what the bots said is shown; the end shows the result and all four hands."""
    page, me = _open(browser, site.url)
    ft = FourTable(me, seeded_deal())
    _inject(page, _stamp(ft.message({"kind": "start"})))
    expect(page).to_have_url(f"{site.url}/#/table/{TABLE_ID}", timeout=WAIT_MS)  # the table's page, as for two

    # You at the bottom, your partner across, the next player on your right (play goes counter-clockwise).
    for place, seat in (("bottom", 0), ("right", 1), ("top", 2), ("left", 3)):
        expect(page.locator(f"#seat-{place}")).to_have_attribute("data-seat", str(seat))
    expect(page.locator("#seat-top")).to_contain_text("bot-rules-b")
    expect(page.locator("#seat-top .role")).to_have_text("Partner")
    expect(page.locator("#seat-left .role")).to_have_text("Opponent")
    expect(page.locator("#seat-right .count")).to_have_text("10 cards")
    expect(page.locator("#game-name")).to_have_text("Tressette for four")
    expect(page.locator("#turn")).to_contain_text("Your turn")
    expect(page.locator("#team-match-0")).to_have_text("Match: 12 / 31")

    # Declarations: one toggle each, all on; one press leaves one out, another puts it back.
    declarable = ft.deal.declarable(0)
    toggles = page.locator("#declare-row button[data-decl]")
    expect(toggles).to_have_count(len(declarable))
    expect(toggles.first).to_have_attribute("aria-pressed", "true")
    expect(toggles.first).to_contain_text(_english(declarable[0].to_dict()))
    toggles.first.click()
    expect(toggles.first).to_have_attribute("aria-pressed", "false")
    toggles.first.click()
    expect(toggles.first).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#signal-row")).to_have_count(0)  # no signal with the first trick's lead
    _shots(page, "declare")

    card, _ = my_choice(ft.deal, False)
    page.click(f"#my-hand [data-card='{card}']")
    sent = _sent(page, "play")
    wanted = [{k: v for k, v in d.to_dict().items() if k != "points"} for d in declarable]
    assert sent == [{"type": "play", "table_id": TABLE_ID, "card": card, "declarations": wanted}]
    expect(page.locator("#my-hand .card.legal")).to_have_count(0)  # one card on its way: no second
    # A refusal (docs/protocol-four.md: illegal_card, reason bad_declaration) is said in the page's words, and
    # the hand takes a card again.
    _inject(page, {"type": "error", "code": "illegal_card", "params": {"reason": "bad_declaration"}})
    expect(page.locator("#toast")).to_have_text(
        "That declaration is not true of your hand, or not allowed now: nothing was played.")
    expect(page.locator("#my-hand .card.legal")).not_to_have_count(0)
    for msg in ft.play(0, card, sent[0]["declarations"], None):  # the rules refuse a false declaration
        _inject(page, _stamp(msg))
    expect(page.locator("#said-0")).to_contain_text(_english(wanted[0]))

    signals_seen: list[tuple[int, str]] = []
    signalled = False
    plays = 1
    _bots_until_me(page, ft, signals_seen)
    while not ft.deal.is_over:
        _my_turn(page)
        card, signal = my_choice(ft.deal, signalled)
        if ft.deal.may_signal():
            expect(page.locator("#signal-row")).to_be_visible()
        if signal:
            # Choose a signal, then the card: only the cards it is true of may lead with it.
            page.click(f"#signal-row [data-signal='{signal}']")
            expect(page.locator(f"#signal-row [data-signal='{signal}']")).to_have_attribute("aria-pressed", "true")
            expect(page.locator("#signal-hint")).to_have_text("I hold more cards of this suit.")
            true_of = [card_name(c) for c in ft.deal.legal_moves() if any(s.value == signal for s in ft.deal.allowed_signals(c))]
            expect(page.locator("#my-hand .card.legal")).to_have_count(len(true_of))
            # What the bots declared is said at the table, with their names.
            for seat in (1, 2, 3):
                for d in ft.deal.declarations[seat]:
                    expect(page.locator("#talk-lines")).to_contain_text(f"{ft.names[seat]}: “{_english(d.to_dict())}")
            _shots(page, "signal")
            signalled = True
        page.click(f"#my-hand [data-card='{card}']")
        plays += 1
        page.wait_for_function(f"() => window.__sent.filter((m) => m.type === 'play').length === {plays}")
        last = _sent(page, "play")[-1]
        want: dict[str, Any] = {"type": "play", "table_id": TABLE_ID, "card": card}
        if signal:
            want["signal"] = signal
        assert last == want
        for msg in ft.play(0, card, None, last.get("signal")):  # the rules refuse a false signal
            _inject(page, _stamp(msg))
        _bots_until_me(page, ft, signals_seen)
    assert signalled and signals_seen, "the deal showed no signal"

    # The end: who won, both sides' points and declarations, all four hands as dealt.
    page.keyboard.press("Shift")
    expect(page.locator("#summary")).to_be_visible(timeout=WAIT_MS)
    out = ft.deal.outcome()
    head = "The deal is drawn" if out.winner is None else "Your side won the deal" if out.winner == 0 else "Your side lost the deal"
    expect(page.locator("#summary-head")).to_have_text(head)
    for team in (0, 1):
        cells = page.locator(f"#result-team-{team} td")
        expect(cells.nth(0)).to_have_text(str(out.card_score[team]))
        expect(cells.nth(1)).to_have_text(f"+{out.declared[team]}")
        expect(cells.nth(2)).to_have_text(str(out.score[team]))
    expect(page.locator("#all-hands .card")).to_have_count(40)
    for seat in range(4):
        shown = page.locator(f"#dealt-{seat} .card").evaluate_all("els => els.map((e) => e.dataset.card)")
        assert shown == ft.hands[seat]
    expect(page.locator("#rematch")).to_have_text("Next deal")
    for seat, signal in [*signals_seen, (0, "striscio")]:  # every trick's signal, with who said it
        name = ft.names[seat]
        expect(page.locator("#summary-trick-list")).to_contain_text(f"{name}: “{SIGNALS_EN[signal]}”")
    _shots(page, "end")

    # The match's end: per partnership, then a new match to ask for.
    final = ft.message({"kind": "end"})
    final["table"]["match"].update({"scores": [33, 20], "end": {"winner": 0, "reason": "finished"}})
    _inject(page, final)
    expect(page.locator("#match-end")).to_have_text("Your side won the match 33 : 20")
    expect(page.locator("#rematch")).to_have_text("New match")
    page.click("#rematch")
    assert _sent(page, "rematch") == [{"type": "rematch", "table_id": TABLE_ID}]


def test_the_lobby_offers_tables_for_four(browser: Browser, site: LiveServer) -> None:
    """The play panel and the new-table form create tables for four; the list shows four seats to join; the
    waiting room seats a bot; the rules tell the four-player game."""
    page, me = _open(browser, site.url)
    page.click("#pick-partnership")
    expect(page.locator("#pick-goal")).to_have_text("two against two: the side with more points wins")
    page.click("#pick4-41")
    page.click("#pick4-signals")
    expect(page.locator("#pick4-signals")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#pick4-declarations")).to_have_attribute("aria-pressed", "true")  # on for 41 by default
    # No bot plays here: the level's button waits for one (disabled, and said so) until a lobby names it.
    expect(page.locator("[data-quick4='rules']")).to_be_disabled()
    expect(page.locator("#bot-starting4")).to_be_visible()
    _inject(page, lobby_message(me))
    page.click("[data-quick4='rules']")
    page.click("#open4")
    page.click("[data-seek='partnership-41']")
    assert _sent(page, "create_table") == [
        {"type": "create_table", "game": "partnership", "variant": "tressette", "target": 41, "declarations": True,
         "signals": False, "opponent": "bot", "bot_level": "rules"},
        {"type": "create_table", "game": "partnership", "variant": "tressette", "target": 41, "declarations": True,
         "signals": False, "opponent": "anyone"},
    ]
    assert _sent(page, "seek") == [{"type": "seek", "game": "partnership", "target": 41}]  # no `variant` for four

    page.select_option("#variant", "partnership")
    page.select_option("#target4", "0")
    expect(page.locator("#declarations4")).not_to_be_checked()  # off for a single deal by default
    page.select_option("#opponent4", "bot")
    expect(page.locator("#level4")).to_be_visible()
    page.click("#create")
    assert _sent(page, "create_table")[-1] == {
        "type": "create_table", "game": "partnership", "variant": "tressette", "target": 0, "declarations": False,
        "signals": True, "opponent": "bot", "bot_level": "rules"}

    _inject(page, lobby_message(me))
    row = page.locator("#open-tables tr[data-table='q4open']")
    expect(row).to_contain_text("Tressette for four · Match to 41")
    expect(row).to_contain_text("marta & free seat")
    expect(row.locator("button[data-join]")).to_have_count(2)
    expect(row.locator("button[data-seat='2']")).to_have_text("Sit as marta's partner")
    expect(page.locator("#live-tables tr[data-table='q4play']")).to_contain_text("ivo & ana")
    _shots(page, "lobby")
    row.locator("button[data-seat='2']").click()
    assert _sent(page, "join_table")[-1] == {"type": "join_table", "table_id": "q4open", "seat": 2}

    _inject(page, waiting_message(me))
    expect(page).to_have_url(f"{site.url}/#/table/{TABLE_ID}", timeout=WAIT_MS)
    expect(page.locator("#waiting4")).to_contain_text("2 of 4 seats taken")
    expect(page.locator("[data-seat-bot]")).to_have_count(2)
    page.click("[data-seat-bot='1']")
    assert _sent(page, "seat_bot") == [{"type": "seat_bot", "table_id": TABLE_ID, "seat": 1, "level": "rules"}]
    _shots(page, "waiting")

    page.click("#rules-open")
    expect(page.locator("#rules-four h3")).to_have_text("Tressette for four: two against two")
    expect(page.locator("#rules-signals")).to_contain_text("striscio")
    page.screenshot(path=str(SHOTS / "four-rules-desktop-en.png"), animations="disabled")


def test_a_spectator_sees_the_trick_at_each_side_and_a_bot_in_a_leavers_seat(browser: Browser, site: LiveServer) -> None:
    """Someone watching sees seat 0 at the bottom, no hand to play, the cards of the trick at their players' sides,
    and the bot that took the seat of a player who left, named as such."""
    page, _ = _open(browser, site.url)
    ft = FourTable("ana", seeded_deal(), you=None)
    for _ in range(3):
        seat, card, decls, signal = ft.bot_move()
        ft.play(seat, card, decls, signal)
    msg = ft.message({"kind": "bot_took_seat", "seat": 1, "replaced": "luka", "cause": "left"})
    msg["table"]["players"][1]["replaced"] = "luka"
    _inject(page, _stamp(msg))
    page.evaluate(f"location.hash = '#/table/{TABLE_ID}'")
    expect(page.locator("#seat-bottom")).to_have_attribute("data-seat", "0")
    expect(page.locator("#seat-bottom")).to_contain_text("ana")
    expect(page.locator("#seat-right")).to_contain_text("in place of luka")
    expect(page.locator("#my-hand")).to_have_count(0)
    expect(page.locator("#choices")).to_have_count(0)
    for i, played in enumerate(ft.deal.table):  # seat 0 led: card i is seat i's
        expect(page.locator(f"#trick .slot[data-seat='{i}'] .card")).to_have_attribute("data-card", card_name(played))
    expect(page.locator("#trick .slot[data-seat='3'] .card")).to_have_count(0)
    expect(page.locator("#trick .slot.led")).to_have_attribute("data-seat", "0")  # the card led, ringed
    expect(page.locator("#turn")).to_contain_text("bot-rules-c's turn")
    _shots(page, "watch")


def _played_out(me: str) -> FourTable:
    """Return a deal played to its end by the fixture's players (seat 0 as the page's test plays it)."""
    ft = FourTable(me, seeded_deal())
    signalled = False
    while not ft.deal.is_over:
        if ft.deal.to_move == 0:
            card, signal = my_choice(ft.deal, signalled)
            signalled = signalled or signal is not None
            decls = [{k: v for k, v in d.to_dict().items() if k != "points"} for d in ft.deal.declarable()]
            ft.play(0, card, decls, signal)
        else:
            ft.play(*ft.bot_move())
    return ft


def test_the_replay_of_a_deal_for_four(browser: Browser, site: LiveServer) -> None:
    """A four-player game record (the table result's shape) replays with all four hands, each trick at its
    players' sides, what was said, and the result."""
    page, me = _open(browser, site.url)
    ft = _played_out(me)
    record = ft.record()
    page.route("**/api/games/4242/replay", lambda route: route.fulfill(json=record))
    page.goto(f"{site.url}/#/replay/4242")
    expect(page.locator("#replay-counter")).to_have_text("Move 1 / 40", timeout=WAIT_MS)
    for seat in range(4):
        expect(page.locator(f"#replay-hand-{seat} .card")).to_have_count(10)
    expect(page.locator("#replay-seat-bottom")).to_have_attribute("data-seat", "0")  # the player's own seat
    expect(page.locator("#replay-seat-top")).to_have_attribute("data-seat", "2")
    expect(page.locator("#replay-said")).to_contain_text(_english(record["moves"][0]["declarations"][0]))
    for _ in range(4):
        page.click("#replay-next")
    expect(page.locator("#replay-counter")).to_have_text("Move 5 / 40")
    expect(page.locator("#replay-table .card")).to_have_count(4)  # the first trick, still on the table
    expect(page.locator("#replay-table .card.winner")).to_have_count(1)
    expect(page.locator("#replay-taken")).to_be_visible()
    expect(page.locator("#replay-hand-0 .card")).to_have_count(9)
    _shots(page, "replay")
    page.click("#replay-last")
    winner = record["winner"]
    side = f"{record['players'][winner]} & {record['players'][winner + 2]}" if winner is not None else None
    expect(page.locator("#replay-result")).to_contain_text(f"Winner: {side}" if side else "The deal is drawn")
    expect(page.locator("#replay-tricks li")).to_have_count(10)
    signalled = [m for m in record["moves"] if m["signal"]]
    expect(page.locator("#replay-tricks .bubble.signal")).to_have_count(len(signalled))
    _shots(page, "replay-end")
