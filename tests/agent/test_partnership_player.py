"""The honest rule-based four-player player: always legal, declares and signals truly, beats random play."""

from __future__ import annotations

import random

import pytest

from agent.partnership_player import choose_partnership_move
from tressette import parse_card, parse_cards
from tressette.partnership import PartnershipDeal, PartnershipOptions, Signal, view_of_partnership

HANDS = [
    "B 3, B 2, B AS, K AS, S AS, D 4, D 5, D 6, D 7, K 4",
    "K 3, S 3, D 3, K 2, S 2, D 2, B KRALJ, B KAVAL, B FANT, B 7",
    "D AS, D KRALJ, D KAVAL, D FANT, K KRALJ, K KAVAL, K FANT, K 7, K 6, K 5",
    "B 6, B 5, B 4, S KRALJ, S KAVAL, S FANT, S 7, S 6, S 5, S 4",
]


def _known_deal() -> PartnershipDeal:
    return PartnershipDeal.from_deck([c for h in HANDS for c in parse_cards(h.split(", "))], 0)


def test_known_choices() -> None:
    deal = _known_deal()
    first = choose_partnership_move(view_of_partnership(deal, 0))
    assert first.card == parse_card("B AS")             # the dearest sure winner (it holds the 3 and 2 above)
    assert len(first.declarations) == 2 and first.signal is None  # declares all; no signal in the first trick
    deal.play_move(first)
    second = choose_partnership_move(view_of_partnership(deal, 1))
    assert second.card == parse_card("B 7")             # cannot take: the cheapest, weakest of the suit
    deal.play_move(second)
    third = choose_partnership_move(view_of_partnership(deal, 2))
    assert third.card == parse_card("D AS")             # partner holds the trick, no clubs: load the Ace
    deal.play_move(third)
    deal.play_move(choose_partnership_move(view_of_partnership(deal, 3)))
    assert deal.history[0].cards[3] == parse_card("B 4")  # must follow, cannot take: the weakest
    assert deal.history[0].winner == 0 and deal.points == [6, 0]
    lead = choose_partnership_move(view_of_partnership(deal, 0))
    assert lead.card == parse_card("B 3") and lead.signal is None  # one club left after it: no signal
    deal.play_move(lead)
    for _ in range(3):
        deal.play_move(choose_partnership_move(view_of_partnership(deal, deal.to_move)))
    lead = choose_partnership_move(view_of_partnership(deal, 0))
    assert lead.card == parse_card("B 2") and lead.signal is Signal.VOLO  # its last club: volo, and true


def test_not_the_seat_to_move() -> None:
    with pytest.raises(ValueError, match="not the seat to move"):
        choose_partnership_move(view_of_partnership(_known_deal(), 1))


def test_it_plays_only_legal_true_moves_and_beats_random_play() -> None:
    """Partnership 0 plays by the rules of thumb, partnership 1 at random; every move is accepted."""
    scores = [0, 0]
    for seed in range(300):
        rng = random.Random(seed)
        deal = PartnershipDeal.new(seed % 4, rng, PartnershipOptions())
        while not deal.is_over:
            seat = deal.to_move
            if seat % 2 == 0:
                deal.play_move(choose_partnership_move(view_of_partnership(deal, seat)), seat)  # refused: raises
            else:
                deal.play(rng.choice(deal.legal_moves()), seat)
        outcome = deal.outcome()
        scores[0] += outcome.card_score[0]
        scores[1] += outcome.card_score[1]
    assert scores[0] > 0.58 * sum(scores), scores  # 63 % on these seeds; random against random is 50 %
