"""The puzzle API against the real server and PostgreSQL: serving, attempts, refusals, Glicko-2, admins, guests."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from server.store.models import PuzzleRating
from server.store.puzzle_play import HARDER_BY, MAX_CHANGE
from server.store.ratings import Rating, update
from tests import local_http
from tests.conftest import LiveServer
from tests.puzzles.rows import player_cards, store_game_with_puzzle
from tests.server.db import admin_token, db_session
from tressette import Variant

SECRET = "secret-pw"


def _register(url: str, name: str) -> tuple[str, int]:
    r = local_http.post(f"{url}/api/auth/register", json={"username": name, "password": SECRET})
    r.raise_for_status()
    return r.json()["token"], r.json()["user"]["id"]


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Player:
    """A signed-in caller of the puzzle API."""

    def __init__(self, url: str, token: str) -> None:
        """Keep the server's URL and the caller's token."""
        self.url, self.token = url, token

    def next(self, variant: str = "tressette") -> dict[str, Any]:
        """Ask for the next puzzle; return the answer's body."""
        r = local_http.get(f"{self.url}/api/puzzles/next", params={"variant": variant}, headers=_auth(self.token))
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    def attempt(self, puzzle_id: int, cards: Any) -> httpx.Response:
        """Send the cards played so far."""
        return local_http.post(f"{self.url}/api/puzzles/{puzzle_id}/attempt", json={"cards": cards},
                          headers=_auth(self.token))


def _setup(pg_url: str, server: LiveServer) -> dict[str, Any]:
    """Two players whose games give puzzles (1400, 1500, 1700, Kifameno, one in an unfinished game)."""
    ta, alba = _register(server.url, "alba")
    tb, boris = _register(server.url, "boris")
    puzzles = {}
    with db_session(pg_url) as s:
        for name, variant, seed, rating, depth, finished in (
                ("low", Variant.TRESSETTE, 2, 1400.0, 1, True), ("mid", Variant.TRESSETTE, 31, 1510.0, 2, True),
                ("high", Variant.TRESSETTE, 3, 1700.0, 1, True), ("kif", Variant.KIFAMENO, 12, 1500.0, 2, True),
                ("playing", Variant.TRESSETTE, 4, 1500.0, 1, False)):
            puzzle, data = store_game_with_puzzle(s, players=(alba, boris), variant=variant, seed=seed, rating=rating,
                                                  depth=depth, finished=finished, themes=["one_move"])
            puzzles[name] = (puzzle.id, data, puzzle.game_id)
        s.commit()
    return {"alba": Player(server.url, ta), "puzzles": puzzles}


@pytest.mark.parametrize("db", ["pg", "sqlite"])
def test_serve_solve_fail_and_refusals(db: str, request: pytest.FixtureRequest,
                                       start_server: Callable[..., LiveServer]) -> None:
    """The nearest puzzle is served without its line; right, solved and wrong change both ratings once."""
    pg_url = request.getfixturevalue("pg_url" if db == "pg" else "sqlite_url")
    server = start_server(pg_url)
    world = _setup(pg_url, server)
    puzzles = world["puzzles"]
    cene = Player(server.url, _register(server.url, "cene")[0])
    first = cene.next()
    mid_id, mid, mid_game = puzzles["mid"]
    assert first["puzzle"]["id"] == mid_id  # 1510 is nearest 1500
    shown = first["puzzle"]
    assert not {"solution", "accepted", "refutations", "themes"} & set(shown)
    assert shown["hand"] == mid["hand"] and shown["opponent_hand"] == mid["opponent_hand"]
    # a finished game between people is public: anyone signed in may follow the link to it
    assert shown["replay"] is True and shown["game_id"] == mid_game and first["you"]["rating"] == 1500.0
    assert first["you"]["provisional"] is True
    assert cene.next()["puzzle"]["id"] == mid_id  # asked again while open: the same one

    # Refusals: unknown id, not served, malformed cards, bad names, illegal cards.
    r = cene.attempt(99999, ["D AS"])
    assert (r.status_code, r.json()["code"]) == (404, "no_puzzle")
    r = cene.attempt(puzzles["low"][0], player_cards(puzzles["low"][1])[:1])
    assert (r.status_code, r.json()["code"]) == (403, "not_served")
    assert cene.attempt(mid_id, []).status_code == 422
    assert cene.attempt(mid_id, "D AS").status_code == 422
    r = cene.attempt(mid_id, ["X 11"])
    assert (r.status_code, r.json()["code"]) == (422, "bad_card")
    r = cene.attempt(mid_id, [mid["opponent_hand"][0]])
    assert (r.status_code, r.json()["code"]) == (422, "illegal_card")

    # Solve it step by step; a replayed step is refused.
    mine = player_cards(mid)
    assert len(mine) >= 2
    r = cene.attempt(mid_id, mine[:1])
    assert r.status_code == 200 and r.json()["result"] == "right" and r.json()["reply"], r.text
    r = cene.attempt(mid_id, mine[:1])
    assert (r.status_code, r.json()["code"]) == (409, "out_of_step")
    assert cene.next()["puzzle"]["cards"] == mine[:1]  # a reload resumes where the player is
    for n in range(2, len(mine) + 1):
        r = cene.attempt(mid_id, mine[:n])
        assert r.status_code == 200, r.text
    solved = r.json()
    assert solved["result"] == "solved" and solved["themes"] == ["one_move"]
    expected = update(Rating(), [(Rating(1510.0, 250.0), 1.0)])  # +165 by Glicko-2 alone: one puzzle moves 50
    assert expected.rating > 1500.0 + MAX_CHANGE
    assert solved["rating"]["before"] == 1500.0 and solved["rating"]["after"] == 1500.0 + MAX_CHANGE
    assert solved["rating"]["rd"] == round(expected.rd, 1) and solved["rating"]["provisional"] is True
    assert [m["card"] for m in solved["solution"]] == mid["solution"]
    r = cene.attempt(mid_id, mine)
    assert (r.status_code, r.json()["code"]) == (409, "answered")

    # The next one is nearest the new rating; a wrong card shows the refutation and the answer.
    by_id = {pid: d for pid, d, _ in puzzles.values()}
    second = cene.next()["puzzle"]
    assert second["id"] == puzzles["low"][0]  # 1400 and 1700 both 150 from 1550: the older one
    data = by_id[second["id"]]
    wrong_card = next(iter(data["refutations"][0]))
    r = cene.attempt(second["id"], [wrong_card])
    failed = r.json()
    assert failed["result"] == "wrong" and failed["refutation"][0]["card"] == wrong_card
    assert [m["card"] for m in failed["refutation"]] == data["refutations"][0][wrong_card]
    assert failed["rating"]["before"] == solved["rating"]["after"] and failed["rating"]["change"] < 0

    # Never a puzzle of an unfinished game; Kifameno apart; then none is left.
    assert cene.next("kifameno")["puzzle"]["id"] == puzzles["kif"][0]
    last = cene.next()["puzzle"]["id"]
    assert last in (puzzles["low"][0], puzzles["high"][0]) and last != second["id"]
    assert cene.attempt(last, [next(iter(by_id[last]["refutations"][0]))]).json()["result"] == "wrong"
    assert cene.next()["puzzle"] is None  # the unfinished game's puzzle is never served

    # The game's own player may follow the link to it; the puzzle's counts for admins.
    alba = world["alba"]
    assert alba.next()["puzzle"]["replay"] is True
    admin = _auth(admin_token(pg_url))
    whole = local_http.get(f"{server.url}/api/puzzles/{mid_id}", headers=admin).json()
    assert (whole["attempts"], whole["solved"], whole["solution"]) == (1, 1, mid["solution"])
    listed = local_http.get(f"{server.url}/api/puzzles", params={"limit": 2}, headers=admin).json()
    assert len(listed["puzzles"]) == 2 and listed["total"] == 5
    assert local_http.get(f"{server.url}/api/puzzles", headers=_auth(cene.token)).status_code == 403
    assert local_http.get(f"{server.url}/api/puzzles/{mid_id}", headers=_auth(cene.token)).status_code == 200  # answered
    assert local_http.get(f"{server.url}/api/puzzles/{mid_id}", headers=_auth(alba.token)).status_code == 403


def test_concurrent_answers_lose_no_update_and_guests_keep_their_rating(
        pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Attempts on one puzzle at once all count; a guest's puzzle rating survives registering."""
    server = start_server(pg_url)
    world = _setup(pg_url, server)
    players = [Player(server.url, local_http.post(f"{server.url}/api/auth/guest").json()["token"]) for _ in range(4)]
    mid_id, mid, _ = world["puzzles"]["mid"]
    for p in players:
        assert p.next()["puzzle"]["id"] == mid_id
    wrong_card = next(iter(mid["refutations"][0]))
    answers: list[httpx.Response] = []
    threads = [threading.Thread(target=lambda p=p: answers.append(p.attempt(mid_id, [wrong_card]))) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a.status_code for a in answers) == [200] * 4
    befores = sorted(a.json()["puzzle_rating"]["before"] for a in answers)
    assert len(set(befores)) == 4  # each saw the rating the one before left: none was lost
    admin = _auth(admin_token(pg_url))
    assert local_http.get(f"{server.url}/api/puzzles/{mid_id}", headers=admin).json()["attempts"] == 4
    guest = players[0]
    rating = guest.next()["you"]["rating"]
    r = local_http.post(f"{server.url}/api/auth/upgrade", json={"username": "dora", "password": SECRET},
                   headers=_auth(guest.token))
    assert r.status_code == 200, r.text
    dora = Player(server.url, r.json()["token"])
    assert dora.next()["you"]["rating"] == rating != 1500.0
    with db_session(pg_url) as s:
        assert s.scalar(select(PuzzleRating.attempts).where(PuzzleRating.user_id == r.json()["user"]["id"])) == 1


def test_puzzle_requests_are_limited_per_user(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Past ``puzzle_requests`` in the window: 429 with ``Retry-After`` and the code ``throttled``."""
    server = start_server(pg_url, TRESET_PUZZLE_REQUESTS="3")
    guest = Player(server.url, local_http.post(f"{server.url}/api/auth/guest").json()["token"])
    for _ in range(3):
        assert guest.next()["puzzle"] is None
    r = local_http.get(f"{server.url}/api/puzzles/next", headers=_auth(guest.token))
    assert (r.status_code, r.json()["code"]) == (429, "throttled") and int(r.headers["Retry-After"]) >= 1
    other = Player(server.url, local_http.post(f"{server.url}/api/auth/guest").json()["token"])
    assert other.next()["puzzle"] is None  # another user's budget is their own


def test_puzzles_are_served_near_the_rating_and_one_answer_moves_it_little(
        pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A 1290 player is never served a 2400 puzzle; a newcomer's first wrong card costs at most MAX_CHANGE."""
    server = start_server(pg_url)
    _, alba = _register(server.url, "alba")
    _, boris = _register(server.url, "boris")
    token, dora = _register(server.url, "dora")
    with db_session(pg_url) as s:
        hard, _ = store_game_with_puzzle(s, players=(alba, boris), variant=Variant.KIFAMENO, seed=12, rating=2400.0,
                                         depth=2, themes=["long"])
        easy, easy_data = store_game_with_puzzle(s, players=(alba, boris), variant=Variant.TRESSETTE, seed=2,
                                                 rating=1100.0, themes=["one_move"])
        s.add(PuzzleRating(user_id=dora, rating=1290.0, rating_rd=60.0, rating_volatility=0.06, attempts=40, solved=20))
        s.commit()
        hard_id, easy_id = hard.id, easy.id
    assert 1290.0 + HARDER_BY < 2400.0
    dora_api = Player(server.url, token)
    first = dora_api.next("any")
    assert first["puzzle"]["id"] == easy_id and first["you"]["provisional"] is False  # 190 below: served
    r = dora_api.attempt(easy_id, [next(iter(easy_data["refutations"][0]))])
    assert r.json()["result"] == "wrong"
    assert dora_api.next("any")["puzzle"] is None  # the 2400 one is too far above: none near her rating
    assert dora_api.next("kifameno")["puzzle"] is None

    newcomer = Player(server.url, _register(server.url, "emil")[0])
    served = newcomer.next("tressette")["puzzle"]
    assert served["id"] == easy_id and hard_id != easy_id
    failed = newcomer.attempt(easy_id, [next(iter(easy_data["refutations"][0]))]).json()
    glicko = update(Rating(), [(Rating(1100.0, 250.0), 0.0)])
    assert glicko.rating < 1500.0 - 100  # what Glicko-2 alone would take from a newcomer
    assert failed["rating"]["change"] == -MAX_CHANGE and failed["rating"]["after"] == 1500.0 - MAX_CHANGE
    assert failed["rating"]["provisional"] is True
