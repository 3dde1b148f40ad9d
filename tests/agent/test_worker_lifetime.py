"""The bot's analysis workers end with the bot, even when the bot is killed (no orphaned processes)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _children(pid: int) -> set[int]:
    """Return the pids whose parent is ``pid`` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended while we looked
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_analysis_workers_end_when_the_bot_is_killed() -> None:
    """SIGKILL the bot once its analysis worker runs: the worker is gone within seconds."""
    bot = subprocess.Popen([sys.executable, "-m", "agent.cli", "serve", "--server", "http://127.0.0.1:9",
                            "--no-warmup", "--analysis", "1", "--log-level", "ERROR"],
                           env={**os.environ, "TRESET_BOT_TOKEN": "unused"},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        workers: set[int] = set()
        while time.time() < deadline and not workers:
            workers = {pid for pid in _children(bot.pid) if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text(
                errors="replace")} if bot.poll() is None else set()
            time.sleep(0.2)
        assert workers, "the bot started no analysis worker"
    finally:
        bot.send_signal(signal.SIGKILL)
        bot.wait(10)
    deadline = time.time() + 15
    while time.time() < deadline and any(_alive(pid) for pid in workers):
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in workers), "an analysis worker outlived the killed bot"


@pytest.mark.slow
def test_every_analysis_worker_is_warm_before_its_first_job() -> None:
    """Each worker compiles (or loads) the analysis kernels as it starts, not only the one a warm-up job reached."""
    from agent.service import analysis_pool, worker_state

    pool = analysis_pool(2)
    try:
        answers = [f.result(timeout=300) for f in [pool.submit(worker_state) for _ in range(2)]]
        assert len(pool._processes) == 2  # two jobs at once start both workers  # noqa: SLF001
        assert all(warm for _, warm in answers), answers
        more = [f.result(timeout=60) for f in [pool.submit(worker_state) for _ in range(6)]]
        assert all(warm for _, warm in more) and {pid for pid, _ in more} <= set(pool._processes)  # noqa: SLF001
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
