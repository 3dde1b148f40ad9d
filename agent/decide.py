"""Choose a card: the exact solver when every card's place is known, ISMCTS otherwise.

In a match (``state.match``) both play for the match: the search's reward is the chance of
winning the match from the score a deal's outcome leaves (:mod:`agent.match_equity`), and the
solver's card, the best for the deal's points, is the best for that chance too, which only
grows with the points one wants (tested), so minimax over points and over equity agree.

The search runs in compiled chunks between clock checks so a decision never
overruns its budget by more than a chunk (a few milliseconds), and stops sooner
once more search could not change the card (:class:`Progress`).  With
``jobs > 1`` independent trees search in parallel threads (the kernels release
the GIL) and their root statistics are summed (root parallelism).
"""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agent.kernels.playout import GUIDED, seed_kernels
from agent.kernels.world import W_H0, W_H1, W_LEAD, W_LEADER
from agent.match_equity import equity_by_thirds
from agent.opponent.policy import NO_THETA, load_policy
from agent.search.mcts import NO_EQUITY, Tree, search
from agent.search.odds import NODE_BUDGET, win_odds
from agent.search.solver import new_table, solve_root
from agent.search.worlds import make_root
from tressette import ME, TOTAL_POINTS, AgentState, card_name, mask_of

CHUNK = 512
ODDS_NODES_PER_MS = 1500
"""Positions the odds search may visit per millisecond of budget: under half of one idle core's rate."""
ODDS_MARGIN_MS = 20
TREE_CAPACITY = 1_500_000


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """Tunable search settings (defaults are the measured best; see docs/agent.md).

    Settings measured as no gain (``lab/MEASUREMENTS.md``) were removed in issue #24: the tag
    ``search-options-before-24`` has them.
    """

    c_explore: float = 0.5
    delta: float = 0.25
    policy: int = GUIDED
    eps: float = 0.15
    use_voids: bool = True
    particles: int = 2048
    """Candidate hidden hands weighed by the opponent model (0: uniform worlds)."""
    temper: float = 1.0
    model_share: float = 0.3
    """How often the opponent's tree nodes follow the opponent model instead of UCB (0: never)."""
    stop_early: bool = True
    """Stop once the most visited card can no longer be overtaken in the iterations left."""
    fallible_share: float = 0.5
    """In a solved position lost against perfect play, the card with the best odds against an opponent
    playing a random card this often (0: keep the solver's card; see :mod:`agent.search.odds`)."""
    play_match: bool = True
    """In a match, play for the match (False: for the deal, as before issue #32; the lab's baseline)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """The card chosen, how, and what the search saw."""

    card: int
    method: str
    iterations: int
    value: int | None
    stats: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Return the decision as JSON-ready data (cards by name)."""
        return {
            "card": card_name(self.card),
            "method": self.method,
            "iterations": self.iterations,
            "value": self.value,
            "stats": self.stats,
            "elapsed_ms": round(self.elapsed_ms, 3),
        }


_TT: np.ndarray | None = None


def _table() -> np.ndarray:
    global _TT
    if _TT is None:
        _TT = new_table()
    return _TT


def known_position(state: AgentState) -> tuple[int, int, int, int]:
    """Return (the agent's hand, the opponent's, the leader, the card on the table or -1) of a known position.

    Every hidden card is then the opponent's (the stock is gone).
    """
    root = make_root(state)
    return (int(root.w[W_H0]), int(root.w[W_H1]) | mask_of(int(c) for c in root.hidden), int(root.w[W_LEADER]),
            int(root.w[W_LEAD]))


def solve(state: AgentState, *, exact_all: bool = False) -> tuple[int, int, dict[int, int]]:
    """Solve a position with every card's place known.

    Returns (best card, the agent's final points under best play, each legal
    card's final points: exact for the best card, a bound for the others unless ``exact_all``).
    """
    values = np.zeros(40, dtype=np.int64)
    nodes = np.zeros(1, dtype=np.int64)
    # Each thread gets its own table: the table is not safe to share between threads.
    tt = _table() if _is_main_thread() else new_table()
    best = solve_root(*known_position(state), state.cfm, tt, values, nodes, exact_all)
    per_card = {c: state.points + int(values[c]) for c in state.legal_moves()}
    return int(best), per_card[int(best)], per_card


def lost_odds(state: AgentState, share: float, time_ms: int, start: float | None = None) -> dict[int, float] | None:
    """Return each legal card's odds of winning a known endgame against a fallible opponent.

    None when the search would outlast ``time_ms`` from ``start`` (a
    ``perf_counter`` time, default now).
    """
    start = time.perf_counter() if start is None else start
    budget = min(NODE_BUDGET, max(0, time_ms - ODDS_MARGIN_MS) * ODDS_NODES_PER_MS)
    # The node budget decides on this machine (so the card does not depend on its load); the clock
    # only guards a slower one.
    seconds = (time_ms - ODDS_MARGIN_MS) / 1000 - (time.perf_counter() - start)
    return win_odds(*known_position(state), (state.points, state.opponent_points), state.cfm, share, budget,
                    seconds)


def led_first(state: AgentState) -> bool | None:
    """Return whether the agent led this deal's first trick (None when the state does not tell)."""
    if state.history:
        return state.history[0].leader == ME
    if state.tricks_played == 0:
        return not state.inplay  # still the first trick: whoever has a card on the table led it
    return None


def match_rewards(state: AgentState, config: SearchConfig) -> np.ndarray | None:
    """Return the agent's match equity for each of its final points of the deal, or None outside a match."""
    if state.match is None or not config.play_match:
        return None
    m = state.match
    return equity_by_thirds(state.variant, m.target, m.me, m.him, me_led=led_first(state))


def _is_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def decide(state: AgentState, *, time_ms: int = 1000, iterations: int | None = None,
           seed: int | None = None, jobs: int = 1, config: SearchConfig | None = None) -> Decision:
    """Return the agent's card for ``state``.

    The search stops at ``iterations`` (when given) or when ``time_ms`` has
    passed, whichever comes first.  ``seed`` makes a run with an iteration cap
    reproducible (a time limit alone depends on the machine's speed; with
    ``jobs > 1`` where a settled search stops depends on the threads' timing, the
    card it plays does not).
    """
    start = time.perf_counter()
    config = config or SearchConfig()
    legal = state.legal_moves()
    equity = match_rewards(state, config)
    if state.all_known:
        # In a match every card's exact value is wanted: the fallible stage below may only pick a
        # card that leaves the match equity of the solver's card against perfect play.
        best, value, per_card = solve(state, exact_all=equity is not None)
        # Only the best card is searched with a full window: the others get a bound that shows
        # they are no better (at most its points in Tressette, at least in Kifameno).
        other = "value" if equity is not None else "at_least" if state.cfm else "at_most"
        stats: dict[str, Any] = {card_name(c): {"value" if c == best else other: v} for c, v in per_card.items()}
        if equity is not None:
            for c, v in per_card.items():
                stats[card_name(c)]["equity"] = round(float(equity[v]), 6)
        if config.fallible_share > 0 and state.variant.winner((value, TOTAL_POINTS - value)) != ME:
            odds = lost_odds(state, config.fallible_share, time_ms, start)
            if odds is not None:
                for c, p in odds.items():
                    stats[card_name(c)]["odds"] = round(p, 6)
                if equity is not None:
                    # The deal's odds only break ties between cards equal for the match.
                    odds = {c: p for c, p in odds.items() if equity[per_card[c]] >= equity[value]}
                # Ties keep the solver's card, which loses by least against perfect play.
                best = max(odds, key=lambda c: (odds[c], c == best))
        return Decision(best, "solver", 0, value, stats, (time.perf_counter() - start) * 1000)
    if len(legal) == 1:
        return Decision(legal[0], "mcts", 0, None, {card_name(legal[0]): {"visits": 0, "mean": None}},
                        (time.perf_counter() - start) * 1000)
    seeds = random.Random(seed).sample(range(1, 2**31), max(1, jobs) + 1)
    if seed is not None:
        seed_kernels(seeds[-1])  # the opponent model's candidate hands are drawn here
    root = make_root(state, use_voids=config.use_voids, particles=config.particles, temper=config.temper)
    # Without a fitted policy the tree keeps plain UCB, as the pool keeps uniform worlds.
    theta = load_policy().get(state.cfm, NO_THETA) if config.model_share > 0 else NO_THETA
    deadline = start + time_ms / 1000.0
    limit = iterations if iterations is not None else 1 << 62
    per_job = [limit // jobs + (1 if i < limit % jobs else 0) for i in range(jobs)] if jobs > 1 else [limit]
    progress = Progress(per_job, deadline)

    def run(job: int) -> dict[int, tuple[int, float]]:
        seed_kernels(seeds[job])
        tree = Tree(min(TREE_CAPACITY, per_job[job] + 1))
        done = 0
        while done < per_job[job] and time.perf_counter() < deadline:
            n = min(CHUNK, per_job[job] - done)
            search(tree, root, n, c_explore=config.c_explore, delta=config.delta, policy=config.policy,
                   eps=config.eps, theta=theta, model_share=config.model_share,
                   equity=NO_EQUITY if equity is None else equity)
            done += n
            progress.visits[job] = 0
            tree.add_root_visits(progress.visits[job])
            progress.done[job] = done
            if config.stop_early and progress.settled(time.perf_counter()):
                break
        return tree.root_stats()

    if jobs == 1:
        runs = [run(0)]
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            runs = list(pool.map(run, range(jobs)))
    merged: dict[int, list[float]] = {c: [0, 0.0] for c in legal}
    for tree_stats in runs:
        for c, (v, mean) in tree_stats.items():
            merged[c][0] += v
            merged[c][1] += v * mean
    total = int(sum(v for v, _ in merged.values()))
    best = max(legal, key=lambda c: (merged[c][0], merged[c][1]))
    stats = {card_name(c): {"visits": int(v), "mean": round(s / v, 4) if v else None}
             for c, (v, s) in merged.items()}
    return Decision(best, "mcts", total, None, stats, (time.perf_counter() - start) * 1000)


class Progress:
    """Each root-parallel job's root visits and iterations so far, to stop when the choice is settled.

    The card played is the most visited over all jobs, so once its lead over the
    runner-up exceeds every iteration still to come (by the iteration caps, or the
    jobs' rates until the deadline) more search cannot change the card: stopping
    then only saves time.
    """

    def __init__(self, per_job: list[int], deadline: float) -> None:
        self.per_job = per_job
        self.deadline = deadline
        self.started = time.perf_counter()
        self.visits = np.zeros((len(per_job), 40), dtype=np.int64)
        self.done = [0] * len(per_job)

    def remaining(self, now: float) -> float:
        """Return an upper estimate of the iterations all jobs may still run."""
        left = max(0.0, self.deadline - now)
        elapsed = max(now - self.started, 1e-9)
        # Playouts slow down as the tree deepens, so the mean rate so far overstates the rate to come.
        return sum(min(cap - done, done / elapsed * left) for cap, done in zip(self.per_job, self.done, strict=True))

    def settled(self, now: float) -> bool:
        """Return whether the most visited root card can no longer be overtaken."""
        totals = self.visits.sum(axis=0)
        top2 = np.partition(totals, -2)[-2:]
        # Other jobs' rows may be one chunk old; their chunks in flight count as still to come.
        stale = CHUNK * (len(self.per_job) - 1)
        return bool(top2[1] - top2[0] > self.remaining(now) + stale)


def warmup() -> None:
    """Compile (or load from the cache) every kernel the search uses."""
    import tressette
    from tressette import Deal, Variant, state_from_view, view_of

    deal = Deal.new(Variant.TRESSETTE, 0, random.Random(0))
    decide(state_from_view(view_of(deal, 0)), iterations=64, seed=0)
    while deal.stock:
        deal.play(deal.legal_moves()[0])
    if deal.to_move != 0:
        deal.play(deal.legal_moves()[0])
    decide(tressette.state_from_view(view_of(deal, 0)))
    while deal.trick_number < 17 or deal.to_move != 0:
        deal.play(deal.legal_moves()[0])
    lost_odds(tressette.state_from_view(view_of(deal, 0)), SearchConfig().fallible_share, time_ms=1000)
