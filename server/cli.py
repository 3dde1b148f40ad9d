"""``treset serve``: run the migrations, then the server."""

from __future__ import annotations

import argparse
from typing import Any

from server import logs


def main(argv: list[str]) -> int:
    """Run ``treset serve [--host H] [--port P] [--workers N] [--no-migrate]``."""
    parser = argparse.ArgumentParser(prog="treset serve", description="Run the treset game server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes on this port, one portal: needs TRESET_REDIS_URL (server/game/cluster/)")
    parser.add_argument("--no-migrate", action="store_true", help="skip 'alembic upgrade head'")
    parser.add_argument("--log-health", action="store_true",
                        help="log every probe and scrape (/healthz, /readyz, /metrics; TRESET_LOG_PROBES=1)")
    args = parser.parse_args(argv)

    import uvicorn

    from server.api.app import create_app
    from server.settings import get_settings
    from server.store.db import upgrade

    settings = get_settings()
    logs.setup(settings.log_format)
    if args.workers < 1 or (args.workers > 1 and not settings.redis_url):
        parser.error("--workers above 1 needs TRESET_REDIS_URL: the processes share one portal through Redis")
    if not args.no_migrate:
        upgrade(settings.database_url)  # once, before the workers start
    # Several workers each build the app (a node of the portal each); one builds it here.
    app: Any = "server.api.app:create_app" if args.workers > 1 else create_app(settings)
    uvicorn.run(app, factory=args.workers > 1, workers=args.workers, host=args.host, port=args.port, log_level="info",
                log_config=logs.log_config(fmt=settings.log_format, probes=args.log_health or settings.log_probes),
                # Above people's and bots' limits, so a message over theirs gets its ``too_large`` error
                # first; only a frame past this transport limit closes the socket (1009) at once.
                ws_max_size=max(settings.ws_frame_limit_bytes, settings.max_bot_message_bytes * 2),
                ws_per_message_deflate=settings.ws_compression, timeout_graceful_shutdown=5)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
