"""A match to 11 against the real bot, in headless Chromium, stored as linked deals with one rating update (#32).

The player opens a match from the lobby's form, plays every deal with the first playable card, asks for the
next deal from each summary, and sees the match's end; the store then holds one ``matches`` row, its deals
linked in order with the totals before each, the totals equal to the replayed deals' whole points, one rating
update for the whole match (deals add to the games counted, not to the rating), and the export's match columns
equal to the replay. A second player leaves a match to 21 between deals on a phone in Slovenian: the match is
lost by forfeit. Screenshots (``match-*``) of the match score and the match's end, desktop and phone, both
languages.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import select

from server.store import repos
from server.store.db import engine_for, session_factory
from server.store.models import Game, MatchRow, Move, User, UserTotals
from server.store.ratings import Rating, after_game
from tests import local_http
from tests.bot.test_bot_games import BOT_TOKEN
from tests.conftest import LiveServer, launch_server
from tests.web.conftest import DESKTOP, PHONE, real_bot
from tests.web.test_table_ux import _guest, _play_to_summary, _shot, _shots_everywhere
from tressette import Match, Variant, replay

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # 40 s or more in all
WAIT_MS = 30_000
ADMIN = ("matchadmin", "admin-pw-32")


@pytest.fixture(scope="module")
def site(make_pg_db: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str]]:
    """One server with one real bot and an admin; yields it and its database URL."""
    tmp = tmp_path_factory.mktemp("match")
    db_url = make_pg_db()
    server = launch_server(db_url, tmp, TRESET_BOT_TOKEN=BOT_TOKEN)
    with session_factory(db_url)() as session:
        repos.create_admin(session=session, username=ADMIN[0], password=ADMIN[1])
        session.commit()
    engine_for(db_url).dispose()
    with real_bot(server, tmp, BOT_TOKEN):
        yield server, db_url
    server.stop()


def _open_match(page: Page, target: int, variant: str = "tressette") -> None:
    page.select_option("#variant", variant)
    page.select_option("#target", str(target))
    page.select_option("#opponent", "bot")
    expect(page.locator("#level-field")).to_be_visible()
    page.select_option("#level", "easy")
    page.click("#create")
    expect(page.locator("#my-hand .card")).to_have_count(10, timeout=WAIT_MS)


def test_a_match_to_11_against_the_bot_is_stored_as_linked_deals(browser: Browser, site: tuple[LiveServer, str]) -> None:
    server, db_url = site
    page = _guest(browser, server.url, DESKTOP)
    _open_match(page, 11)
    expect(page.locator("#match-head")).to_contain_text("Match to 11")
    expect(page.locator("#match-head")).to_contain_text("You 0 : 0 bot-easy")
    expect(page.locator("#match-head")).to_contain_text("deal 1 of the match")
    _shots_everywhere(page, "match-table")
    deals = 0
    while True:
        _play_to_summary(page)
        deals += 1
        expect(page.locator("#match-summary")).to_contain_text(f"Match after deal {deals}:")
        if page.locator("#match-end").count():
            break
        assert deals < 8
        if deals == 1:
            expect(page.locator("#next-deal-in")).to_contain_text("bot-easy is ready: press")
            _shots_everywhere(page, "match-deal-summary")
        page.click("#rematch")  # "Next deal"
        expect(page.locator("#match-head")).to_contain_text(f"deal {deals + 1} of the match", timeout=WAIT_MS)
    end = page.locator("#match-end").inner_text()
    assert end.startswith(("You won the match", "You lost the match")), end
    _shots_everywhere(page, "match-end")
    expect(page.locator("#rematch")).to_have_text("New match")
    me = page.locator("#username").inner_text()

    page.click("#match-link")
    expect(page.locator("#match-deals tbody tr")).to_have_count(deals, timeout=WAIT_MS)
    _shots_everywhere(page, "match-page")

    with session_factory(db_url)() as session:
        user = session.scalar(select(User).where(User.username == me))
        assert user is not None
        match = session.scalar(select(MatchRow).where(MatchRow.player0_id == user.id))
        assert match is not None and match.status == "finished" and match.target == 11 and match.deals == deals
        games = list(session.scalars(select(Game).where(Game.match_id == match.id).order_by(Game.match_deal)))
        assert [g.match_deal for g in games] == list(range(1, deals + 1))
        replayed = Match(Variant.TRESSETTE, 11)
        for g in games:
            assert (g.match_before0, g.match_before1) == replayed.scores
            moves = [m.card for m in session.scalars(select(Move).where(Move.game_id == g.id).order_by(Move.move_number))]
            deal = replay(g.deck, Variant.TRESSETTE, g.first_leader, moves)
            assert deal.is_over and deal.final_points() == (g.points0, g.points1)
            replayed = replayed.after(deal.final_points())
        assert replayed.is_over and replayed.scores == (match.score0, match.score1)
        assert match.winner_seat == replayed.winner and match.end_reason == "finished" and not match.rating_pending
        assert len({g.first_leader for g in games[:2]}) == min(2, deals)  # the first lead alternates
        totals = session.get(UserTotals, (user.id, "tressette"))
        bot = session.scalar(select(User).where(User.username == "bot-easy"))
        assert totals is not None and bot is not None
        bot_totals = session.get(UserTotals, (bot.id, "tressette"))
        assert bot_totals is not None
        assert totals.games == deals and bot_totals.games == deals  # every deal counted...
        expected, _ = after_game(Rating(), Rating(), replayed.winner or 0)  # ...and one rating update, for the match
        assert round(totals.rating, 6) == round(expected.rating, 6) and round(totals.rating_rd, 6) == round(expected.rd, 6)

    admin = local_http.post(f"{server.url}/api/auth/login", json={"username": ADMIN[0], "password": ADMIN[1]}).json()["token"]
    r = local_http.get(f"{server.url}/api/admin/moves/export", params={"format": "csv", "player": me},
                  headers={"Authorization": f"Bearer {admin}"}, timeout=60)
    assert r.status_code == 200
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert len(rows) == 20 * deals
    before = {g.id: (g.match_before0, g.match_before1) for g in games}
    for row in rows:
        game_id = int(row["game_id"])
        seat = int(row["seat"])
        assert int(row["match_id"]) == match.id
        assert int(row["match_deal"]) == next(g.match_deal for g in games if g.id == game_id)
        assert (int(row["match_score"]), int(row["match_opponent_score"])) == (before[game_id][seat],
                                                                               before[game_id][1 - seat])
    page.context.close()


def test_leaving_a_match_between_deals_loses_it_on_a_phone_in_slovenian(
        browser: Browser, site: tuple[LiveServer, str]) -> None:
    server, db_url = site
    page = _guest(browser, server.url, PHONE, lang="sl")
    _open_match(page, 21, "kifameno")
    expect(page.locator("#match-head")).to_contain_text("Partija do 21")
    _shot(page, "match-phone-sl-table")
    _play_to_summary(page)
    expect(page.locator("#match-summary")).to_contain_text("Partija po 1. igri:")
    _shot(page, "match-phone-sl-summary")
    me = page.locator("#username").inner_text()
    page.click("#leave")
    expect(page.locator("#leave-confirm")).to_contain_text("Izgubiš partijo")
    page.click("#leave-yes")
    expect(page.locator("#create")).to_be_visible()
    deadline = time.time() + 10
    while True:
        with session_factory(db_url)() as session:
            user = session.scalar(select(User).where(User.username == me))
            assert user is not None
            match = session.scalar(select(MatchRow).where(MatchRow.player0_id == user.id))
            if match is not None and match.status == "finished" or time.time() > deadline:
                break
        time.sleep(0.2)
    assert match is not None and match.status == "finished"
    assert match.winner_seat == 1 and match.end_reason == "left" and match.deals == 1
    page.context.close()
