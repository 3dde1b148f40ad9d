"""Each legal card's expected final points and win chance where cards are hidden: ISMCTS below each card.

Post-game analysis needs a comparable value for every card the mover could
have played, not only for the one a search would pick: under UCB a card the
search dislikes gets a handful of visits and a value from its first, nearly
random iterations.  So each legal card gets a search of its own with the same
number of iterations: iteration ``i`` takes world ``i`` (drawn as :mod:`agent.search.mcts`
draws them, from the opponent model's pool of hidden hands), plays the card,
walks a fresh ISMCTS tree below it (the opponent model taking part as in the
bot's search) and finishes with the guided playout.

The iterations are split into independent batches (each with its own pool
of candidate hidden hands and its own worlds, shared by all the cards): how
much the difference between two cards varies from batch to batch measures the
uncertainty of the estimate.  The spread of single playouts would not: the
pool and the course of each tree make searches with other seeds differ by
several times the playouts' standard error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from agent.decide import SearchConfig
from agent.kernels.playout import seed_kernels
from agent.kernels.world import NOGIL, W_SIZE, step
from agent.opponent.policy import N_WEIGHTS, NO_THETA, load_policy
from agent.search.mcts import NO_EQUITY, Tree, draw_world, iterate
from agent.search.worlds import Root, make_root
from tressette import TOTAL_POINTS, AgentState, Card, Variant

BATCHES = 8
"""Independent batches a card's iterations are split into, for the spread of the estimate."""


@njit(cache=True, nogil=NOGIL)
def draw_worlds(w0: np.ndarray, hidden: np.ndarray, need: int, voids: int, pool: np.ndarray, cum: np.ndarray,
                worlds: np.ndarray, stocks: np.ndarray) -> None:
    """Fill row ``i`` of ``worlds`` (int64[n, W_SIZE]) and ``stocks`` (int64[n, 40]) with the ``i``-th world,
    as :func:`agent.search.mcts.draw_world` draws them."""
    for i in range(worlds.shape[0]):
        draw_world(w0, hidden, need, voids, pool, cum, worlds[i], stocks[i])


@njit(cache=True, nogil=NOGIL)
def run_card_search(move: np.ndarray, player: np.ndarray, child: np.ndarray, sibling: np.ndarray,
                    visits: np.ndarray, avail: np.ndarray, reward: np.ndarray, size: np.ndarray,
                    worlds: np.ndarray, stocks: np.ndarray, cfm: bool, card: int,
                    c_explore: float, delta: float, policy: int, eps: float, theta: np.ndarray,
                    model_share: float, gone: int, finals: np.ndarray) -> None:
    """Run the bot's ISMCTS iteration (:func:`agent.search.mcts.iterate`) below seat 0's ``card`` in each
    world of :func:`draw_worlds`' arrays.

    The tree (empty on entry) is rooted after ``card``: its first level is
    whoever moves next.  ``finals[i]`` gets seat 0's final points in world
    ``i`` (-1 for an inconsistent world, which a consistent root never gives).
    """
    w = np.empty(W_SIZE, dtype=np.int64)
    stock = np.empty(40, dtype=np.int64)
    path = np.empty(64, dtype=np.int64)
    buf = np.empty(N_WEIGHTS, dtype=np.float64)
    scores = np.empty(40, dtype=np.float64)
    after = gone | (np.int64(1) << card)
    for i in range(worlds.shape[0]):
        w[:] = worlds[i]
        stock[:] = stocks[i]
        step(w, stock, card)
        finals[i] = iterate(move, player, child, sibling, visits, avail, reward, size, w, stock, path, cfm,
                            c_explore, delta, policy, eps, theta, model_share, after, buf, scores, NO_EQUITY)


@dataclass(frozen=True, slots=True, eq=False)
class CardValue:
    """What the searches below one card saw: the mover's mean final points and win share in each batch."""

    card: Card
    points: np.ndarray
    """The mover's mean final points (thirds) in each batch of worlds."""
    wins: np.ndarray
    """The mover's share of wins in each batch of worlds."""

    @property
    def mean(self) -> float:
        """Return the mover's expected final points (thirds), over all batches."""
        return float(self.points.mean())

    @property
    def win(self) -> float:
        """Return the mover's chance to win, over all batches."""
        return float(self.wins.mean())


def win_table(variant: Variant) -> np.ndarray:
    """Return, for each final score 0..TOTAL_POINTS of a player, 1.0 when it wins the deal."""
    return np.array([1.0 if variant.winner((p, TOTAL_POINTS - p)) == 0 else 0.0 for p in range(TOTAL_POINTS + 1)])


def paired_se(a: CardValue, b: CardValue) -> tuple[float, float]:
    """Return the standard errors of the differences of mean points and of win chance between two cards.

    Each batch searched both cards on the same pool and worlds and is independent of
    the other batches, so these are the standard errors of the mean of the batch-by-batch
    differences: they take in the spread of the opponent model's pool and of the trees'
    courses, which the spread of single playouts would miss.
    """
    k = a.points.shape[0]
    if k < 2:
        return 0.0, 0.0
    root_k = float(np.sqrt(k))
    return (float((a.points - b.points).std(ddof=1)) / root_k, float((a.wins - b.wins).std(ddof=1)) / root_k)


def card_values(state: AgentState, *, iterations: int, seed: int, batches: int = BATCHES,
                config: SearchConfig | None = None, tree: Tree | None = None) -> dict[Card, CardValue]:
    """Return each legal card's :class:`CardValue` for the agent to move in ``state`` (cards hidden).

    The ``iterations`` are split into ``batches`` independent batches, each with a pool of
    the opponent's hidden hands and worlds of its own, shared by every card, and a tree of
    its own for each card.  ``seed`` makes the result reproducible.  ``tree`` is scratch
    space to reuse.  Raises ValueError when every card's place is known (use the exact
    solver).  With fewer iterations than batches, each batch runs one.
    """
    if state.all_known:
        raise ValueError("every card is known: solve the position instead")
    batches = max(1, min(batches, iterations))
    config = config or SearchConfig()
    theta = load_policy().get(state.cfm, NO_THETA) if config.model_share > 0 else NO_THETA
    per_batch = iterations // batches
    if tree is None or tree.capacity < per_batch + 1:
        tree = Tree(per_batch + 1)
    wins_at = win_table(state.variant)
    legal = state.legal_moves()
    points = np.zeros((len(legal), batches))
    wins = np.zeros((len(legal), batches))
    worlds = np.empty((per_batch, W_SIZE), dtype=np.int64)
    stocks = np.empty((per_batch, 40), dtype=np.int64)
    finals = np.empty(per_batch, dtype=np.int64)
    for b in range(batches):
        seed_kernels(seed * batches + b)
        root: Root = make_root(state, use_voids=config.use_voids, particles=config.particles,
                               temper=config.temper)
        draw_worlds(root.w, root.hidden, root.need, root.voids, root.pool, root.cum, worlds, stocks)
        for i, card in enumerate(legal):
            tree.clear()
            run_card_search(tree.move, tree.player, tree.child, tree.sibling, tree.visits, tree.avail, tree.reward,
                            tree.size, worlds, stocks, root.cfm, card, config.c_explore, config.delta,
                            config.policy, config.eps, theta, config.model_share, root.gone, finals)
            ok = finals >= 0  # every world of a consistent root is
            points[i, b] = finals[ok].mean()
            wins[i, b] = wins_at[finals[ok]].mean()
    return {card: CardValue(card, points[i], wins[i]) for i, card in enumerate(legal)}
