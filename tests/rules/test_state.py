"""The agent's JSON state: the thesis example is accepted verbatim, bad states are refused clearly."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tressette import InvalidStateError, parse_card, parse_state

THESIS = json.loads((Path(__file__).parents[1] / "data" / "positions.json").read_text())["thesis_state"]

# A state early in a deal: the agent follows after 3 tricks, two cards shown.
_EARLY_UNKNOWN = [
    "B 3", "B 2", "B AS", "B KRALJ", "B KAVAL", "B FANT", "B 7", "B 6", "B 5",
    "K 3", "K 2", "K AS", "K KRALJ", "K KAVAL", "K FANT", "K 7", "K 6", "K 5", "K 4",
    "S 3", "S 2", "S AS", "S KRALJ",
]
EARLY = {
    "hand": ["D 3", "D 2", "D AS", "D KRALJ", "D KAVAL", "D FANT", "D 7", "D 6", "D 5", "D 4"],
    "hiscards": ["B 3", "K 2"],
    "unknown": _EARLY_UNKNOWN,
    "inplay": ["S KAVAL"],
    "points": 1,
    "cfm": True,
}


def test_thesis_example_is_accepted_verbatim() -> None:
    """The RULES.md example parses, with derived counts and points."""
    state = parse_state(json.dumps(THESIS))
    assert state.is_leading and state.all_known
    assert state.stock_size == 0 and state.opponent_hand_size == 5
    assert state.tricks_played == 15
    assert state.opponent_points == 4  # 22 points were played; the agent has 18
    assert state.to_dict() == THESIS


def test_early_state_counts() -> None:
    """A following agent three tricks in: 9 opponent cards, 14 in the stock, 21 hidden."""
    state = parse_state(EARLY)
    assert state.tricks_played == 3 and not state.is_leading
    assert state.opponent_hand_size == 9 and state.stock_size == 14
    assert len(state.hidden) == 21 and not state.all_known
    assert state.legal_moves() == sorted(parse_card(c) for c in EARLY["hand"])  # no spade: free choice


def _with(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    state = copy.deepcopy(base)
    for key, value in changes.items():
        if value is _DROP:
            del state[key]
        else:
            state[key] = value
    return state


_DROP = object()

BAD: list[tuple[str, Any, str]] = [
    ("not json", "{hand:", "not valid JSON"),
    ("not an object", [1, 2], "JSON object"),
    ("missing field", _with(THESIS, cfm=_DROP), "missing field.*cfm"),
    ("unknown card", _with(THESIS, hand=["K 3", "K KAVAL", "D 2", "D ACE", "B 7"]), "unknown card name 'D ACE'"),
    ("card twice", _with(THESIS, hand=["K 3", "K 3", "D 2", "D AS", "B 7"]), "'hand' lists K 3 twice"),
    ("card in two places", _with(THESIS, hand=["K 3", "K KAVAL", "D 2", "D AS", "K 7"]), "K 7 is in both 'hand' and 'unknown'"),
    ("hiscards outside unknown", _with(THESIS, hiscards=["B 3"]), "'hiscards' must be inside 'unknown'"),
    ("two cards in play", _with(EARLY, inplay=["S KAVAL", "S FANT"], unknown=_EARLY_UNKNOWN[:-1]), "at most one card"),
    ("impossible counts", _with(THESIS, hand=["K 3", "K KAVAL", "D 2", "D AS"]), "impossible counts"),
    ("hand too small early", _with(EARLY, hand=EARLY["hand"][:8], unknown=_EARLY_UNKNOWN + ["S FANT", "S 7"]), "holds 10 cards"),
    ("too many hiscards", _with(EARLY, hiscards=_EARLY_UNKNOWN[:10]), "'hiscards' has 10 cards but the opponent holds only 9"),
    ("negative points", _with(THESIS, points=-1), "'points' must be between 0 and 22"),
    ("too many points", _with(THESIS, points=23), "'points' must be between 0 and 22"),
    ("points not an int", _with(THESIS, points="18"), "'points' must be an integer"),
    ("cfm not a bool", _with(THESIS, cfm="no"), "'cfm' must be true or false"),
    ("hand not a list", _with(THESIS, hand="K 3"), "'hand' must be a list"),
    ("hispoints inconsistent", _with(THESIS, hispoints=5), "'hispoints' must equal"),
    ("empty hand", _with(THESIS, hand=[], unknown=[], hiscards=[]), "'hand' is empty"),
    ("history not a list", _with(THESIS, history="x"), "'history' must be a list"),
    ("history incomplete", _with(EARLY, history=[{"leader": "me", "cards": ["S 4", "S 5"]}]), "'history'"),
]


@pytest.mark.parametrize(("data", "message"), [(d, m) for _, d, m in BAD], ids=[n for n, _, _ in BAD])
def test_bad_states_are_refused_with_a_clear_message(data: Any, message: str) -> None:
    """Each malformed state raises InvalidStateError whose message names the problem."""
    with pytest.raises(InvalidStateError, match=message):
        parse_state(data if isinstance(data, str) else json.dumps(data) if isinstance(data, list) else data)


def test_history_is_checked_against_points_and_leader() -> None:
    """A consistent history is kept; one that contradicts the points or the leader is refused."""
    history = [
        {"leader": "him", "cards": ["S 4", "S 5"]},  # the agent's S 5 takes it: 0 points
        {"leader": "me", "cards": ["S 6", "S FANT"]},  # his S FANT takes it: 1 point
        {"leader": "him", "cards": ["S 7", "B 4"]},  # the agent cannot follow; he keeps it: 0 points
    ]
    good = _with(EARLY, points=0, history=history, hispoints=1)
    state = parse_state(good)
    assert state.history is not None and [t.winner for t in state.history] == [0, 1, 1]
    assert parse_state(state.to_dict()) == state
    with pytest.raises(InvalidStateError, match="gives the agent 0 points"):
        parse_state(_with(good, points=1, hispoints=0))
    swapped = copy.deepcopy(history)
    swapped[1]["leader"] = "him"
    with pytest.raises(InvalidStateError, match="winner of the previous trick leads"):
        parse_state(_with(good, history=swapped))
