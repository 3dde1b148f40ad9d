"""Leaderboard, profile, replay and admin pages in a real headless Chromium against a real server on PostgreSQL.

The module plays two real deals first (two registered players over WebSockets), so every page has a
finished game to show; each page is then checked against the server's own JSON answers.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from server.store import repos
from server.store.db import engine_for, session_factory
from tests import local_http
from tests.bot.test_bot_games import BOT_TOKEN, start_agent  # noqa: F401 - a fixture
from tests.conftest import ROOT, LiveServer, launch_server
from tests.forkserver import ForkedProcess
from tests.server.client import Client, is_table, play_until_over
from tests.web.conftest import DESKTOP, PHONE, SHOTS
from tressette import Deal, Variant, card_name, parse_card

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # 40 s or more in all
PASSWORD = "secret-pw-1"
ADMIN = ("root", "admin-pw-1")


@dataclass
class Site:
    """A live server with two played-out deals between alba and boris, one that dana left after 5 moves
    against eva, and cene, who never played."""

    server: LiveServer
    tokens: dict[str, str]
    games: dict[str, int] = field(default_factory=dict)  # variant -> game id
    winners: dict[str, str] = field(default_factory=dict)  # variant -> winner's name

    @property
    def url(self) -> str:
        """Return the HTTP base URL."""
        return self.server.url

    def get(self, path: str, token: str | None = None, **params: Any) -> Any:
        """Return the JSON answer of GET ``path`` (raising on an error status)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = local_http.get(f"{self.url}{path}", params=params, headers=headers, timeout=20)
        r.raise_for_status()
        return r.json() if "json" in r.headers.get("content-type", "") else r.text


def _register(url: str, name: str, password: str = PASSWORD) -> str:
    r = local_http.post(f"{url}/api/auth/register", json={"username": name, "password": password}, timeout=10)
    r.raise_for_status()
    return str(r.json()["token"])


def _play_deal(site: Site, opener: str, joiner: str, variant: str) -> None:
    a, b = Client(site.server.ws_url, site.tokens[opener]), Client(site.server.ws_url, site.tokens[joiner])
    try:
        a.send({"type": "create_table", "variant": variant})
        table_id = a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "waiting")["table"]["id"]
        b.send({"type": "join_table", "table_id": table_id})
        final = play_until_over(a, b, table_id)["table"]
        site.winners[variant] = final["players"][final["result"]["winner"]]["username"]
        for c in (a, b):
            c.send({"type": "leave_table", "table_id": table_id})
    finally:
        a.close()
        b.close()
    recent = site.get(f"/api/players/{opener}")["recent_games"]
    site.games[variant] = next(g["id"] for g in recent if g["variant"] == variant)


def _leave_after(site: Site, opener: str, joiner: str, variant: str, moves: int) -> None:
    """Play ``moves`` cards, then the opener leaves: the deal ends early, lost by the opener."""
    a, b = Client(site.server.ws_url, site.tokens[opener]), Client(site.server.ws_url, site.tokens[joiner])
    try:
        a.send({"type": "create_table", "variant": variant})
        table_id = a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "waiting")["table"]["id"]
        b.send({"type": "join_table", "table_id": table_id})
        played = 0
        end = time.time() + 30
        while played < moves and time.time() < end:
            for c in (a, b):
                try:
                    msg = c.recv(timeout=0.05)
                except TimeoutError:
                    continue
                view = msg["table"]["view"] if is_table(msg) else None
                # played < moves again here: the other client may have played the last card this round.
                if (view and played < moves and 2 * len(view["history"]) + len(view["table"]) == played
                        and view["to_move"] == msg["table"]["you"]):
                    c.send({"type": "play", "table_id": table_id, "card": view["legal"][0]})
                    played += 1
        a.wait_for(lambda m: is_table(m) and m["table"]["view"] is not None
                   and 2 * len(m["table"]["view"]["history"]) + len(m["table"]["view"]["table"]) == moves)
        a.send({"type": "leave_table", "table_id": table_id})
        b.wait_for(lambda m: is_table(m) and m["table"]["status"] == "finished")
        b.send({"type": "leave_table", "table_id": table_id})
    finally:
        a.close()
        b.close()
    site.games["left"] = site.get(f"/api/players/{joiner}")["recent_games"][0]["id"]


@pytest.fixture(scope="module")
def site(make_pg_db: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A server on a fresh PostgreSQL database with a kifameno and a tressette deal played, and an admin."""
    db_url = make_pg_db()
    server = launch_server(db_url, tmp_path_factory.mktemp("pages"), TRESET_BOT_TOKEN=BOT_TOKEN)
    try:
        s = Site(server, {name: _register(server.url, name) for name in ("alba", "boris", "cene", "dana", "eva")})
        _play_deal(s, "alba", "boris", "kifameno")
        _play_deal(s, "boris", "alba", "tressette")
        _leave_after(s, "dana", "eva", "kifameno", 5)
        with session_factory(db_url)() as session:
            _, s.tokens[ADMIN[0]] = repos.create_admin(session=session, username=ADMIN[0], password=ADMIN[1])
            session.commit()
        engine_for(db_url).dispose()
        yield s
    finally:
        server.stop()


def _login(new_page: Callable[..., Page], site: Site, name: str, password: str = PASSWORD) -> Page:
    page = new_page()
    page.goto(f"{site.url}/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", password)
    page.click("#login")
    expect(page.locator("#create")).to_be_visible()
    expect(page.locator("#username")).to_have_text(name)
    return page


def _shots(page: Page, name: str) -> None:
    """Save the page at desktop and phone size; at phone size nothing may stick out sideways."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(150)
    page.screenshot(path=str(SHOTS / f"{name}-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name}: the page is {width}px wide on a {PHONE['width']}px phone"
    page.screenshot(path=str(SHOTS / f"{name}-phone.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def _cells(page: Page, selector: str) -> list[list[str]]:
    return page.locator(f"{selector} tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))")


def _cards(page: Page, selector: str) -> list[str]:
    return page.locator(f"{selector} .card").evaluate_all("els => els.map(e => e.dataset.card)")


def _share(x: float) -> str:
    return f"{x * 100:.1f}%"


def _thirds(x: int) -> str:
    """Return points kept in thirds as the page writes them: 11 -> "3⅔", 1 -> "⅓"."""
    whole, part = divmod(x, 3)
    return f"{whole if whole or not part else ''}{['', '⅓', '⅔'][part]}"


def _rating(x: dict[str, Any]) -> str:
    value = str(math.floor(x["rating"] + 0.5)) + ("?" if x.get("provisional") else "")  # "1662?": still provisional
    return f"{value} ± {math.floor(x['rd'] + 0.5)}" if x.get("rd") is not None else value


def test_every_string_in_both_languages() -> None:
    """Each interface string has an English and a Slovenian text, and every t("key") used exists."""
    source = (ROOT / "web" / "js" / "i18n.js").read_text()
    en = source[source.index("  en: {"):source.index("  sl: {")]
    sl = source[source.index("  sl: {"):source.index("\n};")]
    keys_en = set(re.findall(r"(\w+): \"", en))
    keys_sl = set(re.findall(r"(\w+): \"", sl))
    assert len(keys_en) > 100
    # Slovenian plurals have two forms English lacks (dual and 3-4: Intl.PluralRules "two", "few"); each
    # stands beside the "one" and "other" forms that both languages have.
    sl_only = {k for k in keys_sl - keys_en if k.endswith(("_two", "_few"))}
    assert all(k.rsplit("_", 1)[0] + "_one" in keys_en and k.rsplit("_", 1)[0] + "_other" in keys_en for k in sl_only)
    assert keys_en == keys_sl - sl_only, f"only English: {keys_en - keys_sl}, only Slovenian: {keys_sl - keys_en}"
    used = set()
    for path in (ROOT / "web" / "js").glob("*.js"):
        used |= set(re.findall(r"\bt\(\"(\w+)\"\)", path.read_text()))
    assert "leaderboard" in used and "copyRecord" in used
    assert used <= keys_en, f"no text for {used - keys_en}"


def test_leaderboard_and_profile(site: Site, contexts: Callable[..., Page]) -> None:
    """The leaderboard lists both players as the API ranks them, the winner first; the profile shows the totals."""
    page = _login(contexts, site, "alba")
    expect(page.locator("#nav-admin")).to_have_count(0)
    page.click("#nav-leaderboard")
    expect(page.locator("#nav-leaderboard")).to_have_attribute("aria-current", "page")
    for variant in ("kifameno", "tressette"):
        page.select_option("#lb-variant", variant)
        board = site.get("/api/leaderboard", variant=variant, min_games=1)["players"]
        expect(page.locator("#lb-result")).to_have_attribute("data-shown", f"{variant}/1/rating")
        expect(page.locator("#leaderboard tbody tr")).to_have_count(len(board))
        expected = [[str(p["rank"]), p["username"], str(p["games"]), str(p["wins"]), _share(p["win_share"]),
                     _points(p["points"]), *([_rating(p)] if "rating" in p else [])] for p in board]
        expect(page.locator("#leaderboard tbody tr").first).to_have_attribute("data-username", board[0]["username"])
        assert _cells(page, "#leaderboard") == expected
        names = [row[1] for row in expected]
        loser = ({"alba", "boris"} - {site.winners[variant]}).pop()
        assert names.index(site.winners[variant]) < names.index(loser)
    page.fill("#lb-min-games", "2")
    page.locator("#lb-min-games").dispatch_event("change")
    expect(page.locator("#lb-empty")).to_be_visible()
    page.fill("#lb-min-games", "1")
    page.locator("#lb-min-games").dispatch_event("change")
    expect(page.locator("#leaderboard tbody tr")).to_have_count(2)  # tressette: alba and boris
    _shots(page, "leaderboard")

    page.click("#leaderboard tbody tr[data-username=boris] a.player-link")
    expect(page).to_have_url(re.compile(r"#/player/boris$"))
    expect(page.locator("#nav-profile")).not_to_have_attribute("aria-current", "page")
    page.click("#nav-profile")
    expect(page.locator("#profile-name")).to_have_text("alba")
    expect(page.locator("#nav-profile")).to_have_attribute("aria-current", "page")
    prof = site.get("/api/players/alba")
    expect(page.locator("#profile-totals tbody tr")).to_have_count(2)
    totals = [[{"kifameno": "Kifameno", "tressette": "Tressette"}[v], str(x["games"]), str(x["wins"]),
               _share(x["win_share"]), _points(x["points"]), *([_rating(x)] if "rating" in x else [])]
              for v, x in sorted(prof["totals"].items(), key=lambda kv: kv[0] != "tressette")]
    assert _cells(page, "#profile-totals") == totals
    recent = prof["recent_games"]
    assert len(recent) == 2
    links = page.locator("#recent-games a.replay-link").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert links == [f"#/replay/{g['id']}" for g in recent]
    rows = _cells(page, "#recent-games")
    for row, g in zip(rows, recent, strict=True):
        assert row[2] == g["opponent"] == "boris"
        assert row[3] == _score([g["points"], g["opponent_points"]])
        assert row[4].startswith("won" if g["won"] else "lost")
    _shots(page, "profile")

    page.select_option("#lang", "sl")
    expect(page.locator("#nav-leaderboard")).to_have_text("Lestvica")
    expect(page.locator("#recent-games a.replay-link").first).to_have_text("Posnetek")
    page.select_option("#lang", "en")
    expect(page.locator("#nav-leaderboard")).to_have_text("Leaderboard")

    # A name from the address bar is shown as text and never as markup; the refusal in the page's words.
    page.goto(f"{site.url}/#/player/<b>nobody")
    expect(page.locator("#profile-name")).to_have_text("<b>nobody")
    expect(page.locator("#profile-page .error")).to_have_text("There is no player with that name.")
    assert page.locator("#app b").count() == 0
    page.goto(f"{site.url}/#/player/100%E0")  # not valid percent-encoding: kept as typed
    expect(page.locator("#profile-name")).to_have_text("100%E0")
    expect(page.locator("#profile-page .error")).to_have_text("There is no player with that name.")


def _points(thirds: int) -> str:
    """Return points counted in thirds as the page writes them: 11 -> "3⅔" (players count thirds as fractions)."""
    whole, part = divmod(thirds, 3)
    return ("" if whole == 0 and part else str(whole)) + ["", "⅓", "⅔"][part]


def _score(points: list[int]) -> str:
    """Return a finished deal's score in whole points, the thirds dropped (RULES.md): [10, 25] -> "3 : 8"."""
    return f"{points[0] // 3} : {points[1] // 3}"


def _position(record: dict[str, Any], k: int) -> tuple[list[list[str]], list[str], list[int]]:
    """Return both hands, the table and the score before move ``k`` of a played-out deal (k = 40: the end)."""
    moves = record["moves"]
    if k == len(moves):
        return [[], []], [], record["points"]
    m = moves[k]
    hands = [[], []]
    hands[m["seat"]], hands[1 - m["seat"]] = m["hand"], m["opponent_hand"]
    return hands, m["table"], m["points"]


def test_replay_steps_through_every_move(site: Site, contexts: Callable[..., Page]) -> None:
    """Every step of the replay shows the hands, table, score and tricks of the server's record."""
    page = _login(contexts, site, "alba")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    game_id = site.games["kifameno"]
    record = site.get(f"/api/games/{game_id}/replay", site.tokens["alba"])
    n = len(record["moves"])
    assert n == 40
    page.click("#nav-profile")
    page.click(f"#recent-games tr[data-game='{game_id}'] a.replay-link")
    expect(page).to_have_url(re.compile(rf"#/replay/{game_id}$"))
    expect(page.locator("#replay-counter")).to_have_text(f"Move 1 / {n}")
    expect(page.locator("#replay-prev")).to_be_disabled()
    for k in range(n + 1):
        # The counter names the card marked in its hand (the (k+1)-th), or the deal's end (issue #43).
        expect(page.locator("#replay-counter")).to_have_text(f"Move {k + 1} / {n}" if k < n else f"End of the deal · {n} / {n}")
        hands, table, points = _position(record, k)
        for seat in (0, 1):
            assert sorted(_cards(page, f"#replay-hand-{seat}")) == sorted(hands[seat]), (k, seat)
            unit = "point" if points[seat] == 3 else "points"  # English: singular for exactly one point
            assert f"{record['players'][seat]}: {_points(points[seat])} {unit}" in page.inner_text(f"#replay-score-{seat}")
        # Right after a trick's second card the trick stays on the table, as at the table.
        taken = record["tricks"][k // 2 - 1] if k and k % 2 == 0 else None
        assert _cards(page, "#replay-table") == (taken["cards"] if taken else table), k
        if taken:
            winner = record["players"][taken["winner"]]
            assert page.inner_text("#replay-taken").startswith(f"{winner} took the trick (+"), k
        assert page.locator("#replay-tricks li").count() == k // 2
        if k < n:
            move = record["moves"][k]
            assert page.locator(f"#replay-hand-{move['seat']} .card.next").get_attribute("data-card") == move["card"]
            assert _cards(page, "#replay-next-move") == [move["card"]]
            assert page.inner_text("#replay-next-move").startswith(f"{record['players'][move['seat']]} plays")
            if k == 13:
                _shots(page, "replay")
            if k % 2:
                page.keyboard.press("ArrowRight")
            else:
                page.click("#replay-next")
    expect(page.locator("#replay-next")).to_be_disabled()
    result = page.inner_text("#replay-result")
    assert record["players"][record["winner"]] in result and _score(record["points"]) in result
    shown = page.locator("#replay-tricks li").evaluate_all("""items => items.map(li => ({
        cards: [...li.querySelectorAll('.trick-cards .card')].map(e => e.dataset.card),
        draws: [...li.querySelectorAll('.trick-draws .card')].map(e => e.dataset.card)}))""")
    assert shown[::-1] == [{"cards": tr["cards"], "draws": [c for _, c in tr["draws"]]} for tr in record["tricks"]]
    assert sum(len(tr["draws"]) for tr in record["tricks"]) == 20

    page.keyboard.press("ArrowLeft")
    expect(page.locator("#replay-counter")).to_have_text(f"Move {n} / {n}")
    assert sorted(_cards(page, f"#replay-hand-{record['moves'][-1]['seat']}")) == sorted(record["moves"][-1]["hand"])
    page.keyboard.press("Home")
    expect(page.locator("#replay-counter")).to_have_text(f"Move 1 / {n}")
    page.locator("#replay-slider").fill("21")
    expect(page.locator("#replay-counter")).to_have_text(f"Move 22 / {n}")
    hands, table, _ = _position(record, 21)
    assert sorted(_cards(page, "#replay-hand-0")) == sorted(hands[0]) and _cards(page, "#replay-table") == table

    page.click("#copy-record")
    expect(page.locator("#record-text")).to_be_visible()
    text = site.get(f"/api/games/{game_id}/record.txt", site.tokens["alba"])
    assert page.locator("#record-text").text_content() == text
    expect(page.locator("#record-status")).to_have_text("Copied to the clipboard.")
    assert page.evaluate("navigator.clipboard.readText()") == text


def test_replay_of_a_deal_left_early(site: Site, contexts: Callable[..., Page]) -> None:
    """A deal that ended when a player left replays to its last card, as the rules package plays it."""
    game_id = site.games["left"]
    page = _login(contexts, site, "eva")
    page.goto(f"{site.url}/#/replay/{game_id}")
    expect(page.locator("#replay-counter")).to_have_text("Move 1 / 5")
    page.click("#replay-last")
    expect(page.locator("#replay-counter")).to_have_text("End of the deal · 5 / 5")
    record = site.get(f"/api/games/{game_id}/replay", site.tokens["eva"])
    deal = Deal.from_deck([parse_card(c) for c in record["deck"]], Variant.KIFAMENO, record["first_leader"])
    for m in record["moves"]:
        deal.play(parse_card(m["card"]), m["seat"])
    for seat in (0, 1):
        assert sorted(_cards(page, f"#replay-hand-{seat}")) == sorted(card_name(c) for c in deal.hands[seat])
    assert _cards(page, "#replay-table") == [card_name(c) for c in deal.table] and len(deal.table) == 1
    assert _cards(page, "#replay-stock") == [] and page.inner_text("#replay-stock") == f"Stock: {len(deal.stock)}"
    expect(page.locator("#replay-tricks li")).to_have_count(2)
    expect(page.locator("#replay-result")).to_have_text(
        f"Winner: eva · {_score(record['points'])} (exact {_points(record['points'][0])} : {_points(record['points'][1])})"
        " · dana left the table")


def test_replay_errors_are_shown(site: Site, contexts: Callable[..., Page]) -> None:
    """Another player replays a finished public game; a visitor is asked to sign in, a game that is not there is
    named so, both in the page's words (never the server's English); the leaderboard stays public."""
    game_id = site.games["kifameno"]
    other = _login(contexts, site, "cene")
    other.goto(f"{site.url}/#/replay/{game_id}")
    expect(other.locator("#replay-counter")).to_have_text("Move 1 / 40")
    expect(other.locator("#replay-error")).to_have_count(0)
    other.goto(f"{site.url}/#/replay/999999")
    expect(other.locator("#replay-error")).to_have_text("There is no finished game with that number.")

    visitor = contexts()
    visitor.goto(f"{site.url}/#/replay/{game_id}")
    expect(visitor.locator("#replay-error")).to_have_text("Sign in to see this page.")
    expect(visitor.locator("#nav-profile")).to_have_count(0)
    visitor.click("#nav-leaderboard")
    expect(visitor.locator("#leaderboard tbody tr").first).to_be_visible()
    # Signing in then opens the same replay (the refusal is not remembered).
    visitor.go_back()
    visitor.click("#replay-body a[href='#/login']")
    visitor.fill("input[name=username]", "boris")
    visitor.fill("input[name=password]", PASSWORD)
    visitor.click("#login")
    expect(visitor.locator("#nav-profile")).to_be_visible()
    visitor.goto(f"{site.url}/#/replay/{game_id}")
    expect(visitor.locator("#replay-counter")).to_have_text("Move 1 / 40")
    expect(visitor.locator("#replay-error")).to_have_count(0)


def test_admin_page_is_for_admins_only(site: Site, contexts: Callable[..., Page]) -> None:
    """A player has no admin link, the admin page shows the refusal, and every admin call answers 403."""
    page = _login(contexts, site, "boris")
    expect(page.locator("#nav-leaderboard")).to_be_visible()
    expect(page.locator("#nav-admin")).to_have_count(0)
    page.goto(f"{site.url}/#/admin")
    expect(page.locator("#admin-error")).to_have_text("You may not see this page.")
    expect(page.locator("#export-form")).to_have_count(0)
    statuses = page.evaluate("""async () => {
        const auth = {Authorization: `Bearer ${localStorage.getItem("treset.token")}`};
        const get = (p) => fetch(p, {headers: auth}).then(r => r.status);
        return [await get("/api/admin/stats"), await get("/api/admin/games"), await get("/api/admin/moves/export"),
                await fetch("/api/admin/bot-series", {method: "POST", headers: {...auth, "Content-Type": "application/json"},
                  body: JSON.stringify({level_a: "easy", level_b: "easy", games: 1, variant: "tressette"})}).then(r => r.status)];
    }""")
    assert statuses == [403, 403, 403, 403]


def test_admin_page(site: Site, contexts: Callable[..., Page],
                    start_agent: Callable[[LiveServer], ForkedProcess]) -> None:  # noqa: F811
    """An admin searches games, reads the statistics, downloads the moves and starts a bot series."""
    admin_token = site.tokens[ADMIN[0]]
    page = _login(contexts, site, *ADMIN)
    page.click("#nav-admin")
    expect(page.locator("#export-form")).to_be_visible()

    # (c) aggregate statistics, as the API counts them
    stats = site.get("/api/admin/stats", admin_token)
    expect(page.locator("#stats-points tbody tr")).to_have_count(len(stats["points_by_variant"]))
    assert len(stats["points_by_variant"]) == 2
    assert [r[2] for r in _cells(page, "#stats-per-day")] == [str(d["games"]) for d in stats["games_per_day"]]
    assert sum(d["games"] for d in stats["games_per_day"]) == 3

    # (b) game search; the ids lead to the replays, which an admin may open
    page.fill("#games-player", "boris")
    page.click("#games-go")
    found = site.get("/api/admin/games", admin_token, player="boris", limit=50, offset=0)
    assert found["total"] == 2
    expect(page.locator("#admin-games tbody tr")).to_have_count(2)
    expect(page.locator("#admin-games-total")).to_have_text("1–2 / 2")
    rows = _cells(page, "#admin-games")
    assert [r[0] for r in rows] == [str(g["id"]) for g in found["games"]]
    assert [r[3] for r in rows] == [f"{_thirds(g['points'][0])} : {_thirds(g['points'][1])}" for g in found["games"]]
    assert [r[4] for r in rows] == [g["players"][g["winner"]] for g in found["games"]]
    page.select_option("#games-result", "won")
    page.click("#games-go")
    won = site.get("/api/admin/games", admin_token, player="boris", result="won")["games"]
    expect(page.locator("#admin-games-total")).to_have_text(f"1–{len(won)} / {len(won)}" if won else "No games.")
    expect(page.locator("#admin-games tbody tr")).to_have_count(len(won))
    page.select_option("#games-result", "")
    page.click("#games-go")
    expect(page.locator("#admin-games tbody tr")).to_have_count(2)
    _shots(page, "admin")
    page.click(f"#admin-games a.replay-link >> text='{site.games['tressette']}'")
    expect(page.locator("#replay-counter")).to_have_text("Move 1 / 40")
    page.go_back()
    expect(page.locator("#export-form")).to_be_visible()

    # (a) the export downloads the game's moves
    record = site.get(f"/api/games/{site.games['kifameno']}/replay", admin_token)
    alba = record["players"].index("alba")
    page.fill("#export-player", "alba")
    page.select_option("#export-variant", "kifameno")
    with page.expect_download() as dl:
        page.click("#export-go")
    download = dl.value
    assert download.suggested_filename == "moves.csv"
    rows_csv = list(csv.DictReader(io.StringIO(Path(download.path()).read_text())))
    assert [r["card"] for r in rows_csv] == [m["card"] for m in record["moves"] if m["seat"] == alba]
    assert {r["game_id"] for r in rows_csv} == {str(site.games["kifameno"])} and {r["username"] for r in rows_csv} == {"alba"}
    expect(page.locator("#export-status")).to_contain_text("Downloaded moves.csv")
    page.select_option("#export-format", "ndjson")
    page.fill("#export-player", "")
    page.select_option("#export-variant", "")
    page.fill("#export-date-from", time.strftime("%Y-%m-%d", time.gmtime(time.time() - 86400)))
    with page.expect_download() as dl:
        page.click("#export-go")
    assert dl.value.suggested_filename == "moves.ndjson"
    lines = [json.loads(x) for x in Path(dl.value.path()).read_text().splitlines()]
    assert len(lines) == 85 and {x["game_id"] for x in lines} == set(site.games.values())
    page.fill("#export-date-from", "")
    page.fill("#export-min-win-share", "1")
    page.select_option("#export-variant", "kifameno")
    with page.expect_download() as dl:
        page.click("#export-go")
    lines = [json.loads(x) for x in Path(dl.value.path()).read_text().splitlines()]
    assert {x["username"] for x in lines} == {site.winners["kifameno"], "eva"}
    assert len(lines) == 20 + sum(1 for x in lines if x["game_id"] == site.games["left"]) and len(lines) in (22, 23)

    # (d) a bot series: refused while no bot is connected, started once one is
    page.select_option("#series-level-a", "easy")
    page.select_option("#series-level-b", "easy")
    page.fill("#series-games", "1")
    page.select_option("#series-variant", "tressette")
    page.click("#series-go")
    expect(page.locator("#series-status .error")).to_contain_text("(409)")
    start_agent(site.server)
    page.click("#series-go")
    expect(page.locator("#series-ok")).to_be_visible()
    assert re.search(r"Series started at table: [0-9a-f]{8} · Games: 1", page.inner_text("#series-ok"))
    deadline = time.time() + 90
    series: list[dict[str, Any]] = []
    while time.time() < deadline and not series:
        time.sleep(0.5)
        series = site.get("/api/admin/games", admin_token, bot_level="easy")["games"]
    assert [(g["variant"], g["players"], g["bot_level"]) for g in series] == [
        ("tressette", ["bot-easy", "bot-easy-2"], "easy vs easy")]
