"""Each table's revision kept in the cache (``scoring.live.revisions``): written when the
write commits, never lowered, rebuilt from the database when missing. Each test runs with
local memory and with a real Redis (``shared_cache``), but those of what the cache keeps:
a revision is kept only in Redis, which every process shares (``clubsite.cache.shared``)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import transaction

from scoring import selectors
from scoring.live import keys, revisions
from scoring.models import Epoch, Table
from scoring.selectors import polled_table_version
from tests.factories import FIRST_GAME, post_deal
from tests.scoring.live.conftest import clear_cache

pytestmark = [pytest.mark.django_db]

redis_only = pytest.mark.parametrize("shared_cache", ["redis"], indirect=True)
"""What is kept in the cache: only in a shared one, Redis."""


def kept(table: Table) -> int | None:
    revision: int | None = cache.get(keys.table_revision_key(Epoch.current(), table.pk))
    return revision


@redis_only
def test_a_saved_deal_keeps_its_revision_when_it_commits(
    shared_cache, client, table, anna, django_capture_on_commit_callbacks
):
    assert selectors.table_version(table.pk) == f"{Epoch.current()}.{table.revision}"
    assert kept(table) == table.revision
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        post_deal(client, table, FIRST_GAME)
    # Dropped as the deal was written: until it commits a poll reads the database.
    assert kept(table) is None
    assert callbacks
    for callback in callbacks:
        callback()
    assert kept(table) == table.revision + 1
    assert selectors.table_version(table.pk) == f"{Epoch.current()}.{table.revision + 1}"


@redis_only
def test_a_poll_answers_from_the_cache_alone(shared_cache, table, django_assert_num_queries):
    first = selectors.table_version(table.pk)
    assert first == f"{Epoch.current()}.{table.revision}"
    with django_assert_num_queries(0):
        assert selectors.table_version(table.pk) == first


@redis_only
def test_a_kept_revision_is_never_lowered(shared_cache, table):
    # Two writes' callbacks, or a poll that read the database just before a commit, may
    # reach the cache in either order: the higher revision stays.
    token = Epoch.current()
    revisions.keep(table.pk, token, 7)
    revisions.keep(table.pk, token, 5)
    assert kept(table) == 7
    revisions.keep(table.pk, token, 8)
    assert kept(table) == 8
    assert revisions.cached_version(table.pk) == f"{token}.8"


@redis_only
def test_a_missing_revision_is_read_from_the_database(shared_cache, table):
    Table.objects.filter(pk=table.pk).update(revision=41)  # as a write whose callback was lost
    clear_cache()
    assert selectors.table_version(table.pk) == f"{Epoch.current()}.41"
    assert kept(table) == 41


@pytest.mark.parametrize("shared_cache", ["local-memory"], indirect=True)
def test_one_process_s_memory_keeps_no_revision(
    shared_cache, client, table, anna, django_assert_num_queries
):
    # Without Redis each gunicorn worker has its own memory: a revision kept there would
    # hide another worker's write from this one's polls for REVISION_SECONDS.
    token = Epoch.current()
    assert selectors.table_version(table.pk) == f"{token}.{table.revision}"
    assert kept(table) is None
    assert revisions.cached_version(table.pk) is None
    Table.objects.filter(pk=table.pk).update(revision=table.revision + 1)  # another process
    with django_assert_num_queries(1):
        assert selectors.table_version(table.pk) == f"{token}.{table.revision + 1}"
    post_deal(client, table, FIRST_GAME)  # its commit keeps nothing either
    assert kept(table) is None
    assert selectors.table_version(table.pk) == f"{token}.{table.revision + 2}"


def test_a_renewed_epoch_is_read_again(shared_cache, table, django_capture_on_commit_callbacks):
    before = selectors.table_version(table.pk)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        keys.renew_epoch()
    after = selectors.table_version(table.pk)
    assert after != before
    assert after == f"{Epoch.current()}.{table.revision}"


def test_no_such_table_has_no_version(shared_cache, db):
    assert selectors.table_version(10**9) is None
    assert revisions.cached_version(10**9) is None


def test_a_write_in_another_process_is_seen_within_the_second(shared_cache, table, monkeypatch):
    # The other process's commit as it reaches this one: the database and the shared cache
    # (``revisions.keep``, what its ``_committed`` does); this process's memory untouched.
    now = [1000.0]
    monkeypatch.setattr(revisions, "_clock", lambda: now[0])
    token = Epoch.current()
    assert polled_table_version(table.pk) == f"{token}.{table.revision}"
    now[0] += 0.5
    Table.objects.filter(pk=table.pk).update(revision=table.revision + 1)
    revisions.keep(table.pk, token, table.revision + 1)
    assert polled_table_version(table.pk) == f"{token}.{table.revision}"  # 0.5 s: memory
    now[0] += 0.5  # the second over: read again
    assert polled_table_version(table.pk) == f"{token}.{table.revision + 1}"
