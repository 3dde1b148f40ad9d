"""The rules of two-player Tressette and Kifameno, in pure standard-library Python.

The one source of truth for cards, follow-suit, tricks, drawing, scoring, the
per-player view and the agent's JSON state.  Imports nothing outside the
standard library.
"""

from tressette.cards import (
    ACE_POINTS,
    ALL_CARDS,
    CARD_NAMES,
    LAST_TRICK_BONUS,
    N_CARDS,
    POINTS,
    RANKS,
    STRENGTH,
    SUITS,
    TOTAL_POINTS,
    WINNING_POINTS,
    Card,
    CardError,
    Mask,
    beats,
    card_name,
    cards_of,
    mask_of,
    parse_card,
    parse_cards,
    points_of,
    rank_of,
    suit_of,
    traditional_points,
)
from tressette.deal import Deal, Outcome, Trick, replay, shuffled_deck
from tressette.errors import IllegalMoveError, InvalidStateError
from tressette.match import MATCH_TARGETS, Match, deal_score, match_winner
from tressette.state import HIM, ME, AgentState, MatchScore, parse_state, state_from_view
from tressette.variant import Variant, VariantName
from tressette.view import PlayerView, trick_to_dict, view_of

__all__ = [
    "ACE_POINTS",
    "ALL_CARDS",
    "CARD_NAMES",
    "HIM",
    "LAST_TRICK_BONUS",
    "MATCH_TARGETS",
    "ME",
    "N_CARDS",
    "POINTS",
    "RANKS",
    "STRENGTH",
    "SUITS",
    "TOTAL_POINTS",
    "WINNING_POINTS",
    "AgentState",
    "Card",
    "CardError",
    "Deal",
    "IllegalMoveError",
    "InvalidStateError",
    "Mask",
    "Match",
    "MatchScore",
    "Outcome",
    "PlayerView",
    "Trick",
    "Variant",
    "VariantName",
    "beats",
    "card_name",
    "deal_score",
    "cards_of",
    "mask_of",
    "match_winner",
    "parse_card",
    "parse_cards",
    "parse_state",
    "points_of",
    "rank_of",
    "replay",
    "shuffled_deck",
    "state_from_view",
    "suit_of",
    "traditional_points",
    "trick_to_dict",
    "view_of",
]
