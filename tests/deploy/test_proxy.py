"""The reverse proxy of docker-compose.yml (``deploy/nginx.conf``), run by hand in front of a live server.

The README's way: the same file with the upstream pointed at our server. Through it, the page
loads and a WebSocket opens, says ``welcome`` and answers a ping. Needs Debian's nginx
(``scripts/ensure-nginx.sh``, run by ``make test``); skipped without it.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, LiveServer, free_port
from tests.server.client import Client, guest_token

NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)
pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (scripts/ensure-nginx.sh)")


@contextlib.contextmanager
def _proxy(upstream_port: int, tmp: Path) -> Iterator[str]:
    """Run nginx with deploy/nginx.conf in front of ``127.0.0.1:upstream_port``; yield its URL."""
    assert NGINX is not None
    port = free_port()
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    for old, new in (("    server server:8000;", f"    server 127.0.0.1:{upstream_port};"),
                     ("listen 80;", f"listen 127.0.0.1:{port};"),
                     ("/var/log/nginx/access.log", str(tmp / "access.log"))):
        assert site.count(old) == 1, old
        site = site.replace(old, new)
    (tmp / "site.conf").write_text(site)
    temps = "\n".join(f"  {name}_temp_path {tmp / name};" for name in ("client_body", "proxy", "fastcgi", "uwsgi",
                                                                       "scgi"))
    (tmp / "nginx.conf").write_text(f"daemon off;\npid {tmp / 'nginx.pid'};\nerror_log {tmp / 'error.log'};\n"
                                    f"events {{}}\nhttp {{\n  access_log off;\n{temps}\n"
                                    f"  include {tmp / 'site.conf'};\n}}\n")
    proc = subprocess.Popen([NGINX, "-c", str(tmp / "nginx.conf"), "-p", str(tmp)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, f"nginx exited: {(tmp / 'error.log').read_text()}"
            assert time.monotonic() < deadline, "nginx did not start"
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(f"{url}/healthz", timeout=2)
                break
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def test_page_and_websocket_through_the_proxy(start_server: Callable[..., LiveServer], sqlite_url: str,
                                              tmp_path: Path) -> None:
    """Through nginx: /healthz, the page, a module, and a WebSocket both ways."""
    server = start_server(sqlite_url)
    with _proxy(server.port, tmp_path) as url:
        assert httpx.get(f"{url}/healthz", timeout=10).json()["status"] == "ok"
        page = httpx.get(f"{url}/", timeout=10)
        assert page.status_code == 200 and "js/app.js" in page.text
        assert httpx.get(f"{url}/js/ws.js", timeout=10).status_code == 200
        token, _ = guest_token(url)
        # As a browser on the site: its Origin passes the check although nginx passes the Host without the port.
        client = Client(url.replace("http://", "ws://") + "/ws", token, origin=url)
        try:
            assert client.recv()["type"] == "welcome"
            client.send({"type": "ping"})
            assert client.wait_for(lambda m: m["type"] == "pong")
        finally:
            client.close()
    log = (tmp_path / "access.log").read_text()
    assert "GET /ws " in log and token not in log, "the access log shows paths only"
