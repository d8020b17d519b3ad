"""The live sheet's idle poll answered from what the process read less than a second ago
(``selectors.polled_table_version``), and the fetches that must not be: a page that shows
or was told a later revision (the header ``X-Live-Revision``, static/js/live.js).

"Another app server's write" is the database and the shared cache moved on while this
process still remembers the version before it: the write is made here, then the version
it replaced is remembered again (``revisions.remember``), as the other process's memory
is all this one has of it."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.urls import reverse

from scoring.live import keys, revisions
from scoring.models import Epoch, Table
from scoring.selectors import polled_table_version
from tests.factories import FIRST_GAME, post_deal

pytestmark = pytest.mark.django_db


@pytest.fixture
def viewer() -> Client:
    """A visitor who is not signed in, watching the table."""
    return Client(headers={"accept-language": "en"})


@pytest.fixture
def moments(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The memos' clock, at 1000.0 s until a test moves it (``moments[0] = …``)."""
    now = [1000.0]
    monkeypatch.setattr(revisions, "_clock", lambda: now[0])
    return now


def live_url(table: Table) -> str:
    return reverse("scoring:table_live", args=[table.pk])


def written_elsewhere(client: Any, table: Table) -> str:
    """A deal saved at ``table`` as if by another app server: this process goes on
    remembering the version before it. The version the deal replaced."""
    before = f"{Epoch.current()}.{table.revision}"
    assert post_deal(client, table, FIRST_GAME).status_code == 302
    revisions.remember(table.pk, before)
    return before


def test_a_plain_poll_is_answered_from_memory_for_a_second(
    client, viewer, table, anna, moments, django_assert_num_queries
):
    url = live_url(table)
    etag = viewer.get(url)["ETag"]
    written_elsewhere(client, table)
    # Within the second: the version before the deal, with no query and no cache read
    # (the cache emptied: a read of it would miss and ask the database).
    cache.clear()
    moments[0] += 0.99
    with django_assert_num_queries(0):
        assert viewer.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    # The second over: the deal is seen.
    moments[0] += 0.02
    changed = viewer.get(url, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert changed["ETag"] == f'"{table.pk}-{Epoch.current()}.{table.revision + 1}-en"'
    assert f'data-revision="{table.revision + 1}"' in changed.content.decode()


@pytest.mark.parametrize("told", [1, 2, 10**6])
def test_a_page_told_a_later_revision_is_not_answered_from_memory(
    client, viewer, table, anna, moments, told
):
    # A pushed event carried the new revision (or a later one, or the page asks because
    # something changed: one past what it shows): its fetch gets the deal at once.
    url = live_url(table)
    etag = viewer.get(url)["ETag"]
    written_elsewhere(client, table)
    answer = viewer.get(
        url, HTTP_IF_NONE_MATCH=etag, HTTP_X_LIVE_REVISION=str(table.revision + told)
    )
    assert answer.status_code == 200
    assert answer["ETag"] == f'"{table.pk}-{Epoch.current()}.{table.revision + 1}-en"'
    html = answer.content.decode()
    assert f'data-revision="{table.revision + 1}"' in html
    assert "Boris" in html  # the deal's entries
    # What it read is remembered: the next plain poll of this process is the new version.
    new_etag = answer["ETag"]
    assert viewer.get(url, HTTP_IF_NONE_MATCH=new_etag).status_code == 304


@pytest.mark.parametrize("named", ["0", "", "abc", "-1", "1.5", "9" * 19])
def test_a_page_that_names_no_later_revision_gets_the_memory(
    client, viewer, table, anna, moments, named
):
    # The revision the page shows (0 here), or a header that is not a revision: the
    # plain poll's answer, a second late at most.
    url = live_url(table)
    etag = viewer.get(url)["ETag"]
    written_elsewhere(client, table)
    assert viewer.get(url, HTTP_IF_NONE_MATCH=etag, HTTP_X_LIVE_REVISION=named).status_code == 304


def test_a_scorer_who_saved_here_is_never_answered_the_sheet_before(client, table, anna, moments):
    # The scorer's page shows the revision its save drew; its next poll names it (and this
    # process forgot the version it remembered as the write was made).
    url = live_url(table)
    etag = client.get(url)["ETag"]
    assert post_deal(client, table, FIRST_GAME).status_code == 302
    answer = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert answer.status_code == 200
    assert answer["ETag"] == f'"{table.pk}-{Epoch.current()}.{table.revision + 1}-en"'


def test_a_renewed_epoch_forgets_what_the_poll_remembers(table, moments):
    # A restore or a migration in this process: the next poll reads the new epoch at once.
    before = polled_table_version(table.pk)
    with transaction.atomic():
        keys.renew_epoch()
    after = polled_table_version(table.pk)
    assert after == f"{Epoch.current()}.{table.revision}"
    assert after != before


def test_the_memory_holds_a_bounded_number_of_tables(table, moments, monkeypatch):
    monkeypatch.setattr(revisions, "POLL_MEMO_TABLES", 3)
    for pk in (1, 2, 3):
        revisions.remember(pk, f"x.{pk}")
    assert revisions.remembered(3) == "x.3"
    revisions.remember(4, "x.4")  # a fourth: it starts again
    assert [revisions.remembered(pk) for pk in (1, 2, 3, 4)] == [None, None, None, "x.4"]
