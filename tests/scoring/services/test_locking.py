"""The one module that knows how each database makes writers wait (``services.locking``):
what it takes on PostgreSQL, and that the same calls run on SQLite, whose write
transactions wait for the database's write lock instead."""

from __future__ import annotations

import zlib

import pytest
from django.db import connection, transaction

from scoring.models import Table
from scoring.services import locking
from tests import factories

pytestmark = pytest.mark.django_db

ON_POSTGRESQL = connection.vendor == "postgresql"


def advisory_locks_held() -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
        )
        return {row[0] for row in cursor.fetchall()}


def test_a_row_is_read_again_under_its_lock():
    table = factories.pulka()
    Table.objects.filter(pk=table.pk).update(revision=7)  # written since ``table`` was read
    with transaction.atomic():
        assert locking.lock_row(table).revision == 7
        assert [t.pk for t in locking.lock_rows(Table.objects.filter(pk=table.pk))] == [table.pk]


def test_taking_turns_holds_a_lock_named_for_the_turn(django_assert_max_num_queries):
    assert not ON_POSTGRESQL or not advisory_locks_held()
    with transaction.atomic():
        with django_assert_max_num_queries(1 if ON_POSTGRESQL else 0):
            locking.take_turns("scoring.standings")
        if ON_POSTGRESQL:  # held to the transaction's end (the test's, here)
            assert advisory_locks_held() == {zlib.crc32(b"scoring.standings")}


# Its own transaction: the isolation level is set before the transaction's first query.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_one_snapshot_reads_at_repeatable_read_on_postgresql():
    with transaction.atomic():
        locking.read_one_snapshot()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            if ON_POSTGRESQL:
                cursor.execute("SHOW transaction_isolation")
                assert cursor.fetchone() == ("repeatable read",)
