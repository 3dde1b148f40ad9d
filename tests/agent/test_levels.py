"""The bot levels (``agent/levels.py``) and the service's budgets under load (``agent/load.py``)."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from typing import Any

from agent.levels import LEVELS, choose_card, level_info
from agent.load import MIN_BUDGET_MS, Pool, default_capacity
from agent.service import BotService
from tressette import Deal, Variant, state_from_view, view_of


def test_the_ladder_is_weakest_first_with_rising_ratings_and_the_old_names() -> None:
    """Six levels, weakest first; the ratings rise; easy/normal/strong still exist; hello carries ratings."""
    names = list(LEVELS)
    assert names == ["beginner", "novice", "easy", "normal", "strong", "master"]
    ratings = [LEVELS[n].rating for n in names]
    assert all(r is not None for r in ratings) and ratings == sorted(ratings)
    assert [i["name"] for i in level_info(names)] == names
    assert level_info(["master"]) == [{"name": "master", "time_ms": 1000, "rating": LEVELS["master"].rating}]
    assert [LEVELS[n].exact_cards for n in names] == [0, 0, 5, 10, 10, 10]


def test_every_level_plays_legal_cards_through_a_deal_and_a_seed_repeats_it() -> None:
    """Each level plays whole deals with legal cards (fast levels at their settings, the searched ones capped).

    The cap is always given: a search stopped by its time instead (``normal``'s 100 ms for 200 iterations
    on a loaded machine) would not repeat."""
    for k, name in enumerate(LEVELS):
        own = LEVELS[name].iterations
        cap = own if own is not None and own <= 200 else 64
        deal = Deal.new(Variant.KIFAMENO if k % 2 else Variant.TRESSETTE, k % 2, random.Random(k))
        while not deal.is_over:
            state = state_from_view(view_of(deal, deal.to_move))
            card = choose_card(state, name, seed=k, iterations=cap)
            assert card in state.legal_moves()
            assert card == choose_card(state, name, seed=k, iterations=cap)
            deal.play(card)


def test_the_loosest_level_varies_its_cards_and_the_policy_levels_answer_at_once(monkeypatch: Any) -> None:
    """``beginner`` samples the policy (different seeds, different cards) without searching."""
    import agent.decide

    def no_search(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a policy level searched")

    monkeypatch.setattr(agent.decide, "decide", no_search)
    deal = Deal.new(Variant.TRESSETTE, 0, random.Random(5))
    state = state_from_view(view_of(deal, 0))
    cards = {choose_card(state, "beginner", seed=s) for s in range(40)}
    assert len(cards) > 2
    assert all(choose_card(state, name, seed=1) in state.legal_moves() for name in ("novice", "easy"))


def test_budgets_shrink_with_the_decisions_in_flight_and_with_waiting() -> None:
    """Up to the slots a decision gets its level's time; beyond, a share; a late start gets what is left."""
    assert Pool(2).slots == 8
    pool = Pool(2, slots=2)
    assert pool.budget_ms(1000, 5000, 0, 1) == 1000
    assert pool.budget_ms(1000, 5000, 0, 2) == 1000
    assert pool.budget_ms(1000, 5000, 0, 4) == 500
    assert pool.budget_ms(1000, 300, 0, 1) == 300  # the server's cap
    assert pool.budget_ms(1000, 5000, 990, 1) == MIN_BUDGET_MS
    assert Pool(2, slots=2, shed=False).budget_ms(1000, 5000, 500, 10) == 1000
    assert pool.start(1000, 5000, 0) == 1000 and pool.start(1000, 5000, 0) == 1000
    assert pool.start(1000, 5000, 0) == 666 and pool.figures() == {"in_flight": 3, "peak": 3, "cores": 2,
                                                                   "slots": 2, "shrunk": 1}
    for _ in range(3):
        pool.end()
    assert pool.in_flight == 0
    assert default_capacity(2) > 2


def test_the_service_gives_concurrent_turns_shrunk_budgets() -> None:
    """Turns in flight beyond the full-budget slots are decided with less time, and every turn is answered."""
    budgets: list[int] = []
    release = threading.Event()

    def chooser(raw: dict[str, Any], level: str, time_ms: int) -> str:
        budgets.append(time_ms)
        release.wait(5)
        return "B 4"

    sent: list[dict[str, Any]] = []

    class Socket:
        async def send(self, text: str) -> None:
            sent.append(json.loads(text))

    async def scenario() -> None:
        service = BotService(server="http://x", token="t", levels=["master"], capacity=4, chooser=chooser,
                             pool=Pool(1, slots=1))
        for turn in range(3):
            service._dispatch(Socket(), json.dumps(  # type: ignore[arg-type]
                {"type": "bot_turn", "table_id": f"t{turn}", "turn": turn, "level": "master", "time_ms": 5000,
                 "state": {}}))
        while len(budgets) < 3:
            await asyncio.sleep(0.01)
        release.set()
        while len(sent) < 3:
            await asyncio.sleep(0.01)
        service._executor.shutdown()

    asyncio.run(scenario())
    got = sorted(budgets, reverse=True)  # less the milliseconds each turn waited for its thread
    assert 950 <= got[0] <= 1000 and 450 <= got[1] <= 500 and 283 <= got[2] <= 333
    assert {m["table_id"] for m in sent} == {"t0", "t1", "t2"}
