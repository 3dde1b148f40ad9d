"""Fit the opponent policy of :mod:`agent.opponent.policy` to recorded plays, and score it on others.

Plays are columns of integers (``PLAY_COLUMNS``): the mover's hand as a mask, the card on the
table (-1 when leading), the cards gone before (the lead included), the card chosen, and the
variant (``cfm``).  The lab records them from self-play (``python -m lab.inference``);
``treset-agent fit-policy`` reads them from the portal's move log (:mod:`agent.fitpolicy`).
"""

from __future__ import annotations

import math
import sys

import numpy as np
from tqdm import tqdm

from agent.kernels.world import legal_of
from agent.opponent.policy import N_WEIGHTS, card_features

PLAY_COLUMNS = ("hand", "lead", "gone", "chosen", "cfm")


def choice_features(plays: dict[str, np.ndarray], rows: np.ndarray, progress: bool = False
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (features of every legal card, group start offsets, index of the chosen card) for ``rows``.

    ``progress`` shows a progress bar on stderr.
    """
    feats: list[np.ndarray] = []
    starts: list[int] = []
    chosen_at: list[int] = []
    buf = np.empty(N_WEIGHTS, dtype=np.float64)
    n = 0
    for r in tqdm(rows, desc="features", unit="play", disable=not progress, file=sys.stderr, leave=False):
        hand, lead, gone, chosen = (int(plays[k][r]) for k in ("hand", "lead", "gone", "chosen"))
        legal = int(legal_of(hand, lead))
        starts.append(n)
        for c in range(40):
            if (legal >> c) & 1:
                card_features(hand, lead, gone, legal, c, buf)
                feats.append(buf.copy())
                if c == chosen:
                    chosen_at.append(n)
                n += 1
    if not feats:
        return np.zeros((0, N_WEIGHTS)), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.array(feats), np.array(starts), np.array(chosen_at)


def fit_logit(x: np.ndarray, starts: np.ndarray, chosen_at: np.ndarray, ridge: float = 1.0,
              steps: int = 30) -> np.ndarray:
    """Return the conditional-logit weights maximising the likelihood of the choices (Newton's method)."""
    theta = np.zeros(x.shape[1])
    group = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(x))))
    for _ in range(steps):
        s = x @ theta
        s -= np.maximum.reduceat(s, starts)[group]
        e = np.exp(s)
        p = e / np.add.reduceat(e, starts)[group]
        mean_x = np.add.reduceat(p[:, None] * x, starts)
        grad = x[chosen_at].sum(axis=0) - mean_x.sum(axis=0) - ridge * theta
        hess = (p[:, None] * x).T @ x - mean_x.T @ mean_x + ridge * np.eye(x.shape[1])
        delta = np.linalg.solve(hess, grad)
        theta += delta
        if np.abs(delta).max() < 1e-8:
            break
    return theta


def group_scores(x: np.ndarray, starts: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (each decision's log-probability of every legal card, each card's decision) under ``theta``."""
    group = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(x))))
    s = x @ theta if theta.size else np.zeros(len(x))
    s = s - np.maximum.reduceat(s, starts)[group]
    logz = np.log(np.add.reduceat(np.exp(s), starts))
    return s - logz[group], group


def score(x: np.ndarray, starts: np.ndarray, chosen_at: np.ndarray, theta: np.ndarray) -> dict[str, float]:
    """Return how well ``theta`` predicts the choices: mean log-likelihood per decision and top-1 accuracy.

    Empty ``theta`` is the uniform policy (its top-1 accuracy is the chance of a uniform guess).
    Decisions with a single legal card count (log 1 = 0, always right) as in the fit.
    """
    if len(starts) == 0:
        return {"decisions": 0, "log_likelihood": math.nan, "top1": math.nan}
    logp, group = group_scores(x, starts, theta)
    ll = float(logp[chosen_at].sum()) / len(starts)
    if theta.size == 0:
        sizes = np.diff(np.append(starts, len(x)))
        top1 = float((1.0 / sizes).mean())
    else:
        best = np.maximum.reduceat(logp, starts)
        top1 = float((logp[chosen_at] >= best - 1e-12).mean())
    return {"decisions": int(len(starts)), "log_likelihood": ll, "top1": top1}
