"""The opponent's past plays, each with the hand it was made from rebuilt up to today's hidden cards."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tressette import HIM, AgentState, mask_of

_NONE = np.empty(0, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class PastPlays:
    """The opponent's plays made while cards were hidden, as the kernels take them.

    Play ``k`` chose ``chosen[k]`` on ``leads[k]`` (-1: it led) with ``gone[k]`` already
    played, from a hand of today's hidden cards plus ``fixed[k]``.
    """

    fixed: np.ndarray
    leads: np.ndarray
    gone: np.ndarray
    chosen: np.ndarray


def past_plays(state: AgentState) -> PastPlays | None:
    """Return the opponent's past plays with their rebuilt hands, or None without draws in ``history``.

    The opponent's hand at a play is its first ten cards plus its draws so far, minus its
    plays so far.  Its first ten are today's hidden cards plus every card it played that it
    had not drawn, so everything but today's hidden cards is known.
    """
    history = state.history
    if history is None:
        return None
    if any(len(trick.draws) != 2 for trick in history):
        return None  # while cards are hidden the stock lasts, so every trick so far had draws
    drew: list[int] = []
    played: list[int] = []  # the opponent's plays, in order
    events: list[tuple[int, int, int, int]] = []  # (lead or -1, card, gone mask, its draws before)
    gone = 0
    for trick in history:
        lead, answer = trick.cards
        if trick.leader == HIM:
            events.append((-1, lead, gone, len(drew)))
        else:
            events.append((lead, answer, gone | 1 << lead, len(drew)))
        played.append(lead if trick.leader == HIM else answer)
        gone |= 1 << lead | 1 << answer
        drew += [card for seat, card in trick.draws if seat == HIM]
    if state.inplay:
        events.append((-1, state.inplay[0], gone, len(drew)))
        played.append(state.inplay[0])
    drawn = set(drew)
    initial_played = mask_of(c for c in played if c not in drawn)
    rows = []
    for k, (lead, card, gone_k, n_drew) in enumerate(events):
        before = mask_of(played[:k])
        fixed = (initial_played | mask_of(drew[:n_drew])) & ~before
        rows.append((fixed, lead, gone_k, card))
    if not rows:
        return PastPlays(_NONE, _NONE, _NONE, _NONE)
    cols = list(zip(*rows, strict=True))
    return PastPlays(*(np.array(col, dtype=np.int64) for col in cols))
