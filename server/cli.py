"""``treset serve``: run the migrations, then the server."""

from __future__ import annotations

import argparse
import logging


def main(argv: list[str]) -> int:
    """Run ``treset serve [--host H] [--port P] [--no-migrate]``."""
    parser = argparse.ArgumentParser(prog="treset serve", description="Run the treset game server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--no-migrate", action="store_true", help="skip 'alembic upgrade head'")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    import uvicorn

    from server.app import create_app
    from server.db import upgrade
    from server.settings import get_settings

    settings = get_settings()
    if not args.no_migrate:
        upgrade(settings.database_url)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info",
                ws_max_size=settings.max_message_bytes * 4, timeout_graceful_shutdown=5)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
