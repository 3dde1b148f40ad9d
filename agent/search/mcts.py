"""Information Set MCTS (single observer) over the agent's card plays, compiled.

Each iteration samples a world (:mod:`agent.search.worlds`), walks the one
shared tree choosing among the children legal in that world by UCB with
availability counts, expands one new card, finishes the world with a guided
playout and backs the result up (:func:`iterate`, which the post-game
analysis's per-card search runs too).  Tree nodes are card plays by either
seat; the draws in between are part of the sampled world, not of the tree.

The reward is seat-relative: ``(1 - delta) * win + delta * share``, where
``share`` is the points fraction a player wants (its points in Tressette,
the opponent's in Kifameno).  In a match it is seat 0's chance of winning the
match from the score the deal leaves (``equity[p0]``, :mod:`agent.match_equity`)
instead: the deal is then a means, not the goal.

The opponent model takes part (see ``SearchConfig``): the opponent's nodes
follow the fitted policy instead of UCB a share of the time (0.3 by default).
The settings measured as no gain (draws as chance nodes, a random-player
kind, blunders, ensembles, the solver at the leaves) were removed in issue
#24; the tag ``search-options-before-24`` has them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from agent.kernels.playout import GUIDED, playout, random_card
from agent.kernels.world import (
    NOGIL,
    W_H1,
    W_LEAD,
    W_SIZE,
    is_over,
    legal_mask,
    mover,
    step,
)
from agent.opponent.policy import N_WEIGHTS, NO_THETA, policy_card
from agent.search.worlds import Root, sample_from_pool, sample_world
from tressette import TOTAL_POINTS, WINNING_POINTS


@njit(cache=True, nogil=NOGIL)
def reward0(p0: int, cfm: bool, delta: float) -> float:
    """Return seat 0's reward in [0, 1] for final points ``p0``."""
    if cfm:
        win = 1.0 if p0 < WINNING_POINTS else 0.0
        share = (TOTAL_POINTS - p0) / TOTAL_POINTS
    else:
        win = 1.0 if p0 >= WINNING_POINTS else 0.0
        share = p0 / TOTAL_POINTS
    return (1.0 - delta) * win + delta * share


NO_EQUITY = np.empty(0, dtype=np.float64)
"""No match: a deal's outcome is scored by :func:`reward0`."""


@njit(cache=True, nogil=NOGIL)
def deal_reward(p0: int, cfm: bool, delta: float, equity: np.ndarray) -> float:
    """Return seat 0's reward for final points ``p0``: its match equity ``equity[p0]`` in a match, else :func:`reward0`."""
    if equity.shape[0] > 0:
        return equity[p0]
    return reward0(p0, cfm, delta)


@dataclass(slots=True)
class Tree:
    """The search tree as arrays (node 0 is the root)."""

    capacity: int
    move: np.ndarray = field(init=False)
    player: np.ndarray = field(init=False)
    child: np.ndarray = field(init=False)
    sibling: np.ndarray = field(init=False)
    visits: np.ndarray = field(init=False)
    avail: np.ndarray = field(init=False)
    reward: np.ndarray = field(init=False)
    size: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n = self.capacity
        self.move = np.full(n, -1, dtype=np.int64)
        self.player = np.zeros(n, dtype=np.int64)
        self.child = np.full(n, -1, dtype=np.int64)
        self.sibling = np.full(n, -1, dtype=np.int64)
        self.visits = np.zeros(n, dtype=np.int64)
        self.avail = np.zeros(n, dtype=np.int64)
        self.reward = np.zeros(n, dtype=np.float64)
        self.size = np.ones(1, dtype=np.int64)

    def clear(self) -> None:
        """Empty the tree down to a fresh root (the arrays are reused)."""
        self.child[0] = -1
        self.visits[0] = 0
        self.avail[0] = 0
        self.reward[0] = 0.0
        self.size[0] = 1

    def add_root_visits(self, out: np.ndarray) -> None:
        """Add each root card's visits to ``out`` (indexed by card)."""
        node = self.child[0]
        while node >= 0:
            out[self.move[node]] += self.visits[node]
            node = self.sibling[node]

    def root_stats(self) -> dict[int, tuple[int, float]]:
        """Return ``{card: (visits, mean reward)}`` for the root's children."""
        out = {}
        node = self.child[0]
        while node >= 0:
            v = int(self.visits[node])
            out[int(self.move[node])] = (v, float(self.reward[node]) / v if v else 0.0)
            node = self.sibling[node]
        return out


@njit(cache=True, nogil=NOGIL)
def add_child(move: np.ndarray, player: np.ndarray, child: np.ndarray, sibling: np.ndarray, visits: np.ndarray,
              avail: np.ndarray, reward: np.ndarray, size: np.ndarray, parent: int, key: int, who: int,
              available: int) -> int:
    """Append a node (``move`` key, mover ``who``, ``available`` count) as ``parent``'s first child; return it."""
    new = size[0]
    size[0] += 1
    move[new] = key
    player[new] = who
    child[new] = -1
    visits[new] = 0
    avail[new] = available
    reward[new] = 0.0
    sibling[new] = child[parent]
    child[parent] = new
    return new


@njit(cache=True, nogil=NOGIL)
def descend(move: np.ndarray, player: np.ndarray, child: np.ndarray, sibling: np.ndarray, visits: np.ndarray,
            avail: np.ndarray, reward: np.ndarray, size: np.ndarray, w: np.ndarray, stock: np.ndarray,
            path: np.ndarray, c_explore: float, theta: np.ndarray, model_share: float, gone: int,
            buf: np.ndarray, scores: np.ndarray) -> int:
    """Walk the tree in world ``w`` by UCB over the children legal there, expand one; return the path length.

    With weights ``theta`` the opponent (seat 1), at each of its nodes with probability
    ``model_share``, plays the card the opponent model draws for its hand in this world instead of
    the UCB choice (``gone``: the cards played before the root, the one on the table included).
    UCB there models a player who sees every card of the world, ours too; the model plays from
    its own hand and what has been played, as the real opponent must.  ``buf`` and ``scores``
    are the model's scratch space (see :func:`agent.opponent.policy.policy_card`).
    """
    cap = move.shape[0]
    node = 0
    depth = 0
    while not is_over(w):
        legal = legal_mask(w)
        seat = mover(w)
        target = -1
        if seat == 1 and theta.shape[0] > 0 and np.random.random() < model_share:
            target = policy_card(theta, w[W_H1], w[W_LEAD], gone, buf, scores)
        seen = np.int64(0)
        best = -1
        best_score = -1e300
        ch = child[node]
        while ch >= 0:
            c = move[ch]
            if (legal >> c) & 1:
                seen |= np.int64(1) << c
                avail[ch] += 1
                vis = visits[ch]
                if c == target:
                    score = 1e300
                elif vis == 0:
                    score = 1e200
                else:
                    score = reward[ch] / vis + c_explore * math.sqrt(math.log(avail[ch]) / vis)
                if score > best_score:
                    best_score = score
                    best = ch
            ch = sibling[ch]
        untried = legal & ~seen
        if target >= 0:
            untried = untried & (np.int64(1) << target)
        if untried != 0 and size[0] < cap:
            c = random_card(untried)
            new = add_child(move, player, child, sibling, visits, avail, reward, size, node, c, seat, 1)
            step(w, stock, c)
            path[depth] = new
            depth += 1
            break
        if best < 0:
            break
        gone |= np.int64(1) << move[best]
        step(w, stock, move[best])
        path[depth] = best
        depth += 1
        node = best
    return depth


@njit(cache=True, nogil=NOGIL)
def backup(player: np.ndarray, visits: np.ndarray, reward: np.ndarray, path: np.ndarray, depth: int,
           r0: float) -> None:
    """Add seat 0's reward ``r0`` (seen from each node's mover) along the path."""
    for i in range(depth):
        n = path[i]
        visits[n] += 1
        reward[n] += r0 if player[n] == 0 else 1.0 - r0


@njit(cache=True, nogil=NOGIL)
def draw_world(w0: np.ndarray, hidden: np.ndarray, need: int, voids: int, pool: np.ndarray, cum: np.ndarray,
               w: np.ndarray, stock: np.ndarray) -> None:
    """Fill ``w`` and ``stock`` with an iteration's world: from the pool by weight when there is one, else uniformly."""
    if pool.shape[0] > 0:
        sample_from_pool(w0, hidden, pool, cum, w, stock)
    else:
        sample_world(w0, hidden, need, voids, w, stock)


@njit(cache=True, nogil=NOGIL)
def iterate(move: np.ndarray, player: np.ndarray, child: np.ndarray, sibling: np.ndarray, visits: np.ndarray,
            avail: np.ndarray, reward: np.ndarray, size: np.ndarray, w: np.ndarray, stock: np.ndarray,
            path: np.ndarray, cfm: bool, c_explore: float, delta: float, policy: int, eps: float,
            theta: np.ndarray, model_share: float, gone: int, buf: np.ndarray, scores: np.ndarray,
            equity: np.ndarray) -> int:
    """Run one ISMCTS iteration in world ``w`` (consumed): descend, play out, back up; return seat 0's final points.

    -1 (and nothing backed up) for an inconsistent world, which a consistent root never gives.
    ``equity``: seat 0's match equity by final points, or empty outside a match (:func:`deal_reward`).
    """
    depth = descend(move, player, child, sibling, visits, avail, reward, size, w, stock, path, c_explore,
                    theta, model_share, gone, buf, scores)
    p0 = playout(w, stock, cfm, policy, eps)
    if p0 >= 0:
        backup(player, visits, reward, path, depth, deal_reward(p0, cfm, delta, equity))
    return p0


@njit(cache=True, nogil=NOGIL)
def run_ismcts(move: np.ndarray, player: np.ndarray, child: np.ndarray, sibling: np.ndarray,
               visits: np.ndarray, avail: np.ndarray, reward: np.ndarray, size: np.ndarray,
               w0: np.ndarray, hidden: np.ndarray, need: int, voids: int, cfm: bool,
               iterations: int, c_explore: float, delta: float, policy: int, eps: float,
               pool: np.ndarray, cum: np.ndarray, theta: np.ndarray, model_share: float, gone: int,
               equity: np.ndarray) -> None:
    """Run ``iterations`` ISMCTS iterations on the tree held in the arrays, each in a fresh world."""
    w = np.empty(W_SIZE, dtype=np.int64)
    stock = np.empty(40, dtype=np.int64)
    path = np.empty(64, dtype=np.int64)  # 40 plays at most
    buf = np.empty(N_WEIGHTS, dtype=np.float64)
    scores = np.empty(40, dtype=np.float64)
    for _ in range(iterations):
        draw_world(w0, hidden, need, voids, pool, cum, w, stock)
        iterate(move, player, child, sibling, visits, avail, reward, size, w, stock, path, cfm, c_explore, delta,
                policy, eps, theta, model_share, gone, buf, scores, equity)


def search(tree: Tree, root: Root, iterations: int, *, c_explore: float = 0.5, delta: float = 0.25,
           policy: int = GUIDED, eps: float = 0.15, theta: np.ndarray = NO_THETA, model_share: float = 0.0,
           equity: np.ndarray = NO_EQUITY) -> None:
    """Run ``iterations`` more iterations on ``tree`` from ``root``.

    Worlds draw the opponent's hidden cards from ``root.pool`` by weight when it is not empty,
    otherwise uniformly.  With weights ``theta`` the opponent's nodes follow that policy
    ``model_share`` of the time (:func:`descend`).  In a match, ``equity`` holds seat 0's match
    equity for each of its final points (36 values) and is the reward.
    """
    run_ismcts(tree.move, tree.player, tree.child, tree.sibling, tree.visits, tree.avail, tree.reward,
               tree.size, root.w, root.hidden, root.need, root.voids, root.cfm,
               iterations, c_explore, delta, policy, eps, root.pool, root.cum, theta, model_share, root.gone,
               equity)
