"""``python -m server.tools.bots``: bot and admin accounts from the shell, on the configured database.

- ``python -m server.tools.bots create NAME``: create the bot account NAME (if missing) and print a
  new API token for it (``treset-agent serve --token TOKEN``);
- ``python -m server.tools.bots admin NAME [--password PW]``: create an admin account and print a
  session token (the password is asked for when not given).

The database is ``DATABASE_URL`` (migrated first), as for ``treset serve``.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from server.settings import get_settings
from server.store import repos
from server.store.db import session_factory, upgrade


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m server.tools.bots COMMAND NAME``; print the token, or an error and return 2."""
    parser = argparse.ArgumentParser(prog="python -m server.tools.bots", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("create", help="create a bot account and print an API token").add_argument("name")
    admin = sub.add_parser("admin", help="create an admin account and print a session token")
    admin.add_argument("name")
    admin.add_argument("--password")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    url = get_settings().database_url
    upgrade(url)
    with session_factory(url)() as session:
        try:
            if args.command == "create":
                token = repos.create_bot_token(session=session, username=args.name)
            else:
                password = args.password or getpass.getpass(f"password for {args.name}: ")
                _, token = repos.create_admin(session=session, username=args.name, password=password)
        except ValueError as exc:
            print(f"server.tools.bots: {exc}", file=sys.stderr)
            return 2
        session.commit()
    print(token)
    return 0


if __name__ == "__main__":
    sys.exit(main())
