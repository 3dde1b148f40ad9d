"""``treset migrate``: bring the database to the latest schema (``alembic upgrade head``) and exit.

``treset serve`` does the same before it starts; run this once instead, then every replica with
``treset serve --no-migrate``, when several servers start together (two upgrades racing on one
PostgreSQL would fail).
"""

from __future__ import annotations

import argparse
import logging


def main(argv: list[str]) -> int:
    """Run ``treset migrate``: migrate ``DATABASE_URL`` (the settings' database) up to head."""
    argparse.ArgumentParser(prog="treset migrate",
                            description="Bring the database to the latest schema and exit.").parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from server.settings import get_settings
    from server.store.db import upgrade

    upgrade(get_settings().database_url)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
