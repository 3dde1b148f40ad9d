"""The bot's named levels: how long and how widely each one searches.

Levels differ in thinking time and in search: ``easy`` looks at a few hundred
sampled worlds, ``normal`` searches for a third of a second, ``strong`` runs
the full search for a second (exact alpha-beta once every card is known, at
every level, since that is cheap).
"""

from __future__ import annotations

from dataclasses import dataclass

from tressette import AgentState


@dataclass(frozen=True, slots=True)
class Level:
    """A bot level: a name people pick, a per-move time budget, an optional iteration cap."""

    name: str
    time_ms: int
    iterations: int | None
    summary: str


LEVELS: dict[str, Level] = {
    lv.name: lv
    for lv in (
        Level("easy", 100, 200, "a quick look at 200 sampled deals"),
        Level("normal", 300, None, "0.3 s of search per card"),
        Level("strong", 1000, None, "1 s of full search per card"),
    )
}


def choose_card(state: AgentState, level: str, *, time_cap_ms: int | None = None, seed: int | None = None) -> int:
    """Return the card the bot plays in ``state`` at ``level``, within ``time_cap_ms`` if given.

    Raises KeyError for an unknown level.
    """
    from agent.decide import decide  # the search is loaded only by processes that play

    lv = LEVELS[level]
    budget = lv.time_ms if time_cap_ms is None else max(10, min(lv.time_ms, time_cap_ms))
    card: int = decide(state, time_ms=budget, iterations=lv.iterations, seed=seed).card
    return card
