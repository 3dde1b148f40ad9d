"""The package as shipped: build the wheel, install it in a fresh virtualenv, run it from there.

The editable checkout hides packaging mistakes (the web client once lived outside every package,
so ``pip install .`` served no page: issue #23). Here nothing comes from the checkout: the wheel
is built from a copy of the sources, installed into a virtualenv outside the tree (seeing the
packages of the interpreter running the tests, a virtualenv's too, so numba and the rest need not
be downloaded again), and every command runs from an empty folder without ``PYTHONPATH``; the test
checks that the modules it imports live in the virtualenv.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests import local_http
from tests.conftest import ROOT, free_port

# Never part of a wheel; copying them would only cost time (or race with a build in the tree).
NOT_SOURCES = shutil.ignore_patterns(".git", "build", "dist", "var", "test-artifacts", "*.egg-info", ".venv",
                                     "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache")
PACKAGES = ("treset", "server", "agent", "tressette")
HAND = ["K 3", "K KAVAL", "D 2", "D AS", "B 7"]
STATE = {"hand": HAND,
         "hiscards": ["D KAVAL", "D KRALJ", "D 3", "K 2", "K 7"],
         "unknown": ["D KAVAL", "D KRALJ", "D 3", "K 2", "K 7"], "inplay": [], "points": 18, "cfm": False}


@dataclass(frozen=True)
class Installed:
    """A virtualenv holding the installed wheel, and an empty folder to run its commands from."""

    venv: Path
    cwd: Path
    env: dict[str, str]

    def bin(self, name: str) -> str:
        """Return the path of the virtualenv's executable ``name``."""
        return str(self.venv / "bin" / name)

    def run(self, *args: str, stdin: str | None = None, timeout: float = 300) -> str:
        """Run a command from the virtualenv in the empty folder; return its standard output."""
        done = subprocess.run(args, cwd=self.cwd, env=self.env, input=stdin, capture_output=True, text=True,
                              timeout=timeout)
        assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout


def _see_our_packages(venv: Path) -> None:
    """Let ``venv`` import the packages this interpreter imports (numba, FastAPI ...), after its own.

    ``--system-site-packages`` shows the base interpreter's folders only: run from inside a
    virtualenv, whose packages are not the base's, the new one would miss them. A ``.pth`` file lists
    every package folder on this interpreter's path (not the checkout: its folder is no package
    folder, and the ``.pth`` files inside those folders, such as an editable install's, are not run).
    """
    ours = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]
    (site_packages,) = venv.glob("lib/python*/site-packages")
    (site_packages / "_treset_test_outer.pth").write_text("".join(f"{p}\n" for p in ours))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Build the wheel from a copy of the sources and install it in a fresh virtualenv."""
    base = tmp_path_factory.mktemp("wheel")
    assert not base.resolve().is_relative_to(ROOT)
    src, wheels, venv, cwd = base / "src", base / "wheels", base / "venv", base / "run"
    shutil.copytree(ROOT, src, ignore=NOT_SOURCES)
    cwd.mkdir()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(src)],
                   check=True, capture_output=True, cwd=base)
    (wheel,) = wheels.glob("treset-*.whl")
    # Without a pip of its own (seeding one costs ~5 s of CPU): this pip installs into it (``--python``).
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    _see_our_packages(venv)
    # --force-reinstall: the checkout's editable install is visible through the system's site-packages.
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
                    "--no-deps", "--no-index", "--force-reinstall", str(wheel)], check=True, capture_output=True,
                   cwd=cwd)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "DATABASE_URL", "VIRTUAL_ENV") and not k.startswith("TRESET_")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONUNBUFFERED"] = "1"
    return Installed(venv, cwd, env)


@pytest.mark.slow
def test_the_modules_come_from_the_virtualenv(installed: Installed) -> None:
    """Each package, and the web client the server will serve, lies inside the virtualenv."""
    code = ("import json, " + ", ".join(PACKAGES) + "; from server.settings import get_settings; "
            f"print(json.dumps([m.__file__ for m in ({', '.join(PACKAGES)})] + [str(get_settings().web_dir)]))")
    paths = [Path(p).resolve() for p in json.loads(installed.run(installed.bin("python"), "-c", code))]
    for path in paths:
        assert path.is_relative_to(installed.venv.resolve()), f"{path} is not from the installed wheel"
    assert (paths[-1] / "index.html").is_file()


@contextlib.contextmanager
def _serving(installed: Installed) -> Iterator[str]:
    """Run the installed ``treset serve`` on a fresh SQLite file; yield its URL; stop it with SIGTERM."""
    port = free_port()
    env = {**installed.env, "DATABASE_URL": f"sqlite:///{installed.cwd / f'db-{port}' / 'treset.sqlite3'}"}
    subprocess.run([installed.bin("treset"), "migrate"], cwd=installed.cwd, env=env, check=True,
                   capture_output=True)  # as a deployment does before starting its replicas
    log = installed.cwd / f"server-{port}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([installed.bin("treset"), "serve", "--port", str(port)], cwd=installed.cwd,
                                env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, f"the server exited:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"the server did not start:\n{log.read_text()[-3000:]}"
            with contextlib.suppress(httpx.HTTPError):
                if local_http.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            time.sleep(0.2)
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    # uvicorn shuts down cleanly, then re-raises SIGTERM: an exit by that signal is the normal end.
    assert proc.returncode in (0, -signal.SIGTERM), f"exit {proc.returncode}:\n{log.read_text()[-3000:]}"
    assert "Application shutdown complete" in log.read_text()


def test_the_installed_server_serves_the_page(installed: Installed) -> None:
    """``treset migrate`` and ``treset serve`` from the wheel: /healthz, the page and its modules."""
    with _serving(installed) as url, httpx.Client(base_url=url, timeout=10) as http:
        health = http.get("/healthz").json()
        assert health["status"] == "ok" and health["db"] == "ok"
        page = http.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert '<script type="module" src="js/app.js">' in page.text
        module = http.get("/js/app.js")
        assert module.status_code == 200
        assert module.headers["content-type"].split(";")[0] in ("text/javascript", "application/javascript")
        assert "import" in module.text
        assert http.get("/app.css").headers["content-type"].startswith("text/css")
        guest = http.post("/api/auth/guest")  # a write: the migrations shipped in the wheel have run
        assert guest.status_code == 200 and guest.json()["token"]


def test_the_installed_agent_decides(installed: Installed) -> None:
    """``treset-agent decide`` from the wheel reads a state and prints a card of the hand."""
    card = installed.run(installed.bin("treset-agent"), "decide", "--time-ms", "200", "--seed", "1",
                         stdin=json.dumps(STATE)).strip()
    assert card in HAND
