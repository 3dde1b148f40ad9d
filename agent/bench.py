"""``treset-agent bench``: speed figures, each measured in the same run.

- random playouts per second from fresh deals, compiled and pure-Python
  reference (the rules package), and their ratio;
- ISMCTS iterations per second at the default settings (opening positions);
- exact-solver times over a fixed set of random 10-vs-10 endgames;
- whole decisions at a time limit: how far past it they go, and how much time
  stopping once the card is settled saves against searching to the limit.

``bench analysis`` measures the post-game analysis (:mod:`agent.analysis_bench`), ``bench
partnership`` the four-player double-dummy solver (:mod:`agent.partnership.bench`).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

import numpy as np
from numba import njit

from agent.decide import SearchConfig, decide, warmup
from agent.kernels.playout import RANDOM, playout, seed_kernels
from agent.kernels.world import NOGIL, W_H0, W_H1, W_LEAD, W_LEADER, W_SIZE, W_SLEN
from agent.search.solver import new_table, solve_root
from agent.search.worlds import make_root
from tressette import Deal, Variant, state_from_view, view_of


@njit(cache=True, nogil=NOGIL)
def _random_playouts(n: int) -> int:
    w = np.empty(W_SIZE, dtype=np.int64)
    stock = np.empty(40, dtype=np.int64)
    deck = np.arange(40)
    total = 0
    for _ in range(n):
        np.random.shuffle(deck)
        w[:] = 0
        for i in range(10):
            w[W_H0] |= np.int64(1) << deck[i]
            w[W_H1] |= np.int64(1) << deck[10 + i]
        for i in range(20):
            stock[i] = deck[20 + i]
        w[W_LEAD] = -1
        w[W_SLEN] = 20
        total += playout(w, stock, False, RANDOM, 0.0)
    return total


def compiled_playouts_per_s(seconds: float) -> float:
    """Return compiled random playouts per second from fresh deals (one core)."""
    _random_playouts(10)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _random_playouts(20_000)
        n += 20_000
    return n / (time.perf_counter() - start)


def reference_playouts_per_s(seconds: float) -> float:
    """Return pure-Python random playouts per second with the rules package."""
    rng = random.Random(1)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        deal = Deal.new(Variant.TRESSETTE, n % 2, rng)
        while not deal.is_over:
            deal.play(rng.choice(deal.legal_moves()))
        n += 1
    return n / (time.perf_counter() - start)


BUSY_ITERATIONS = 64
"""A position's search when no iteration fitted in its time: a rate needs some work to measure."""


def mcts_iterations_per_s(positions: int, time_ms: int) -> float:
    """Return ISMCTS iterations per second at the default settings, over opening positions.

    Each position is searched for ``time_ms``; where that ran no iteration (a machine too busy to
    give the search its time), it is searched again for ``BUSY_ITERATIONS`` iterations without a
    time limit, so the figure is a slower rate then, never 0 iterations/s.
    """
    its, secs = 0, 0.0
    for i in range(positions):
        deal = Deal.new(Variant(("tressette", "kifameno")[i % 2]), 0, random.Random(100 + i))
        state = state_from_view(view_of(deal, 0))
        d = decide(state, time_ms=time_ms, seed=i)
        if d.iterations == 0:
            d = decide(state, time_ms=10**7, iterations=BUSY_ITERATIONS, seed=i)
        its += d.iterations
        secs += d.elapsed_ms / 1000
    return its / secs


def decision_overrun(positions: int, time_ms: int = 100) -> dict[str, float]:
    """Time whole ``decide`` calls at ``time_ms`` over positions from every stage of a deal.

    Returns the median and maximum wall time and how far the slowest went past the limit,
    and the mean time with and without stopping once the card is settled (same positions).
    """
    walls: list[float] = []
    full_walls: list[float] = []
    for i in range(positions):
        rng = random.Random(500 + i)
        deal = Deal.new(Variant(("tressette", "kifameno")[i % 2]), i % 2, rng)
        for _ in range(rng.randrange(36)):
            deal.play(rng.choice(deal.legal_moves()))
        state = state_from_view(view_of(deal, deal.to_move))
        for config, out in ((None, walls), (SearchConfig(stop_early=False), full_walls)):
            t0 = time.perf_counter()
            decide(state, time_ms=time_ms, seed=i, config=config)
            out.append((time.perf_counter() - t0) * 1000)
    slowest = max(walls + full_walls)
    return {
        "decide_limit_ms": time_ms,
        "decide_ms_median": statistics.median(walls),
        "decide_ms_max": slowest,
        "decide_overrun_ms_max": slowest - time_ms,
        "decide_ms_mean": statistics.mean(walls),
        "decide_full_ms_mean": statistics.mean(full_walls),
    }


def endgames(count: int, seed: int = 7) -> list[Any]:
    """Return ``count`` fixed random 10-vs-10 endgames (stock just emptied, seat to move's state)."""
    rng = random.Random(seed)
    out: list[Any] = []
    while len(out) < count:
        deal = Deal.new(Variant(("tressette", "kifameno")[len(out) % 2]), rng.randrange(2), rng)
        while deal.trick_number < 10:
            deal.play(rng.choice(deal.legal_moves()))
        out.append(state_from_view(view_of(deal, deal.to_move)))
    return out


def solver_times(count: int) -> dict[str, float]:
    """Solve ``count`` endgames from an empty table each; return time and node figures."""
    times, nodes_all = [], []
    values = np.zeros(40, dtype=np.int64)
    for state in endgames(count):
        root = make_root(state)
        tt = new_table()
        nodes = np.zeros(1, dtype=np.int64)
        t0 = time.perf_counter()
        solve_root(root.w[W_H0], root.w[W_H1], root.w[W_LEADER], root.w[W_LEAD], state.cfm, tt, values, nodes)
        times.append((time.perf_counter() - t0) * 1000)
        nodes_all.append(int(nodes[0]))
    times.sort()
    return {
        "solver_ms_median": statistics.median(times),
        "solver_ms_p95": times[int(0.95 * (len(times) - 1))],
        "solver_ms_max": times[-1],
        "solver_nodes_median": statistics.median(nodes_all),
        "solver_endgames": count,
    }


def run(seconds: float = 2.0, positions: int = 6, time_ms: int = 1000, endgame_count: int = 100) -> dict[str, Any]:
    """Measure everything; return the figures."""
    warmup()
    seed_kernels(1)
    # Warm the solver's compiled code outside the timed endgames.
    warm = endgames(1, seed=1)[0]
    root = make_root(warm)
    solve_root(root.w[W_H0], root.w[W_H1], root.w[W_LEADER], root.w[W_LEAD], warm.cfm, new_table(),
               np.zeros(40, dtype=np.int64), np.zeros(1, dtype=np.int64))
    compiled = compiled_playouts_per_s(seconds)
    reference = reference_playouts_per_s(seconds)
    out: dict[str, Any] = {
        "playouts_per_s": compiled,
        "reference_playouts_per_s": reference,
        "playout_speedup": compiled / reference,
        "mcts_iterations_per_s": mcts_iterations_per_s(positions, time_ms),
    }
    out.update(solver_times(endgame_count))
    out.update(decision_overrun(positions * 5))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run ``treset-agent bench [--json] [--seconds S] [--endgames N]``, ``bench analysis ...`` or
    ``bench partnership ...``."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "analysis":
        from agent.analysis_bench import main as analysis_main

        return analysis_main(argv[1:])
    if argv and argv[0] == "partnership":
        from agent.partnership.bench import main as partnership_main

        return partnership_main(argv[1:])
    parser = argparse.ArgumentParser(prog="treset-agent bench", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per playout measurement")
    parser.add_argument("--positions", type=int, default=6, help="positions for the MCTS rate")
    parser.add_argument("--time-ms", type=int, default=1000, help="search time per MCTS position")
    parser.add_argument("--endgames", type=int, default=100, help="10-vs-10 endgames to solve")
    args = parser.parse_args(argv)
    r = run(args.seconds, args.positions, args.time_ms, args.endgames)
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"random playouts/s, compiled:       {r['playouts_per_s']:>12,.0f}")
    print(f"random playouts/s, pure reference: {r['reference_playouts_per_s']:>12,.0f}")
    print(f"  compiled / reference:            {r['playout_speedup']:>12,.0f}x")
    print(f"ISMCTS iterations/s (defaults):    {r['mcts_iterations_per_s']:>12,.0f}")
    print(f"solver over {r['solver_endgames']} 10-vs-10 endgames: median {r['solver_ms_median']:.2f} ms, "
          f"p95 {r['solver_ms_p95']:.2f} ms, max {r['solver_ms_max']:.2f} ms, "
          f"median nodes {r['solver_nodes_median']:,.0f}")
    print(f"decide at {r['decide_limit_ms']} ms: median {r['decide_ms_median']:.1f} ms, max {r['decide_ms_max']:.1f} ms "
          f"(limit exceeded by at most {r['decide_overrun_ms_max']:.1f} ms)")
    print(f"  mean {r['decide_ms_mean']:.1f} ms, {r['decide_full_ms_mean']:.1f} ms searching to the limit "
          f"(stopping once the card is settled: {r['decide_ms_mean'] / r['decide_full_ms_mean']:.2f}x the time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
