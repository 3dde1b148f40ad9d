"""Every ending told, no stray text, every message in the page's language (issue #30), in headless Chromium.

One server on PostgreSQL with a real bot and a short reconnect grace serves the module: a forfeit by Leave
and by a lost connection announced to the winner and a spectator in both languages; a deal's summary with
its piles' totals and its tricks; no "null"/"undefined"/"NaN"/"[object Object]" on any screen; the account
forms' refusals in Slovenian; no connection warning after signing out; the phone's header and hand.
Screenshots go to ``test-artifacts/screenshots/`` (``fin-*``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from server.store import repos
from server.store.db import engine_for, session_factory
from tests import local_http
from tests.bot.test_bot_games import BOT_TOKEN
from tests.conftest import LiveServer, launch_server
from tests.web.conftest import DESKTOP, PHONE, real_bot
from tests.web.test_table_ux import _guest, _page, _play_to_summary, _quick_bot, _shot, _shots_everywhere

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # 40 s or more in all
WAIT_MS = 30_000
GRACE_S = 3
ADMIN = ("finadmin", "admin-pw-30")
STRAY = re.compile(r"\b(null|undefined|NaN)\b|\[object Object\]")


@pytest.fixture(scope="module")
def site(make_pg_db: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server with one real bot, a 3 s reconnect grace, 3 failed sign-ins per account, and an admin."""
    tmp = tmp_path_factory.mktemp("finished")
    db_url = make_pg_db()
    server = launch_server(db_url, tmp, TRESET_BOT_TOKEN=BOT_TOKEN, TRESET_RECONNECT_GRACE_S=str(GRACE_S),
                           TRESET_LOGIN_PER_ACCOUNT="3")
    with session_factory(db_url)() as session:
        repos.create_admin(session=session, username=ADMIN[0], password=ADMIN[1])
        session.commit()
    engine_for(db_url).dispose()
    with real_bot(server, tmp, BOT_TOKEN):
        yield server
    server.stop()


def _no_stray(page: Page, where: str) -> None:
    """Assert that the page shows no "null", "undefined", "NaN" or "[object Object]" (header and page)."""
    text = page.locator("body").inner_text()
    found = STRAY.search(text)
    assert not found, f"{where}: {found[0]!r} on the page: …{text[max(0, found.start() - 80):found.end() + 80]}…"


def _name(page: Page) -> str:
    return page.locator("#username").inner_text()


def _two_and_a_spectator(browser: Browser, url: str, langs: tuple[str, str, str],
                         sizes: tuple[dict[str, int], ...] = (DESKTOP, DESKTOP, DESKTOP)) -> tuple[Page, Page, Page]:
    """Return guests a (opens a table), b (joins it) and c (watches), in ``langs``, once the deal is dealt."""
    a, b, c = (_guest(browser, url, size, lang) for size, lang in zip(sizes, langs, strict=True))
    a.click("#create")
    expect(a.locator("#game-name")).to_be_visible(timeout=WAIT_MS)
    table_id = a.evaluate("location.hash").split("/")[2]
    b.goto(f"{url}/#/join/{table_id}")
    expect(a.locator("#my-hand .card")).to_have_count(10, timeout=WAIT_MS)
    expect(b.locator("#my-hand .card")).to_have_count(10, timeout=WAIT_MS)
    c.goto(f"{url}/#/table/{table_id}")
    expect(c.locator("#spectating")).to_be_visible(timeout=WAIT_MS)
    return a, b, c


def test_a_forfeit_by_leave_is_announced(browser: Browser, site: LiveServer) -> None:
    """The leaver is asked in a centred dialog and told in the lobby; the winner and a spectator read why."""
    a, b, c = _two_and_a_spectator(browser, site.url, ("en", "sl", "en"), (DESKTOP, PHONE, DESKTOP))
    names = {p: _name(p) for p in (a, b)}
    a.click("#leave")
    dialog = a.locator("#leave-confirm")
    expect(dialog).to_be_visible()
    box = dialog.bounding_box()
    assert box is not None
    centre_x, centre_y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    assert abs(centre_x - DESKTOP["width"] / 2) < 40 and abs(centre_y - DESKTOP["height"] / 2) < 80, box
    _shot(a, "fin-leave-confirm-desktop-en")
    a.click("#leave-yes")
    expect(a.locator("#toast")).to_have_text("You left the table.")
    expect(a.locator("#quick-play")).to_be_visible()
    _shot(a, "fin-left-lobby-desktop-en")

    # The winner (Slovenian, phone): the summary, why, no rematch with nobody, the way back to the lobby.
    expect(b.locator("#summary-head")).to_contain_text("Zmagal si!", timeout=WAIT_MS)
    expect(b.locator("#summary-head")).to_contain_text("brez boja")
    expect(b.locator("#end-reason")).to_have_text(f"{names[a]} je zapustil mizo.")
    expect(b.locator("#rematch")).to_have_count(0)
    expect(b.locator("#opponent-gone")).to_be_visible()
    expect(b.locator("#back-lobby")).to_have_text("Nazaj v preddverje")
    expect(b.locator("#my-hand")).to_have_count(0)  # the empty table is not left under the summary
    _no_stray(b, "the winner's summary")
    _shots_everywhere(b, "fin-forfeit-left-winner")

    # The spectator (English): who won, why, the score under the players' names.
    expect(c.locator("#summary-head")).to_contain_text(f"{names[b]} wins", timeout=WAIT_MS)
    expect(c.locator("#end-reason")).to_have_text(f"{names[a]} left the table.")
    expect(c.locator("#final-score")).to_contain_text(names[a])
    expect(c.locator("#final-score")).to_contain_text(names[b])
    expect(c.locator("#rematch")).to_have_count(0)
    _no_stray(c, "the spectator's summary")
    _shots_everywhere(c, "fin-forfeit-left-spectator")
    b.click("#back-lobby")
    expect(b.locator("#quick-play")).to_be_visible()


def test_a_forfeit_by_lost_connection_is_announced(browser: Browser, site: LiveServer) -> None:
    """A player whose connection stays lost past the grace loses; the winner (sl) and a spectator (en) read why."""
    a, b, c = _two_and_a_spectator(browser, site.url, ("sl", "en", "en"))
    names = {p: _name(p) for p in (a, b)}
    b.context.close()  # b's connection drops and does not come back
    expect(a.locator("#summary-head")).to_contain_text("Zmagal si!", timeout=WAIT_MS)
    expect(a.locator("#end-reason")).to_have_text(f"{names[b]} je izgubil povezavo in se ni pravočasno vrnil.")
    expect(c.locator("#summary-head")).to_contain_text(f"{names[a]} wins", timeout=WAIT_MS)
    expect(c.locator("#end-reason")).to_have_text(f"{names[b]} lost the connection and did not come back in time.")
    expect(a.locator("#rematch")).to_have_count(0, timeout=WAIT_MS)  # the seat is vacated too
    for page, who in ((a, "winner"), (c, "spectator")):
        _no_stray(page, f"the {who}'s summary")
        _shots_everywhere(page, f"fin-forfeit-connection-{who}")


def _thirds(text: str) -> int:
    """Return the thirds of a points figure as shown ("2⅔" -> 8, "⅓" -> 1)."""
    m = re.fullmatch(r"(\d*)([⅓⅔]?)", text)
    assert m, text
    return 3 * int(m[1] or 0) + {"": 0, "⅓": 1, "⅔": 2}[m[2]]


def test_a_deal_summary_and_every_screen_without_stray_text(browser: Browser, site: LiveServer) -> None:
    """The summary's piles add up to their tricks; no stray text anywhere; no warning after signing out."""
    page = _guest(browser, site.url, DESKTOP)
    me = _name(page)
    _no_stray(page, "the lobby")
    # One truth per bot: the lobby's figure is named (measured strength), the leaderboard's rating too.
    expect(page.locator("#strength-note")).to_contain_text("measured strength", timeout=WAIT_MS)
    expect(page.locator('[data-quick="tressette-easy"] .rating')).to_have_text(re.compile(r"^ · ≈\d+$"))
    _quick_bot(page, "tressette")
    _no_stray(page, "the table")
    _play_to_summary(page)
    _no_stray(page, "the summary")
    expect(page.locator("#summary-head")).to_have_text(re.compile(r"^(You win!|You lose\.)$"))
    expect(page.locator("#end-reason")).to_have_text("All 20 tricks played.")
    tricks = page.locator("#summary-trick-list li")
    expect(tricks).to_have_count(20)
    rows = tricks.all_inner_texts()
    gains = {"me": 0, "bot": 0}
    for row in rows:
        m = re.search(r"(\S+) took it \(\+([\d⅓⅔]+) (points?)\)", row)
        assert m and " led" in row, row
        assert (m[3] == "point") == (m[2] == "1"), row  # "1 point" but "2 points", "⅓ points"
        gains["me" if m[1] == me else "bot"] += _thirds(m[2])
    for pile, who in (("#pile-0", "me"), ("#pile-1", "bot")):
        text = page.locator(pile).inner_text()
        m = re.search(r"· ([\d⅓⅔]+) points?", text)
        assert m, text
        assert _thirds(m[1]) == gains[who], (text, gains)  # the pile's total is its tricks' points
    assert gains["me"] + gains["bot"] == 35  # 11⅔ points in the cards and the last trick's point
    _shots_everywhere(page, "fin-summary")

    page.click("#replay-link")
    expect(page.locator("#replay-board")).to_be_visible(timeout=WAIT_MS)
    page.wait_for_timeout(500)
    _no_stray(page, "the replay")
    page.click("#replay-next")
    page.click("#replay-next")
    _no_stray(page, "the replay after a trick")
    _shot(page, "fin-replay-desktop-en")
    page.goto(f"{site.url}/#/player/{me}")
    expect(page.locator("#profile-name")).to_contain_text(me, timeout=WAIT_MS)
    page.wait_for_timeout(500)
    _no_stray(page, "the profile")
    page.goto(f"{site.url}/#/leaderboard")
    page.wait_for_timeout(800)
    _no_stray(page, "the leaderboard")
    expect(page.locator("#rating-note")).to_contain_text("earned in games on this site")
    _shot(page, "fin-leaderboard-desktop-en")

    page.click("#signout")
    expect(page.locator("#guest")).to_be_visible()
    page.wait_for_timeout(1500)  # the socket's close arrives after the click
    expect(page.locator("#conn")).to_have_text("")
    assert page.locator("#conn").get_attribute("data-state") != "off"
    _shot(page, "fin-signed-out-desktop-en")

    admin = _page(browser, site.url, DESKTOP)
    admin.fill("input[name=username]", ADMIN[0])
    admin.fill("input[name=password]", ADMIN[1])
    admin.click("#login")
    admin.click("#nav-admin")
    expect(admin.locator("#admin-stats table").first).to_be_visible(timeout=WAIT_MS)
    admin.wait_for_timeout(1000)
    _no_stray(admin, "the admin page")


def test_account_forms_speak_the_page_language(browser: Browser, site: LiveServer) -> None:
    """Refusals worded by the page from the server's codes, with Slovenian plurals (1, 2, 3-4, 5+)."""
    page = _page(browser, site.url, DESKTOP, lang="sl")
    forms = page.evaluate("""async () => {
        const { plural, pointsText } = await import('/js/i18n.js');
        return { pts: [3, 6, 9, 12, 15, 4, 303, 306].map(pointsText),
                 secs: [1, 2, 3, 5, 101].map((n) => plural('form_throttled', n)) };
    }""")
    assert forms["pts"] == ["1 točka", "2 točki", "3 točke", "4 točke", "5 točk", "1⅓ točke", "101 točka", "102 točki"]
    assert forms["secs"][0].endswith("čez 1 sekundo.") and forms["secs"][1].endswith("čez 2 sekundi.")
    assert forms["secs"][2].endswith("čez 3 sekunde.") and forms["secs"][3].endswith("čez 5 sekund.")
    taken = f"zasedeno{int(time.time() * 1000) % 10**7}"
    local_http.post(f"{site.url}/api/auth/register", json={"username": taken, "password": "secret-pw"}).raise_for_status()
    error = page.locator("#login-error")

    def attempt(button: str, name: str, password: str, expected: str | re.Pattern[str]) -> None:
        page.fill("input[name=username]", name)
        page.fill("input[name=password]", password)
        page.click(button)
        expect(error).to_have_text(expected)

    attempt("#register", "ab", "secret-pw", "Uporabniško ime mora imeti vsaj 3 znake.")
    attempt("#register", "novak", "kratk", "Geslo mora imeti vsaj 6 znakov.")
    attempt("#register", taken, "secret-pw", f"Ime {taken} je že zasedeno: izberi drugo.")
    attempt("#register", "bot-easy", "secret-pw", "Ime bot-easy je rezervirano: izberi drugo.")
    attempt("#register", "ana marija", "secret-pw", re.compile(r"^Uporabniško ime ima od 3 do 32"))
    _shot(page, "fin-form-error-desktop-sl")
    attempt("#login", taken, "wrong-pw", "Napačno uporabniško ime ali geslo.")
    throttled = re.compile(r"^Preveč poskusov: poskusi znova čez \d+ (sekundo|sekundi|sekunde|sekund)\.$")
    for _ in range(10):  # the account's budget of failures (3 in this module) runs out
        page.evaluate("document.getElementById('login-error').textContent = ''")
        page.click("#login")
        expect(error).not_to_have_text("")
        if throttled.match(error.inner_text()):
            break
        expect(error).to_have_text("Napačno uporabniško ime ali geslo.")
    expect(error).to_have_text(throttled)
    _shot(page, "fin-form-throttled-desktop-sl")
    page.select_option("#lang", "en")
    attempt("#register", "novak", "kratk", "A password needs at least 6 characters.")
    body = local_http.post(f"{site.url}/api/auth/register", json={"username": taken, "password": "secret-pw"}).json()
    assert body["code"] == "name_taken" and body["params"] == {"name": taken} and "taken" in body["detail"]


def test_phone_header_and_hand(browser: Browser, site: LiveServer) -> None:
    """On a phone the header takes at most two rows; the whole hand and Leave fit without sideways scrolling."""
    for lang in ("en", "sl"):
        page = _guest(browser, site.url, PHONE, lang)
        _quick_bot(page, "kifameno")
        rows = page.evaluate("""() => {
            const tops = [...document.querySelectorAll('header.bar > *, header.bar nav > *, header.bar .who > *')]
              .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().width > 0)
              .map((e) => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; });
            const rows = [];
            for (const t of tops.sort((x, y) => x - y)) if (!rows.length || t - rows[rows.length - 1] > 12) rows.push(t);
            return rows.length;
        }""")
        assert rows <= 2, f"{lang}: the header takes {rows} rows"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        for selector in ("#my-hand .card", "#leave"):
            boxes = page.locator(selector).evaluate_all("els => els.map(e => e.getBoundingClientRect().right)")
            assert boxes and max(boxes) <= PHONE["width"], (selector, boxes)
        _shot(page, f"fin-table-phone-{lang}")
        page.context.close()


def test_rules_explain_the_letters_and_dots(browser: Browser, site: LiveServer) -> None:
    """The rules draw the lettered cards with their names (C kaval/Knight, F fant/Jack) and explain the dots."""
    for lang, size, knight, jack, dots in (("sl", PHONE, "C = kaval", "F = fant", "vsaka pika je ⅓ točke"),
                                           ("en", DESKTOP, "C = Knight", "F = Jack", "each dot ⅓ point")):
        page = _page(browser, site.url, size, lang)
        page.click("#rules-open")
        legend = page.locator("#rules-legend figure")
        expect(legend).to_have_count(6)
        expect(page.locator("#rules-legend .card")).to_have_count(6)
        expect(page.locator("#rules-legend")).to_contain_text(knight)
        expect(page.locator("#rules-legend")).to_contain_text(jack)
        expect(page.locator("#rules-dots")).to_contain_text(dots)
        page.locator("#rules-legend").scroll_into_view_if_needed()
        _shot(page, f"fin-rules-legend-{'phone' if size is PHONE else 'desktop'}-{lang}")
        page.context.close()
