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

from tests import local_http
from tests.conftest import ROOT, LiveServer, free_port
from tests.server.client import Client, guest_token, is_table, my_turn, open_pair, play_until_over

NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)
pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (scripts/ensure-nginx.sh)")


@contextlib.contextmanager
def _proxy(upstream_ports: list[int], tmp: Path) -> Iterator[str]:
    """Run nginx with deploy/nginx.conf in front of the servers at ``upstream_ports``; yield its URL."""
    assert NGINX is not None
    port = free_port()
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    upstreams = "\n".join(f"    server 127.0.0.1:{p};" for p in upstream_ports)
    for old, new in (("    server server:8000;", upstreams),
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
                local_http.get(f"{url}/healthz", timeout=2)
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
    with _proxy([server.port], tmp_path) as url:
        assert local_http.get(f"{url}/healthz", timeout=10).json()["status"] == "ok"
        page = local_http.get(f"{url}/", timeout=10)
        assert page.status_code == 200 and "js/app.js" in page.text
        assert local_http.get(f"{url}/js/ws.js", timeout=10).status_code == 200
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


def test_metrics_are_not_published_and_requests_carry_the_proxy_id(
        start_server: Callable[..., LiveServer], sqlite_url: str, tmp_path: Path) -> None:
    """/metrics answers the scraper at the server, 404 through nginx (any spelling); the proxy's request id
    reaches the server (a client-written one is replaced) and its access log."""
    server = start_server(sqlite_url)
    assert local_http.get(f"{server.url}/metrics", timeout=10).status_code == 200
    with _proxy([server.port], tmp_path) as url:
        for path in ("/metrics", "/metrics/", "/metrics?x=1", "//metrics", "/%6Detrics"):
            assert local_http.get(f"{url}{path}", timeout=10).status_code == 404, path
        answer = local_http.get(f"{url}/api/tables", headers={"X-Request-ID": "forged"}, timeout=10)
    request_id = answer.headers["x-request-id"]
    assert answer.status_code == 200 and request_id != "forged" and len(request_id) == 32  # nginx's $request_id
    assert request_id in (tmp_path / "access.log").read_text()


def test_a_forged_forwarded_for_does_not_change_the_address(start_server: Callable[..., LiveServer],
                                                             sqlite_url: str, tmp_path: Path) -> None:
    """Through nginx, a client-written X-Forwarded-For is replaced: the guest limit per address (3) holds
    whatever address each request claims, even with a server that trusts the header from anyone."""
    server = start_server(sqlite_url, TRESET_GUESTS_PER_ADDRESS="3", TRESET_GUEST_WINDOW_S="3600",
                          FORWARDED_ALLOW_IPS="*")
    forged = [f"203.0.113.{i}" for i in range(6)]
    # Straight to that server the header is believed: each forged address gets a budget of its own.
    direct = [local_http.post(f"{server.url}/api/auth/guest", headers={"X-Forwarded-For": f"{a}, 10.0.0.1"},
                         timeout=30).status_code for a in forged[:4]]
    assert direct == [200] * 4
    with _proxy([server.port], tmp_path) as url:
        through = [local_http.post(f"{url}/api/auth/guest", headers={"X-Forwarded-For": a}, timeout=30).status_code
                   for a in forged]
    assert through == [200] * 3 + [429] * 3


def test_two_replicas_behind_the_proxy_are_one_portal(start_server: Callable[..., LiveServer], pg_url: str,
                                                      redis_url: str, tmp_path: Path) -> None:
    """docker-compose's picture: nginx in front of two server processes sharing Redis; a deal played through it."""
    servers = [start_server(pg_url, TRESET_REDIS_URL=redis_url) for _ in range(2)]
    with _proxy([s.port for s in servers], tmp_path) as url:
        nodes = set()
        deadline = time.monotonic() + 15
        while len(nodes) < 2 or any(local_http.get(f"{s.url}/healthz").json()["nodes"] != 2 for s in servers):
            assert time.monotonic() < deadline, "the proxy never reached both processes"
            nodes.add(local_http.get(f"{url}/healthz", timeout=10).json()["node"])  # nginx takes turns
        a, b, table_id = open_pair(url, url.replace("http://", "ws://") + "/ws")
        try:
            for client in (a, b):
                start = client.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")
                if my_turn(start):
                    client.send({"type": "play", "table_id": table_id, "card": start["table"]["view"]["legal"][0]})
            final = play_until_over(a, b, table_id)
            assert sum(final["table"]["result"]["points"]) == 35
        finally:
            a.close()
            b.close()
