"""``treset up`` starts the server and a bot on the embedded database; SIGTERM stops both."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tests import local_http
from tests.conftest import ROOT, LiveServer, free_port
from tests.server.client import Client, guest_token, is_table
from treset.up import wait_for_bot


def test_up_starts_everything(tmp_path: Path) -> None:
    """One command: the URL is printed once the bot is connected, a bot table starts, and SIGTERM ends it all."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TRESET_BOT_TOKEN")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.Popen([sys.executable, "-m", "treset.cli", "up", "--port", str(port)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(line.decode() for line in proc.stdout or ()), daemon=True)
    reader.start()
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 120
        while not any("treset is up" in line for line in list(lines)):
            assert time.time() < deadline and proc.poll() is None, "".join(lines[-30:])
            time.sleep(0.2)
        # The URL is printed only once the bot is there, so the first bot table works at once.
        assert local_http.get(f"{url}/healthz", timeout=5).json()["bots_connected"] == 1
        assert (tmp_path / "var" / "treset.sqlite3").exists() and (tmp_path / "var" / "bot-token").exists()
        token, _ = guest_token(url)
        c = Client(f"ws://127.0.0.1:{port}/ws", token)
        c.send({"type": "create_table", "variant": "kifameno", "opponent": "bot", "bot_level": "easy"})
        assert c.wait_for(is_table)["table"]["status"] == "playing"
        c.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        reader.join(10)
        if proc.stdout is not None:
            proc.stdout.close()
    assert proc.returncode == 0
    text = "".join(lines)
    assert f"open http://127.0.0.1:{port}/" in text
    assert text.index("waiting for the bot to start") < text.index("treset is up")
    assert "warning" not in text


def test_wait_for_bot_follows_healthz(sqlite_url: str, start_server: Callable[..., LiveServer]) -> None:
    """The URL waits for a bot: False without one (after the time given), True once one said bot_hello."""
    server = start_server(sqlite_url, TRESET_BOT_TOKEN="up-bot-token")
    started = time.monotonic()
    assert wait_for_bot(server.url, 1.0) is False
    assert time.monotonic() - started >= 1.0
    assert wait_for_bot(server.url, 60.0, alive=lambda: False) is False  # the server died: stop at once
    bot = Client(server.ws_url, "up-bot-token")
    bot.send({"type": "bot_hello", "levels": ["easy"], "capacity": 1})
    assert wait_for_bot(server.url, 10.0) is True
    bot.close()
