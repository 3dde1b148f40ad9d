"""``treset admin``: admin chores from the shell, on the configured database (``DATABASE_URL``).

- ``treset admin create-admin NAME [--password PW]``: create an admin account, print a session token;
- ``treset admin bot-token [NAME]``: create (if needed) the bot account NAME (default ``bot``) and
  print a new API token for ``treset-agent serve --token``;
- ``treset admin export [--format csv|ndjson] [--out FILE] [filters]``: export moves of finished
  games, the same rows as ``GET /api/admin/moves/export``, with a progress bar;
- ``treset admin seed --moves N``: add generated games (at least N moves) for benchmarks;
- ``treset admin readonly-user NAME [--password PW]``: create a PostgreSQL login in the
  read-only role ``treset_readonly`` and print its connection URL;
- ``treset admin puzzles [--limit N] [--variant V] [--rescan]``: search finished games for endgame
  puzzles (run by ``treset.puzzles``, which ``treset.cli`` routes it to: it needs the agent's solver,
  which the server never imports; docs/admin.md).
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
import time
from collections.abc import Iterator
from datetime import date
from fractions import Fraction
from typing import Any, get_args

from sqlalchemy import text
from sqlalchemy.engine import make_url
from tqdm import tqdm

from server.settings import get_settings
from server.store.admin_queries import (
    ExportFilters,
    FilterError,
    check_filters,
    count_exported,
    encode,
    export_rows,
    parse_share,
)
from server.store.db import session_factory, upgrade
from server.store.partnership_export import (
    PARTNERSHIP_CARD_LISTS,
    PARTNERSHIP_EXPORT_COLUMNS,
    partnership_export_rows,
)
from server.tools import bots
from tressette import VariantName

ALIASES = {"create-admin": "admin", "bot-token": "create"}
READONLY_ROLE = "treset_readonly"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="treset admin", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export", help="export moves of finished games as CSV or NDJSON")
    export.add_argument("--format", choices=("csv", "ndjson"), default="csv")
    export.add_argument("--out", "-o", help="file to write (default: stdout)")
    export.add_argument("--variant", choices=(*get_args(VariantName), "partnership"),
                        help="partnership: the four-player moves, with their own columns (docs/admin.md)")
    export.add_argument("--date-from", type=date.fromisoformat, help="first day, YYYY-MM-DD (UTC)")
    export.add_argument("--date-to", type=date.fromisoformat, help="last day, YYYY-MM-DD (UTC), included")
    export.add_argument("--player", help="only this player's moves")
    export.add_argument("--min-games", type=int, help="movers with at least this many games in the variant")
    export.add_argument("--min-win-share", type=_share, help="movers with at least this win share (0..1, exact)")
    export.add_argument("--min-rating", type=float, help="movers rated at least this (Glicko-2)")
    seed = sub.add_parser("seed", help="add generated games for benchmarks")
    seed.add_argument("--moves", type=int, required=True)
    seed.add_argument("--players", type=int, default=200)
    seed.add_argument("--seed", type=int, default=1)
    seed.add_argument("--days", type=int, default=90, help="spread the games over this many past days")
    ro = sub.add_parser("readonly-user", help="create a read-only PostgreSQL login (SQL access for admins)")
    ro.add_argument("name")
    ro.add_argument("--password")
    return parser


def _share(text: str) -> Fraction:
    """Parse ``--min-win-share`` exactly (argparse reports the reason of a bad one)."""
    try:
        return parse_share(text)
    except FilterError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: list[str]) -> int:
    """Run ``treset admin COMMAND ...``."""
    if argv and argv[0] in ALIASES:
        rest = argv[1:] or (["bot"] if argv[0] == "bot-token" else [])
        return bots.main([ALIASES[argv[0]], *rest])
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv[0] == "puzzles":
        print("treset admin: run 'treset admin puzzles' (the treset command; it needs the agent)", file=sys.stderr)
        return 2
    args = _parser().parse_args(argv)
    url = get_settings().database_url
    upgrade(url)
    if args.command == "export":
        return _export(url, args)
    if args.command == "seed":
        return _seed(url, args)
    return _readonly_user(url, args)


def _export(url: str, args: argparse.Namespace) -> int:
    filters = ExportFilters(variant=args.variant, date_from=args.date_from, date_to=args.date_to, player=args.player,
                            min_games=args.min_games, min_win_share=args.min_win_share, min_rating=args.min_rating)
    started = time.perf_counter()
    with session_factory(url)() as session:
        try:  # the same refusals as the HTTP export's 422, before the output file is touched
            check_filters(session, player=args.player, date_from=args.date_from, date_to=args.date_to)
        except FilterError as exc:
            print(f"treset admin export: {exc}", file=sys.stderr)
            return 2
        out = open(args.out, "w", encoding="utf-8", newline="") if args.out else sys.stdout  # noqa: SIM115
        four = args.variant == "partnership"
        total = 0 if four else count_exported(session, filters)
        bar = tqdm(total=total or None, unit="move", file=sys.stderr, desc="export", disable=not sys.stderr.isatty())

        def counted() -> Iterator[dict[str, Any]]:
            for row in (partnership_export_rows(session, filters) if four else export_rows(session, filters)):
                bar.update()
                yield row

        try:
            lists = {"columns": PARTNERSHIP_EXPORT_COLUMNS, "lists": PARTNERSHIP_CARD_LISTS} if four else {}
            for chunk in encode(counted(), args.format, **lists):  # type: ignore[arg-type]
                out.write(chunk)
        except BrokenPipeError:  # the reader (e.g. ``| head``) stopped reading: not an error
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
            return 0
        finally:
            bar.close()
            if out is not sys.stdout:
                out.close()
    elapsed = time.perf_counter() - started
    total = total or bar.n
    print(f"exported {total} moves in {elapsed:.1f} s ({total / max(elapsed, 1e-9):,.0f} moves/s)", file=sys.stderr)
    return 0


def _seed(url: str, args: argparse.Namespace) -> int:
    from server.tools.seed import generate  # the game generator is only needed here

    started = time.perf_counter()
    with session_factory(url)() as session, tqdm(total=args.moves, unit="move", file=sys.stderr, desc="seed",
                                                 disable=not sys.stderr.isatty()) as bar:
        made = generate(session, moves=args.moves, players=args.players, seed=args.seed, days=args.days,
                        progress=bar.update)
    elapsed = time.perf_counter() - started
    print(f"seeded {made['games']} games, {made['moves']} moves, {made['players']} players in {elapsed:.1f} s",
          file=sys.stderr)
    return 0


def _readonly_user(url: str, args: argparse.Namespace) -> int:
    if not url.startswith("postgresql"):
        print("treset admin: read-only logins need PostgreSQL (SQLite has no roles: open the file read-only)",
              file=sys.stderr)
        return 2
    name = args.name
    if not name.replace("_", "").isalnum() or not name[0].isalpha():
        print("treset admin: a role name has letters, digits and _ and starts with a letter", file=sys.stderr)
        return 2
    password = args.password or getpass.getpass(f"password for {name}: ")
    with session_factory(url)() as session:
        if session.scalar(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": READONLY_ROLE}) is None:
            print(f"treset admin: the role {READONLY_ROLE} is missing (the migration could not create it)",
                  file=sys.stderr)
            return 2
        quoted = session.scalar(text("SELECT quote_literal(:p)"), {"p": password})
        session.execute(text(f'CREATE ROLE "{name}" LOGIN PASSWORD {quoted} IN ROLE {READONLY_ROLE}'))
        # Belt and braces: even a grant added by mistake later cannot be used to write.
        session.execute(text(f'ALTER ROLE "{name}" SET default_transaction_read_only = on'))
        session.commit()
    print(make_url(url).set(username=name, password=None).render_as_string(hide_password=False))
    return 0
