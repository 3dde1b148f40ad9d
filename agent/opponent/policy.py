"""The opponent's policy: a conditional logit over a few features of each legal card.

See :mod:`agent.opponent` for the model; the weights are fit in the lab
(``python -m lab.inference fit-policy``) and shipped as ``policy.json`` beside this module.
"""

from __future__ import annotations

import json
import math
import random
from functools import cache
from pathlib import Path

import numpy as np
from numba import njit

from agent.kernels.cards import POINTS_ARR, SUIT_ARR, SUIT_MASKS
from agent.kernels.world import NOGIL, legal_of, popcount
from tressette import ACE_POINTS, POINTS

POLICY_PATH = Path(__file__).with_name("policy.json")
N_FEATURES = 32
"""Features of one card; leads use the first block of the weights, answers the second."""
N_WEIGHTS = 2 * N_FEATURES
MIX = 0.1
"""The share of plays assumed random whatever the policy says (see :func:`log_prob`)."""
NO_THETA = np.empty(0, dtype=np.float64)
"""No weights: the search keeps plain UCB at the opponent's nodes."""


# The card values (0, 1 and 3 thirds: cards without points, figures, aces) and the cards of each as masks:
# the cheapest and dearest card of a set without a loop.
_LOW, _MID, _HIGH = sorted(set(POINTS))
assert _HIGH == ACE_POINTS
_ZERO, _ONE, _THREE = (sum(1 << c for c in range(40) if POINTS[c] == p) for p in (_LOW, _MID, _HIGH))
_ACE = float(ACE_POINTS)  # scales points features to [0, 1]


@njit(cache=True, nogil=NOGIL)
def _least_points(mask: int) -> int:
    """Return the fewest points of a card in non-empty ``mask``."""
    return _LOW if mask & _ZERO else (_MID if mask & _ONE else _HIGH)


@njit(cache=True, nogil=NOGIL)
def _most_points(mask: int) -> int:
    """Return the most points of a card in ``mask`` (-1 when it is empty)."""
    return _HIGH if mask & _THREE else (_MID if mask & _ONE else (_LOW if mask else -1))


@njit(cache=True, nogil=NOGIL)
def card_features(hand: int, lead: int, gone: int, legal: int, c: int, out: np.ndarray) -> None:
    """Fill ``out[0:N_WEIGHTS]`` with the features of playing ``c`` from ``hand``.

    ``lead`` is the card on the table (-1 when leading), ``gone`` the cards played before
    (the lead included), ``legal`` the cards that may be played.
    """
    out[:] = 0.0
    base = 0 if lead < 0 else N_FEATURES
    s = SUIT_ARR[c]
    suit = SUIT_MASKS[s]
    stronger = suit & ((np.int64(1) << c) - 1)
    weaker = suit & ~stronger & ~(np.int64(1) << c)
    pts = POINTS_ARR[c]
    out[base + 0] = 1.0 if pts == ACE_POINTS else 0.0
    out[base + 1] = 1.0 if pts == 1 else 0.0
    out[base + 2] = (9 - c % 10) / 9.0
    n_suit = popcount(hand & suit)
    out[base + 3] = n_suit / 10.0
    out[base + 4] = 1.0 if n_suit == 1 else 0.0
    outside = stronger & ~hand & ~gone
    out[base + 5] = 1.0 if outside == 0 else 0.0
    out[base + 6] = 1.0 if (hand & stronger) == 0 else 0.0
    out[base + 7] = 1.0 if (hand & weaker) == 0 else 0.0
    out[base + 8] = popcount(outside) / 9.0
    # Strength as one indicator per rank (how attractive a card is, is far from linear in
    # its rank), and suit length by buckets.
    out[base + 16 + c % 10] = 1.0
    out[base + 26 + min(n_suit, 5) - 1] = 1.0
    if lead < 0:
        # Leading a card that cannot be taken and holds points, or keeping the suit's
        # top for later, are the decisions that say most about the rest of a hand.
        out[base + 9] = out[base + 5] * pts / _ACE
        out[base + 10] = popcount(weaker & hand) / 9.0
        # Does the hand hold the suit's best card left (other than this one), and how many
        # of the suit's point cards does it hold.
        mine = hand & suit
        holds_master = 0.0
        pts_in_suit = 0
        for x in range(s * 10, s * 10 + 10):
            if (mine >> x) & 1:
                if POINTS_ARR[x] > 0:
                    pts_in_suit += 1
                if x != c and (suit & ((np.int64(1) << x) - 1) & ~hand & ~gone) == 0:
                    holds_master = 1.0
        out[base + 11] = holds_master
        out[base + 12] = pts_in_suit / 6.0
        out[base + 13] = holds_master * (1.0 if pts == 0 else 0.0)
        return
    wins = SUIT_ARR[c] == SUIT_ARR[lead] and c < lead
    winners = legal & SUIT_MASKS[SUIT_ARR[lead]] & ((np.int64(1) << lead) - 1)
    lead_pts = POINTS_ARR[lead] / _ACE
    min_pts = _least_points(legal)
    max_loser_pts = _most_points(legal & ~winners)
    out[base + 9] = 1.0 if wins else 0.0
    out[base + 10] = lead_pts if wins else 0.0
    out[base + 11] = pts / _ACE if wins else 0.0
    # The weakest winner is the highest code among the winners.
    out[base + 12] = 1.0 if wins and (winners >> (c + 1)) == 0 else 0.0
    out[base + 13] = 1.0 if pts == min_pts else 0.0
    out[base + 14] = 1.0 if not wins and pts == max_loser_pts else 0.0
    out[base + 15] = 0.0 if wins else pts / _ACE


@njit(cache=True, nogil=NOGIL)
def policy_scores(theta: np.ndarray, hand: int, lead: int, gone: int, legal: int, buf: np.ndarray,
                  scores: np.ndarray) -> float:
    """Fill ``scores[c]`` with the policy's score of each card ``c`` of ``legal``; return the highest.

    ``buf`` is scratch space for one card's features.
    """
    base = 0 if lead < 0 else N_FEATURES
    best = -1e300
    for c in range(40):
        if (legal >> c) & 1:
            card_features(hand, lead, gone, legal, c, buf)
            s = 0.0
            for k in range(base, base + N_FEATURES):  # the other block is all zero
                s += theta[k] * buf[k]
            scores[c] = s
            if s > best:
                best = s
    return best


@njit(cache=True, nogil=NOGIL)
def log_prob(theta: np.ndarray, hand: int, lead: int, gone: int, chosen: int, buf: np.ndarray,
             mix: float = 0.0, scores: np.ndarray = NO_THETA) -> float:
    """Return log P(``chosen``) for one decision under the policy ``theta``.

    With ``mix`` > 0 the player follows the policy with probability ``1 - mix`` and plays a
    uniformly random legal card otherwise, so no single surprising play (a person's slip, a
    weaker bot) can rule a world out.  ``buf`` (and ``scores``, 40 entries, when given) are
    scratch space.
    """
    legal = legal_of(hand, lead)
    if not (legal >> chosen) & 1:
        return -1e9  # this hand could not have played the card: the world is impossible
    if scores.shape[0] < 40:
        scores = np.empty(40, dtype=np.float64)
    best = policy_scores(theta, hand, lead, gone, legal, buf, scores)
    total = 0.0
    for c in range(40):
        if (legal >> c) & 1:
            total += math.exp(scores[c] - best)
    p = math.exp(scores[chosen] - best) / total
    return math.log((1.0 - mix) * p + mix / popcount(legal))


@njit(cache=True, nogil=NOGIL)
def policy_card(theta: np.ndarray, hand: int, lead: int, gone: int, buf: np.ndarray, scores: np.ndarray) -> int:
    """Return a card drawn from the policy ``theta`` for ``hand`` on ``lead`` (-1: leading).

    ``buf`` and ``scores`` (40 entries) are scratch space; all-zero weights draw uniformly.
    """
    legal = legal_of(hand, lead)
    best = policy_scores(theta, hand, lead, gone, legal, buf, scores)
    total = 0.0
    for c in range(40):
        if (legal >> c) & 1:
            scores[c] = math.exp(scores[c] - best)
            total += scores[c]
    r = np.random.random() * total
    last = -1
    for c in range(40):
        if (legal >> c) & 1:
            r -= scores[c]
            last = c
            if r < 0.0:
                return c
    return last


_active: list[Path] = [POLICY_PATH]
"""The policy file this process plays with (:func:`use_policy`)."""


def use_policy(path: Path | str | None) -> None:
    """Make ``path`` the policy every later decision of this process uses (None: the shipped one).

    Raises ValueError when the file is not a policy (so a bad ``--policy`` fails at start).
    """
    chosen = POLICY_PATH if path is None else Path(path)
    try:
        weights = read_policy(chosen)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:  # unreadable, not JSON, wrong shape
        raise ValueError(f"{chosen}: not a policy file ({type(exc).__name__}: {exc})") from None
    if not weights:
        raise ValueError(f"{chosen}: no policy weights in it")
    _active[0] = chosen


def load_policy(path: Path | None = None) -> dict[bool, np.ndarray]:
    """Return the weights per ``cfm`` of ``path`` (default: the active policy; empty when there is none)."""
    return read_policy(_active[0] if path is None else path)


@cache
def read_policy(path: Path) -> dict[bool, np.ndarray]:
    """Return the weights per ``cfm`` stored in the policy file ``path`` (empty when it does not exist)."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    return {variant == "kifameno": np.array(theta, dtype=np.float64) for variant, theta in data["theta"].items()}


def sample_card(theta: np.ndarray, hand: int, lead: int, gone: int, temperature: float,
                rng: random.Random) -> int:
    """Return a card drawn from the policy ``theta`` with its scores divided by ``temperature``.

    Temperature 0 plays the policy's favourite card; higher ones play more loosely (a person who
    knows what a good card looks like but does not calculate).  ``rng`` gives the randomness.
    """
    legal = int(legal_of(hand, lead))
    buf = np.empty(N_WEIGHTS, dtype=np.float64)
    scores = np.empty(40, dtype=np.float64)
    policy_scores(theta, hand, lead, gone, legal, buf, scores)
    cards = [c for c in range(40) if (legal >> c) & 1]
    if temperature <= 0:
        return max(cards, key=lambda c: scores[c])
    top = max(scores[c] for c in cards)
    weights = [math.exp((scores[c] - top) / temperature) for c in cards]
    return rng.choices(cards, weights)[0]
