"""treset up: the whole portal in one command.

Migrates the database (the embedded SQLite file unless DATABASE_URL says
otherwise), makes sure the bot account has an API token, starts the server and
one agent process, prints the URL to open once the bot is connected (so the
first bot table works), and stops both on Ctrl-C or SIGTERM.  An agent that
dies is started again.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx

TOKEN_FILE = Path("var") / "bot-token"
BOT_WAIT_S = 90.0
"""How long ``treset up`` waits for the agent to connect before printing the URL anyway."""


def bot_token() -> str:
    """Return the bot's API token: ``TRESET_BOT_TOKEN``, or one kept in ``var/bot-token``."""
    token = os.environ.get("TRESET_BOT_TOKEN")
    if token:
        return token
    if TOKEN_FILE.exists():
        return TOKEN_FILE.read_text().strip()
    TOKEN_FILE.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    TOKEN_FILE.write_text(token + "\n")
    TOKEN_FILE.chmod(0o600)
    return token


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], seconds: float = 60) -> bool:
    end = time.time() + seconds
    while time.time() < end and proc.poll() is None:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    return False


def wait_for_bot(url: str, seconds: float = BOT_WAIT_S, *, alive: Callable[[], bool] = lambda: True) -> bool:
    """Return True once ``/healthz`` at ``url`` reports a connected bot; False after ``seconds`` or if not ``alive()``."""
    end = time.monotonic() + seconds
    while alive():
        try:
            if httpx.get(f"{url}/healthz", timeout=2).json().get("bots_connected", 0) >= 1:
                return True
        except (httpx.HTTPError, ValueError):
            pass  # the server is busy or restarting: ask again
        if time.monotonic() >= end:
            return False
        time.sleep(0.3)
    return False


def main(argv: list[str]) -> int:
    """Run ``treset up [--host H] [--port P] [--agents N]``."""
    parser = argparse.ArgumentParser(
        prog="treset up", description=" ".join(__doc__.split("\n\n")[1].split()),
        epilog="Same as: make up PORT=8000 HOST=127.0.0.1. The database is DATABASE_URL (default var/treset.sqlite3).")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--agents", type=int, default=1, help="bot (agent) processes to start (default 1)")
    args = parser.parse_args(argv)

    from server.settings import get_settings
    from server.store.db import upgrade

    settings = get_settings()
    upgrade(settings.database_url)
    env = {**os.environ, "TRESET_BOT_TOKEN": bot_token(), "PYTHONUNBUFFERED": "1"}
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    # Before any child starts: a signal while we wait for the bot must stop the children too.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server = subprocess.Popen([sys.executable, "-m", "server.cli", "--host", args.host, "--port", str(args.port),
                               "--no-migrate"], env=env)
    url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}"
    if not _wait_healthy(url, server) or stopping:
        server.terminate()
        server.wait(15)
        if stopping:
            return 0
        print("treset up: the server did not start", file=sys.stderr)
        return 1
    # The token reaches the agents in their environment (TRESET_BOT_TOKEN), not in the process list.
    agent_cmd = [sys.executable, "-m", "agent.cli", "serve", "--server", url]
    agents = [subprocess.Popen(agent_cmd, env=env) for _ in range(args.agents)]
    # The agent compiles its kernels first: a URL printed before it connects would open on "no bot".
    print("treset up: waiting for the bot to start…", flush=True)
    bot_ready = wait_for_bot(url, alive=lambda: server.poll() is None and not stopping)
    if not bot_ready and not stopping:
        print("treset up: warning: the bot has not connected yet; bot tables wait until it does", file=sys.stderr,
              flush=True)
    db = "SQLite (" + settings.database_url.split("///")[-1] + ")" if settings.database_url.startswith("sqlite") \
        else "PostgreSQL"
    if not stopping:
        print(f"\n  treset is up on {db}: open {url}/\n  (Ctrl-C stops the server and the bot)\n", flush=True)
    while not stopping and server.poll() is None:
        for i, agent in enumerate(agents):
            if agent.poll() is not None and not stopping:
                print(f"treset up: agent {i} exited ({agent.returncode}); starting it again", file=sys.stderr)
                time.sleep(1)
                agents[i] = subprocess.Popen(agent_cmd, env=env)
        time.sleep(0.5)
    for proc in [*agents, server]:
        if proc.poll() is None:
            proc.terminate()
    for proc in [*agents, server]:
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
    return 0 if stopping else 1
