"""``treset-agent fit-policy``: fit the opponent policy to the moves the portal logged.

    treset-agent fit-policy --database-url postgresql+psycopg://... --people-only --out people.json
    treset-agent serve --server URL --policy people.json

Reads the moves of finished games from the portal's database (the view ``finished_moves``
with the movers' accounts and records, docs/admin.md), keeps the plays made while the stock
lasted (tricks 0-9: the decisions where the opponent's cards are hidden, which the policy
weighs worlds by), fits the conditional logit of :mod:`agent.opponent.policy` on four games
in five, and reports on the fifth (held out by game) the mean log-likelihood per decision and
the top-1 accuracy of the fitted policy, the shipped one and the uniform one.  It writes the
fitted weights as a policy file (a variant with too few plays keeps the shipped weights).
The reading is plain SQL on the portal's database: the agent does not import the server.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agent.opponent.fit import PLAY_COLUMNS, choice_features, fit_logit, score
from agent.opponent.policy import POLICY_PATH, read_policy
from tressette import Variant, mask_of

HOLD_OUT = 5
"""One game in this many (by id) is held out to score the policies."""
MIN_PLAYS = 200
"""A variant needs this many training plays to be fitted; with fewer it keeps the shipped weights."""


def _cards(value: Any) -> list[int]:
    """Return a card list column as card codes (JSON arrays on PostgreSQL, JSON text on SQLite)."""
    if value is None:
        return []
    if isinstance(value, str):
        value = json.loads(value)
    return [int(c) for c in value]


def query(*, variant: str | None, since: date | None, min_games: int, people_only: bool) -> tuple[str, dict[str, Any]]:
    """Return the SQL and its parameters that read the plays made while the stock lasted."""
    sql = ["SELECT m.game_id, m.variant, m.hand, m.table_cards, m.won_self, m.won_opponent, m.card",
           "FROM finished_moves m JOIN users u ON u.id = m.user_id",
           "LEFT JOIN user_totals t ON t.user_id = m.user_id AND t.variant = m.variant",
           "WHERE m.trick_number < 10"]
    params: dict[str, Any] = {}
    if variant:
        sql.append("AND m.variant = :variant")
        params["variant"] = variant
    if since:
        sql.append("AND m.created_at >= :since")
        params["since"] = since
    if min_games > 0:
        sql.append("AND COALESCE(t.games, 0) >= :min_games")
        params["min_games"] = min_games
    if people_only:
        sql.append("AND u.role <> 'bot'")
    sql.append("ORDER BY m.game_id, m.move_number")
    return "\n".join(sql), params


def plays_from_rows(rows: Iterable[Any]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Return the plays of move rows (as :data:`agent.opponent.fit.PLAY_COLUMNS`) and each one's game id."""
    out: list[tuple[int, int, int, int, int]] = []
    games: list[int] = []
    for game_id, variant, hand, table, won_self, won_opp, card in rows:
        lead = _cards(table)
        gone = mask_of(_cards(won_self) + _cards(won_opp) + lead)
        out.append((mask_of(_cards(hand)), lead[0] if lead else -1, gone, int(card), int(variant == "kifameno")))
        games.append(int(game_id))
    table = np.array(out, dtype=np.int64).reshape(len(out), len(PLAY_COLUMNS))
    plays = {name: table[:, i] for i, name in enumerate(PLAY_COLUMNS)}
    return plays, np.array(games, dtype=np.int64)


def read_plays(url: str, *, variant: str | None = None, since: date | None = None, min_games: int = 0,
               people_only: bool = False, progress: bool = True) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Return the logged plays of the database at ``url`` that pass the filters, and their game ids."""
    from sqlalchemy import create_engine, text

    sql, params = query(variant=variant, since=since, min_games=min_games, people_only=people_only)
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            total = conn.execute(text(f"SELECT COUNT(*) FROM ({sql}) q"), params).scalar_one()
            result = conn.execution_options(stream_results=True, yield_per=5000).execute(text(sql), params)
            rows = tqdm(result, total=total, desc="reading moves", unit="move", disable=not progress,
                        file=sys.stderr)
            return plays_from_rows(rows)
    finally:
        engine.dispose()


def fit_and_score(plays: dict[str, np.ndarray], games: np.ndarray, *, shipped: Path = POLICY_PATH,
                  progress: bool = True) -> tuple[dict[str, list[float]], dict[str, dict[str, Any]]]:
    """Fit each variant on the training games; return (the weights per variant, the held-out scores).

    The scores per variant: the number of training and held-out plays, and for ``fitted``,
    ``shipped`` and ``uniform`` the held-out mean log-likelihood and top-1 accuracy.
    """
    base = read_policy(shipped)
    theta: dict[str, list[float]] = {}
    report: dict[str, dict[str, Any]] = {}
    held = games % HOLD_OUT == 0
    for variant in Variant:
        mine = plays["cfm"] == int(variant.cfm)
        train, test = np.flatnonzero(mine & ~held), np.flatnonzero(mine & held)
        old = base.get(variant.cfm, np.empty(0))
        if len(train) >= MIN_PLAYS:
            x, starts, chosen_at = choice_features(plays, train, progress)
            new = fit_logit(x, starts, chosen_at)
        else:
            new = old
        theta[variant.value] = [round(float(t), 5) for t in new]
        x, starts, chosen_at = choice_features(plays, test, progress)
        report[variant.value] = {
            "train": int(len(train)), "held_out": int(len(test)), "fitted": len(train) >= MIN_PLAYS,
            **{name: score(x, starts, chosen_at, t)
               for name, t in (("fitted", new), ("shipped", old), ("uniform", np.empty(0)))},
        }
    return theta, report


def main(argv: list[str]) -> int:
    """Run ``treset-agent fit-policy --database-url URL [--variant V] [--since DATE] [--min-games N]
    [--people-only] --out FILE``."""
    parser = argparse.ArgumentParser(prog="treset-agent fit-policy", description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True,
                        help="the portal's database (SQLAlchemy URL; a read-only login is enough)")
    parser.add_argument("--variant", choices=[v.value for v in Variant], help="only this variant's moves")
    parser.add_argument("--since", type=date.fromisoformat, help="only moves from this date on (YYYY-MM-DD)")
    parser.add_argument("--min-games", type=int, default=0, help="only movers with this many games in the variant")
    parser.add_argument("--people-only", action="store_true", help="leave the bots' moves out")
    parser.add_argument("--out", type=Path, required=True, help="the policy file written")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    progress = not args.no_progress
    if not args.out.parent.is_dir():
        print(f"treset-agent fit-policy: no such directory for --out: {args.out.parent}", file=sys.stderr)
        return 2
    try:
        plays, games = read_plays(args.database_url, variant=args.variant, since=args.since,
                                  min_games=args.min_games, people_only=args.people_only, progress=progress)
    except Exception as exc:  # noqa: BLE001 - a bad URL or an unreachable database: say so in one line
        print(f"treset-agent fit-policy: cannot read the moves: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if len(games) == 0:
        print("treset-agent fit-policy: no logged plays pass the filters", file=sys.stderr)
        return 2
    theta, report = fit_and_score(plays, games, progress=progress)
    filters = {"variant": args.variant, "since": args.since and args.since.isoformat(),
               "min_games": args.min_games, "people_only": args.people_only}
    args.out.write_text(json.dumps({"plays": int(len(games)), "source": "portal move log", "filters": filters,
                                    "held_out": report, "theta": theta}, indent=1) + "\n")
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{len(games)} plays from {len(set(games.tolist()))} games; held out: one game in {HOLD_OUT}")
        for name, r in report.items():
            note = "" if r["fitted"] else " (too few plays to fit: the shipped weights kept)"
            print(f"{name}: {r['train']} training plays, {r['held_out']} held out{note}")
            for who in ("fitted", "shipped", "uniform"):
                s = r[who]
                print(f"  {who:8s} log-likelihood per decision {s['log_likelihood']:8.4f}   top-1 {s['top1']:.3f}")
    print(f"policy -> {args.out}")
    return 0
