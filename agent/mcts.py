"""Information Set MCTS (single observer) over the agent's card plays, compiled.

Each iteration samples a world (``determinize.sample_world``), walks the one
shared tree choosing among the children legal in that world by UCB with
availability counts, expands one new card, finishes the world with a guided
playout and backs the result up.  Tree nodes are card plays by either seat;
the draws in between are part of the sampled world, not of the tree.

The reward is seat-relative: ``(1 - delta) * win + delta * share``, where
``share`` is the points fraction a player wants (its points in Tressette,
the opponent's in Kifameno).

The opponent model takes part (see ``SearchConfig``): the opponent's nodes
follow the fitted policy instead of UCB a share of the time (0.3 by default),
and an iteration may assume a uniformly random opponent, in the tree and in
the playout, when its world comes from the random-player half of the pool
(off by default).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from agent.alphabeta import solve_value
from agent.determinize import Root, sample_from_pool, sample_world
from agent.opponent import N_WEIGHTS, NO_CUM, policy_card
from agent.playout import GUIDED, RANDOM, guided_card, playout, random_card
from agent.world import (
    NOGIL,
    W_H0,
    W_H1,
    W_LEAD,
    W_LEADER,
    W_P0,
    W_SIZE,
    W_SLEN,
    W_SPOS,
    is_over,
    legal_mask,
    mover,
    popcount,
    step,
)

TOTAL = 35
WIN_AT = 18
NO_THETA = NO_CUM


@njit(cache=True, nogil=NOGIL)
def reward0(p0: int, cfm: bool, delta: float) -> float:
    """Return seat 0's reward in [0, 1] for final points ``p0``."""
    if cfm:
        win = 1.0 if p0 < WIN_AT else 0.0
        share = (TOTAL - p0) / TOTAL
    else:
        win = 1.0 if p0 >= WIN_AT else 0.0
        share = p0 / TOTAL
    return (1.0 - delta) * win + delta * share


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
            path: np.ndarray, c_explore: float, draws: bool, theta: np.ndarray, model_share: float, gone: int,
            buf: np.ndarray, scores: np.ndarray, blunder_share: float) -> int:
    """Walk the tree in world ``w`` by UCB over the children legal there, expand one; return the path length.

    With ``draws`` the two cards drawn after a trick (public in the real game) are chance nodes
    (``player`` -1, ``move`` = first draw * 40 + second): below them the agent's and the
    opponent's next plays are told apart by what was drawn instead of sharing statistics.

    With weights ``theta`` the opponent (seat 1), at each of its nodes with probability
    ``model_share``, plays the card the opponent model draws for its hand in this world instead of
    the UCB choice (``gone``: the cards played before the root, the one on the table included).
    UCB there models a player who sees every card of the world, ours too; the model plays from
    its own hand and what has been played, as the real opponent must.  ``buf`` and ``scores``
    are the model's scratch space (see :func:`agent.opponent.policy_card`).  With probability
    ``blunder_share`` (before the model's share) the opponent plays a uniformly random legal card
    instead: the chance a weak player gives away a lost position.
    """
    cap = move.shape[0]
    node = 0
    depth = 0
    while not is_over(w):
        legal = legal_mask(w)
        seat = mover(w)
        target = -1
        if seat == 1 and (theta.shape[0] > 0 or blunder_share > 0.0):
            r = np.random.random()
            if r < blunder_share:
                target = random_card(legal)
            elif theta.shape[0] > 0 and r < blunder_share + model_share:
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
        spos = w[W_SPOS]
        gone |= np.int64(1) << move[best]
        step(w, stock, move[best])
        path[depth] = best
        depth += 1
        node = best
        if draws and w[W_SPOS] != spos:
            key = stock[spos] * 40 + stock[spos + 1]
            ch = child[node]
            while ch >= 0 and move[ch] != key:
                ch = sibling[ch]
            if ch < 0:
                if size[0] >= cap:
                    break
                ch = add_child(move, player, child, sibling, visits, avail, reward, size, node, key, -1, 0)
            path[depth] = ch
            depth += 1
            node = ch
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
               n_model: int, random_prior: float, w: np.ndarray, stock: np.ndarray) -> bool:
    """Fill ``w`` and ``stock`` with an iteration's world; return True when its opponent plays at random.

    The world comes from the pool when there is one (its entries from ``n_model`` on are the
    random player's), otherwise uniformly, with a random player at the prior ``random_prior``.
    """
    if pool.shape[0] > 0:
        return sample_from_pool(w0, hidden, pool, cum, w, stock) >= n_model
    sample_world(w0, hidden, need, voids, w, stock)
    return random_prior > 0.0 and np.random.random() < random_prior


@njit(cache=True, nogil=NOGIL)
def run_ismcts(move: np.ndarray, player: np.ndarray, child: np.ndarray, sibling: np.ndarray,
               visits: np.ndarray, avail: np.ndarray, reward: np.ndarray, size: np.ndarray,
               w0: np.ndarray, hidden: np.ndarray, need: int, voids: int, cfm: bool,
               iterations: int, c_explore: float, delta: float, policy: int, eps: float, draws: bool,
               pool: np.ndarray, cum: np.ndarray, n_model: int, random_prior: float, theta: np.ndarray,
               model_share: float, gone: int, blunder_share: float) -> None:
    """Run ``iterations`` ISMCTS iterations on the tree held in the arrays (see :func:`descend`)."""
    w = np.empty(W_SIZE, dtype=np.int64)
    stock = np.empty(40, dtype=np.int64)
    path = np.empty(64, dtype=np.int64)  # 40 plays and 10 chance nodes at most
    uniform = np.zeros(N_WEIGHTS, dtype=np.float64)
    buf = np.empty(N_WEIGHTS, dtype=np.float64)
    scores = np.empty(40, dtype=np.float64)
    no_trace = np.empty(0, dtype=np.int64)  # the module's empty array is read-only in compiled code
    for _ in range(iterations):
        random_kind = draw_world(w0, hidden, need, voids, pool, cum, n_model, random_prior, w, stock)
        depth = descend(move, player, child, sibling, visits, avail, reward, size, w, stock, path, c_explore,
                        draws, uniform if random_kind else theta, 1.0 if random_kind else model_share, gone,
                        buf, scores, blunder_share)
        p0 = playout(w, stock, cfm, policy, eps, no_trace, RANDOM if random_kind else -1)
        backup(player, visits, reward, path, depth, reward0(p0, cfm, delta))


@njit(cache=True, nogil=NOGIL)
def advance(w: np.ndarray, stock: np.ndarray, cfm: bool, policy: int, eps: float, leaf_cards: int) -> None:
    """Play ``w`` on with the playout policy until the stock is empty, a trick is complete and each
    hand holds at most ``leaf_cards`` cards (or the deal is over)."""
    while not is_over(w):
        if w[W_LEAD] < 0 and w[W_SPOS] >= w[W_SLEN] and popcount(w[W_H0]) <= leaf_cards:
            return
        legal = legal_mask(w)
        step(w, stock, guided_card(w, legal, cfm, eps) if policy == GUIDED else random_card(legal))


# Not cached: the solver it calls is recursive, and numba's cache does not survive recursion.
@njit(cache=False, nogil=NOGIL)
def run_ismcts_leaf(move: np.ndarray, player: np.ndarray, child: np.ndarray, sibling: np.ndarray,
                    visits: np.ndarray, avail: np.ndarray, reward: np.ndarray, size: np.ndarray,
                    w0: np.ndarray, hidden: np.ndarray, need: int, voids: int, cfm: bool,
                    iterations: int, c_explore: float, delta: float, policy: int, eps: float,
                    leaf_cards: int, tt: np.ndarray, nodes: np.ndarray, draws: bool, pool: np.ndarray,
                    cum: np.ndarray, n_model: int, random_prior: float, theta: np.ndarray, model_share: float,
                    gone: int, blunder_share: float) -> None:
    """ISMCTS whose playouts end in the exact solver once a world's hands are down to ``leaf_cards``."""
    w = np.empty(W_SIZE, dtype=np.int64)
    stock = np.empty(40, dtype=np.int64)
    path = np.empty(64, dtype=np.int64)  # 40 plays and 10 chance nodes at most
    uniform = np.zeros(N_WEIGHTS, dtype=np.float64)
    buf = np.empty(N_WEIGHTS, dtype=np.float64)
    scores = np.empty(40, dtype=np.float64)
    for _ in range(iterations):
        random_kind = draw_world(w0, hidden, need, voids, pool, cum, n_model, random_prior, w, stock)
        depth = descend(move, player, child, sibling, visits, avail, reward, size, w, stock, path, c_explore,
                        draws, uniform if random_kind else theta, 1.0 if random_kind else model_share, gone,
                        buf, scores, blunder_share)
        advance(w, stock, cfm, policy, eps, leaf_cards)
        p0 = w[W_P0]
        if not is_over(w):
            p0 += solve_value(w[W_H0], w[W_H1], w[W_LEADER], w[W_LEAD], cfm, tt, nodes)
        backup(player, visits, reward, path, depth, reward0(p0, cfm, delta))


def search(tree: Tree, root: Root, iterations: int, *, c_explore: float = 0.5, delta: float = 0.25,
           policy: int = GUIDED, eps: float = 0.15, leaf_cards: int = 0, tt: np.ndarray | None = None,
           draws: bool = False, theta: np.ndarray = NO_THETA, model_share: float = 0.0,
           random_prior: float = 0.0, blunder_share: float = 0.0) -> None:
    """Run ``iterations`` more iterations on ``tree`` from ``root``.

    With ``leaf_cards`` > 0 each playout stops once the stock is empty and the hands hold at
    most that many cards, and the exact solver (transposition table ``tt``) values the rest.
    Worlds draw the opponent's hidden cards from ``root.pool`` by weight when it is not empty,
    otherwise uniformly.  With weights ``theta`` the opponent's nodes follow that policy
    ``model_share`` of the time (:func:`descend`).  In the iterations whose world comes from
    the pool's random-player half (or, without a pool, with probability ``random_prior``) the
    opponent plays uniformly at random in the tree.  ``blunder_share``: see :func:`descend`.
    """
    if leaf_cards > 0:
        assert tt is not None
        run_ismcts_leaf(tree.move, tree.player, tree.child, tree.sibling, tree.visits, tree.avail, tree.reward,
                        tree.size, root.w, root.hidden, root.need, root.voids, root.cfm,
                        iterations, c_explore, delta, policy, eps, leaf_cards, tt, np.zeros(1, dtype=np.int64), draws,
                        root.pool, root.cum, root.n_model, random_prior, theta, model_share, root.gone,
                        blunder_share)
        return
    run_ismcts(tree.move, tree.player, tree.child, tree.sibling, tree.visits, tree.avail, tree.reward,
               tree.size, root.w, root.hidden, root.need, root.voids, root.cfm,
               iterations, c_explore, delta, policy, eps, draws, root.pool, root.cum, root.n_model, random_prior,
               theta, model_share, root.gone, blunder_share)


@njit(cache=True, nogil=NOGIL)
def run_flat(visits: np.ndarray, total: np.ndarray, w0: np.ndarray, hidden: np.ndarray, need: int,
             cfm: bool, iterations: int, c_explore: float, delta: float, policy: int, eps: float) -> None:
    """Flat UCB1 over the root's cards with uniform determinizations (the thesis's agent)."""
    w = np.empty(W_SIZE, dtype=np.int64)
    stock = np.empty(40, dtype=np.int64)
    sample_world(w0, hidden, need, 0, w, stock)
    legal = legal_mask(w)
    done = 0
    for c in range(40):
        done += visits[c]
    for _ in range(iterations):
        sample_world(w0, hidden, need, 0, w, stock)
        best = -1
        best_score = -1e300
        for c in range(40):
            if not (legal >> c) & 1:
                continue
            if visits[c] == 0:
                best = c
                break
            score = total[c] / visits[c] + c_explore * math.sqrt(math.log(done + 1) / visits[c])
            if score > best_score:
                best_score = score
                best = c
        step(w, stock, best)
        p0 = playout(w, stock, cfm, policy, eps)
        visits[best] += 1
        total[best] += reward0(p0, cfm, delta)
        done += 1
