"""The servers and commands forked by ``tests/forkserver.py`` behave as ``python -m MODULE`` would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests import local_http
from tests.agent.test_solver import THESIS
from tests.conftest import ROOT, free_port, launch_server
from tests.forkserver import fork_server, run_module
from tests.server.faults import wait_health


def test_a_forked_server_reads_its_own_environment_and_dies_by_its_signal(sqlite_url: str, tmp_path: Path) -> None:
    """Settings come from the environment given at the fork (JSON logs here), and SIGKILL is reported as -9."""
    server = launch_server(sqlite_url, tmp_path, TRESET_LOG_FORMAT="json")
    try:
        assert server.proc.pid != os.getpid() and server.proc.poll() is None
        assert local_http.get(f"{server.url}/healthz").json()["status"] == "ok"
        lines = [line for line in server.log().splitlines() if line.strip()]
        assert lines and all(json.loads(line)["level"] for line in lines)  # every line a JSON object
    finally:
        server.kill()
    assert server.proc.returncode == -signal.SIGKILL
    with pytest.raises(httpx.HTTPError):
        local_http.get(f"{server.url}/healthz", timeout=1)


def test_a_forked_server_exits_with_the_commands_code_and_message(tmp_path: Path) -> None:
    """A refused command line exits 2 with argparse's words in the log; SIGTERM ends it as it ends
    ``python -m server.cli`` (uvicorn stops, then dies by the signal it caught: -15 for both)."""
    def env(name: str) -> dict[str, str]:
        return {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / name}"}

    log = tmp_path / "bad.log"
    assert fork_server(["--workers", "2"], env("x.sqlite3"), log).wait(30) == 2
    assert "--workers above 1 needs TRESET_REDIS_URL" in log.read_text()

    forked_port, real_port = free_port(), free_port()
    forked = fork_server(["--port", str(forked_port)], env("y.sqlite3"), tmp_path / "forked.log")
    real = subprocess.Popen([sys.executable, "-m", "server.cli", "--port", str(real_port)], cwd=ROOT,
                            env=env("z.sqlite3"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for port in (forked_port, real_port):
            wait_health(f"http://127.0.0.1:{port}", lambda health: True, timeout=60)
        with pytest.raises(subprocess.TimeoutExpired):
            forked.wait(0.2)  # still serving: the timeout is honoured
        forked.terminate()
        real.terminate()
        assert forked.wait(15) == real.wait(15) == -signal.SIGTERM
    finally:
        forked.kill()
        real.kill()


def test_a_forked_command_answers_as_the_real_one() -> None:
    """A forked ``python -m`` run prints the same output and error and exits with the same code as a real one:
    a card read from stdin, a refused state, an unknown command, a refused option (argparse's exit)."""
    cases = [("agent.cli", ["decide"], json.dumps(THESIS)), ("agent.cli", ["decide", "{bad"], ""),
             ("agent.cli", ["nonsense"], ""), ("treset.cli", ["play", "--opponent", "nobody"], "")]
    codes = []
    for module, argv, stdin in cases:
        forked = run_module(module, argv, input=stdin)
        real = subprocess.run([sys.executable, "-m", module, *argv], input=stdin, capture_output=True, text=True,
                              timeout=120, cwd=ROOT)
        assert (forked.returncode, forked.stdout, forked.stderr) == (real.returncode, real.stdout, real.stderr)
        codes.append(forked.returncode)
    assert codes == [0, 2, 2, 2]
