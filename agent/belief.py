"""What the opponent's earlier plays say about its hidden cards, card by card, learned from play.

Every opponent play the agent has seen (its leads, its answers to the agent's leads) and
every hidden card fall into a bucket: how the card relates to the play (same suit, stronger
or weaker; another suit), the points of the cards involved, whether the trick was taken.
A table fit on played games (``python -m agent.inference fit``) holds, per bucket, how much
more or less often the opponent really held such a card than uniform worlds say.  A card's
weight is the product over the plays seen (naive Bayes); worlds then draw the opponent's
hidden cards in proportion to these weights (``card_w`` of :func:`agent.determinize.sample_world`).

Pure functions and one data file (``belief_table.json``), no search code.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from tressette import ME, POINTS, AgentState, Card, Trick, suit_of

TABLE_PATH = Path(__file__).with_name("belief_table.json")


def _rel(card: Card, other: Card) -> str:
    # Lower codes are stronger inside a suit.
    return "s" if card < other else "w"


def play_buckets(lead: Card, answer: Card | None, opponent_led: bool, cfm: bool,
                 hidden: tuple[Card, ...]) -> list[tuple[str, Card]]:
    """Return ``(bucket, card)`` for each hidden card one opponent play says something about.

    ``opponent_led``: the opponent played ``lead`` (``answer`` unused); otherwise it answered
    the agent's ``lead`` with ``answer``.
    """
    v = "K" if cfm else "T"
    out = []
    if opponent_led:
        x = lead
        for c in hidden:
            where = _rel(c, x) if suit_of(c) == suit_of(x) else "o"
            out.append((f"{v}L x{POINTS[x]} {where} c{POINTS[c]}", c))
        return out
    assert answer is not None
    x = answer
    if suit_of(x) == suit_of(lead):
        took = "W" if x < lead else "N"
        for c in hidden:
            if suit_of(c) == suit_of(lead):
                out.append((f"{v}F l{POINTS[lead]} x{POINTS[x]} {took} {_rel(c, lead)}{_rel(c, x)} c{POINTS[c]}", c))
        return out
    for c in hidden:
        if suit_of(c) == suit_of(lead):
            continue  # the opponent has shown it holds none: the sampler already knows
        where = _rel(c, x) if suit_of(c) == suit_of(x) else "o"
        out.append((f"{v}D l{POINTS[lead]} x{POINTS[x]} {where} c{POINTS[c]}", c))
    return out


def _observations(state: AgentState, tricks: tuple[Trick, ...]) -> list[tuple[str, Card]]:
    """Return the buckets of the opponent's plays in ``tricks`` and of its lead on the table, if any."""
    hidden = state.hidden
    out = []
    for trick in tricks:
        lead, answer = trick.cards
        out += play_buckets(lead, answer, trick.leader != ME, state.cfm, hidden)
    if state.inplay:
        out += play_buckets(state.inplay[0], None, True, state.cfm, hidden)
    return out


def new_observations(state: AgentState) -> list[tuple[str, Card]]:
    """Return the buckets of the opponent plays seen since the agent's previous decision.

    Those are its answer in the last trick (when the agent led it) and its lead on the
    table now (when the agent follows); each play is counted at exactly one decision.
    """
    last = state.history[-1:] if state.history and state.history[-1].leader == ME else ()
    return _observations(state, last)


def all_observations(state: AgentState) -> list[tuple[str, Card]]:
    """Return the buckets of every opponent play in ``history`` and on the table."""
    return _observations(state, state.history or ())


@cache
def load_table(path: Path = TABLE_PATH) -> dict[str, float]:
    """Return the fitted ``{bucket: ratio}`` table (empty when no table has been fit)."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    return {k: float(v) for k, v in data["ratios"].items()}


def card_weights(state: AgentState, table: dict[str, float] | None = None) -> list[float]:
    """Return a weight for each of the 40 cards: how likely the opponent holds it, relative to uniform."""
    table = load_table() if table is None else table
    weights = [1.0] * 40
    for bucket, card in all_observations(state):
        weights[card] *= table.get(bucket, 1.0)
    return weights
