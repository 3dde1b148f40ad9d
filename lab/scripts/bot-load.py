"""Answer times of one bot process under load: N tables of people who think S seconds per card.

    python lab/scripts/bot-load.py --tables 30 --level master --seconds 90 --mode both

Drives the bot's real decision path (:class:`agent.service.BotService`: its thread pool, its
load-aware budgets) with a simulated server: every table plays real deals, the person's cards
come after ``--think`` seconds (plus or minus a quarter), and the server's rule for the bot's
capacity is kept (a turn beyond the capacity the bot announced waits until a decision ends),
so the answer time is what the person sees: from the bot's turn to its card.  ``--mode before``
is the old service (capacity 4, full budgets); ``after`` the default (capacity by the cores,
budgets shrunk under load); ``both`` runs one then the other.  Prints p50/p95/max and the share
of answers later than the level's time + 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from collections import deque
from typing import Any

from agent.decide import warmup
from agent.levels import LEVELS
from agent.load import Pool, cores, default_capacity
from agent.service import BotService
from tressette import Deal, Variant, parse_card, state_from_view, view_of


class SimServer:
    """The server's side of the bot protocol, for ``tables`` tables with a person in seat 0."""

    def __init__(self, service: BotService, tables: int, level: str, think_s: float, seed: int) -> None:
        self.service = service
        self.level = level
        self.think_s = think_s
        self.rng = random.Random(seed)
        self.deals = {f"t{i}": self._new_deal(i) for i in range(tables)}
        self.asked: dict[str, float] = {}
        self.sent: set[str] = set()
        self.waiting: deque[str] = deque()
        self.times_ms: list[float] = []
        self.answers: dict[str, asyncio.Future[int]] = {}
        self.turn = 0

    def _new_deal(self, i: int) -> Deal:
        return Deal.new(Variant.TRESSETTE, self.rng.randrange(2), random.Random(self.rng.randrange(2**31)))

    async def send(self, text: str) -> None:
        """Receive the bot's message (the fake socket's ``send``)."""
        msg = json.loads(text)
        if msg["type"] != "play":
            return
        table = msg["table_id"]
        self.times_ms.append((time.perf_counter() - self.asked.pop(table)) * 1000)
        self.sent.discard(table)
        self.answers.pop(table).set_result(parse_card(msg["card"]))
        if self.waiting:
            self._hand_over(self.waiting.popleft())

    def _hand_over(self, table: str) -> None:
        deal = self.deals[table]
        self.turn += 1
        self.sent.add(table)
        msg = {"type": "bot_turn", "table_id": table, "turn": self.turn, "level": self.level,
               "time_ms": min(5000, LEVELS[self.level].time_ms * 10),
               "state": state_from_view(view_of(deal, 1)).to_dict()}
        self.service._dispatch(self, json.dumps(msg))  # type: ignore[arg-type]

    async def bot_card(self, table: str) -> int:
        """Ask the bot for table's card, as the server does (queued beyond the bot's capacity)."""
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.answers[table] = fut
        self.asked[table] = time.perf_counter()
        if len(self.sent) < self.service.capacity:
            self._hand_over(table)
        else:
            self.waiting.append(table)
        return await fut

    async def table(self, table: str, until: float) -> None:
        """Play deals at ``table`` until the time ``until``."""
        await asyncio.sleep(self.rng.uniform(0, self.think_s))  # the tables do not start in step
        while time.perf_counter() < until:
            deal = self.deals[table]
            if deal.is_over:
                deal = self.deals[table] = self._new_deal(0)
            if deal.to_move == 0:
                await asyncio.sleep(self.think_s * self.rng.uniform(0.75, 1.25))
                deal.play(self.rng.choice(deal.legal_moves()), seat=0)
            else:
                deal.play(await self.bot_card(table), seat=1)


async def run(mode: str, tables: int, level: str, think_s: float, seconds: float, seed: int) -> dict[str, Any]:
    """Return the answer-time figures of one run."""
    before = mode == "before"
    service = BotService(server="http://sim", token="-", levels=list(LEVELS),
                         capacity=4 if before else default_capacity(), pool=Pool(shed=not before))
    sim = SimServer(service, tables, level, think_s, seed)
    until = time.perf_counter() + seconds
    await asyncio.gather(*(sim.table(t, until) for t in sim.deals))
    while service._in_flight:
        await asyncio.sleep(0.05)
    service._executor.shutdown(wait=True)
    t = sorted(sim.times_ms)
    budget = LEVELS[level].time_ms
    return {"mode": mode, "tables": tables, "level": level, "think_s": think_s, "cores": cores(),
            "capacity": service.capacity, "answers": len(t), "p50_ms": round(statistics.median(t)),
            "p95_ms": round(t[int(0.95 * (len(t) - 1))]), "max_ms": round(t[-1]),
            "over_budget_share": round(sum(x > budget + 100 for x in t) / len(t), 4),
            "shrunk": service.pool.shrunk, "peak_in_flight": service.pool.peak}


def main(argv: list[str]) -> int:
    """Run the load test and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--level", default="master", choices=list(LEVELS), help="the 1 s level by default")
    parser.add_argument("--think", type=float, default=2.0, help="the person's seconds per card")
    parser.add_argument("--seconds", type=float, default=90.0, help="how long each run plays")
    parser.add_argument("--mode", choices=["before", "after", "both"], default="both")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON lines")
    args = parser.parse_args(argv)
    warmup()
    for mode in (["before", "after"] if args.mode == "both" else [args.mode]):
        r = asyncio.run(run(mode, args.tables, args.level, args.think, args.seconds, args.seed))
        if args.json:
            print(json.dumps(r), flush=True)
        else:
            print(f"{mode:6s} {r['tables']} {r['level']} tables, {r['think_s']} s/card, {r['cores']} cores, "
                  f"capacity {r['capacity']}: {r['answers']} answers, p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, "
                  f"max {r['max_ms']} ms, over budget+100 ms {100 * r['over_budget_share']:.1f}% "
                  f"(budgets shrunk {r['shrunk']}, peak in flight {r['peak_in_flight']})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
