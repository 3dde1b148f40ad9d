"""``treset up`` starts the server and a bot on the embedded database; SIGTERM stops both."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.conftest import ROOT, free_port
from tests.server.client import Client, guest_token, is_table


def test_up_starts_everything(tmp_path: Path) -> None:
    """One command: the URL is printed, a bot connects, a bot table starts, and SIGTERM ends it all."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TRESET_BOT_TOKEN")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.Popen([sys.executable, "-m", "treset.cli", "up", "--port", str(port)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 120
        bots = 0
        while time.time() < deadline and bots == 0:
            time.sleep(0.5)
            assert proc.poll() is None
            try:
                bots = httpx.get(f"{url}/healthz", timeout=2).json()["bots_connected"]
            except httpx.HTTPError:
                continue
        assert bots == 1
        assert (tmp_path / "var" / "treset.sqlite3").exists() and (tmp_path / "var" / "bot-token").exists()
        token, _ = guest_token(url)
        c = Client(f"ws://127.0.0.1:{port}/ws", token)
        c.send({"type": "create_table", "variant": "kifameno", "opponent": "bot", "bot_level": "easy"})
        assert c.wait_for(is_table)["table"]["status"] == "playing"
        c.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert f"open http://127.0.0.1:{port}/" in out.decode()
