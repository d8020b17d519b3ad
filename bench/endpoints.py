"""Server time and queries per request for each endpoint, in process (Django's test client
through the full middleware stack, against the benchmark database)."""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.live.keys import revision_key
from scoring.models import Table


@dataclass
class Timing:
    name: str
    median_ms: float
    p95_ms: float
    queries: int
    status: int


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
    times = []
    for _ in range(repeats):
        before()
        start = time.perf_counter()
        request()
        times.append((time.perf_counter() - start) * 1000)
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
    )


def run(live: Any, member: Any, season: Any, *, profile: Any, repeats: int = 60) -> list[Timing]:
    """Every endpoint the performance issue names, side by side with the bare view."""
    anonymous = Client()
    scorer = Client()
    scorer.force_login(member)
    table_url = reverse("scoring:table_detail", args=[live.pk])
    live_url = reverse("scoring:table_live", args=[live.pk])
    etag = anonymous.get(live_url)["ETag"]
    passout = {
        "kind": "passout",
        "tricks:" + live.seats.get(position=0).name: "4",
        "tricks:" + live.seats.get(position=1).name: "3",
        "tricks:" + live.seats.get(position=2).name: "3",
    }
    deal_url = reverse("scoring:deal_create", args=[live.pk])
    # Each save is drawn at the revision the one before left (every write carries it).
    revision = itertools.count(Table.objects.get(pk=live.pk).revision)
    leaderboard = reverse("scoring:season_standings", args=[season.pk, "preferans"])
    profile_url = reverse("members:detail", args=[profile.username])

    def live_after_a_deal() -> Any:
        # What a viewer pays when something changed: a fresh ETag, the full partial.
        return anonymous.get(live_url, HTTP_IF_NONE_MATCH='"stale"')

    def as_after_a_deal() -> None:
        # The first viewer after a deal: the save left the replay snapshot and the drawing
        # of the new revision, but nobody has rendered the viewers' sheet or the history.
        # The keys are spelt as scoring/views/tables.py spells them; if that changes, the
        # check below fails rather than the bench quietly measuring a warm cache.
        table = Table.objects.get(pk=live.pk)
        language = settings.LANGUAGE_CODE  # the anonymous client sends no Accept-Language
        dropped = cache.delete(revision_key(table, f"sheet-html:{language}:0"))
        cache.delete(revision_key(table, f"history-html:{language}"))
        assert dropped, "the viewers' sheet was not cached under the expected key"  # noqa: S101

    timings = [
        measure("bare Django view", lambda: anonymous.get("/bench/bare/"), repeats),
        measure(
            "live update, nothing changed (304)",
            lambda: anonymous.get(live_url, HTTP_IF_NONE_MATCH=etag),
            repeats,
        ),
        measure(
            "live update, a deal was added (first viewer)",
            live_after_a_deal,
            repeats,
            before=as_after_a_deal,
        ),
        measure("live update, a deal was added (the rest)", live_after_a_deal, repeats),
        measure("pulka page (full)", lambda: anonymous.get(table_url), repeats),
        measure(
            "pulka page, first view after a deal",
            lambda: anonymous.get(table_url),
            repeats,
            before=as_after_a_deal,
        ),
        measure("pulka page, as a scorer", lambda: scorer.get(table_url), repeats),
        measure(
            "save a deal (htmx POST)",
            lambda: scorer.post(
                deal_url, {**passout, "revision": next(revision)}, HTTP_HX_REQUEST="true"
            ),
            repeats,
        ),
        measure("season leaderboard", lambda: anonymous.get(leaderboard), repeats),
        measure("member profile", lambda: anonymous.get(profile_url), repeats),
    ]
    return timings
