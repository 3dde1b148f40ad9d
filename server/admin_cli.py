"""``treset admin``: account chores from the shell (on the configured database).

- ``treset admin create-user NAME --role admin [--password PW]``: create an account
  (the password is asked for when not given) and print a session token;
- ``treset admin bot-token [NAME]``: create (if needed) a bot account and print a new API token
  for ``treset-agent serve --token``.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from server import repos
from server.db import session_factory, upgrade
from server.settings import get_settings


def main(argv: list[str]) -> int:
    """Run ``treset admin COMMAND ...``."""
    parser = argparse.ArgumentParser(prog="treset admin", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    create = sub.add_parser("create-user", help="create an account (e.g. an admin)")
    create.add_argument("username")
    create.add_argument("--role", choices=["player", "admin"], default="player")
    create.add_argument("--password")
    bot = sub.add_parser("bot-token", help="print a new API token for a bot account")
    bot.add_argument("username", nargs="?", default="bot")
    args = parser.parse_args(argv)
    url = get_settings().database_url
    upgrade(url)
    with session_factory(url)() as session:
        if args.command == "create-user":
            if repos.get_user_by_name(session=session, username=args.username):
                print(f"treset admin: {args.username!r} exists already", file=sys.stderr)
                return 2
            password = args.password or getpass.getpass(f"password for {args.username}: ")
            if len(password) < 6:
                print("treset admin: the password needs at least 6 characters", file=sys.stderr)
                return 2
            user = repos.create_user(session=session, username=args.username, password=password, role=args.role)
            token = repos.issue_token(session=session, user=user)
        else:
            user = repos.ensure_user(session=session, username=args.username, role="bot")
            if user.role != "bot":
                print(f"treset admin: {args.username!r} is not a bot account", file=sys.stderr)
                return 2
            token = repos.issue_token(session=session, user=user, kind="api")
        session.commit()
    print(token)
    return 0
