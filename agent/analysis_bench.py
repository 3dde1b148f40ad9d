"""``treset-agent bench analysis``: the post-game analysis's figures, each measured in the same run.

- ``timing``: one deal's analysis at the default settings (hidden part, known
  part, total; single-threaded, so one core);
- ``agreement``: the same deals analysed with two seeds: the share of moves
  labelled alike;
- ``load``: the bot's answer time, the full search at 300 ms a move, with no
  analysis running and with analyses running in a worker process at low
  priority (as ``treset-agent serve`` runs them). (Timed as the full search, not
  a level: the levels' budgets and caps change as the ladder is recalibrated.)

The deals are self-play records (the bot at a few hundred iterations, with a
share of random cards so there are mistakes to find).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import resource
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from agent.analysis import DEFAULT_ITERATIONS, analyse
from agent.decide import decide, warmup
from tressette import Deal, Variant, card_name, state_from_view, view_of


def play_record(seed: int, variant: Variant, *, iterations: int = 300, random_share: float = 0.2) -> dict[str, Any]:
    """Return a deal record (the analysis's input) of a self-play deal: the bot at ``iterations``
    per move, a uniformly random card a ``random_share`` of the time."""
    rng = random.Random(seed)
    deal = Deal.new(variant, seed % 2, rng)
    moves = []
    while not deal.is_over:
        if rng.random() < random_share:
            card = rng.choice(deal.legal_moves())
        else:
            card = decide(state_from_view(view_of(deal, deal.to_move)), iterations=iterations,
                          seed=rng.randrange(2**31)).card
        moves.append({"seat": deal.to_move, "card": card_name(card)})
        deal.play(card)
    return {"variant": variant.value, "deck": [card_name(c) for c in deal.deck],
            "first_leader": deal.first_leader, "moves": moves}


def records(count: int, seed: int = 11) -> list[dict[str, Any]]:
    """Return ``count`` self-play records, the variants alternating."""
    return [play_record(seed + i, (Variant.TRESSETTE, Variant.KIFAMENO)[i % 2]) for i in range(count)]


def timing(deals: list[dict[str, Any]], iterations: int = DEFAULT_ITERATIONS) -> dict[str, float]:
    """Analyse each deal once; return the mean and maximum of each part's time (seconds)."""
    runs = [analyse(r, iterations=iterations, seed=1)["timing"] for r in deals]
    out: dict[str, float] = {}
    for part in ("hidden_s", "known_s", "total_s"):
        values = [t[part] for t in runs]
        out[f"{part}_mean"] = statistics.mean(values)
        out[f"{part}_max"] = max(values)
    return out


def agreement(deals: list[dict[str, Any]], iterations: int = DEFAULT_ITERATIONS, seeds: tuple[int, int] = (1, 2)
              ) -> dict[str, float]:
    """Analyse each deal with two seeds; return the share of moves labelled alike (all, hidden part)."""
    same = total = same_hidden = hidden = 0
    for r in deals:
        a, b = (analyse(r, iterations=iterations, seed=s)["moves"] for s in seeds)
        for x, y in zip(a, b, strict=True):
            total += 1
            same += x["label"] == y["label"]
            if not x["known"]:
                hidden += 1
                same_hidden += x["label"] == y["label"]
    return {"labels_alike": same / total, "hidden_labels_alike": same_hidden / hidden, "moves": total}


def _low_priority() -> None:
    import os

    os.nice(19)


def _analyse_forever(deal: dict[str, Any], until: float) -> int:
    """Analyse ``deal`` over and over until the ``time.time()`` ``until``; return how many were done."""
    n = 0
    while time.time() < until:
        analyse(deal, seed=n)
        n += 1
    return n


def answer_times(positions: int, *, with_analyses: int) -> dict[str, float]:
    """Time the bot's full search at 300 ms on ``positions`` positions, with ``with_analyses``
    analysis worker processes (niceness 19) busy the whole time; return the figures (ms)."""
    rng = random.Random(5)
    states = []
    for i in range(positions):
        deal = Deal.new((Variant.TRESSETTE, Variant.KIFAMENO)[i % 2], i % 2, rng)
        for _ in range(rng.randrange(20)):  # the hidden part, where the bot searches
            deal.play(rng.choice(deal.legal_moves()))
        states.append(state_from_view(view_of(deal, deal.to_move)))
    pool = None
    children_cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    started = time.perf_counter()
    if with_analyses:
        pool = ProcessPoolExecutor(with_analyses, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_low_priority)
        record = records(1, seed=3)[0]
        until = time.time() + 3600
        for _ in range(with_analyses):
            pool.submit(_analyse_forever, record, until)
        time.sleep(8)  # let the workers load their kernels and get going
    walls = []
    iterations = []
    try:
        for state in states:
            t0 = time.perf_counter()
            decision = decide(state, time_ms=300)
            walls.append((time.perf_counter() - t0) * 1000)
            iterations.append(decision.iterations)
    finally:
        if pool is not None:
            for p in list(getattr(pool, "_processes", {}).values()):  # our own workers, stopped mid-analysis
                p.terminate()
            pool.shutdown(wait=True, cancel_futures=True)
    # The workers' CPU time is counted once they are reaped (by the shutdown above).
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - children_cpu
    return {"answer_ms_median": statistics.median(walls), "answer_ms_max": max(walls),
            "iterations_median": statistics.median(iterations), "analyses": with_analyses,
            "workers_cpu_share": cpu / (time.perf_counter() - started) / max(1, with_analyses)}


def main(argv: list[str] | None = None) -> int:
    """Run ``treset-agent bench analysis [timing] [agreement] [load] [--deals N] [--iterations N] [--json]``."""
    parser = argparse.ArgumentParser(prog="treset-agent bench analysis", description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="*", choices=["timing", "agreement", "load"],
                        help="the figures to measure (default: all)")
    parser.add_argument("--deals", type=int, default=5, help="self-play deals to analyse")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS, help="per card, hidden part")
    parser.add_argument("--positions", type=int, default=20, help="positions for the answer times")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    what = set(args.what or ("timing", "agreement", "load"))
    warmup()
    analyse(records(1, seed=1)[0], iterations=16)  # compile the analysis's kernels outside the timings
    out: dict[str, Any] = {"iterations": args.iterations}
    deals = records(args.deals) if what & {"timing", "agreement"} else []
    if "timing" in what:
        out["timing"] = timing(deals, args.iterations)
    if "agreement" in what:
        out["agreement"] = agreement(deals, args.iterations)
    if "load" in what:
        out["load"] = [answer_times(args.positions, with_analyses=n) for n in (0, 1, 2)]
    if args.json:
        print(json.dumps(out))
        return 0
    if "timing" in out:
        t = out["timing"]
        print(f"analysis of one deal at {args.iterations} iterations per card, over {len(deals)} deals (one core):")
        print(f"  hidden part mean {t['hidden_s_mean']:.2f} s (max {t['hidden_s_max']:.2f}), known part mean "
              f"{t['known_s_mean'] * 1000:.1f} ms (max {t['known_s_max'] * 1000:.1f}), total mean "
              f"{t['total_s_mean']:.2f} s (max {t['total_s_max']:.2f})")
    if "agreement" in out:
        a = out["agreement"]
        print(f"labels alike with two seeds: {100 * a['labels_alike']:.1f}% of {a['moves']} moves "
              f"({100 * a['hidden_labels_alike']:.1f}% in the hidden part)")
    for row in out.get("load", []):
        print(f"answer at 300 ms a move with {row['analyses']} analysis worker(s) busy: median "
              f"{row['answer_ms_median']:.0f} ms, max {row['answer_ms_max']:.0f} ms, "
              f"median {row['iterations_median']:,.0f} iterations in 300 ms"
              + (f" (each worker got {100 * row['workers_cpu_share']:.0f}% of a core)" if row["analyses"] else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
