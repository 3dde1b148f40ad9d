"""``GET /metrics`` on a live server: it parses with the client library's own parser and moves with a played deal.

And the logs: ``TRESET_LOG_FORMAT=json`` writes one JSON object a line, the probes are not logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable

import yaml
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from server.api.app import create_app
from server.logs import REQUEST_ID, TABLE_ID, USER_ID, JsonFormatter, QuietProbes
from server.metrics import Metrics
from server.settings import Settings
from tests import local_http
from tests.conftest import ROOT, LiveServer
from tests.server.client import Client, guest_token, is_table, my_turn, open_pair, play_until_over
from tests.server.test_bots import BOT_TOKEN, _answer, _bot, _open_bot_table, _run

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(url: str) -> Samples:
    """Return every sample of ``url``/metrics by name and labels (parsed by prometheus_client)."""
    r = local_http.get(f"{url}/metrics", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(r.text) for s in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    """Return one sample's value (0 if absent)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_move_with_a_played_deal(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A deal of 40 cards: the move counter and both latency histograms move by exactly 40; gauges follow."""
    server = start_server(pg_url, TRESET_GUESTS_PER_ADDRESS="3")
    before = scrape(server.url)
    assert value(before, "treset_moves_total", variant="tressette") == 0
    assert value(before, "treset_tables", status="playing") == 0
    a, b, table_id = open_pair(server.url, server.ws_url)
    try:
        play_until_over(a, b, table_id)
        a.send("not json")
        assert a.error()["code"] == "bad_json"
        during = scrape(server.url)
        assert value(during, "treset_sockets", kind="guest") == 2
    finally:
        a.close()
        b.close()
    local_http.post(f"{server.url}/api/auth/guest", timeout=10).raise_for_status()  # the third of 3 guests
    assert local_http.post(f"{server.url}/api/auth/guest", timeout=10).status_code == 429
    after = scrape(server.url)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("treset_moves_total", variant="tressette") == 40
    assert moved("treset_moves_total", variant="kifameno") == 0
    assert moved("treset_move_commit_seconds_count") == 40
    assert moved("treset_move_broadcast_seconds_count") == 40
    assert 0 < value(after, "treset_move_commit_seconds_sum") <= value(after, "treset_move_broadcast_seconds_sum")
    assert value(after, "treset_move_commit_seconds_bucket", le="+Inf") == 40
    # Every move is one write; the deal's start too, grouped however the writer found them.
    assert moved("treset_writer_group_size_sum") >= 41
    assert 1 <= moved("treset_writer_group_size_count") <= moved("treset_writer_group_size_sum")
    assert value(during, "treset_tables", status="finished") == 1
    assert value(during, "treset_bot_slots") == 0 and value(during, "treset_bot_turns_waiting") == 0
    assert value(after, "treset_analysis_waiting") == 1  # a deal between people is analysed; no bot here
    assert value(after, "treset_analysis_oldest_seconds") > 0
    assert moved("treset_errors_sent_total", code="bad_json") == 1
    assert moved("treset_signins_refused_total", limit="guests") == 1
    assert value(after, "treset_signins_refused_total", limit="account") == 0
    assert value(after, "process_resident_memory_bytes") > 0


def test_one_scrape_per_process_in_a_portal(pg_url: str, redis_url: str,
                                            start_server: Callable[..., LiveServer]) -> None:
    """Two processes, a table's players on both: its owner counts the moves and the errors its proxies send."""
    one = start_server(pg_url, TRESET_REDIS_URL=redis_url)
    two = start_server(pg_url, TRESET_REDIS_URL=redis_url)
    a, b = Client(one.ws_url, guest_token(one.url)[0]), Client(two.ws_url, guest_token(two.url)[0])
    try:
        a.send({"type": "create_table", "variant": "kifameno"})
        table_id = a.wait_for(is_table)["table"]["id"]
        b.wait_for(lambda m: m["type"] == "lobby" and table_id in {t["id"] for t in m["tables"]}, timeout=20)
        b.send({"type": "join_table", "table_id": table_id})
        b.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")
        for client in (a, b):  # whoever leads has its turn in the start snapshot
            seen = [m for m in client.received if is_table(m) and m["table"]["status"] == "playing"]
            if seen and my_turn(seen[-1]):
                client.send({"type": "play", "table_id": table_id, "card": seen[-1]["table"]["view"]["legal"][0]})
        play_until_over(a, b, table_id)
        b.send({"type": "play", "table_id": table_id, "card": "D AS"})  # through two, answered by one
        assert b.error()["code"] == "game_over"
        owner, other = scrape(one.url), scrape(two.url)
    finally:
        a.close()
        b.close()
    assert value(owner, "treset_moves_total", variant="kifameno") == 40
    assert value(other, "treset_moves_total", variant="kifameno") == 0
    assert value(owner, "treset_move_broadcast_seconds_count") == 40
    assert value(owner, "treset_errors_sent_total", code="game_over") == 1
    assert value(other, "treset_errors_sent_total", code="game_over") == 0
    assert value(owner, "treset_sockets", kind="guest") == value(other, "treset_sockets", kind="guest") == 1
    assert value(owner, "treset_tables", status="finished") == 1 and value(other, "treset_tables", status="finished") == 0


def test_the_bot_pool_in_the_metrics(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A bot of capacity 1 holding one turn: slots 1, a turn in flight, another waiting; its answer is timed."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    bot = _bot(server, BOT_TOKEN, capacity=1)
    one, two = (Client(server.ws_url, guest_token(server.url)[0]) for _ in range(2))
    try:
        first = _open_bot_table(one, "tressette")
        held = _run(one, bot, first, lambda m: m["type"] == "bot_turn", answer=False, timeout=15)
        _open_bot_table(two, "kifameno")
        two.wait_for(lambda m: is_table(m) and m["table"]["notice"] is not None)
        busy = scrape(server.url)
        assert value(busy, "treset_bots") == 1 and value(busy, "treset_bot_slots") == 1
        assert value(busy, "treset_bot_turns") == 1 and value(busy, "treset_bot_turns_waiting") == 1
        assert value(busy, "treset_sockets", kind="bot") == 1 and value(busy, "treset_sockets", kind="guest") == 2
        assert value(busy, "treset_tables", status="playing") == 2
        _answer(bot, held)
        bot.wait_for(lambda m: m["type"] == "bot_turn")  # the second table's turn, now the bot has room
        after = scrape(server.url)
    finally:
        for c in (one, two, bot):
            c.close()
    assert value(after, "treset_bot_answer_seconds_count", level="normal") == 1
    assert 0 < value(after, "treset_bot_answer_seconds_sum", level="normal") < 15
    # The second table's turn is the bot's now; the first's waits if the bot's card left it to lead again.
    assert value(after, "treset_bot_turns") == 1 and value(after, "treset_bot_turns_waiting") in (0, 1)


def test_json_logs_without_probes(sqlite_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Every line a JSON server writes is a JSON object; requests carry their id; /healthz is not logged."""
    server = start_server(sqlite_url, TRESET_LOG_FORMAT="json")
    for _ in range(3):
        local_http.get(f"{server.url}/healthz", timeout=10)
        local_http.get(f"{server.url}/metrics", timeout=10)
    answer = local_http.get(f"{server.url}/api/tables", timeout=10, headers={"X-Request-ID": "req-42"})
    assert answer.headers["x-request-id"] == "req-42"
    assert len(local_http.get(f"{server.url}/api/tables", timeout=10).headers["x-request-id"]) == 16  # our own
    server.stop()
    lines = [line for line in server.log().splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line, the migrations' and uvicorn's too
    assert all({"time", "level", "logger", "message"} <= e.keys() for e in entries)
    access = [e for e in entries if e["logger"] == "uvicorn.access"]
    assert [e["path"] for e in access] == ["/api/tables", "/api/tables"]
    assert access[0]["request_id"] == "req-42" and access[0]["status"] == 200 and access[0]["method"] == "GET"


def test_json_formatter_names_the_context() -> None:
    """The request, user and table ids come from the context (``extra=`` wins); probes are filtered."""
    record = logging.LogRecord("treset.hub", logging.WARNING, __file__, 1, "table %s: %d moves", ("t1", 3), None)
    tokens = (REQUEST_ID.set("r1"), USER_ID.set(7), TABLE_ID.set("t1"))
    try:
        entry = json.loads(JsonFormatter().format(record))
    finally:
        for var, token in zip((REQUEST_ID, USER_ID, TABLE_ID), tokens, strict=True):
            var.reset(token)  # type: ignore[attr-defined]
    assert entry["message"] == "table t1: 3 moves" and entry["level"] == "WARNING" and entry["logger"] == "treset.hub"
    assert (entry["request_id"], entry["user_id"], entry["table_id"]) == ("r1", 7, "t1")
    bare = json.loads(JsonFormatter().format(record))
    assert "request_id" not in bare and "user_id" not in bare
    probe = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                              ("127.0.0.1:1", "GET", "/healthz?x=1", "1.1", 200), None)
    assert not QuietProbes().filter(probe)


SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}


def test_the_alerts_and_the_dashboard_use_real_metrics(sqlite_url: str) -> None:
    """Every ``treset_*`` series named in deploy/prometheus/alerts.yml and deploy/grafana/treset.json is served,
    and docs/operations.md describes every metric served."""
    text = generate_latest(create_app(Settings(database_url=sqlite_url)).state.metrics.registry).decode()
    families = {f.name: f.type for f in text_string_to_metric_families(text) if f.name.startswith("treset_")}
    served = {name + suffix for name, kind in families.items() for suffix in SUFFIXES[kind]}
    rules = yaml.safe_load((ROOT / "deploy" / "prometheus" / "alerts.yml").read_text())["groups"][0]["rules"]
    dashboard = json.loads((ROOT / "deploy" / "grafana" / "treset.json").read_text())
    exprs = [r["expr"] for r in rules] + [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = {name for expr in exprs for name in re.findall(r"\btreset_[a-z_]+", expr)}
    assert used and used <= served, used - served
    operations = (ROOT / "docs" / "operations.md").read_text()
    for name, kind in families.items():
        shown = name + ("_total" if kind == "counter" else "")
        assert f"`{shown}" in operations, f"docs/operations.md does not describe {shown}"


def test_a_stall_of_the_event_loop_shows_in_its_lag() -> None:
    """A callback holding the loop 0.3 s lands in the lag histogram's buckets above 0.25 s, once."""
    metrics = Metrics()

    async def main() -> None:
        watcher = asyncio.create_task(metrics.watch_loop_lag(every_s=0.01))
        await asyncio.sleep(0.05)  # a few healthy samples first
        time.sleep(0.3)  # noqa: ASYNC251 - the stall under test
        await asyncio.sleep(0.05)
        watcher.cancel()

    asyncio.run(main())
    samples = {(s.name, s.labels.get("le")): s.value for f in text_string_to_metric_families(
        generate_latest(metrics.registry).decode()) for s in f.samples if f.name == "treset_event_loop_lag_seconds"}
    count = samples[("treset_event_loop_lag_seconds_count", None)]
    assert count >= 5
    assert samples[("treset_event_loop_lag_seconds_bucket", "+Inf")] - samples[
        ("treset_event_loop_lag_seconds_bucket", "0.25")] == 1  # the stall, seen once
    assert 0.25 <= samples[("treset_event_loop_lag_seconds_sum", None)] < 0.25 + 0.1 * count
