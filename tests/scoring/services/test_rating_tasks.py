"""Ratings as background work (issue 18 item 4): a finish enqueues the rating of its game,
and the database task worker (``manage.py db_worker``) does it.

These tests run the database backend (``DJANGO_TASKS=database``) and the library's own
worker in batch mode, which runs every task that is due and returns. The worker commits
and locks as it would in production, so the tests are transactional (each starts from the
migrated database: the preset tariffs). The rest of the suite runs the immediate backend,
under which a finish rates its table at once, as before.
"""

from __future__ import annotations

import datetime
import io
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import OperationalError, connection, transaction
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from scoring import services
from scoring.models import Rating, RatingHistory, Table
from scoring.services import notifications
from scoring.services import ratings as ratings_module
from tests import factories
from tests.clubsite.test_operations import console_output
from tests.factories import finished_pulka

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

ROOT = Path(__file__).resolve().parents[3]
TASK_PATH = "scoring.services.ratings.ratings_update_task"
MARCH = [datetime.date(2026, 3, day) for day in range(1, 8)]
POSTGRESQL = pytest.mark.skipif(
    "postgresql" not in django_settings.DATABASES["default"]["ENGINE"],
    reason="needs PostgreSQL (DATABASE_URL=postgres://…): readers of another connection",
)


@pytest.fixture(autouse=True)
def database_tasks(settings: Any) -> None:
    """Tasks go to the database, as in production."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.fixture(autouse=True)
def no_announcements() -> Iterator[None]:
    """A committed finish also enqueues its announcement (e-mails, the club's chat:
    scoring/services/notifications.py); these tests count the rating tasks alone."""
    with notifications.paused():
        yield


@pytest.fixture
def run_worker() -> Iterator[Callable[[], None]]:
    """``manage.py db_worker --batch``: runs every task that is due, then returns. The
    command installs its own signal handlers and log levels; they are put back after."""
    loggers = [logging.getLogger(name) for name in ("django.tasks", "django_tasks_db")]
    levels = [logger.level for logger in loggers]
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)}

    def run() -> None:
        try:
            call_command(
                "db_worker",
                batch=True,
                reload=False,
                interval=0,
                startup_delay=False,
                stdout=io.StringIO(),
            )
        finally:
            for number, handler in handlers.items():
                signal.signal(number, handler)

    yield run
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(level)


@pytest.fixture
def members(club: dict[str, Any]) -> list[Any]:
    return [club[name] for name in ("Anna", "Boris", "Vera")]


def ratings_now() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    return (
        sorted(Rating.objects.values_list("member_id", "game", "mu", "sigma", "ordinal", "tables")),
        sorted(RatingHistory.objects.values_list("member_id", "table_id", "mu", "sigma")),
    )


def rebuilt() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The ratings a rebuild from scratch gives (the database is left rebuilt)."""
    services.ratings_rebuild(Table.PREFERANS)
    return ratings_now()


def queued() -> list[tuple[str, str, list[Any], dict[str, Any]]]:
    return list(
        DBTaskResult.objects.order_by("enqueued_at").values_list(
            "status", "task_path", "args_kwargs__args", "args_kwargs__kwargs"
        )
    )


def failing_updates(monkeypatch: pytest.MonkeyPatch, times: int = 1) -> list[str]:
    """The next ``times`` updates fail as a dropped database connection would; returns the
    games they were asked for."""
    update = ratings_module.ratings_update
    asked: list[str] = []

    def failing(game: str) -> None:
        asked.append(game)
        if len(asked) <= times:
            raise OperationalError("server closed the connection unexpectedly")
        update(game)

    monkeypatch.setattr(ratings_module, "ratings_update", failing)
    return asked


def test_a_finish_enqueues_one_task_and_the_worker_rates_the_table(members, run_worker):
    anna, boris, vera = members
    table = finished_pulka(members, boris, MARCH[0])

    assert queued() == [("READY", TASK_PATH, ["preferans"], {})]
    assert not Rating.objects.exists()  # nothing is rated in the finish itself

    run_worker()

    assert queued() == [("SUCCESSFUL", TASK_PATH, ["preferans"], {})]
    # Three new members (openskill's 25 ± 25/3) placed Boris 1st, Anna and Vera 2nd.
    model = services.RATING_MODEL
    expected = model.rate([[model.rating()] for _ in range(3)], ranks=[2, 1, 2])
    got = {r.member_id: (r.mu, r.sigma, r.tables) for r in Rating.objects.all()}
    assert got == {
        member.pk: (new.mu, new.sigma, 1)
        for member, (new,) in zip([anna, boris, vera], expected, strict=True)
    }
    assert got[boris.pk][0] > 25 > got[anna.pk][0]
    assert set(RatingHistory.objects.values_list("table_id", flat=True)) == {table.pk}


def test_nothing_is_rated_when_the_finish_rolls_back(members, run_worker):
    class Interrupted(Exception):
        pass

    with pytest.raises(Interrupted), transaction.atomic():
        finished_pulka(members, members[0], MARCH[0])
        raise Interrupted

    assert not Table.objects.exists()
    assert queued() == []  # the task's row went with the finish
    run_worker()
    assert not Rating.objects.exists()
    assert not RatingHistory.objects.exists()


def test_the_worker_rates_what_a_rebuild_gives_in_whatever_order_tables_finish(members, run_worker):
    anna, boris, vera = members
    finished_pulka(members, anna, MARCH[1])
    finished_pulka(members, boris, MARCH[2])
    run_worker()  # in date order: rated one after the other
    finished_pulka(members, vera, MARCH[0])  # a past game: before every rated table
    finished_pulka(members, vera, MARCH[3])
    run_worker()

    assert [status for status, *_ in queued()] == ["SUCCESSFUL"] * 4
    by_worker = ratings_now()
    assert by_worker == rebuilt()
    assert Rating.objects.get(member=vera).tables == 4
    dates = RatingHistory.objects.filter(member=anna).values_list("played_on", flat=True)
    assert list(dates.order_by("played_on")) == MARCH[:4]


def test_two_updates_queued_together_end_where_one_does(members, run_worker):
    anna, boris, _ = members
    finished_pulka(members, anna, MARCH[2])
    finished_pulka(members, boris, MARCH[0])  # out of order: the game is rebuilt
    services.ratings_update_task.enqueue(Table.PREFERANS)  # and once more on top
    assert len(queued()) == 3

    run_worker()

    once = ratings_now()
    assert once == rebuilt()
    assert RatingHistory.objects.count() == 6  # two tables of three, each rated once
    assert all(r.tables == 2 for r in Rating.objects.all())


def test_a_reopened_table_leaves_the_charts_at_once_and_the_ratings_with_the_worker(
    members, run_worker
):
    anna, boris, _ = members
    first = finished_pulka(members, anna, MARCH[0])
    finished_pulka(members, boris, MARCH[1])
    run_worker()
    both = ratings_now()

    services.table_reopen(first, by=anna, reason="a deal was entered wrong")

    # The history rows of the reopened table are gone with the reopen; the ratings stay
    # as they were, whole, until the worker rebuilds them without it.
    assert not RatingHistory.objects.filter(table=first).exists()
    assert ratings_now()[0] == both[0]
    assert queued()[-1] == ("READY", TASK_PATH, ["preferans"], {})
    run_worker()
    assert all(r.tables == 1 for r in Rating.objects.all())
    assert ratings_now() == rebuilt()


def test_a_failed_update_is_logged_and_tried_again_a_minute_later(members, run_worker, monkeypatch):
    asked = failing_updates(monkeypatch)
    finished_pulka(members, members[0], MARCH[0])
    before = timezone.now()

    with console_output() as log:
        run_worker()

    assert asked == ["preferans"]
    assert not Rating.objects.exists()
    first, retry = DBTaskResult.objects.order_by("enqueued_at")
    assert (first.status, first.return_value) == (
        "SUCCESSFUL",
        f"failed; tried again as task {retry.id}",
    )
    assert (retry.status, retry.args_kwargs) == (
        "READY",
        {"args": ["preferans"], "kwargs": {"attempt": 2}},
    )
    assert before + datetime.timedelta(minutes=1) <= retry.run_after
    assert retry.run_after <= timezone.now() + datetime.timedelta(minutes=1)
    output = log.getvalue()
    assert (
        "WARNING scoring.services.ratings: The preferans ratings were not brought up to date "
        f"(try 1); trying again in 0:01:00 as task {retry.id}"
    ) in output
    assert "OperationalError: server closed the connection unexpectedly" in output

    run_worker()  # not due yet
    assert asked == ["preferans"]
    DBTaskResult.objects.filter(pk=retry.pk).update(run_after=timezone.now())
    run_worker()

    assert asked == ["preferans", "preferans"]
    retry.refresh_from_db()
    assert (retry.status, retry.return_value) == ("SUCCESSFUL", "up to date")
    assert Rating.objects.count() == 3
    assert ratings_now() == rebuilt()


def test_an_update_that_fails_at_its_last_try_is_recorded_and_logged_as_an_error(
    members, run_worker, monkeypatch
):
    failing_updates(monkeypatch, times=3)
    finished_pulka(members, members[0], MARCH[0])
    for _ in range(3):
        DBTaskResult.objects.filter(status="READY").update(run_after=timezone.now())
        with console_output() as log:
            run_worker()

    assert [
        (r.status, r.args_kwargs["kwargs"]) for r in DBTaskResult.objects.order_by("enqueued_at")
    ] == [("SUCCESSFUL", {}), ("SUCCESSFUL", {"attempt": 2}), ("FAILED", {"attempt": 3})]
    last = DBTaskResult.objects.get(status="FAILED")
    assert last.exception_class_path == "scoring.services.ratings.RatingsNotUpdated"
    assert "OperationalError: server closed the connection unexpectedly" in last.traceback
    output = log.getvalue()
    assert f"ERROR django.tasks: Task id={last.id} path={TASK_PATH} state=FAILED" in output
    assert (
        "RatingsNotUpdated: The preferans ratings were not brought up to date (try 3); the "
        "next update will bring them, or `manage.py rebuild_ratings` now."
    ) in output
    assert not Rating.objects.exists()

    # The next finish's update makes it good: both tables, in date order.
    finished_pulka(members, members[1], MARCH[1])
    run_worker()
    assert RatingHistory.objects.count() == 6
    assert ratings_now() == rebuilt()


@pytest.mark.django_db  # no worker, no commit: in a transaction, as most tests
def test_under_the_immediate_backend_a_failed_update_is_logged_and_the_finish_stands(
    client, table, settings, monkeypatch
):
    """The default backend runs the update inside the finish; its failure is logged as an
    error and the finish goes through. The next update rates what the failed one left.
    (The immediate backend runs the task at once, not on commit: nothing here waits for a
    commit, so the test runs in a transaction rolled back, not flushed.)"""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    failing_updates(monkeypatch)
    client.force_login(factories.member("Olga", organiser=True))  # closes it early

    with console_output() as log:
        response = client.post(
            reverse("scoring:table_finish", args=[table.pk]),
            {"reason": "the club closes", "counts": "yes", **factories.drawn(table)},
        )

    assert response.status_code == 302
    assert Table.objects.get(pk=table.pk).status == Table.FINISHED
    assert not Rating.objects.exists()
    output = log.getvalue()
    assert "ERROR django.tasks: Task id=" in output
    assert f"path={TASK_PATH} state=FAILED" in output
    assert "RatingsNotUpdated: The preferans ratings were not brought up to date (try 1)" in output
    assert not DBTaskResult.objects.exists()  # the immediate backend keeps no rows

    seated = [seat.member for seat in table.seats.order_by("position")]
    finished_pulka(seated, seated[1], MARCH[0])
    assert RatingHistory.objects.count() == 6
    assert ratings_now() == rebuilt()


class Connection(threading.Thread):
    """``work`` run on a thread of its own, with its own database connection; ``errors``
    receives what it raised."""

    def __init__(self, work: Callable[[], object]) -> None:
        super().__init__()
        self.work = work
        self.errors: list[BaseException] = []
        self.backend: queue.Queue[int] = queue.Queue()
        self.start()

    def run(self) -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                self.backend.put(cursor.fetchone()[0])
            self.work()
        except BaseException as error:  # reported by the test that reads the list
            self.errors.append(error)
        finally:
            connection.close()

    def wait_until_blocked(self) -> None:
        """Returns once the thread's connection waits for a lock (``pg_locks`` is read
        live, not from a snapshot, so it can be polled inside a transaction)."""
        pid = self.backend.get(timeout=30)
        for _ in range(3000):
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted", [pid]
                )
                if cursor.fetchone()[0]:
                    return
            time.sleep(0.01)
        pytest.fail("the thread did not wait for a lock within 30 s")


@POSTGRESQL
def test_readers_see_the_old_ratings_or_the_new_during_a_rebuild_never_a_part(members, run_worker):
    """A rebuild deletes a game's ratings and writes them again in one transaction: a
    reader on another connection meanwhile sees every old row, then every new one. The
    test holds a row of the rating history locked, so the rebuild stops between deleting
    the ratings and deleting the history; were the two deletes committed apart, the
    reader would find no ratings at all."""
    anna, boris, _ = members
    first = finished_pulka(members, anna, MARCH[0])
    finished_pulka(members, boris, MARCH[1])
    run_worker()
    services.table_reopen(first, by=anna, reason="check")  # the ratings now lag behind
    old = ratings_now()[0]
    assert [row[-1] for row in old] == [2, 2, 2]  # each member's tables rated

    with transaction.atomic():
        RatingHistory.objects.select_for_update().filter(game=Table.PREFERANS).first()
        writer = Connection(lambda: services.ratings_rebuild(Table.PREFERANS))
        writer.wait_until_blocked()  # the ratings deleted, not committed; the history next
        during = ratings_now()[0]
    writer.join(timeout=30)

    assert not writer.errors
    assert during == old
    new = ratings_now()[0]
    assert [row[-1] for row in new] == [1, 1, 1]  # the reopened table no longer counts
    assert ratings_now() == rebuilt()


@POSTGRESQL
def test_two_updates_at_once_take_turns(members):
    """The second waits for the first to commit, then finds nothing left to rate.
    Without the turn both would rate the table, and the second's history rows would
    collide with the first's."""
    finished_pulka(members, members[0], MARCH[0])  # its task is left queued
    with transaction.atomic():
        services.ratings_update(Table.PREFERANS)
        second = Connection(lambda: services.ratings_update(Table.PREFERANS))
        second.wait_until_blocked()
    second.join(timeout=30)

    assert not second.errors
    assert RatingHistory.objects.count() == 3
    assert all(r.tables == 1 for r in Rating.objects.all())
    assert ratings_now() == rebuilt()


@pytest.mark.slow  # the worker in a process of its own
@POSTGRESQL
def test_the_worker_command_rates_a_finish_in_its_own_process(members):
    """``manage.py db_worker`` as production runs it: another process, reading the
    environment's ``DJANGO_TASKS=database``, against the same PostgreSQL database."""
    table = finished_pulka(members, members[2], MARCH[0])
    database = connection.settings_dict
    url = (
        f"postgres://{database['USER']}:{database['PASSWORD'] or ''}@{database['HOST']}:"
        f"{database['PORT'] or 5432}/{database['NAME']}"
    )
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DATABASE_URL": url,
        "DJANGO_TASKS": "database",
    }

    worker = subprocess.run(
        [sys.executable, "manage.py", "db_worker", "--batch", "--no-reload", "--no-startup-delay"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert worker.returncode == 0, worker.stderr
    assert f"path={TASK_PATH} state=SUCCESSFUL" in worker.stderr + worker.stdout
    assert set(RatingHistory.objects.values_list("table_id", flat=True)) == {table.pk}
    assert Rating.objects.count() == 3


def test_the_worker_makes_the_pages_a_finish_changed_before_anyone_asks(
    members, run_worker, settings, django_assert_num_queries
):
    """Issue 33, item 4: after the worker's update, the game's boards and the players'
    profiles are kept under the new stamp: the first visitor reads the stamp (one query)
    and the page, as every later one does."""
    from django.core.cache import cache
    from django.test import Client

    from scoring.models import Season

    settings.SITE_URL = "http://testserver"  # the address the test client asks at
    today = timezone.localdate()
    Season.objects.create(name="Now", starts_on=today, ends_on=today)
    boris = members[1]
    finished_pulka(members, boris, today)
    run_worker()

    season = Season.objects.get()
    boards = [
        reverse("scoring:season_standings", args=[season.pk, "preferans"]),
        reverse("scoring:standings", args=["preferans"]),
    ]
    profiles = [reverse("members:detail", args=[m.username]) for m in members]
    made = {}
    for url in boards + profiles:
        for language in ("ru", "en"):
            with django_assert_num_queries(1):  # the page's version
                page = Client(headers={"accept-language": language}).get(url)
            assert page.status_code == 200
            made[url, language] = page.content
    assert "Boris" in made[boards[0], "en"].decode()
    cache.clear()  # the same pages as the first visitor would have made them
    for (url, language), content in made.items():
        assert Client(headers={"accept-language": language}).get(url).content == content
