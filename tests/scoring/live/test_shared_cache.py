"""The fragment cache shared by app servers (Redis, ``REDIS_URL``) and the database epoch
in every key. Each test that takes ``shared_cache`` runs with local memory and with a real
Redis (tests/scoring/live/conftest.py)."""

from __future__ import annotations

import logging
import re
import threading
import time

import pytest
from django.apps import apps as django_apps
from django.core.cache import cache
from django.core.management.sql import emit_post_migrate_signal
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring.club.backup import club_export, club_import
from scoring.live import fragments, keys, snapshots
from scoring.live.keys import revision_key
from scoring.models import Epoch, Table
from tests import factories
from tests.factories import FIRST_GAME, HTMX, MISERE, PASSOUT, post_deal
from tests.scoring.club.test_backup import empty_the_club
from tests.scoring.live.conftest import clear_cache, redis_keys

pytestmark = [pytest.mark.django_db, pytest.mark.pool_target(50)]


def fresh(table: Table) -> Table:
    return Table.objects.get(pk=table.pk)


def without_tokens(page: str) -> str:
    """The page less what differs in every response (the CSRF token, each write form's
    key)."""
    page = re.sub(r'name="write_key" value="[^"]*"', "", page)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page)


def made(caplog: pytest.LogCaptureFixture, kind: str) -> list[str]:
    """The keys of ``kind`` that were made (rendered), one per time."""
    return [
        r.getMessage().removeprefix("made ")
        for r in caplog.records
        if r.name == "scoring.live.fragments" and r.getMessage().startswith(f"made {kind}:")
    ]


def test_viewers_share_one_rendering_of_a_revisions_sheet(
    shared_cache, client, table, anna, caplog
):
    caplog.set_level(logging.DEBUG, logger="scoring.live.fragments")
    post_deal(client, table, FIRST_GAME, **HTMX)
    live = reverse("scoring:table_live", args=[table.pk])
    sheets = {Client().get(live).content for _ in range(3)}  # three viewers, in Russian
    assert len(sheets) == 1
    key = revision_key(fresh(table), "sheet-html:ru:0")
    assert made(caplog, "sheet-html:ru:0") == [key]
    if shared_cache == "redis":  # kept where every app server reads it
        assert key in redis_keys("sheet-html:ru:0:*")


def test_processes_racing_for_one_fragment_wait_for_the_one_making_it(shared_cache):
    """The claim in the cache, the one way a fragment is made once: threads here, the
    processes of two servers alike."""
    makers: list[int] = []

    def make() -> str:
        makers.append(threading.get_ident())
        time.sleep(0.05)  # a sheet being rendered
        return "the sheet"

    start = threading.Barrier(6)
    answers: list[str] = []

    def process() -> None:
        start.wait()
        answers.append(fragments.cached("sheet-html:race", make))

    racers = [threading.Thread(target=process) for _ in range(6)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    assert len(makers) == 1
    assert answers == ["the sheet"] * 6
    assert cache.get(keys.claim_key("sheet-html:race")) is None  # the claim is given back


def test_a_claim_left_by_a_maker_that_died_expires(shared_cache, monkeypatch):
    monkeypatch.setattr(fragments, "MAKING_SECONDS", 1)
    cache.add(keys.claim_key("sheet-html:orphan"), 1, 1)  # a worker killed while making it
    started = time.monotonic()
    assert fragments.cached("sheet-html:orphan", lambda: "made after all") == "made after all"
    assert 0.5 < time.monotonic() - started < 5
    assert cache.get("sheet-html:orphan") == "made after all"


def test_a_restore_leaves_no_stale_sheet_in_any_cache(shared_cache, client, table, anna):
    """The backup is taken after one deal; the table goes on to a pass-out, which is cached
    at the next revision. Restored, the table is back at the backup's revision, and a
    misère makes that next revision number again: the page must show the misère."""
    url = reverse("scoring:table_detail", args=[table.pk])
    live = reverse("scoring:table_live", args=[table.pk])
    post_deal(client, table, FIRST_GAME, **HTMX)
    document = club_export()
    etag = Client().get(live)["ETag"]
    post_deal(client, table, PASSOUT, **HTMX)
    before_restore = fresh(table).revision
    client.get(url)  # the pass-out's sheet and history in the cache, its game a snapshot
    Client().get(live)
    epoch = Epoch.current()

    empty_the_club()
    club_import(document)
    assert Epoch.current() != epoch
    # A browser's copy of the backup's revision is not this database's.
    assert Client().get(live, HTTP_IF_NONE_MATCH=etag).status_code == 200
    client.force_login(Member.objects.get(username=anna.username))
    post_deal(client, fresh(table), MISERE, **HTMX)
    assert fresh(table).revision == before_restore  # the pass-out's revision number
    page = without_tokens(client.get(url).content.decode())
    viewers = Client().get(live).content.decode()

    clear_cache()
    snapshots.SNAPSHOTS.clear()
    assert (
        without_tokens(client.get(url).content.decode()) == page
    )  # what the caches gave is the truth
    assert Client().get(live).content.decode() == viewers


def test_migrate_and_flush_renew_the_epoch_and_so_every_key(table):
    key = revision_key(fresh(table), "sheet-html:ru:0")
    epoch = Epoch.current()
    # What `migrate` and `flush` send when they are done.
    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
    assert Epoch.current() != epoch
    assert keys.epoch() == Epoch.current()
    assert revision_key(fresh(table), "sheet-html:ru:0") != key


def test_a_table_read_with_its_epoch_needs_no_query_for_it(table, django_assert_num_queries):
    read = keys.with_epoch(Table.objects.all()).get(pk=table.pk)
    with django_assert_num_queries(0):
        key = revision_key(read, "sheet-html:ru:0")
    assert key.startswith(f"sheet-html:ru:0:{Epoch.current()}:{table.pk}:")


class StateWithoutTheEpoch:
    """The migrations' state of a database migrated short of the epoch's table."""

    def get_model(self, app_label: str, model_name: str) -> None:
        raise LookupError(f"{app_label}.{model_name} is not in this state")


def test_a_migrate_that_stops_short_of_the_epoch_leaves_it_alone(table):
    epoch = Epoch.current()
    # What post_migrate gives the receiver after `migrate scoring 0014` (Django's own
    # receivers are left out: they ask the state for more).
    keys._renew_after_migrate(
        sender=django_apps.get_app_config("scoring"), using="default", apps=StateWithoutTheEpoch()
    )
    assert Epoch.current() == epoch


def test_a_hint_kept_at_one_revision_is_read_at_the_next_and_by_that_table_only(
    shared_cache, client, table, anna
):
    post_deal(client, table, FIRST_GAME, **HTMX)
    fragments.RevisionCache(fresh(table)).keep_hint("a-hint", 7)
    post_deal(client, table, PASSOUT, **HTMX)
    assert fragments.RevisionCache(fresh(table)).hint("a-hint") == 7
    assert fragments.RevisionCache(fresh(table)).hint("another-hint") is None
    other = factories.pulka()
    assert fragments.RevisionCache(other).hint("a-hint") is None
    keys.renew_epoch()  # a restore, a migrate or a flush: every key starts again
    assert fragments.RevisionCache(fresh(table)).hint("a-hint") is None


def test_drawing_a_revisions_sheet_keeps_its_rung_for_the_next(shared_cache, client, table, anna):
    """A short pulka's sheet is at rung 0 (``scoring.pages.sheet.STEP``)."""
    post_deal(client, table, FIRST_GAME, **HTMX)
    live = reverse("scoring:table_live", args=[table.pk])
    Client().get(live)  # drawn in Russian
    assert cache.get(keys.table_key(fresh(table), "sheet-rung:ru")) == 0


@pytest.mark.parametrize("shared_cache", ["redis"], indirect=True)
def test_a_session_read_from_redis_outlives_redis_emptied(shared_cache, settings, anna):
    # With REDIS_URL a member's session is read from Redis (clubsite/settings.py): one query
    # fewer on each of his requests, and still written to the database, which keeps him
    # signed in when Redis is emptied (restarted: it keeps nothing on disk).
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    client = Client(headers={"accept-language": "en"})
    client.force_login(anna)
    me = reverse("members:settings")
    assert client.get(me).status_code == 200
    assert redis_keys("django.contrib.sessions.cached_db*")
    clear_cache()
    assert client.get(me).status_code == 200  # read from the database, and kept again
    assert redis_keys("django.contrib.sessions.cached_db*")
    client.logout()
    assert client.get(me).status_code == 302  # signed out: gone from both
