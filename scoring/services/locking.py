"""Every database-specific way the writes wait for each other, in one module, each with its
portable fallback (as pretix's ``base/services/locking.py``). Services call these; none of
them asks which database it runs on.

PostgreSQL locks a row (``SELECT … FOR UPDATE``) and takes named transaction-level
advisory locks. SQLite has neither, and needs neither: every write transaction there
begins by taking the database's write lock (``transaction_mode`` IMMEDIATE,
clubsite/settings.py), so writers run one at a time, and a transaction reads one snapshot
of the database. Each function must be called inside ``transaction.atomic()``: what it
takes is held until that transaction ends.
"""

from __future__ import annotations

import zlib

from django.db import connection
from django.db.models import Model, QuerySet


def _postgresql() -> bool:
    return connection.vendor == "postgresql"


def lock_row[M: Model](row: M) -> M:
    """``row`` read again under its lock, held until the transaction ends: one writer of
    it at a time, and each reads what the one before it committed (SQLite: the write
    lock the transaction began with)."""
    return type(row)._default_manager.select_for_update().get(pk=row.pk)


def lock_rows[M: Model](rows: QuerySet[M]) -> list[M]:
    """The rows of ``rows``, locked as ``lock_row`` locks one."""
    return list(rows.select_for_update())


def take_turns(name: str) -> None:
    """Until the transaction ends, every other transaction that takes turns on ``name``
    waits: for writes that must not interleave but have no one row to lock (the
    standings totals, a game's ratings). PostgreSQL: a transaction-level advisory lock
    on a number drawn from ``name``; SQLite: nothing to add."""
    if _postgresql():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(name.encode())])


def read_one_snapshot() -> None:
    """Every query of the transaction (it must not have run one yet) reads the database
    as it was at its first: a write committed meanwhile is in all of them or none.
    PostgreSQL: REPEATABLE READ, read only; SQLite: a transaction does so already."""
    if _postgresql():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
