"""The bot's named levels, from ``beginner`` to ``master``: how long and how each one plays.

The weaker levels play like people rather than like a blindfolded engine:

- ``beginner`` and ``novice`` do not search, not even in the last ten tricks.  They play
  the opponent policy of :mod:`agent.opponent` (a conditional logit over what a card is:
  its points, whether it takes the trick, whether it is the suit's best card left, ...)
  sampled at a temperature: they know what a sensible card looks like, but do not calculate.
- ``easy`` plays like ``novice`` but calculates the last five tricks exactly (alpha-beta);
  from ``normal`` up the last ten are calculated, as soon as every card's place is known
  (the largest single step of the ladder: the whole exact endgame with ``novice``'s play
  before it is as strong as ``normal``'s).
- ``normal`` searches a few hundred sampled deals and now and then plays the runner-up
  card of its search (a slip: a card the search also liked, never a random one);
  ``strong`` searches a couple of thousand and slips rarely.
- ``master`` runs the full search for 1 s per card (what ``strong`` was before issue #25:
  doubling its time measured no gain, so there is no level above it).

The time is each level's per-move budget (the service shrinks it when the machine is
overloaded, :mod:`agent.service`); the iteration caps make the weaker levels' play the same on
any machine.  ``rating`` is each level's strength on the portal's Glicko-2 scale, measured in
the lab (``lab/ladder.py``, ``lab/MEASUREMENTS.md``).

This is the one definition of the levels: the bot tells the server their names, per-move
times and ratings in ``bot_hello`` (``level_info``, docs/protocol.md), weakest first.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from tressette import AgentState, card_name, mask_of


@dataclass(frozen=True, slots=True)
class Level:
    """A bot level: a name people pick, a per-move time budget, and how it plays.

    ``iterations``: the search's cap (None: until the time is up; 0: no search, the policy
    sampled at ``temperature`` plays).  ``slip``: the share of searched moves where the
    search's runner-up is played, when the search found it plausible (at least
    :data:`SLIP_VISITS` of the best card's visits).  ``exact_cards``: once every card's place is
    known, positions with at most this many cards in hand are solved exactly (10: the whole
    known endgame; 0: never); the policy plays the others at ``temperature``.
    """

    name: str
    time_ms: int
    iterations: int | None
    summary: str
    temperature: float = 0.0
    slip: float = 0.0
    exact_cards: int = 10
    rating: int | None = None


SLIP_VISITS = 0.3
"""A slip plays the runner-up only when the search gave it this share of the best card's visits."""

LEVELS: dict[str, Level] = {
    lv.name: lv
    for lv in (
        Level("beginner", 100, 0, "the policy sampled loosely: sensible cards, no calculation",
              temperature=6.0, exact_cards=0, rating=1430),
        Level("novice", 100, 0, "the policy sampled: sensible cards, no calculation",
              temperature=1.0, exact_cards=0, rating=1600),
        Level("easy", 100, 0, "the policy sampled, the last five tricks played exactly",
              temperature=1.0, exact_cards=5, rating=1740),
        Level("normal", 100, 200, "200 sampled deals, a slip in five moves, the exact endgame",
              slip=0.2, rating=1870),
        Level("strong", 300, 2000, "2,000 sampled deals, rare slips, the exact endgame",
              slip=0.05, rating=1980),
        Level("master", 1000, None, "1 s of full search per card (the agent at its best)", rating=2040),
    )
}
"""The levels, weakest first (the order the lobby shows them)."""


class LevelInfo(TypedDict):
    """A level as ``bot_hello`` announces it."""

    name: str
    time_ms: int
    rating: NotRequired[int]


def level_info(names: Iterable[str]) -> list[LevelInfo]:
    """Return ``bot_hello``'s ``level_info`` for the levels ``names`` (unknown names are left out)."""
    out = []
    for n in names:
        if n in LEVELS:
            info = LevelInfo(name=LEVELS[n].name, time_ms=LEVELS[n].time_ms)
            if LEVELS[n].rating is not None:
                info["rating"] = LEVELS[n].rating  # type: ignore[typeddict-item]
            out.append(info)
    return out


def policy_card(state: AgentState, temperature: float, rng: random.Random) -> int:
    """Return a card drawn from the active opponent policy at ``temperature`` (uniform without a policy)."""
    from agent.opponent.policy import load_policy, sample_card

    theta = load_policy().get(state.cfm)
    legal = state.legal_moves()
    if theta is None or len(legal) == 1:
        return rng.choice(legal)
    hand = mask_of(state.hand)
    gone = mask_of(c for c in range(40) if c not in state.hand and c not in state.unknown)
    lead = state.inplay[0] if state.inplay else -1
    return sample_card(theta, hand, lead, gone, temperature, rng)


def choose_card(state: AgentState, level: str, *, time_cap_ms: int | None = None, seed: int | None = None,
                iterations: int | None = None) -> int:
    """Return the card the bot plays in ``state`` at ``level``, within ``time_cap_ms`` if given.

    ``iterations`` overrides the level's search cap (the lab calibrates the time-limited levels
    at fixed counts).  Raises KeyError for an unknown level.
    """
    from agent.decide import decide  # the search is loaded only by processes that play

    lv = LEVELS[level]
    rng = random.Random(seed)
    cap = lv.iterations if iterations is None else iterations
    exact = state.all_known and len(state.hand) <= lv.exact_cards
    if not exact and (state.all_known or cap == 0):
        return policy_card(state, lv.temperature, rng)
    budget = lv.time_ms if time_cap_ms is None else max(10, min(lv.time_ms, time_cap_ms))
    search_seed = seed if seed is not None else rng.randrange(2**31)
    decision = decide(state, time_ms=10**7 if iterations else budget, iterations=cap, seed=search_seed)
    if lv.slip <= 0 or decision.method != "mcts" or rng.random() >= lv.slip:
        return decision.card
    visits = {c: decision.stats.get(card_name(c), {}).get("visits") or 0 for c in state.legal_moves()}
    others = [c for c in visits if c != decision.card]
    if not others:  # a single legal card
        return decision.card
    runner_up = max(others, key=lambda c: visits[c])
    if visits[runner_up] > 0 and visits[runner_up] >= SLIP_VISITS * visits[decision.card]:
        return runner_up
    return decision.card
