"""Match equity: the chance of winning a match from a score, for the search to play the match.

In a match the deal is a means: what a deal's final points are worth is the chance of winning
the match from the score they leave.  That chance comes from a model of the deals still to
play: each is split between two equal players as measured in the lab (self-play,
``lab/scripts/deal-split.py``, shipped as ``match_split.json`` beside this module), the
first lead alternating between deals.  Who wins a match at a score is :func:`tressette.match.match_winner`'s
call, never decided here.

The table is a finite recursion, not a fixed point: every deal adds 11 whole points to the two
totals (:func:`tressette.match.deal_score`), so a match ends within ``2 * target / 11 + 2``
deals.  The only way to go on past the target is equal totals, and 11 being odd, the next
deal cannot leave them equal again: it decides the match.

>>> from tressette import Variant
>>> round(match_equity(Variant.TRESSETTE, 21, 0, 0, me_leads=None), 3)
0.5
>>> match_equity(Variant.TRESSETTE, 21, 20, 0, me_leads=True) > 0.9
True
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np

from tressette import TOTAL_POINTS, Variant
from tressette.match import deal_score, match_winner

SPLIT_PATH = Path(__file__).with_name("match_split.json")

Split = tuple[float, ...]
"""The first leader's final points of a deal as probabilities, indexed by thirds (0..35)."""


@cache
def load_split(variant: Variant, path: Path = SPLIT_PATH) -> Split:
    """Return the measured split of a deal between equal players for ``variant`` (``path``: the data file)."""
    with path.open() as f:
        counts = json.load(f)["variants"][variant.value]["leader_points"]
    if len(counts) != TOTAL_POINTS + 1 or sum(counts) <= 0:
        raise ValueError(f"{path}: {variant.value} needs {TOTAL_POINTS + 1} counts of final points")
    total = sum(counts)
    return tuple(c / total for c in counts)


class EquityTable:
    """P(win the match) for one variant, target and deal model, memoised over the scores.

    ``split``: the first leader's final points (thirds) of a deal, as probabilities.
    """

    def __init__(self, variant: Variant, target: int, split: Split) -> None:
        if len(split) != TOTAL_POINTS + 1:
            raise ValueError(f"a split has {TOTAL_POINTS + 1} probabilities, not {len(split)}")
        self.variant = variant
        self.target = target
        # The deal's whole points for the leader and the other seat, with their probability: thirds
        # that round to the same whole points are one outcome for the match.
        outcomes: dict[tuple[int, int], float] = {}
        for thirds, p in enumerate(split):
            if p > 0:
                won = deal_score((thirds, TOTAL_POINTS - thirds))
                outcomes[won] = outcomes.get(won, 0.0) + p
        self.outcomes = tuple(outcomes.items())
        self._memo: dict[tuple[int, int, bool], float] = {}

    def after(self, me: int, him: int, me_leads_next: bool | None) -> float:
        """Return my chance of winning from the totals after a deal (1 or 0 if the match is over).

        ``me_leads_next``: whether I lead the next deal (None: unknown, even odds).
        """
        winner = match_winner(self.variant, self.target, (me, him))
        if winner is not None:
            return 1.0 if winner == 0 else 0.0
        if me_leads_next is None:
            return 0.5 * (self.before(me, him, True) + self.before(me, him, False))
        return self.before(me, him, me_leads_next)

    def before(self, me: int, him: int, me_leads: bool) -> float:
        """Return my chance of winning the match from the totals before a deal in which ``me_leads`` or not.

        The caller passes totals at which the match goes on.
        """
        key = (me, him, me_leads)
        value = self._memo.get(key)
        if value is None:
            value = 0.0
            for (lead_won, other_won), p in self.outcomes:
                mine, his = (lead_won, other_won) if me_leads else (other_won, lead_won)
                value += p * self.after(me + mine, him + his, not me_leads)
            self._memo[key] = value
        return value

    def by_thirds(self, me: int, him: int, me_led: bool | None) -> np.ndarray:
        """Return my match equity for each of my final points in this deal (thirds 0..35).

        ``me``, ``him``: the totals before this deal; ``me_led``: whether I led its first trick (None:
        unknown).  The leads alternate, so the other player leads the next deal.
        """
        out = np.empty(TOTAL_POINTS + 1, dtype=np.float64)
        nxt = None if me_led is None else not me_led
        for thirds in range(TOTAL_POINTS + 1):
            mine, his = deal_score((thirds, TOTAL_POINTS - thirds))
            out[thirds] = self.after(me + mine, him + his, nxt)
        return out


@cache
def equity_table(variant: Variant, target: int) -> EquityTable:
    """Return the shipped model's table for ``variant`` and ``target`` (built once per process)."""
    return EquityTable(variant, target, load_split(variant))


def match_equity(variant: Variant, target: int, me: int, him: int, *, me_leads: bool | None) -> float:
    """Return my chance of winning the match from totals ``me``-``him`` before a deal I lead or not (None: unknown)."""
    table = equity_table(variant, target)
    return table.after(me, him, me_leads)


def equity_by_thirds(variant: Variant, target: int, me: int, him: int, *, me_led: bool | None) -> np.ndarray:
    """Return my match equity for each of my final points of this deal (see :meth:`EquityTable.by_thirds`)."""
    return equity_table(variant, target).by_thirds(me, him, me_led)
