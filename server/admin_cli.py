"""``treset admin``: admin chores from the shell, on the configured database (``DATABASE_URL``).

- ``treset admin create-admin NAME [--password PW]``: create an admin account, print a session token;
- ``treset admin bot-token [NAME]``: create (if needed) the bot account NAME (default ``bot``) and
  print a new API token for ``treset-agent serve --token``.

Both are ``python -m server.bots`` under the names the ``treset`` command uses.
"""

from __future__ import annotations

import sys

from server import bots

ALIASES = {"create-admin": "admin", "bot-token": "create"}


def main(argv: list[str]) -> int:
    """Run ``treset admin COMMAND ...``."""
    if not argv or argv[0] not in ALIASES:
        print(__doc__, file=sys.stderr if argv else sys.stdout)
        return 2 if argv else 0
    rest = argv[1:] or (["bot"] if argv[0] == "bot-token" else [])
    return bots.main([ALIASES[argv[0]], *rest])
