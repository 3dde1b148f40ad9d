"""What a player sees of issue #43's rules, in headless Chromium, desktop and phone, English and Slovenian.

- Between two deals of a match against the bot, the replay, the puzzles and the lobby each carry a banner
  ("bot-easy is ready for the next deal: come back …") with a way back; no deal starts while the player reads;
  once it does, the banner says whose turn it is. The rules panel says the rule.
- A match lost by the clock before both played a card: "You ran out of time." to the loser, the reason and
  "not rated" on the table and on the match page, in each player's language; the leaderboard lists neither.
- Another player's profile links only the replays the visitor may open, and they open; a private table's game
  and a missing match answer in the page's language, never the server's English.
- Puzzles: a newcomer's rating reads as provisional; with "Either game" and nothing to serve, the empty page
  does not say "try the other one".

Screenshots ``between-*``, ``forfeit-*``, ``profile-links-*``, ``puzzles-empty-*``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import select

from server.store.models import Game, User
from tests import local_http
from tests.bot.test_bot_games import BOT_TOKEN
from tests.conftest import LiveServer, launch_server
from tests.puzzles.rows import store_game_with_puzzle
from tests.server.db import db_session
from tests.web.conftest import DESKTOP, PHONE, real_bot
from tests.web.test_match import _open_match
from tests.web.test_table_ux import _guest, _play_to_summary, _shot, _shots_everywhere, _step
from tressette import Variant

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT_MS = 30_000


@pytest.fixture(scope="module")
def bot_site(make_pg_db: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server with one real bot."""
    tmp = tmp_path_factory.mktemp("between")
    server = launch_server(make_pg_db(), tmp, TRESET_BOT_TOKEN=BOT_TOKEN)
    with real_bot(server, tmp, BOT_TOKEN):
        yield server
    server.stop()


def _banner(page: Page) -> str:
    return page.locator("#needs").inner_text()


def test_reading_between_two_deals_loses_nothing(browser: Browser, bot_site: LiveServer) -> None:
    page = _guest(browser, bot_site.url, DESKTOP)
    _open_match(page, 11)
    _play_to_summary(page)
    expect(page.locator("#next-deal-in")).to_contain_text("bot-easy is ready: press “Next deal” within")
    expect(page.locator("#next-deal-in")).to_contain_text("or you lose the match")
    expect(page.locator("#needs")).to_be_hidden()  # the table's own page needs no banner
    page.click("#rules-open")
    expect(page.locator("#rules-next-deal")).to_contain_text("starts only when both players are ready")
    expect(page.locator("#rules-aborted")).to_contain_text("is not rated")
    _shot(page, "between-rules-desktop-en")
    page.click("#rules-close")

    page.click("#replay-link")  # the player reads the deal they just played
    expect(page.locator("#replay-counter")).to_be_visible(timeout=WAIT_MS)
    urgent = page.locator("#needs .need.urgent")
    expect(urgent).to_contain_text("bot-easy is ready for the next deal: come back, or you lose the match")
    expect(urgent).to_contain_text("s left")
    expect(urgent.locator("a.need-back")).to_have_text("Back to the table")
    _shots_everywhere(page, "between-replay")  # also Slovenian: checked below on the puzzles page
    page.click("#nav-puzzles")
    expect(page.locator("#puzzle-page")).to_be_visible()
    page.select_option("#lang", "sl")
    expect(page.locator("#needs .need.urgent")).to_contain_text("bot-easy je pripravljen na naslednjo igro")
    expect(page.locator("#needs .need-back")).to_have_text("Nazaj k mizi")
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    _shot(page, "between-puzzles-phone-sl")
    page.select_option("#lang", "it")  # the banner in the other two languages of the header's list
    expect(page.locator("#needs .need.urgent")).to_contain_text("bot-easy è pronto per la prossima smazzata")
    page.select_option("#lang", "hr")
    expect(page.locator("#needs .need-back")).to_have_text("Natrag za stol")
    _shot(page, "between-puzzles-phone-hr")
    page.select_option("#lang", "en")
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
    page.wait_for_timeout(3000)  # reading on: no deal starts by itself
    expect(page.locator("#needs .need.urgent")).to_contain_text("is ready for the next deal")

    page.click("#needs .need-back")
    expect(page.locator("#summary")).to_be_visible()
    expect(page.locator("#needs")).to_be_hidden()
    page.click("#rematch")  # ready: the deal starts now, with a fresh clock
    expect(page.locator("#match-head")).to_contain_text("deal 2 of the match", timeout=WAIT_MS)
    page.click("#nav-lobby")
    expect(page.locator("#needs .need")).to_contain_text("against bot-easy", timeout=WAIT_MS)
    expect(page.locator("#needs .need.urgent")).to_contain_text("Your turn against bot-easy", timeout=WAIT_MS)
    _shots_everywhere(page, "between-lobby-turn")
    page.click("#needs .need-back")
    expect(page.locator("#my-hand .card.legal").first).to_be_visible()
    _step(page)  # the turn is played: nothing was lost meanwhile
    page.context.close()


def test_an_early_forfeit_reads_you_with_its_reason_and_is_not_rated(
        browser: Browser, make_pg_db: Callable[[], str], start_server: Callable[..., LiveServer]) -> None:
    server = start_server(make_pg_db(), TRESET_MOVE_TIMEOUT_S="4")
    a = _guest(browser, server.url, DESKTOP)
    a.select_option("#target", "11")
    a.select_option("#opponent", "invite")
    a.click("#create")
    link = a.locator("#invite-link").inner_text()
    b = _guest(browser, server.url, PHONE, lang="sl")
    b.goto(link)
    expect(b.locator("#my-hand .card")).to_have_count(10)
    expect(a.locator("#summary")).to_be_visible(timeout=WAIT_MS)  # nobody plays: the leader's clock runs out
    expect(b.locator("#summary")).to_be_visible(timeout=WAIT_MS)
    names = {p: p.locator("#username").inner_text() for p in (a, b)}
    a_lost = "You lost the deal" in a.locator("#summary-head").inner_text()
    loser, winner = (a, b) if a_lost else (b, a)
    texts = {a: ("You ran out of time.", "by forfeit: you ran out of time", "Not rated: the game ended before both"),
             b: ("Zmanjkalo ti je časa.", "s predajo: zmanjkalo ti je časa", "Ni ocenjeno: igra se je končala")}
    expect(loser.locator("#end-reason")).to_have_text(texts[loser][0])
    expect(loser.locator("#match-end")).to_contain_text(texts[loser][1])
    expect(loser.locator("#not-rated")).to_contain_text(texts[loser][2])
    other = {a: f"by forfeit: {names[loser]} ran out of time", b: f"s predajo: igralcu {names[loser]} je zmanjkalo časa"}
    expect(winner.locator("#match-end")).to_contain_text(other[winner])
    expect(winner.locator("#not-rated")).to_be_visible()
    _shot(a, f"forfeit-table-desktop-en-{'loser' if a_lost else 'winner'}")
    _shot(b, f"forfeit-table-phone-sl-{'winner' if a_lost else 'loser'}")

    loser.click("#match-link")  # the match page says why, too
    page_texts = {a: ("You lost the match 0 : 0", "by forfeit: you ran out of time", "Not rated"),
                  b: ("Partijo si izgubil 0 : 0", "s predajo: zmanjkalo ti je časa", "Ni ocenjeno")}
    for text in page_texts[loser]:
        expect(loser.locator("#match-result")).to_contain_text(text)
    _shot(loser, f"forfeit-match-page-{'desktop-en' if a_lost else 'phone-sl'}")
    board = local_http.get(f"{server.url}/api/leaderboard", params={"variant": "tressette", "min_games": 0}).json()
    assert not {p["username"] for p in board["players"]} & set(names.values())
    for page in (a, b):
        page.context.close()


def test_profiles_link_only_replays_that_open_and_errors_speak_the_page_language(
        browser: Browser, make_pg_db: Callable[[], str], start_server: Callable[..., LiveServer]) -> None:
    db_url = make_pg_db()
    server = start_server(db_url)
    ids = {}
    for name in ("alba", "boris"):
        r = local_http.post(f"{server.url}/api/auth/register", json={"username": name, "password": "secret-pw"})
        ids[name] = r.json()["user"]["id"]
    with db_session(db_url) as s:
        public, _ = store_game_with_puzzle(s, players=(ids["alba"], ids["boris"]), variant=Variant.TRESSETTE, seed=2)
        private, _ = store_game_with_puzzle(s, players=(ids["alba"], ids["boris"]), variant=Variant.TRESSETTE, seed=3)
        s.get(Game, private.game_id).opponent = "invite"  # type: ignore[union-attr]
        s.commit()
        games = {g.id: g.opponent for g in s.scalars(select(Game))}
        assert s.scalar(select(User).where(User.username == "alba")) is not None
    public_id = next(g for g, o in games.items() if o != "invite")
    private_id = next(g for g, o in games.items() if o == "invite")

    for lang, viewport, size in (("en", DESKTOP, "desktop"), ("sl", PHONE, "phone")):
        page = _guest(browser, server.url, viewport, lang=lang)
        page.goto(f"{server.url}/#/player/alba")
        expect(page.locator("#recent-games tbody tr")).to_have_count(2)
        expect(page.locator(f'#recent-games tr[data-game="{public_id}"] a.replay-link')).to_have_count(1)
        expect(page.locator(f'#recent-games tr[data-game="{private_id}"] a.replay-link')).to_have_count(0)
        _shot(page, f"profile-links-{size}-{lang}")
        page.click(f'#recent-games tr[data-game="{public_id}"] a.replay-link')
        expect(page.locator("#replay-counter")).to_be_visible()  # another player's public game opens
        page.goto(f"{server.url}/#/replay/{private_id}")
        expected = {"en": "Only the players of a private table may replay its games.",
                    "sl": "Igre zasebne mize lahko gledata le njena igralca."}[lang]
        expect(page.locator("#replay-error")).to_have_text(expected)
        _shot(page, f"profile-private-replay-{size}-{lang}")
        page.goto(f"{server.url}/#/match/999999")
        expect(page.locator("#match-error")).to_have_text(
            {"en": "There is no match with that number.", "sl": "Partije s to številko ni."}[lang])
        page.goto(f"{server.url}/#/player/nobody-here")
        expect(page.locator("#profile-error")).to_have_text(
            {"en": "There is no player with that name.", "sl": "Igralca s tem imenom ni."}[lang])
        page.context.close()


def test_a_newcomers_puzzle_rating_is_provisional_and_the_empty_page_fits_the_filter(
        browser: Browser, make_pg_db: Callable[[], str], start_server: Callable[..., LiveServer]) -> None:
    server = start_server(make_pg_db())
    for lang, viewport, size in (("en", DESKTOP, "desktop"), ("sl", PHONE, "phone")):
        page = _guest(browser, server.url, viewport, lang=lang)
        page.click("#nav-puzzles")
        expect(page.locator("#puzzle-none")).to_be_visible()
        expect(page.locator("#puzzle-provisional")).to_contain_text(
            {"en": "provisional", "sl": "začasna"}[lang])
        page.select_option("#puzzle-variant", "any")
        none = page.locator("#puzzle-none")
        expect(none).to_contain_text({"en": "No puzzle near your rating", "sl": "blizu tvoje ocene"}[lang])
        expect(none).not_to_contain_text({"en": "try the other one", "sl": "poskusi drugo"}[lang])
        _shot(page, f"puzzles-empty-any-{size}-{lang}")
        page.select_option("#puzzle-variant", "kifameno")
        expect(none).to_contain_text({"en": "try the other one", "sl": "poskusi drugo"}[lang])
        page.context.close()
