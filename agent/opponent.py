"""A model of how the opponent chooses its cards, and the worlds it makes likely.

The opponent's hidden cards all come from its first ten (every card drawn from the stock
is shown), so every play it made while cards were hidden was made from a hand holding
exactly today's hidden cards plus cards whose place the agent knows.  Given a candidate
set of hidden cards the agent can therefore rebuild the opponent's hand at each of its
past decisions and ask how likely the card it really played was.

The policy is a conditional logit: each legal card gets a score ``theta . f(card)`` from a
few features of the card in its hand and trick (points, strength, suit length, whether it
is the best card left in its suit, whether it takes the trick, ...), and the player picks
card ``c`` with probability ``exp(score_c) / sum exp(score)``.  Leads and answers have
their own weights, and so has each variant.  ``theta`` is fit on recorded games
(``python -m agent.inference fit-policy``) and shipped as ``opponent_policy.json``.

At a decision the agent draws a pool of candidate hidden hands (uniform, consistent with
what it knows), weighs each by the likelihood of the opponent's plays so far (tempered by
``temper``), and its search then draws worlds from the pool by weight (a particle
posterior).  The history must carry the trick's draws for the hands to be rebuilt; without
them the agent falls back to uniform worlds.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from numba import njit

from agent.tables import POINTS_ARR, SUIT_ARR, SUIT_MASKS
from agent.world import NOGIL, legal_of, pick_hand, popcount
from tressette import HIM, POINTS, AgentState, mask_of

POLICY_PATH = Path(__file__).with_name("opponent_policy.json")
N_FEATURES = 32
"""Features of one card; leads use the first block of the weights, answers the second."""
N_WEIGHTS = 2 * N_FEATURES
MIX = 0.1
"""The share of plays assumed random whatever the policy says (see :func:`log_prob`)."""
NO_POOL = np.empty(0, dtype=np.int64)
NO_CUM = np.empty(0, dtype=np.float64)


# Cards worth 0, 1 and 3 thirds, as masks: the cheapest and dearest card of a set without a loop.
_ZERO, _ONE, _THREE = (sum(1 << c for c in range(40) if POINTS[c] == p) for p in (0, 1, 3))


@njit(cache=True, nogil=NOGIL)
def _least_points(mask: int) -> int:
    """Return the fewest points of a card in non-empty ``mask``."""
    return 0 if mask & _ZERO else (1 if mask & _ONE else 3)


@njit(cache=True, nogil=NOGIL)
def _most_points(mask: int) -> int:
    """Return the most points of a card in ``mask`` (-1 when it is empty)."""
    return 3 if mask & _THREE else (1 if mask & _ONE else (0 if mask else -1))


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
    out[base + 0] = 1.0 if pts == 3 else 0.0
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
        out[base + 9] = out[base + 5] * pts / 3.0
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
    lead_pts = POINTS_ARR[lead] / 3.0
    min_pts = _least_points(legal)
    max_loser_pts = _most_points(legal & ~winners)
    out[base + 9] = 1.0 if wins else 0.0
    out[base + 10] = lead_pts if wins else 0.0
    out[base + 11] = pts / 3.0 if wins else 0.0
    # The weakest winner is the highest code among the winners.
    out[base + 12] = 1.0 if wins and (winners >> (c + 1)) == 0 else 0.0
    out[base + 13] = 1.0 if pts == min_pts else 0.0
    out[base + 14] = 1.0 if not wins and pts == max_loser_pts else 0.0
    out[base + 15] = 0.0 if wins else pts / 3.0


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
             mix: float = 0.0, scores: np.ndarray = NO_CUM) -> float:
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


@njit(cache=True, nogil=NOGIL)
def pool_log_likelihoods(theta: np.ndarray, cands: np.ndarray, fixed: np.ndarray, leads: np.ndarray,
                         gone: np.ndarray, chosen: np.ndarray, mix: float) -> np.ndarray:
    """Return, per candidate hidden hand, the log likelihood of all the opponent's past plays.

    Decision ``k`` was made from the hand ``cands[i] | fixed[k]``.
    """
    out = np.zeros(cands.shape[0], dtype=np.float64)
    buf = np.empty(N_WEIGHTS, dtype=np.float64)
    scores = np.empty(40, dtype=np.float64)
    for i in range(cands.shape[0]):
        ll = 0.0
        for k in range(fixed.shape[0]):
            ll += log_prob(theta, cands[i] | fixed[k], leads[k], gone[k], chosen[k], buf, mix, scores)
        out[i] = ll
    return out


@njit(cache=True, nogil=NOGIL)
def draw_candidates(hidden: np.ndarray, need: int, voids: int, m: int) -> np.ndarray:
    """Return ``m`` uniformly drawn masks of ``need`` hidden cards outside the ``voids`` suits."""
    ok = np.empty(hidden.shape[0], dtype=np.int64)
    n_ok = 0
    for c in hidden:
        if not (voids >> (c // 10)) & 1:
            ok[n_ok] = c
            n_ok += 1
    out = np.empty(m, dtype=np.int64)
    for i in range(m):
        out[i] = pick_hand(ok, n_ok, need)
    return out


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
        return PastPlays(NO_POOL, NO_POOL, NO_POOL, NO_POOL)
    cols = list(zip(*rows, strict=True))
    return PastPlays(*(np.array(col, dtype=np.int64) for col in cols))


@cache
def load_policy(path: Path = POLICY_PATH) -> dict[bool, np.ndarray]:
    """Return the fitted weights per ``cfm`` (empty when no policy has been fit)."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    return {variant == "kifameno": np.array(theta, dtype=np.float64) for variant, theta in data["theta"].items()}


def particle_pool(state: AgentState, hidden: np.ndarray, need: int, voids: int, *, size: int = 2048,
                  temper: float = 1.0, mix: float = MIX, theta: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Return (candidate hidden hands, their cumulative normalised weights) for the search.

    Empty arrays when nothing can be learnt (no draws in the history, no plays yet, no policy).
    """
    pool, cum, _ = typed_pool(state, hidden, need, voids, size=size, temper=temper, mix=mix, theta=theta)
    return pool, cum


def typed_pool(state: AgentState, hidden: np.ndarray, need: int, voids: int, *, size: int = 2048,
               temper: float = 1.0, mix: float = MIX, theta: np.ndarray | None = None,
               random_prior: float = 0.0) -> tuple[np.ndarray, np.ndarray, int]:
    """Return (candidate hidden hands, cumulative weights, how many of them play by the policy).

    With ``random_prior`` > 0 the opponent is one of two kinds: the policy's player, or (with
    that prior probability) a uniformly random one.  The pool then holds every candidate twice,
    first as the policy's player and then as the random one, each weighed by the prior of its
    kind times the likelihood of the plays under it, so that the pool's weight past the returned
    count is the posterior probability that the opponent plays at random.
    """
    if theta is None:
        theta = load_policy().get(state.cfm)
    plays = past_plays(state)
    if theta is None or plays is None or plays.fixed.shape[0] == 0 or need == 0:
        return NO_POOL, NO_CUM, 0
    cands = draw_candidates(hidden, need, voids, size)

    def log_likelihoods(weights: np.ndarray, mix: float) -> np.ndarray:
        return temper * pool_log_likelihoods(weights, cands, plays.fixed, plays.leads, plays.gone, plays.chosen,
                                             mix)

    pool, n_model = cands, cands.shape[0]
    if random_prior >= 1.0:
        ll, n_model = log_likelihoods(np.zeros_like(theta), 0.0), 0
    elif random_prior > 0:
        ll = np.concatenate((log_likelihoods(theta, mix) + math.log(1.0 - random_prior),
                             log_likelihoods(np.zeros_like(theta), 0.0) + math.log(random_prior)))
        pool = np.concatenate((cands, cands))
    else:
        ll = log_likelihoods(theta, mix)
    weights = np.exp(ll - ll.max())
    cum = np.cumsum(weights)
    return pool, cum / cum[-1], n_model


def random_posterior(cum: np.ndarray, n_model: int) -> float:
    """Return the pool's posterior probability that the opponent plays at random (see :func:`typed_pool`)."""
    if cum.shape[0] <= n_model:
        return 0.0
    return float(1.0 - cum[n_model - 1]) if n_model > 0 else 1.0


def effective_size(cum: np.ndarray) -> float:
    """Return the pool's effective sample size (1 / sum of squared normalised weights)."""
    w = np.diff(cum, prepend=0.0)
    return float(1.0 / np.sum(w * w)) if w.size else 0.0

