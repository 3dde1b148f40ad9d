"""``GET /metrics``: the process's metrics in Prometheus's text format, and the gauges read at scrape time.

The event metrics (moves, latencies, group commits, bot answers, analyses, refusals, errors) are
counted where they happen (:mod:`server.metrics`); the state of the game service (tables by status,
sockets by kind, the bot pool, the analysis queue, the writer's queue) is read from it only when
Prometheus asks (:class:`ServiceCollector`), so serving costs nothing per change. The route runs on
the event loop, which owns that state: a scrape sees it whole, never half-changed by another thread.

No sign-in: the proxy must not publish it (``deploy/nginx.conf`` answers 404 for ``/metrics``);
Prometheus scrapes each process directly (docs/operations.md, "Metrics").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from server.game.hub import Hub
from server.store.writer import MoveWriter

router = APIRouter()
TABLE_STATUSES = ("waiting", "playing", "finished", "closed")
SOCKET_KINDS = ("player", "guest", "admin", "bot")


class ServiceCollector(Collector):
    """The game service's gauges, computed from ``hub`` (and ``writer``) at each scrape."""

    def __init__(self, hub: Hub, writer: MoveWriter | None = None) -> None:
        """Read ``hub``'s rooms, sockets, bots and analyses, and ``writer``'s queue."""
        self.hub = hub
        self.writer = writer

    def collect(self) -> Iterator[Metric]:
        """Yield the gauges as they stand now."""
        hub = self.hub
        tables = GaugeMetricFamily("treset_tables", "Tables served by this process, by status", labels=["status"])
        by_status = Counter(room.table.status for room in hub.rooms.by_id.values())
        for status in (*TABLE_STATUSES, *sorted(set(by_status) - set(TABLE_STATUSES))):
            tables.add_metric([status], by_status.get(status, 0))
        yield tables
        sockets = GaugeMetricFamily("treset_sockets", "WebSockets open on this process, by account kind",
                                    labels=["kind"])
        # Clients of other processes (proxies, ``node`` set) are counted by the process holding the socket.
        by_kind = Counter(conn.role for conn in hub.conns if conn.node is None and not conn.closed)
        for kind in (*SOCKET_KINDS, *sorted(set(by_kind) - set(SOCKET_KINDS))):
            sockets.add_metric([kind], by_kind.get(kind, 0))
        yield sockets
        pool = hub.pool.health()
        yield GaugeMetricFamily("treset_bots", "Bot connections this process can seat (its own and other "
                                "processes' bots)", value=pool["bots_connected"])
        yield GaugeMetricFamily("treset_bot_slots", "Bot turns the connected bots take at once",
                                value=pool["bot_slots"])
        yield GaugeMetricFamily("treset_bot_turns", "Bot turns given out and not answered yet (in flight)",
                                value=pool["bot_turns"])
        yield GaugeMetricFamily("treset_bot_turns_waiting", "Bot turns waiting for a bot with room",
                                value=pool["bot_turns_waiting"])
        analysis = hub.analysis
        yield GaugeMetricFamily("treset_analysis_waiting", "Analyses queued, not handed to a bot yet",
                                value=len(analysis.waiting))
        yield GaugeMetricFamily("treset_analysis_running", "Analyses a bot is running", value=len(analysis.jobs))
        yield GaugeMetricFamily("treset_analysis_oldest_seconds", "How long the oldest queued analysis has waited",
                                value=analysis.oldest_age())
        if self.writer is not None:
            yield GaugeMetricFamily("treset_writer_queue", "Writes waiting for the move writer's thread",
                                    value=self.writer.queued())


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    """Return every metric of this process in Prometheus's text format (async: read on the event loop)."""
    return Response(generate_latest(request.app.state.metrics.registry), media_type=CONTENT_TYPE_LATEST)
