"""The four-player levels: one well-formed list, each level plays legal true moves, the turn plays its level."""

from __future__ import annotations

import random

import pytest

from agent.load import Pool
from agent.partnership.levels import LEVELS, PARTNERSHIP_LEVELS, choose_level_move
from agent.partnership_turn import answer_partnership, answer_partnership_turn, level_time_ms
from tressette import card_name
from tressette.partnership import PartnershipDeal, PartnershipOptions, view_of_partnership


def test_the_level_list_is_well_formed() -> None:
    """Names unique, ``rules`` kept, announced weakest first, ``master`` 1 s of search, ratings rising."""
    names = [lv["name"] for lv in PARTNERSHIP_LEVELS]
    assert sorted(names) == sorted(LEVELS) and len(set(names)) == len(names)
    assert names == list(LEVELS) and "rules" in names
    assert list(LEVELS)[0] == "beginner" and list(LEVELS)[-1] == "master"
    assert LEVELS["master"].time_ms == 1000 and LEVELS["master"].worlds is None
    for lv in PARTNERSHIP_LEVELS:
        assert set(lv) == {"name", "time_ms", "rating"} and lv["time_ms"] > 0
        assert lv == {"name": lv["name"], "time_ms": LEVELS[lv["name"]].time_ms, "rating": LEVELS[lv["name"]].rating}
    rated = [lv.rating for lv in LEVELS.values() if lv.rating is not None]
    assert rated == sorted(rated)


@pytest.mark.parametrize("level", list(LEVELS))
def test_every_level_plays_legal_cards_and_declares_only_what_it_holds(level: str) -> None:
    """Each level in all four seats over seeded deals: the rules accept every move; it declares all it holds."""
    declared = signalled = 0
    for seed in range(3):
        deal = PartnershipDeal.new(seed % 4, random.Random(seed), PartnershipOptions(declarations=True))
        rng = random.Random(seed)
        while not deal.is_over:
            view = view_of_partnership(deal, deal.to_move)
            move = choose_level_move(view, level, rng, time_cap_ms=15)
            assert move.card in view.legal_moves()
            assert move.declarations == view.declarable()  # all it holds, nothing else
            if move.signal is not None:
                assert move.signal in view.allowed_signals(move.card)
                signalled += 1
            declared += len(move.declarations)
            deal.play_move(move, deal.to_move)  # a false declaration or signal raises
    assert signalled > 0


def test_the_turn_plays_its_level_and_refuses_an_unknown_one() -> None:
    """A served turn's fields name a legal card; an unknown level is a KeyError (logged by the service)."""
    deal = PartnershipDeal.new(1, random.Random(5))
    raw = view_of_partnership(deal, 1).to_dict()
    legal = {card_name(c) for c in view_of_partnership(deal, 1).legal_moves()}
    for level in [None, *LEVELS]:
        fields = answer_partnership(raw, level, 15, seed=1)
        assert fields["card"] in legal and set(fields) == {"card", "declarations", "signal"}
    turn = {"type": "bot_turn", "table_id": "t", "turn": 0, "level": "master", "time_ms": 30, "state": raw,
            "game": "partnership"}
    pool = Pool(1)
    assert answer_partnership_turn(turn, pool, 0.0)["card"] in legal
    assert pool.in_flight == 0 and pool.peak == 1
    with pytest.raises(KeyError):
        answer_partnership(raw, "grandmaster")
    with pytest.raises(KeyError):
        level_time_ms("grandmaster")
    assert level_time_ms(None) == LEVELS["rules"].time_ms


def test_the_rule_level_is_the_rule_player_and_the_beginner_slips() -> None:
    """``rules`` never departs from the rule player; ``beginner`` does, sometimes, over a deal's moves."""
    from agent.partnership_player import choose_partnership_move

    deal = PartnershipDeal.new(0, random.Random(9))
    rng = random.Random(2)
    slips = 0
    while not deal.is_over:
        view = view_of_partnership(deal, deal.to_move)
        rule = choose_partnership_move(view)
        assert choose_level_move(view, "rules", rng) == rule
        slips += choose_level_move(view, "beginner", rng).card != rule.card
        deal.play_move(rule)
    assert slips > 0
