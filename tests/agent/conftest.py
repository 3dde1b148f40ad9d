"""Shared helpers for the agent's tests: seeded positions from real deals."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from agent.decide import warmup
from tressette import AgentState, Deal, Variant, state_from_view, view_of

NO_TIME_LIMIT_MS = 3_600_000
"""A time limit no capped search in the tests reaches: a search stopped by its clock instead of its cap (a
loaded machine) would not repeat, nor count the iterations asked."""


@pytest.fixture(scope="session", autouse=True)
def _compiled() -> None:
    """Compile the kernels once for the whole session."""
    warmup()


def position(seed: int, variant: Variant, tricks: int, *, follow: bool = False,
             chooser: Callable[[Deal, random.Random], int] | None = None) -> tuple[Deal, AgentState]:
    """Return a deal after ``tricks`` random tricks (plus a lead if ``follow``) and the mover's state."""
    rng = random.Random(seed)
    deal = Deal.new(variant, seed % 2, rng)
    pick = chooser or (lambda d, r: r.choice(d.legal_moves()))
    while deal.trick_number < tricks:
        deal.play(pick(deal, rng))
    if follow:
        deal.play(pick(deal, rng))
    return deal, state_from_view(view_of(deal, deal.to_move))
