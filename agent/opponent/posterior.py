"""The posterior over the opponent's hidden cards: a pool of candidate hands weighed by its past plays."""

from __future__ import annotations

import numpy as np
from numba import njit

from agent.kernels.world import NOGIL, pick_hand
from agent.opponent.past import past_plays
from agent.opponent.policy import MIX, N_WEIGHTS, load_policy, log_prob
from tressette import AgentState

NO_POOL = np.empty(0, dtype=np.int64)
NO_CUM = np.empty(0, dtype=np.float64)


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


def particle_pool(state: AgentState, hidden: np.ndarray, need: int, voids: int, *, size: int = 2048,
                  temper: float = 1.0, mix: float = MIX, theta: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Return (candidate hidden hands, their cumulative normalised weights) for the search.

    ``size`` candidates are drawn uniformly (consistent with the ``voids``) and weighed by
    the likelihood of the opponent's past plays under the policy ``theta`` (the shipped one
    by default), raised to ``temper``.  Empty arrays when nothing can be learnt (no draws in
    the history, no plays yet, no policy).
    """
    if theta is None:
        theta = load_policy().get(state.cfm)
    plays = past_plays(state)
    if theta is None or plays is None or plays.fixed.shape[0] == 0 or need == 0:
        return NO_POOL, NO_CUM
    cands = draw_candidates(hidden, need, voids, size)
    ll = temper * pool_log_likelihoods(theta, cands, plays.fixed, plays.leads, plays.gone, plays.chosen, mix)
    weights = np.exp(ll - ll.max())
    cum = np.cumsum(weights)
    return cands, cum / cum[-1]


def effective_size(cum: np.ndarray) -> float:
    """Return the pool's effective sample size (1 / sum of squared normalised weights)."""
    w = np.diff(cum, prepend=0.0)
    return float(1.0 / np.sum(w * w)) if w.size else 0.0
