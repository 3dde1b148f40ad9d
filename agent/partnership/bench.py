"""``treset-agent bench partnership``: the four-player double-dummy solver's times, measured in the same run.

Each position is solved from an empty transposition table, in one thread; times are that thread's
CPU time (``time.thread_time``), so a machine shared with other work does not inflate them (its
caches still may):

- ``full``: seeded full deals (40 cards open, the first lead): the best card and the value (what
  play needs), and every legal card's exact value (what the analysis needs);
- ``last5``: the last five tricks of seeded deals played at random to their sixth trick;
- ``depths``: the every-card solve at each number of tricks left, to show where the time goes;
- ``analysis``: the post-game analysis of whole deals (40 cards played at random,
  :mod:`agent.partnership.analysis`): every position, each card's exact value, one table a deal;
- ``per_world`` and ``master``: the search's figures (:mod:`agent.partnership.bench_pimc`; ``--pimc 0``
  leaves them out).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from agent.partnership.position import OpenPosition
from agent.partnership.solver import DoubleDummySolver
from tressette import card_name
from tressette.partnership import PartnershipDeal


def dealt(seed: int, tricks_left: int = 10) -> PartnershipDeal:
    """Return seeded deal ``seed`` played at random until ``tricks_left`` tricks are left."""
    rng = random.Random(seed)
    deal = PartnershipDeal.new(seed % 4, rng)
    while deal.trick_number < 10 - tricks_left:
        deal.play(rng.choice(deal.legal_moves()))
    return deal


def _summary(times: list[float], nodes: list[int]) -> dict[str, float]:
    return {"ms_median": statistics.median(times), "ms_max": max(times),
            "nodes_median": statistics.median(nodes), "positions": len(times)}


def timed(solver: DoubleDummySolver, positions: list[OpenPosition], exact_all: bool) -> dict[str, float]:
    """Solve each position from an empty table; return the median and maximum milliseconds and nodes."""
    times: list[float] = []
    nodes: list[int] = []
    for position in positions:
        solver.clear()
        solver.nodes[0] = 0
        t0 = time.thread_time()
        solver.solve(position, exact_all=exact_all)
        times.append((time.thread_time() - t0) * 1000)
        nodes.append(int(solver.nodes[0]))
    return _summary(times, nodes)


def deal_analysis(seeds: list[int], bits: int = 20) -> dict[str, float]:
    """Analyse whole random deals as the post-game analysis does (:func:`agent.partnership.analysis.analyse`:
    every position, each card's exact value, one table a deal); return the seconds per deal."""
    from agent.partnership.analysis import analyse

    times: list[float] = []
    for seed in seeds:
        rng = random.Random(seed)
        deal = PartnershipDeal.new(seed % 4, rng)
        moves = []
        while not deal.is_over:
            card = rng.choice(deal.legal_moves())
            moves.append({"seat": deal.to_move, "card": card_name(card)})
            deal.play(card)
        record = {"deck": [card_name(c) for c in deal.deck], "first_leader": seed % 4, "moves": moves}
        t0 = time.thread_time()
        analyse(record, solver=DoubleDummySolver(bits))
        times.append(time.thread_time() - t0)
    return {"s_median": statistics.median(times), "s_max": max(times), "deals": len(times)}


def run(deals: int = 20, endings: int = 100, analyses: int = 3, bits: int = 20, pimc: int = 6) -> dict[str, Any]:
    """Measure everything (see the module); return the figures."""
    solver = DoubleDummySolver(bits)
    solver.solve(OpenPosition.from_deal(dealt(0, 3)))  # load (or compile) the kernel outside the timings
    full = [OpenPosition.from_deal(dealt(seed)) for seed in range(deals)]
    out: dict[str, Any] = {"table_rows": 1 << bits}
    out["full_best"] = timed(solver, full, exact_all=False)
    out["full_all"] = timed(solver, full, exact_all=True)
    last5 = [OpenPosition.from_deal(dealt(1000 + seed, 5)) for seed in range(endings)]
    out["last5_best"] = timed(solver, last5, exact_all=False)
    out["last5_all"] = timed(solver, last5, exact_all=True)
    depths: dict[int, dict[str, float]] = {}
    for left in range(2, 10):
        depths[left] = timed(solver, [OpenPosition.from_deal(dealt(2000 + seed, left)) for seed in range(deals)],
                             exact_all=True)
    out["depths"] = depths
    if analyses:
        out["analysis"] = deal_analysis([3000 + seed for seed in range(analyses)], bits)
    if pimc:
        from agent.partnership.bench_pimc import master, per_world

        out["per_world"] = per_world(deals=max(1, pimc // 2))
        out["master"] = master(pimc)
    return out


def _line(label: str, r: dict[str, float]) -> str:
    return (f"{label:<34} median {r['ms_median']:>9.2f} ms, max {r['ms_max']:>9.2f} ms, "
            f"median nodes {r['nodes_median']:>12,.0f}  ({r['positions']:.0f} positions)")


def main(argv: list[str] | None = None) -> int:
    """Run ``treset-agent bench partnership [--json] [--deals N] [--endings N] [--analyses N] [--bits B]``."""
    parser = argparse.ArgumentParser(prog="treset-agent bench partnership", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--deals", type=int, default=20, help="full deals (and positions per depth) to solve")
    parser.add_argument("--endings", type=int, default=100, help="last-five-trick positions to solve")
    parser.add_argument("--analyses", type=int, default=3, help="whole deals to solve every position of (0: none)")
    parser.add_argument("--bits", type=int, default=20, help="transposition table of 2**BITS rows")
    parser.add_argument("--pimc", type=int, default=6, help="positions of the master's timed search (0: no search figures)")
    args = parser.parse_args(argv)
    if min(args.deals, args.endings) < 1 or min(args.analyses, args.pimc) < 0 or not 10 <= args.bits <= 26:
        parser.error("--deals and --endings must be positive, --analyses and --pimc at least 0, --bits between 10 "
                     "and 26")
    r = run(args.deals, args.endings, args.analyses, args.bits, args.pimc)
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"four-player double-dummy solver, CPU time of one core, an empty table of {r['table_rows']:,} rows "
          "per position")
    print(_line("full deal (40 cards), best card:", r["full_best"]))
    print(_line("full deal (40 cards), every card:", r["full_all"]))
    print(_line("last five tricks, best card:", r["last5_best"]))
    print(_line("last five tricks, every card:", r["last5_all"]))
    for left, d in r["depths"].items():
        print(_line(f"  {left} tricks left, every card:", d))
    if "analysis" in r:
        a = r["analysis"]
        print(f"post-game analysis of a deal (every position, every card): median {a['s_median']:.2f} s, "
              f"max {a['s_max']:.2f} s ({a['deals']:.0f} deals)")
    if "master" in r:
        from agent.partnership.bench_pimc import lines

        print("\n".join(lines(r)))
    return 0
