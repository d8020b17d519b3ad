"""Ratings: each finished table moves its members' Plackett–Luce ratings by their places.

Rating is background work (docs/architecture.md, "Background work"). A finish, a reopen
and a restored backup do not rate anything themselves: each enqueues
``ratings_update_task`` for its game inside its own transaction, and ``ratings_update``
then brings that game's ratings up to date with its finished tables. With the default
(immediate) task backend that runs at once, in the same transaction, exactly as the
rating used to; with ``DJANGO_TASKS=database`` the task is a row written in that
transaction, so it exists if and only if the finish committed, and ``manage.py db_worker``
runs it a moment later.

``ratings_update`` works out what to do from the database alone, never from what the
task was told: the tables finished since the last update are rated in date order when
they all come after every rated table (tonight's tables, the usual case), and otherwise
the game is rebuilt from scratch (an imported past game, a reopened table). So an update
that failed, or one that never ran, is made good by the next one, and two updates queued
together end where one would: the second finds nothing left to do.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery, Sum
from django.tasks import task
from django.utils import timezone
from openskill.models import PlackettLuce

from scoring.engine.standings import table_places
from scoring.models import Rating, RatingHistory, Seat, Table
from scoring.services import locking
from scoring.services.standings import standings_changed, standings_pages_made

RATING_MODEL = PlackettLuce()

RATING_RETRIES = (timedelta(minutes=1), timedelta(minutes=10))
"""How long the worker waits before each further try of an update that failed: a try
fails on a passing database trouble (a dropped connection, a statement timeout), which is
likely gone a minute later. After the last, the task is recorded as failed."""

logger = logging.getLogger(__name__)


class RatingsNotUpdated(Exception):
    """An update of a game's ratings failed at its last try, or under the immediate
    backend at its only one; ``django.tasks`` logs it as an error, with the cause's
    traceback."""


def ratings_after_finish(table: Table) -> None:
    """Rate a finished table, now or by the worker: enqueue the update of its game."""
    ratings_update_task.enqueue(table.game)


def ratings_after_reopen(table: Table) -> None:
    """A reopened table no longer counts until it finishes again: its rows leave the
    rating history now (the members' charts), and the update enqueued for its game
    rebuilds the ratings without it (the history no longer adds up to the ratings' table
    counts)."""
    with transaction.atomic():
        _one_writer_at_a_time(table.game)
        RatingHistory.objects.filter(table=table).delete()
        ratings_update_task.enqueue(table.game)


@task
def ratings_update_task(game: str, attempt: int = 1) -> str:
    """The worker's side of ``ratings_update``: a failed try is logged and tried again
    later (``RATING_RETRIES``), and never reaches whoever enqueued it. The immediate
    backend cannot run a task later, so there a failure is only logged (the request goes
    on, and the next update makes it good)."""
    try:
        ratings_update(game)
    except Exception as error:
        if attempt > len(RATING_RETRIES) or not ratings_update_task.get_backend().supports_defer:
            raise RatingsNotUpdated(
                f"The {game} ratings were not brought up to date (try {attempt}); the next "
                "update will bring them, or `manage.py rebuild_ratings` now."
            ) from error
        delay = RATING_RETRIES[attempt - 1]
        retry = ratings_update_task.using(run_after=timezone.now() + delay).enqueue(
            game, attempt=attempt + 1
        )
        logger.warning(
            "The %s ratings were not brought up to date (try %d); trying again in %s as task %s",
            game,
            attempt,
            delay,
            retry.id,
            exc_info=True,
        )
        return f"failed; tried again as task {retry.id}"
    return "up to date"


def ratings_update(game: str) -> None:
    """Bring a game's ratings up to date with its finished tables (see the module's
    docstring); running it again changes nothing."""
    with transaction.atomic():
        _one_writer_at_a_time(game)
        rated = Exists(RatingHistory.objects.filter(table=OuterRef("pk")))
        unrated = _rateable(game).filter(~rated)
        moved: list[int] = []
        if _out_of_step(game, unrated.first()):
            _rebuild(game)
        else:
            moved = _rate_in_order(game, unrated)
        _standings_changed_after_commit()
        _pages_made_after_commit(game, moved)


def ratings_rebuild(game: str) -> None:
    """Recompute a game's ratings from scratch over its finished tables in date order."""
    with transaction.atomic():
        _one_writer_at_a_time(game)
        _rebuild(game)
        _standings_changed_after_commit()


def _standings_changed_after_commit() -> None:
    """The leaderboards and profiles show the ratings: a new standings stamp once these
    are committed (until then the pages show the old ones, as readers do). Not inside
    this transaction: writing the stamp waits for the stamp's row, which a reopen holds
    while it waits for this game's rating lock (held here), and the two would deadlock.
    Inside a finish (the immediate backend) the finish has written a new stamp already."""
    transaction.on_commit(standings_changed)


def _pages_made_after_commit(game: str, members: list[int]) -> None:
    """The pages a finish changes that readers open first (the game's boards, the
    profiles of the members it rated) made and kept by the worker once the new stamp is
    committed, so that the first reader finds them made (issue 33, item 4). Only where a
    worker runs the update: under the immediate backend the update runs inside the finish's
    request, which would wait for them. A page that fails to be made is logged and left
    to its first reader (``robust``)."""
    if ratings_update_task.get_backend().supports_defer:
        transaction.on_commit(lambda: standings_pages_made(game=game, members=members), robust=True)


def _one_writer_at_a_time(game: str) -> None:
    """Rating writes of one game take turns, until the transaction ends: each reads the
    ratings and tables the one before it committed."""
    locking.take_turns(f"scoring.ratings:{game}")


def _rateable(game: str) -> QuerySet[Table]:
    """The finished tables that rate their members (every seat has a place, and two
    members or more: guests are not rated), in date order: the order ratings are built in."""
    unplaced = Seat.objects.filter(table=OuterRef("pk"), place__isnull=True)
    members = (
        Seat.objects.members_only()
        .filter(table=OuterRef("pk"))
        .values("table")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        Table.objects.filter(game=game, status=Table.FINISHED, standing=Table.COUNTED)
        .filter(~Exists(unplaced))
        .alias(members=Subquery(members))
        .filter(members__gte=2)
        .order_by("played_on", "pk")
    )


def _out_of_step(game: str, first_unrated: Table | None) -> bool:
    """Whether rating the unrated tables on top of today's ratings would not give what a
    rebuild gives: a rated table was reopened or deleted (its history rows went with it,
    so they no longer add up to the members' counts of rated tables), or an unrated table
    comes before a rated one."""
    counted = Rating.objects.filter(game=game).aggregate(total=Sum("tables"))["total"] or 0
    if RatingHistory.objects.filter(game=game).count() != counted:
        return True
    if first_unrated is None:
        return False
    later = Q(played_on__gt=first_unrated.played_on) | Q(
        played_on=first_unrated.played_on, pk__gt=first_unrated.pk
    )
    rated = Exists(RatingHistory.objects.filter(table=OuterRef("pk")))
    return Table.objects.filter(later, rated, game=game, status=Table.FINISHED).exists()


def _rebuild(game: str) -> None:
    """Forget the game's ratings and rate every finished table again, in one transaction
    (the caller's): readers see the old ratings until it commits and the new ones after,
    never a part of either (docs/architecture.md, "Background work")."""
    Rating.objects.filter(game=game).delete()
    RatingHistory.objects.filter(game=game).delete()
    _rate_in_order(game, _rateable(game))


def _rate_in_order(game: str, tables: QuerySet[Table]) -> list[int]:
    """Rate ``tables`` (in date order, all after every rated table) on top of the game's
    ratings, and store the ratings and history rows that result; returns the members
    whose ratings moved."""
    ratings = {r.member_id: r for r in Rating.objects.filter(game=game)}
    history: list[RatingHistory] = []
    # The final result document is large, and not what rates.
    for table in tables.defer("result").prefetch_related("seats").iterator(chunk_size=500):
        history += _rate(table, ratings)
    moved = [ratings[m] for m in dict.fromkeys(row.member_id for row in history)]
    new = [rating for rating in moved if rating.pk is None]
    changed = [rating for rating in moved if rating.pk is not None]
    Rating.objects.bulk_create(new)
    Rating.objects.bulk_update(changed, ["mu", "sigma", "ordinal", "tables"])
    RatingHistory.objects.bulk_create(history, batch_size=1000)
    return [rating.member_id for rating in moved]


def _rate(table: Table, ratings: dict[int, Rating]) -> list[RatingHistory]:
    """Move the seated members' ratings (in ``ratings``, in memory) by the table's final
    places; returns the history rows to store. A guest is not rated: the members are
    rated by their places among themselves (the guest's place only leaves a gap in the
    ranks), and a table with fewer than two members rates nobody. A member who left his
    seat to a substitute is rated too, by his own result (``_with_leavers``)."""
    seats = sorted(table.seats.all(), key=lambda seat: seat.position)
    if any(seat.place is None for seat in seats):
        return []
    members = [(seat.member_id, seat.place) for seat in seats if seat.member_id is not None]
    if table.has_seat_changes:
        members = _with_leavers(table, seats)
    if len(members) < 2:
        return []
    places: list[float] = []
    current = []
    for member_id, place in members:
        places.append(place or 0)  # every seat has a place (checked above)
        rating = ratings.get(member_id)
        if rating is None:
            fresh = RATING_MODEL.rating()
            rating = Rating(
                member_id=member_id,
                game=table.game,
                mu=fresh.mu,
                sigma=fresh.sigma,
                ordinal=fresh.ordinal(),
            )
            ratings[member_id] = rating
        current.append([RATING_MODEL.create_rating([rating.mu, rating.sigma])])
    rated = RATING_MODEL.rate(current, ranks=places)
    history = []
    for (member_id, _place), (new,) in zip(members, rated, strict=True):
        rating = ratings[member_id]
        rating.mu, rating.sigma, rating.ordinal = new.mu, new.sigma, new.ordinal()
        rating.tables += 1
        history.append(
            RatingHistory(
                member_id=member_id,
                game=table.game,
                table=table,
                played_on=table.played_on,
                mu=new.mu,
                sigma=new.sigma,
                ordinal=rating.ordinal,
            )
        )
    return history


def _with_leavers(table: Table, seats: list[Seat]) -> list[tuple[int, int | None]]:
    """A table where substitutes came (docs/tournaments.md, "A substitute mid-pulka"):
    its members and the members who left a seat, each ranked by his own result among
    everyone's (1 for the best, equal results sharing a rank): a seat's player by his
    final balance, a leaver by what he settled on leaving. Those add up to zero together,
    so they are one scale; a leaver's place at the table is where his result stands
    among them. One query more, only for such a table."""
    leavers = [c for c in table.seat_changes.all() if c.member_id is not None]
    players = [(seat.member_id, seat.result) for seat in seats] + [
        (change.member_id, change.result) for change in leavers
    ]
    results = [result or 0 for _member, result in players]
    ranks = table_places(results)
    return [
        (member_id, rank)
        for (member_id, _result), rank in zip(players, ranks, strict=True)
        if member_id is not None
    ]
