"""Fencing tokens in ``table_fences``: a new owner claims a table; every write checks the token it carries.

A process that serves a table holds its token (:data:`server.game.records.Fence`); a process that takes
the table over claims it anew (:func:`claim_tables`), and from that commit on the old owner's writes are
refused (:func:`fences_held`). :func:`insert_fenced` checks the tokens and inserts a group's rows in one
statement: the writer's common case, a group of moves, costs one round trip and one JSON text (issue #42).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import Table, TextClause, select, text, tuple_
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from server.game.records import Fence
from server.store.models import TableFence


def claim_tables(*, session: Session, table_ids: Collection[str]) -> dict[str, int]:
    """Raise each table's fencing token (a new owner takes it); return the new tokens. The caller commits.

    From the commit on, every write carrying an older token is refused (:func:`fences_held`).
    """
    claimed: dict[str, int] = {}
    dialect = session.get_bind().dialect.name
    upsert = pg_insert if dialect == "postgresql" else sqlite_insert
    for table_id in sorted(table_ids):  # one order: two claimers never wait on each other in a circle
        stmt = upsert(TableFence).values(table_id=table_id, fence=1).on_conflict_do_update(
            index_elements=[TableFence.table_id], set_={"fence": TableFence.fence + 1})
        claimed[table_id] = int(session.execute(stmt.returning(TableFence.fence)).scalar_one())
    return claimed


def fences_held(*, session: Session, fences: Collection[tuple[str, int]]) -> set[tuple[str, int]]:
    """Return those of ``fences`` (table, token) whose token is still the stored one; hold them until the commit.

    A share lock on each row: a new owner's claim (:func:`claim_tables`) waits for this transaction,
    and this transaction's writes are refused if the claim came first.
    """
    if not fences:
        return set()
    ordered = sorted(fences)  # one order of locking: two groups never wait on each other in a circle
    if session.get_bind().dialect.name == "postgresql":
        # One statement text for every group, its tokens in one JSON text: a query built anew for each count
        # of fences cost ~1.5 ms of the writer's CPU per group, held from the event loop (issue #42).
        held = json.dumps([{"table_id": t, "fence": f} for t, f in ordered])
        return {(table_id, fence) for table_id, fence in session.execute(_FENCES_HELD, {"fences": held})}
    query = (select(TableFence.table_id, TableFence.fence)
             .where(tuple_(TableFence.table_id, TableFence.fence).in_(ordered))
             .with_for_update(read=True))
    return {(table_id, fence) for table_id, fence in session.execute(query)}



def insert_fenced(*, session: Session, table: Table, rows: Sequence[tuple[Fence, dict[str, Any]]],
                  fences: Collection[Fence]) -> set[Fence]:
    """Insert those of ``rows`` whose fence is held, in their order; return the held ``fences`` (PostgreSQL).

    One statement does what :func:`fences_held` and a multi-row ``INSERT`` did in two: the fences
    (``fences`` must include every row's) are share-locked to the commit, and a row is inserted only if
    its fence is among them. Every row has the same columns. The rows travel as one JSON text, which
    PostgreSQL takes apart (``json_to_recordset``): the writer's Python time per move, held from the event
    loop, is a third of a multi-row ``INSERT``'s (``lab/scripts/writer-bench.py``).
    """
    columns = tuple(rows[0][1])
    ordered = sorted(fences)
    data = json.dumps([{"_t": fence[0], "_f": fence[1], **row} for fence, row in rows])
    held = json.dumps([{"table_id": t, "fence": f} for t, f in ordered])
    result = session.execute(_insert_fenced_sql(table, columns), {"fences": held, "rows": data})
    return {(table_id, fence) for table_id, fence in result}


@lru_cache(maxsize=32)
def _insert_fenced_sql(table: Table, columns: tuple[str, ...]) -> TextClause:
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    names = ", ".join(columns)
    types = ", ".join(f"{c} {table.c[c].type.compile(dialect=dialect)}" for c in columns)
    return text(
        f"WITH held AS ({_HELD}), ins AS (INSERT INTO {table.name} ({names}) SELECT {names}"
        f" FROM ROWS FROM (json_to_recordset(CAST(:rows AS json)) AS (_t varchar, _f integer, {types}))"
        f" WITH ORDINALITY AS r(_t, _f, {names}, _n)"
        " JOIN held ON held.table_id = r._t AND held.fence = r._f ORDER BY r._n)"
        " SELECT table_id, fence FROM held")


_HELD = ("SELECT f.table_id, f.fence FROM table_fences f"
         " JOIN json_to_recordset(CAST(:fences AS json)) AS w(table_id varchar, fence integer)"
         " ON f.table_id = w.table_id AND f.fence = w.fence ORDER BY f.table_id FOR SHARE OF f")
_FENCES_HELD = text(_HELD)
