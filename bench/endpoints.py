"""Server time and queries per request for each endpoint, in process (Django's test client
through the full middleware stack, against the benchmark database)."""

from __future__ import annotations

import itertools
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from clubsite.pages import last_made_key, page_key, visitor_key
from scoring import selectors, services
from scoring.live.keys import history_key, sheet_html_key
from scoring.models import Table


@dataclass
class Timing:
    name: str
    median_ms: float
    p95_ms: float
    queries: int
    status: int
    database_ms: float = 0.0
    """The median time of a call spent waiting for the database's answers: on a loaded
    machine PostgreSQL's share of the two cores shrinks, and a one-row query can take
    milliseconds; this tells that wait from the page's own work."""


def measure(
    name: str,
    request: Callable[[], Any],
    repeats: int = 60,
    before: Callable[[], Any] = lambda: None,
) -> Timing:
    """Median and 95th percentile of ``repeats`` calls (after two warm-ups), and the
    queries of the last call; ``before`` runs, untimed, before each call."""
    for _ in range(2):
        before()
        request()
    times, waits = [], []
    waited = [0.0]

    def timed(execute: Callable[..., Any], *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return execute(*args)
        finally:
            waited[0] += time.perf_counter() - start

    for _ in range(repeats):
        before()
        waited[0] = 0.0
        with connection.execute_wrapper(timed):
            start = time.perf_counter()
            request()
            times.append((time.perf_counter() - start) * 1000)
        waits.append(waited[0] * 1000)
    before()
    with CaptureQueriesContext(connection) as queries:
        response = request()
    times.sort()
    return Timing(
        name,
        statistics.median(times),
        times[int(0.95 * (len(times) - 1))],
        len(queries),
        response.status_code,
        statistics.median(waits),
    )


def signed_in(member: Any) -> Client:
    """A client signed in as ``member`` as a browser is: with his session, and with the
    CSRF cookie the sign-in page set (signing in posts its form, so every signed-in
    member's browser has one; without it each page would make him a new secret)."""
    client = Client()
    client.get(reverse("members:login"))
    client.force_login(member)
    return client


def run(
    live: Any,
    member: Any,
    season: Any,
    *,
    profile: Any,
    repeats: int = 60,
    wanted: Callable[[str], bool] = lambda name: True,
) -> list[Timing]:
    """Every endpoint the performance issues name (those ``wanted``), side by side with the
    bare view."""
    anonymous = Client()
    scorer = signed_in(member)
    table_url = reverse("scoring:table_detail", args=[live.pk])
    live_url = reverse("scoring:table_live", args=[live.pk])
    etag = anonymous.get(live_url)["ETag"]
    season_game = "preferans"
    leaderboard = reverse("scoring:season_standings", args=[season.pk, season_game])
    profile_url = reverse("members:detail", args=[profile.username])

    def live_after_a_deal() -> Any:
        # What a viewer pays when something changed: a fresh ETag, the full partial.
        return anonymous.get(live_url, HTTP_IF_NONE_MATCH='"stale"')

    def as_after_a_deal() -> None:
        # The first viewer after a deal: the save left the replay snapshot and the drawing
        # of the new revision, but nobody has rendered the viewers' sheet or the history.
        # The keys are spelt as scoring/pages/tables.py spells them; if that changes, the
        # check below fails rather than the bench quietly measuring a warm cache.
        table = Table.objects.get(pk=live.pk)
        language = settings.LANGUAGE_CODE  # the anonymous client sends no Accept-Language
        dropped = cache.delete(sheet_html_key(table, language, editable=False))
        cache.delete(history_key(table, language))
        version = selectors.table_version(live.pk) or ""
        for url in (table_url, live_url):  # what visitors are served whole
            kept = page_key(f"http://testserver{url}", version, language)
            cache.delete_many([kept, visitor_key(kept)])
        assert dropped, "the viewers' sheet was not cached under the expected key"  # noqa: S101

    def standings_changed() -> None:
        # What a finish, a reopen or a rating does to the standings pages: a new stamp.
        # Where the task worker runs (production), the first reader after it is shown the
        # last page made and asks the worker to make the new one (clubsite.pages).
        services.standings_changed()

    def standings_changed_and_forgotten(url: str) -> Callable[[], None]:
        # A new stamp and no page made at ``url`` in the last minute: the reader makes it.
        def before() -> None:
            services.standings_changed()
            with translation.override(settings.LANGUAGE_CODE):  # the client asks for none
                cache.delete(last_made_key(f"http://testserver{url}"))

        return before

    def finished_and_made() -> None:
        # A finish under the task worker: the new stamp, then the worker makes the boards
        # and the rated members' profiles (services.standings_pages_made) at the site's
        # address, here the test client's.
        services.standings_changed()
        with override_settings(SITE_URL="http://testserver"):
            services.standings_pages_made(game=season_game, members=[profile.pk])

    measured: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
        ("bare Django view", lambda: anonymous.get("/bench/bare/"), lambda: None),
        (
            "live update, nothing changed (304)",
            lambda: anonymous.get(live_url, HTTP_IF_NONE_MATCH=etag),
            lambda: None,
        ),
        ("live update, a deal was added (first viewer)", live_after_a_deal, as_after_a_deal),
        ("live update, a deal was added (the rest)", live_after_a_deal, lambda: None),
        ("pulka page (full)", lambda: anonymous.get(table_url), lambda: None),
        ("pulka page, first view after a deal", lambda: anonymous.get(table_url), as_after_a_deal),
        ("pulka page, as a scorer", lambda: scorer.get(table_url), lambda: None),
        ("season leaderboard", lambda: anonymous.get(leaderboard), lambda: None),
        ("season leaderboard, as a member", lambda: scorer.get(leaderboard), lambda: None),
        (
            "season leaderboard, first view after a finish",
            lambda: anonymous.get(leaderboard),
            standings_changed,
        ),
        (
            "season leaderboard, made by its reader",
            lambda: anonymous.get(leaderboard),
            standings_changed_and_forgotten(leaderboard),
        ),
        ("member profile", lambda: anonymous.get(profile_url), lambda: None),
        ("member profile, as a member", lambda: scorer.get(profile_url), lambda: None),
        (
            "member profile, first view after a finish",
            lambda: anonymous.get(profile_url),
            standings_changed,
        ),
        (
            "member profile, made by its reader",
            lambda: anonymous.get(profile_url),
            standings_changed_and_forgotten(profile_url),
        ),
        (
            "season leaderboard, first view after a finish, made by the worker",
            lambda: anonymous.get(leaderboard),
            finished_and_made,
        ),
        (
            "member profile, first view after a finish, made by the worker",
            lambda: anonymous.get(profile_url),
            finished_and_made,
        ),
        ("home page", lambda: anonymous.get("/"), lambda: None),
        ("home page, as a member", lambda: scorer.get("/"), lambda: None),
    ]
    # Tasks go to the database, as in production (nobody runs them here).
    with override_settings(TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}):
        return [
            measure(name, request, repeats, before=before)
            for name, request, before in measured
            if wanted(name)
        ]


SAVE = "save a deal (htmx POST)"
BARE_WRITE = "bare write view"


def measure_side_by_side(
    measured: list[tuple[str, Callable[[], Any]]], repeats: int = 60
) -> list[Timing]:
    """Like ``measure``, but the calls taken in turns (one of each, then again), so that
    each is timed in the same moments of a machine whose speed drifts by half from one
    minute to the next: their ratios are the figures to read."""
    times: dict[str, list[float]] = {name: [] for name, _ in measured}
    waits: dict[str, list[float]] = {name: [] for name, _ in measured}
    waited = [0.0]

    def timed(execute: Callable[..., Any], *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return execute(*args)
        finally:
            waited[0] += time.perf_counter() - start

    for turn in range(repeats + 2):  # two warm-ups
        for name, request in measured:
            waited[0] = 0.0
            with connection.execute_wrapper(timed):
                start = time.perf_counter()
                response = request()
                elapsed = (time.perf_counter() - start) * 1000
            assert response.status_code == 200, (name, response.status_code)  # noqa: S101
            if turn >= 2:
                times[name].append(elapsed)
                waits[name].append(waited[0] * 1000)
    timings = []
    for name, request in measured:
        with CaptureQueriesContext(connection) as queries:
            response = request()
        ordered = sorted(times[name])
        timings.append(
            Timing(
                name,
                statistics.median(ordered),
                ordered[int(0.95 * (len(ordered) - 1))],
                len(queries),
                response.status_code,
                statistics.median(waits[name]),
            )
        )
    return timings


def run_writes(live: Any, member: Any, *, repeats: int = 60) -> list[Timing]:
    """The save of a deal into the live pulka beside the bare write view (session, a locked
    row read, one INSERT, commit, a small template), taken in turns: the save's cost as a
    multiple of what any write costs on this machine at this moment."""
    scorer = signed_in(member)
    passout = {
        "kind": "passout",
        "tricks:" + live.seats.get(position=0).name: "4",
        "tricks:" + live.seats.get(position=1).name: "3",
        "tricks:" + live.seats.get(position=2).name: "3",
    }
    deal_url = reverse("scoring:deal_create", args=[live.pk])
    write_url = reverse("bench_write", args=[live.pk])
    # Each save is drawn at the revision the one before left, with a key of its own, as
    # the deal form posts it (every write carries both).
    revision = itertools.count(Table.objects.get(pk=live.pk).revision)

    def save() -> Any:
        return scorer.post(
            deal_url,
            {**passout, "revision": next(revision), "write_key": str(uuid.uuid4())},
            HTTP_HX_REQUEST="true",
        )

    return measure_side_by_side(
        [
            (BARE_WRITE, lambda: scorer.post(write_url)),
            (SAVE, save),
        ],
        repeats,
    )
