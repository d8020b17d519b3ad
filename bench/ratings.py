"""What rating costs, and what it costs a finish: ``python -m bench ratings``.

Builds the benchmark club (bench/data.py) in a scratch PostgreSQL database and times, each
the median of a few runs:

- a finish of the live pulka under the immediate task backend (the finish rates its table
  inside its own transaction) and under the database backend (it only writes the task's
  row; the worker rates later), each in a transaction that is then rolled back;
- the update the worker then runs: one new table rated on top of the others;
- an update with nothing to do (a second task queued for the same game);
- a rebuild of the Preferans ratings from scratch (a past game imported, a reopen).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

from bench import load
from bench.site import recreate

RUNS = 7


class _RolledBack(Exception):
    pass


def run(database: str, url: str, *, tables: int, members: int) -> None:
    os.environ.update(load.environment(url))
    recreate(database)

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, reset_queries, transaction
    from django.test.utils import override_settings

    from bench import data
    from scoring import services
    from scoring.models import Table

    call_command("migrate", verbosity=0)
    print(f"\n== ratings with {tables:,} finished tables, {members:,} members ==")
    live = data.build(members=members, tables=tables, live_deals=100, log=lambda m: None)["live"]
    organiser = live.seats.get(position=0).member
    game = Table.PREFERANS
    rated = Table.objects.filter(game=game, status=Table.FINISHED).count()
    print(f"  {rated:,} finished Preferans tables, rated")

    def median_ms(work: Callable[[], None], *, roll_back: bool) -> tuple[float, int]:
        """The median of RUNS runs of ``work`` in milliseconds, and its query count."""
        times, queries = [], 0
        for _ in range(RUNS):
            with override_settings(DEBUG=True):  # counts the queries
                reset_queries()
                try:
                    with transaction.atomic():
                        start = time.perf_counter()
                        work()
                        times.append((time.perf_counter() - start) * 1000)
                        queries = len(connection.queries)
                        if roll_back:
                            raise _RolledBack
                except _RolledBack:
                    pass
        return statistics.median(times), queries

    def finish() -> None:
        services.table_finish(Table.objects.get(pk=live.pk), by=organiser)

    def finish_then_update() -> None:
        finish()
        start = time.perf_counter()
        services.ratings_update(game)
        timings.append((time.perf_counter() - start) * 1000)

    immediate = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    database_tasks = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    with override_settings(TASKS=immediate):
        inline = median_ms(finish, roll_back=True)
    with override_settings(TASKS=database_tasks):
        queued = median_ms(finish, roll_back=True)
        timings: list[float] = []
        median_ms(finish_then_update, roll_back=True)
    update = statistics.median(timings)
    nothing = median_ms(lambda: services.ratings_update(game), roll_back=False)
    rebuild = median_ms(lambda: services.ratings_rebuild(game), roll_back=False)

    print("  what                                              median ms  queries")
    print(f"  finish, rated inline (immediate backend)          {inline[0]:9.1f} {inline[1]:8}")
    print(f"  finish, task queued (database backend)            {queued[0]:9.1f} {queued[1]:8}")
    print(f"  the worker's update: the new table rated          {update:9.1f}")
    print(f"  an update with nothing to do                      {nothing[0]:9.1f} {nothing[1]:8}")
    print(f"  rebuild of every Preferans rating                 {rebuild[0]:9.1f} {rebuild[1]:8}")
