"""The puzzle page in a real headless Chromium: solve one (keys and clicks), fail one, desktop and phone, EN and SL.

The puzzles are real endgames of seeded games whose lines are proven by brute force (tests/puzzles/rows.py).
Screenshots of every result, in both languages, go to test-artifacts/screenshots (puzzle-*.png).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from server.store import repos
from tests import local_http
from tests.conftest import LiveServer
from tests.puzzles.rows import player_cards, store_game_with_puzzle
from tests.server.db import db_session
from tests.web.conftest import DESKTOP, PHONE
from tests.web.test_analysis_page import _no_stray, _shot
from tressette import Variant

pytestmark = pytest.mark.browser
PASSWORD = "secret-pw-1"


def _puzzles(pg_url: str, server: LiveServer, kifameno: bool = False) -> tuple[dict[int, dict[str, Any]], str]:
    """Store three Tressette puzzles from alba's and boris's games (and a Kifameno one where the opponent has
    led); return their data by id and alba's token."""
    tokens, ids = [], []
    for name in ("alba", "boris"):
        r = local_http.post(f"{server.url}/api/auth/register", json={"username": name, "password": PASSWORD})
        r.raise_for_status()
        tokens.append(r.json()["token"])
        ids.append(r.json()["user"]["id"])
    found = {}
    with db_session(pg_url) as s:
        for seed, rating, depth, themes in ((31, 1500.0, 2, ["low_follow"]), (2, 1200.0, 1, ["one_move", "take_ace"]),
                                            (3, 1900.0, 1, ["one_move", "last_trick"])):
            puzzle, data = store_game_with_puzzle(s, players=(ids[0], ids[1]), variant=Variant.TRESSETTE, seed=seed,
                                                  rating=rating, depth=depth, themes=themes)
            found[puzzle.id] = data
        if kifameno:
            puzzle, data = store_game_with_puzzle(s, players=(ids[0], ids[1]), variant=Variant.KIFAMENO, seed=26)
            assert data["inplay"]
            found[puzzle.id] = data
        s.commit()
    return found, tokens[0]


def _served(page: Page, server: LiveServer, variant: str = "tressette") -> int:
    """Return the id of the puzzle the page shows (the player's open one of ``variant``)."""
    token = page.evaluate("localStorage.getItem('treset.token')")
    r = local_http.get(f"{server.url}/api/puzzles/next", params={"variant": variant},
                  headers={"Authorization": f"Bearer {token}"})
    return int(r.json()["puzzle"]["id"])


def _play(page: Page, card: str, keyboard: bool = False) -> None:
    mine = page.locator("#my-hand .card.legal")
    expect(mine.first).to_be_visible()
    if keyboard:
        names = [mine.nth(i).get_attribute("data-card") for i in range(mine.count())]
        page.keyboard.press(str(names.index(card) + 1))
    else:
        page.locator(f'#my-hand .card.legal[data-card="{card}"]').click()


def _both_languages(page: Page, name: str, width: int) -> None:
    """Screenshot the page, switch the language, screenshot again, switch back."""
    for _ in range(2):
        lang = page.evaluate("document.documentElement.lang")
        _no_stray(page, f"{name}-{lang}")
        _shot(page, f"puzzle-{name}-{lang}", width)
        page.select_option("#lang", "sl" if lang == "en" else "en")
        expect(page.locator("#puzzle-page")).to_be_visible()


def _solve_and_fail(page: Page, server: LiveServer, found: dict[int, dict[str, Any]], device: str, width: int,
                    *, sl: bool) -> None:
    page.click("#nav-puzzles")
    expect(page.locator("#puzzle-why")).to_be_visible()
    first = found[_served(page, server)]
    expect(page.locator("#puzzle-goal")).to_have_text("Zmagaj v igri" if sl else "Win the deal")
    expect(page.locator("#opp-hand .card")).to_have_count(len(first["opponent_hand"]))  # face up, named
    for card in first["opponent_hand"]:
        expect(page.locator(f'#opp-hand .card[data-card="{card}"]')).to_have_count(1)
    mine = player_cards(first)
    for n, card in enumerate(mine):
        _play(page, card, keyboard=n == 0)  # the first by the keyboard, as at the table
        if n < len(mine) - 1:
            expect(page.locator("#puzzle-status")).to_have_text("Pravilno! Nasprotnik je odgovoril: nadaljuj." if sl
                                                                else "Right! Your opponent answered: go on.")
            _shot(page, f"puzzle-right-{device}-{'sl' if sl else 'en'}", width)
    expect(page.locator("#puzzle-verdict")).to_have_text("Rešeno!" if sl else "Solved!")
    expect(page.locator("#puzzle-change")).to_contain_text("1500 →")
    expect(page.locator("#puzzle-themes li")).to_have_count(1)
    expect(page.locator("#puzzle-solution figure")).to_have_count(len(first["solution"]) + len(first["inplay"]))
    _both_languages(page, f"solved-{device}", width)

    page.click("#puzzle-next")
    expect(page.locator("#puzzle-result")).to_have_count(0)
    second = found[_served(page, server)]
    wrong = next(iter(second["refutations"][0]))
    _play(page, wrong)
    expect(page.locator("#puzzle-verdict")).to_have_text("Ne ta." if sl else "Not that one.")
    expect(page.locator("#puzzle-refutation figure").first).to_have_attribute("data-card", wrong)
    refutation = second["refutations"][0][wrong]
    expect(page.locator("#puzzle-refutation figure")).to_have_count(len(refutation) + len(second["inplay"]))
    expect(page.locator("#puzzle-refutation-end")).to_be_visible()
    expect(page.locator("#puzzle-solution figure").first).to_be_visible()
    _both_languages(page, f"failed-{device}", width)


@pytest.mark.slow
def test_solve_and_fail_on_desktop_with_the_game_link(pg_url: str, start_server: Callable[..., LiveServer],
                                                      contexts: Callable[..., Page]) -> None:
    """Alba played the games: she solves one (the first card by key), fails one, and may open the game."""
    server = start_server(pg_url)
    found, _ = _puzzles(pg_url, server)
    page = contexts(DESKTOP)
    page.goto(f"{server.url}/")
    page.fill("input[name=username]", "alba")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login")
    expect(page.locator("#nav-puzzles")).to_have_text("Puzzles")
    _solve_and_fail(page, server, found, "desktop", DESKTOP["width"], sl=False)
    expect(page.locator("#puzzle-game")).to_be_visible()
    page.click("#puzzle-game")
    expect(page.locator("#replay-board")).to_be_visible()  # the game it came from, replayed
    page.click("#nav-profile")  # the profile shows the puzzle rating and the tries
    expect(page.locator("#profile-puzzles")).to_contain_text("1 solved of 2")
    # An admin sees every puzzle with how often it was tried and solved.
    with db_session(pg_url) as s:
        repos.create_admin(session=s, username="root", password=PASSWORD)
        s.commit()
    page.click("#signout")
    page.fill("input[name=username]", "root")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login")
    page.click("#nav-admin")
    rows = page.locator("#admin-puzzle-list tbody tr")
    expect(rows).to_have_count(3)
    # newest first: untried (1900, too far above the player's 1550 to be served), failed (1200), solved (1500)
    expect(page.locator("#admin-puzzle-list tbody tr td:nth-child(4)")).to_have_text(["0", "1", "1"])
    page.locator("#admin-puzzle-list").scroll_into_view_if_needed()
    _shot(page, "puzzle-admin-desktop-en", DESKTOP["width"])


@pytest.mark.slow
def test_a_guest_solves_and_fails_on_a_phone_in_slovenian(pg_url: str, start_server: Callable[..., LiveServer],
                                                          contexts: Callable[..., Page]) -> None:
    """A guest on a 390 px phone, in Slovenian: the game link (a public game), nothing sticks out sideways."""
    server = start_server(pg_url)
    found, _ = _puzzles(pg_url, server, kifameno=True)
    page = contexts(PHONE)
    page.goto(f"{server.url}/")
    page.select_option("#lang", "sl")
    page.click("#guest")
    expect(page.locator("#nav-puzzles")).to_have_text("Uganke")
    _solve_and_fail(page, server, found, "phone", PHONE["width"], sl=True)
    expect(page.locator("#puzzle-game")).to_have_count(1)  # a finished public game: anyone may replay it
    # Kifameno, where the opponent has led: the card in play is on the table, the goal is fewer points.
    page.select_option("#puzzle-variant", "kifameno")
    expect(page.locator("#puzzle-goal")).to_have_text("Končaj z manj točkami")
    kif = found[_served(page, server, "kifameno")]
    expect(page.locator("#trick .card")).to_have_count(1)
    expect(page.locator("#trick .card").first).to_have_attribute("data-card", kif["inplay"][0])
    _shot(page, "puzzle-start-kifameno-phone-sl", PHONE["width"])
    _play(page, player_cards(kif)[0])
    expect(page.locator("#puzzle-verdict")).to_have_text("Rešeno!")
