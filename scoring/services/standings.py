"""Standings totals: kept in step with the finished tables, in the same transaction as
the finish or reopen that changes them, and rebuilt from the seats on demand.

A finish adds its seats to each member's totals (all time, and every season whose dates
hold the table's date) and to the head-to-head of every pair at the table; a reopen takes
them off again before its seats are emptied. Everything summed is a count or an exact
decimal, so taking off is exact; only a best or worst game that leaves is looked up again
among the member's other tables. ``standings_rebuild`` computes the same rows from
scratch (``manage.py rebuild_standings``; a restored backup; the migration that brought
the totals), and the tests check that, after any mix of finishes, reopens and imports,
the kept rows equal a rebuild.

Every change to what the standings pages show also writes a fresh ``StandingsStamp``
(``standings_changed``): the pages are cached under it (``scoring/selectors/standings.py``).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import groupby
from typing import Any

from django.db import transaction
from django.db.models import Max, Min, Q
from django.urls import reverse
from django.utils import timezone

from clubsite.pages import warm
from members.models import Member
from scoring.models import (
    RivalTotal,
    Season,
    Seat,
    SeatChange,
    StandingsStamp,
    StandingsTotal,
    Table,
)
from scoring.services import locking

ALL_TIME = None
"""The scope of the all-time totals (no season)."""


@dataclass(frozen=True, slots=True)
class FinishedSeat:
    """What a seat of a finished table adds to the totals."""

    table_id: int
    game: str
    played_on: datetime.date
    member_id: int
    result: Decimal | None
    money: Decimal | None
    won: bool
    place: int | None
    stats: dict[str, Any]


SEAT_COLUMNS = (
    "table_id",
    "table__game",
    "table__played_on",
    "member_id",
    "result",
    "money",
    "won",
    "place",
    "stats",
)


def _seats(seats: Any) -> list[FinishedSeat]:
    return [
        FinishedSeat(*row)
        for row in seats.order_by("table_id", "position").values_list(*SEAT_COLUMNS)
    ]


def _leavers(changes: Any) -> dict[int, list[FinishedSeat]]:
    """The members who left a seat to a substitute (``SeatChange``), by table: each counts
    the table once, with what he settled on leaving, no place and no win (he did not
    finish it), and the statistics of the deals he played there (docs/tournaments.md)."""
    found: dict[int, list[FinishedSeat]] = {}
    rows = changes.filter(member__isnull=False).order_by("table_id", "after_sequence", "id")
    for table_id, game, played_on, member_id, result, money, stats in rows.values_list(
        "table_id", "table__game", "table__played_on", "member_id", "result", "money", "stats"
    ):
        leaver = FinishedSeat(
            table_id, game, played_on, member_id, result, money, False, None, stats
        )
        found.setdefault(table_id, []).append(leaver)
    return found


def _with_leavers(table: Table, seats: list[FinishedSeat]) -> list[FinishedSeat]:
    """``table``'s members' seats and, where a substitute came, its leavers (a query only
    then)."""
    if not table.has_seat_changes:
        return seats
    return seats + _leavers(SeatChange.objects.filter(table=table)).get(table.pk, [])


# -- the sums -------------------------------------------------------------------------------


def _add_counts(counts: dict[str, int], stats: dict[str, Any], sign: int) -> None:
    """Sum a seat's ``stats`` counts into ``counts`` (what the profile's statistics
    count: integer values). A count that comes to zero leaves, as if never counted."""
    for key, value in stats.items():
        if isinstance(value, int):
            total = counts.get(key, 0) + sign * int(value)
            if total:
                counts[key] = total
            else:
                counts.pop(key, None)


def _add_seat(row: StandingsTotal, seat: FinishedSeat, sign: int) -> None:
    """Add (``sign`` 1) or take off (-1) one seat to a member's totals. A best or worst
    game taken off is not known here: ``_refresh_extremes`` looks it up again."""
    first = row.tables == 0
    row.tables += sign
    row.wins += sign * seat.won
    row.money += sign * (seat.money or 0)
    if seat.result is not None:
        row.total += sign * seat.result
        if sign > 0:
            row.best = seat.result if first else max(row.best, seat.result)
            row.worst = seat.result if first else min(row.worst, seat.result)
    _add_counts(row.stats, seat.stats or {}, sign)


def _add_pair(row: RivalTotal, mine: FinishedSeat, theirs: FinishedSeat, sign: int) -> None:
    row.tables += sign
    row.mine += sign * (mine.result or 0)
    row.theirs += sign * (theirs.result or 0)
    row.above += sign * (
        mine.place is not None and theirs.place is not None and mine.place < theirs.place
    )


def _pairs(seats: list[FinishedSeat]) -> Iterator[tuple[FinishedSeat, FinishedSeat]]:
    """Every ordered pair of different members at one table."""
    for mine in seats:
        for theirs in seats:
            if theirs.member_id != mine.member_id:
                yield mine, theirs


def _seasons_of(day: datetime.date, seasons: Iterable[Season]) -> list[int]:
    return [s.pk for s in seasons if s.starts_on <= day <= s.ends_on]


# -- a finish, a reopen ---------------------------------------------------------------------


def standings_after_finish(table: Table) -> None:
    """Add a table that has just finished (its seats hold their results) to the totals."""
    seats = _seats(Seat.objects.members_only().filter(table=table))
    _apply(table, _with_leavers(table, seats), sign=1)


def standings_before_reopen(table: Table) -> None:
    """Take a finished table off the totals, before its reopen empties its seats."""
    seats = _seats(Seat.objects.members_only().filter(table=table))
    _apply(table, _with_leavers(table, seats), sign=-1)


def _apply(table: Table, seats: list[FinishedSeat], *, sign: int) -> None:
    with transaction.atomic():
        _one_writer_at_a_time()
        day = table.played_on
        seasons = Season.objects.filter(starts_on__lte=day, ends_on__gte=day)
        scopes = [ALL_TIME, *seasons.values_list("pk", flat=True)]
        _apply_totals(table, seats, scopes, sign)
        _apply_rivals(table, seats, sign)
        standings_changed()


def _apply_totals(
    table: Table, seats: list[FinishedSeat], scopes: list[int | None], sign: int
) -> None:
    members = [seat.member_id for seat in seats]
    in_scope = Q(season__isnull=True) | Q(season_id__in=[s for s in scopes if s is not None])
    kept = {
        (row.season_id, row.member_id): row
        for row in StandingsTotal.objects.filter(in_scope, game=table.game, member_id__in=members)
    }
    changed = []
    for scope in scopes:
        for seat in seats:
            row = kept.get((scope, seat.member_id)) or StandingsTotal(
                season_id=scope, game=table.game, member_id=seat.member_id, stats={}
            )
            _add_seat(row, seat, sign)
            if sign < 0 and row.tables and seat.result in (row.best, row.worst):
                _refresh_extremes(row, table)
            changed.append(row)
    _write(StandingsTotal, changed, ["tables", "wins", "total", "money", "best", "worst", "stats"])


def _refresh_extremes(row: StandingsTotal, leaving: Table) -> None:
    """The best and worst game of ``row``'s member and scope without the table leaving."""
    seats = Seat.objects.filter(
        member_id=row.member_id,
        table__game=row.game,
        table__status=Table.FINISHED,
        table__standing=Table.COUNTED,
    ).exclude(table=leaving)
    if row.season_id is not None:
        season = Season.objects.get(pk=row.season_id)
        seats = seats.filter(table__played_on__range=(season.starts_on, season.ends_on))
    found = seats.aggregate(best=Max("result"), worst=Min("result"))
    row.best = found["best"] if found["best"] is not None else Decimal(0)
    row.worst = found["worst"] if found["worst"] is not None else Decimal(0)


def _apply_rivals(table: Table, seats: list[FinishedSeat], sign: int) -> None:
    members = [seat.member_id for seat in seats]
    kept = {
        (row.member_id, row.rival_id): row
        for row in RivalTotal.objects.filter(
            game=table.game, member_id__in=members, rival_id__in=members
        )
    }
    changed = []
    for mine, theirs in _pairs(seats):
        row = kept.get((mine.member_id, theirs.member_id)) or RivalTotal(
            member_id=mine.member_id, rival_id=theirs.member_id, game=table.game
        )
        _add_pair(row, mine, theirs, sign)
        changed.append(row)
    _write(RivalTotal, changed, ["tables", "mine", "theirs", "above"])


def _write(model: Any, rows: list[Any], fields: list[str]) -> None:
    """Store changed rows: new ones inserted, emptied ones (no tables left) deleted."""
    model.objects.filter(pk__in=[row.pk for row in rows if row.pk and not row.tables]).delete()
    model.objects.bulk_update([row for row in rows if row.pk and row.tables], fields)
    model.objects.bulk_create([row for row in rows if not row.pk and row.tables])


def _one_writer_at_a_time() -> None:
    """Writers of the totals take turns until their transaction ends, so that none adds
    to rows another has read and not yet written."""
    locking.take_turns("scoring.standings")


# -- the stamp --------------------------------------------------------------------------------


def standings_changed() -> None:
    """Something the standings pages show has changed: a new stamp, so that no page
    cached under the old one is served again (call it inside the change's transaction)."""
    StandingsStamp.renew()


def standings_pages_made(*, game: str, members: Iterable[int] = ()) -> int:
    """The pages of ``game``'s standings a reader opens first (this season's board and
    the all-time one) and the profiles of ``members``, made and kept as visitors and
    members get them (``clubsite.pages.warm``), under the standings stamp now: the first
    reader after a finish reads them rather than making them (a board took ×600 the bare
    view to make, docs/performance.md). Returns how many pages were made (two languages
    each)."""
    paths = [reverse("scoring:standings", args=[game])]
    season = Season.of_date(timezone.localdate())
    if season is not None:
        paths.insert(0, reverse("scoring:season_standings", args=[season.pk, game]))
    usernames = Member.objects.filter(pk__in=list(members)).values_list("username", flat=True)
    paths += [reverse("members:detail", args=[username]) for username in usernames]
    return warm(paths)


# -- from scratch -----------------------------------------------------------------------------


@dataclass
class _Rebuild:
    """Totals summed from scratch over finished seats, in memory until written."""

    seasons: list[Season]
    totals: dict[tuple[int | None, str, int], StandingsTotal] = field(default_factory=dict)
    rivals: dict[tuple[int, int, str], RivalTotal] = field(default_factory=dict)

    def add_table(self, seats: list[FinishedSeat], *, all_time: bool = True) -> None:
        first = seats[0]
        scopes: list[int | None] = [ALL_TIME] if all_time else []
        scopes += _seasons_of(first.played_on, self.seasons)
        for scope in scopes:
            for seat in seats:
                key = (scope, seat.game, seat.member_id)
                row = self.totals.get(key)
                if row is None:
                    row = self.totals[key] = StandingsTotal(
                        season_id=scope, game=seat.game, member_id=seat.member_id, stats={}
                    )
                _add_seat(row, seat, 1)
        if all_time:
            for mine, theirs in _pairs(seats):
                pair = (mine.member_id, theirs.member_id, mine.game)
                rival = self.rivals.get(pair)
                if rival is None:
                    rival = self.rivals[pair] = RivalTotal(
                        member_id=mine.member_id, rival_id=theirs.member_id, game=mine.game
                    )
                _add_pair(rival, mine, theirs, 1)


def _by_table(seats: Any) -> Iterator[list[FinishedSeat]]:
    rows = (
        FinishedSeat(*row)
        for row in seats.order_by("table_id", "position")
        .values_list(*SEAT_COLUMNS)
        .iterator(chunk_size=5000)
    )
    for _table, group in groupby(rows, key=lambda seat: seat.table_id):
        yield list(group)


def standings_rebuild() -> None:
    """Every total and head-to-head recomputed from the seats of the finished tables."""
    with transaction.atomic():
        _one_writer_at_a_time()
        rebuild = _Rebuild(list(Season.objects.all()))
        counted = Seat.objects.members_only().filter(
            table__status=Table.FINISHED, table__standing=Table.COUNTED
        )
        leavers = _leavers(
            SeatChange.objects.filter(table__status=Table.FINISHED, table__standing=Table.COUNTED)
        )
        for seats in _by_table(counted):
            rebuild.add_table(seats + leavers.get(seats[0].table_id, []))
        StandingsTotal.objects.all().delete()
        RivalTotal.objects.all().delete()
        StandingsTotal.objects.bulk_create(rebuild.totals.values(), batch_size=2000)
        RivalTotal.objects.bulk_create(rebuild.rivals.values(), batch_size=2000)
        standings_changed()


def season_standings_rebuild(season: Season) -> None:
    """A season's totals recomputed (it is new, or its dates changed)."""
    with transaction.atomic():
        _one_writer_at_a_time()
        rebuild = _Rebuild([season])
        seats = Seat.objects.members_only().filter(
            table__status=Table.FINISHED,
            table__standing=Table.COUNTED,
            table__played_on__range=(season.starts_on, season.ends_on),
        )
        leavers = _leavers(
            SeatChange.objects.filter(
                table__status=Table.FINISHED,
                table__standing=Table.COUNTED,
                table__played_on__range=(season.starts_on, season.ends_on),
            )
        )
        for table_seats in _by_table(seats):
            rebuild.add_table(
                table_seats + leavers.get(table_seats[0].table_id, []), all_time=False
            )
        StandingsTotal.objects.filter(season=season).delete()
        StandingsTotal.objects.bulk_create(rebuild.totals.values(), batch_size=2000)
        standings_changed()
