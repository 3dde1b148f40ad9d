"""The four-player search's figures for ``treset-agent bench partnership``: a world's cost, a master move.

- ``per_world``: the CPU time (``time.thread_time``) to value every candidate card of one sampled
  world, by trick, with rule-player rollouts and with the solver at the leaves
  (:mod:`agent.partnership.leaves`): what the leaves' thresholds were chosen from;
- ``master``: the ``master`` level's search at its budget on seeded positions: the wall time of a
  move (budget plus the last world's overrun) and the worlds it values, per move and per second.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from agent.partnership.leaves import SolverLeaves, WorldEvaluator, rollouts
from agent.partnership.levels import LEVELS, MAX_WORLDS, SEARCH
from agent.partnership.pimc import candidate_moves, pimc_search
from agent.partnership.sampling import sample_worlds, world_deal
from agent.partnership_player import choose_partnership_move
from tressette.partnership import PartnershipDeal, view_of_partnership


def _positions(deals: int, seed: int) -> list[PartnershipDeal]:
    """Return the positions of ``deals`` seeded deals played by the rule player, one per trick (varied seats)."""
    out = []
    for d in range(deals):
        deal = PartnershipDeal.new(d % 4, random.Random(seed + d))
        while not deal.is_over:
            if len(deal.table) == d % 4 and len(deal.history) < 9:
                out.append(deal.copy())
            deal.play_move(choose_partnership_move(view_of_partnership(deal, deal.to_move)))
    return out


def per_world(deals: int = 4, worlds: int = 4, seed: int = 5000) -> dict[int, dict[str, float]]:
    """Return, per trick (0-8), the mean and max ms of one world's candidates for each evaluator."""
    evaluators: dict[str, WorldEvaluator] = {"rollouts": rollouts, "leaves": SolverLeaves()}
    times: dict[tuple[str, int], list[float]] = {}
    rng = random.Random(seed)
    for deal in _positions(deals, seed):
        view = view_of_partnership(deal, deal.to_move)
        moves = candidate_moves(view)
        for w in [world_deal(view, w) for w in sample_worlds(view, worlds, rng)]:
            for name, ev in evaluators.items():
                t0 = time.thread_time()
                ev(w, moves)
                times.setdefault((name, len(deal.history)), []).append((time.thread_time() - t0) * 1000)
    out: dict[int, dict[str, float]] = {}
    for (name, trick), ts in sorted(times.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        out.setdefault(trick, {})[f"{name}_ms_mean"] = statistics.fmean(ts)
        out[trick][f"{name}_ms_max"] = max(ts)
    return out


def master(positions: int = 6, seed: int = 6000) -> dict[str, float]:
    """Run the master level's timed search on ``positions`` seeded positions; return its times and worlds."""
    budget = LEVELS["master"].time_ms
    rng = random.Random(seed)
    walls: list[float] = []
    counts: list[int] = []
    # Positions with a choice (a single legal card is played without search), spread over the deals' tricks.
    chosen = [d for d in _positions(positions, seed) if len(d.legal_moves()) > 1][::7][:positions]
    for deal in chosen:
        view = view_of_partnership(deal, deal.to_move)
        t0 = time.perf_counter()
        result = pimc_search(view, rng, worlds=MAX_WORLDS, time_ms=budget, world_evaluator=SEARCH)
        walls.append((time.perf_counter() - t0) * 1000)
        counts.append(result.worlds)
    return {"budget_ms": budget, "move_ms_median": statistics.median(walls), "move_ms_max": max(walls),
            "worlds_median": statistics.median(counts), "worlds_min": min(counts),
            "worlds_per_s": 1000 * sum(counts) / sum(walls), "positions": len(walls)}


def lines(r: dict[str, Any]) -> list[str]:
    """Return the printed lines of :func:`per_world` and :func:`master`'s figures."""
    out = ["one sampled world, every candidate card (CPU ms, mean / max): rollouts | solver at the leaves"]
    for trick, f in r["per_world"].items():
        out.append(f"  trick {int(trick) + 1:>2}: {f['rollouts_ms_mean']:7.2f} / {f['rollouts_ms_max']:7.2f}"
                   f"  |  {f['leaves_ms_mean']:7.2f} / {f['leaves_ms_max']:7.2f}")
    m = r["master"]
    out.append(f"master ({m['budget_ms']:.0f} ms, wall clock): a move median {m['move_ms_median']:.0f} ms, "
               f"max {m['move_ms_max']:.0f} ms; worlds a move median {m['worlds_median']:.0f}, fewest "
               f"{m['worlds_min']:.0f}; {m['worlds_per_s']:.0f} worlds/s ({m['positions']:.0f} positions)")
    return out
