"""Run the server with a stall watcher: where the event loop was, and what the other threads did, in each stall.

    python lab/scripts/stall-watch.py OUT [treset serve options...]

Like ``python -m server.cli``, plus a thread that wakes every 20 ms: when the loop has not run its
10 ms heartbeat for 80 ms, it samples the loop thread's stack and the other threads' frames every
30 ms until the loop runs again, then writes to OUT the stall's wall time, the loop thread's CPU time
during it (CPU far below the wall time: the loop waited, for the GIL or the machine), the three most
sampled stacks and the other threads' most common frames. Collections over 10 ms are written too.
This is how the stalls of issue #42 were found (lab/MEASUREMENTS.md); py-spy gives the CPU profile.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import sys
import threading
import time
import traceback
from typing import Any

STALL_S = 0.08
loop_thread = threading.main_thread().ident or 0
beat = [float("inf"), 0.0]
"""When the loop last ran its heartbeat, and its CPU time then (nothing is watched before the first beat)."""


def loop_cpu() -> float:
    """Return the CPU time of the event loop's thread."""
    return time.clock_gettime(time.pthread_getcpuclockid(loop_thread))


def watch(out: Any) -> None:
    """Write each stall of the loop to ``out`` (a thread)."""
    me = threading.get_ident()
    while True:
        time.sleep(0.02)
        b0, c0 = beat
        if time.monotonic() - b0 < STALL_S:
            continue
        stacks: collections.Counter[str] = collections.Counter()
        others: collections.Counter[str] = collections.Counter()
        while beat[0] == b0:
            frames = sys._current_frames()
            frame = frames.get(loop_thread)
            stacks["".join(traceback.format_stack(frame)[-8:]) if frame else "?"] += 1
            for tid, f in frames.items():
                if tid not in (loop_thread, me):
                    last = traceback.extract_stack(f)[-1]
                    others[f"{last.filename.rsplit('/', 1)[-1]}:{last.lineno} {last.name}"] += 1
            time.sleep(0.03)
        out.write(f"STALL {1000 * (time.monotonic() - b0):.0f} ms, loop CPU {1000 * (loop_cpu() - c0):.0f} ms, "
                  f"at {time.strftime('%X')}\n")
        for stack, n in stacks.most_common(3):
            out.write(f"  [{n} samples]\n{stack}")
        out.write(f"  other threads: {others.most_common(6)}\n\n")


async def heartbeat() -> None:
    """Note the time (and the loop's CPU) every 10 ms."""
    while True:
        beat[0], beat[1] = time.monotonic(), loop_cpu()
        await asyncio.sleep(0.01)


def main() -> int:
    """Start the watcher, then the server with the remaining arguments."""
    out = open(sys.argv[1], "w", buffering=1)  # noqa: SIM115 - open for the process's life
    started = [0.0]

    def collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        elif time.perf_counter() - started[0] > 0.01:
            out.write(f"{time.strftime('%X')} GC gen{info['generation']} "
                      f"{1000 * (time.perf_counter() - started[0]):.0f} ms\n")
    gc.callbacks.append(collection)
    threading.Thread(target=watch, args=(out,), daemon=True, name="stall-watch").start()

    from server.metrics import Metrics
    lag = Metrics.watch_loop_lag

    async def with_heartbeat(self: Metrics, every_s: float = 0.1) -> None:
        asyncio.get_running_loop().create_task(heartbeat())
        await lag(self, every_s)
    Metrics.watch_loop_lag = with_heartbeat  # type: ignore[method-assign]

    from server.cli import main as serve
    return serve(sys.argv[2:])


if __name__ == "__main__":
    raise SystemExit(main())
