"""``python -m server.tools.dbbench``: time the admins' queries on the configured database.

Seed it first (``treset admin seed --moves 1000000``). Prints, measured in the same run:
leaderboard query time (median and max over repeats, per order), moves exported per second
as CSV and NDJSON (all moves, and the "strong players" selection), and as a baseline the
rate of fetching the same rows with no encoding, so the figures read as ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from fractions import Fraction
from typing import Any

from sqlalchemy import func, select

from server.settings import get_settings
from server.store.admin_queries import ExportFilters, encode, export_rows, export_statement
from server.store.db import session_factory
from server.store.models import Move
from server.store.rankings import ranking


def _timed(fn: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def run(url: str, *, repeats: int = 20, limit_moves: int | None = None) -> dict[str, Any]:
    """Measure and return the figures (times in ms, rates in moves/s)."""
    out: dict[str, Any] = {}
    with session_factory(url)() as session:
        out["moves_in_db"] = session.scalar(select(func.count()).select_from(Move)) or 0
        for order in ("rating", "win_share", "games"):
            times = [_timed(lambda o=order: ranking(session, variant="tressette", min_games=10, order=o))[0]
                     for _ in range(repeats)]
            out[f"leaderboard_{order}_ms_median"] = round(statistics.median(times) * 1000, 2)
            out[f"leaderboard_{order}_ms_max"] = round(max(times) * 1000, 2)
        for label, filters in (("all", ExportFilters()),
                               ("strong", ExportFilters(variant="tressette", min_games=100,
                                                              min_win_share=Fraction(1, 2)))):
            stmt = export_statement(filters)
            if limit_moves:
                stmt = stmt.limit(limit_moves)
            elapsed, n = _timed(lambda s=stmt: sum(1 for _ in session.execute(s.execution_options(yield_per=5000))))
            out[f"export_{label}_moves"] = n
            out[f"baseline_fetch_{label}_moves_per_s"] = round(n / elapsed)
            for fmt in ("csv", "ndjson"):
                def encoded(f: ExportFilters = filters, fm: Any = fmt) -> int:
                    rows = export_rows(session, f)
                    if limit_moves:
                        rows = (r for i, r in zip(range(limit_moves), rows, strict=False))
                    return sum(len(chunk) for chunk in encode(rows, fm))
                elapsed, size = _timed(encoded)
                out[f"export_{label}_{fmt}_moves_per_s"] = round(n / elapsed)
                out[f"export_{label}_{fmt}_mb"] = round(size / 1e6, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the figures as lines, or one JSON object with ``--json``."""
    parser = argparse.ArgumentParser(prog="python -m server.tools.dbbench", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--limit-moves", type=int, help="export at most this many moves per measurement")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = run(get_settings().database_url, repeats=args.repeats, limit_moves=args.limit_moves)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:42} {value:>12,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
