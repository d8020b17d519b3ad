"""The reads behind a member's profile: his seats (with their tables' columns the page
shows), his kept totals, the head-to-head rows, his rating history, and the version his
page is kept under. What the page makes of them (lines, statistics, charts) is
``scoring.pages.profiles``.

The totals and the head-to-head are read from the rows kept when tables finish and reopen
(``StandingsTotal``, ``RivalTotal``: a row per game, and per game and rival), so they cost
the same whatever the member's history.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Count, OuterRef, Subquery, Window
from django.db.models.functions import Coalesce, RowNumber

from members.models import Member, name_fields
from scoring import games
from scoring.models import RatingHistory, RivalTotal, Season, Seat, StandingsTotal, Table
from scoring.selectors.standings import STAMP_SQL


@dataclass(frozen=True, slots=True)
class MemberSeat:
    """A member's seat as a profile reads it: what was stored when its table finished,
    and the few columns of the table and its tariff that the page shows."""

    table_id: int
    game: str
    status: str
    played_on: datetime.date
    tariff: str
    result: Decimal | None  # whists (Preferans) or chips (Boston); None while in play
    money: Decimal | None
    won: bool
    stats: dict[str, Any] | None
    standing: str = Table.COUNTED

    @property
    def is_open(self) -> bool:
        return self.status == Table.OPEN

    @property
    def counts(self) -> bool:
        """Whether the seat's table counts in the standings (when finished)."""
        return self.standing == Table.COUNTED


def member_seats(member: Any, *, latest: int | None = None, seats: Any = None) -> list[MemberSeat]:
    """The seats the member took (of ``seats``, if given), newest table first, the
    ``latest`` few or all, with their table's game, status, date and tariff name (one
    query, plain rows: model instances for a seat, its table, tariff version and tariff
    took several times as long as the query itself)."""
    rows = (
        (seats if seats is not None else Seat.objects.all())
        .filter(member=member)
        .order_by("-table__played_on", "-table__id")
        .values_list(
            "table_id",
            "table__game",
            "table__status",
            "table__played_on",
            # The table's tariff version is of its game; the others are empty.
            Coalesce(*(f"table__{g.version_field}__tariff__name" for g in games.GAMES.values())),
            "result",
            "money",
            "won",
            "stats",
            "table__standing",
        )
    )
    return [MemberSeat(*row) for row in (rows[:latest] if latest is not None else rows)]


def finished(seats: Iterable[MemberSeat], game: str | None = None) -> list[MemberSeat]:
    """The seats of finished tables (of ``game``) that carry a stored result and count in
    the standings."""
    return [
        s
        for s in seats
        if not s.is_open and s.counts and s.result is not None and game in (None, s.game)
    ]


def member_totals(member: Any) -> dict[str, StandingsTotal]:
    """The member's all-time totals, by game (one query, a row per game played)."""
    rows = StandingsTotal.objects.filter(member=member, season=None, game__in=games.GAMES)
    return {row.game: row for row in rows}


def tables_of(member: Any) -> int:
    """How many tables the member sat at."""
    return Seat.objects.filter(member=member).count()


def seasons_listed() -> list[Season]:
    """Every season, for the profile's choice of the result chart's."""
    return list(Season.objects.all())


def rival_rows(member: Any, *, per_game: int | None = None) -> Any:
    """Head-to-head rows against the members met at a finished table, per game, most
    tables together first (then by name): every one, or the first ``per_game`` of each
    game. One query, a kept row per game and rival: the database numbers each game's rows
    and counts them (window functions), and only the rows shown are read; each carries the
    count of its game (``in_game``)."""
    by_tables = ("-tables", "rival__display_name", "rival__username")
    rows = (
        RivalTotal.objects.filter(member=member)
        .annotate(in_game=Window(Count("*"), partition_by="game"))
        .values("game", "tables", "mine", "theirs", "above", "in_game", *name_fields("rival__"))
        .order_by("game", *by_tables)
    )
    if per_game is not None:
        rank = Window(RowNumber(), partition_by="game", order_by=by_tables)
        rows = rows.annotate(rank=rank).filter(rank__lte=per_game)
    return rows


def rating_history(member: Any) -> Any:
    """The member's rating (the shown ordinal) after each rated table: rows of game,
    date and ordinal, per game in date order."""
    return (
        RatingHistory.objects.filter(member=member)
        .order_by("game", "played_on", "table_id")
        .values_list("game", "played_on", "ordinal")
    )


def page_version(username: str) -> tuple[int | None, str | None] | None:
    """What a member's page is made from besides the day: his latest seat (a new table of
    his changes it) and the standings stamp; None for no such member. Every visitor's view
    of the page asks it (``clubsite.pages``), so it is one statement in plain SQL: the ORM's
    two subqueries took ten times as long to build (1.2 ms) as to run."""
    member, seat = Member._meta.db_table, Seat._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT (SELECT "id" FROM "{seat}" WHERE "member_id" = m."id"'  # noqa: S608 - no input
            f' ORDER BY "id" DESC LIMIT 1), ({STAMP_SQL})'
            f' FROM "{member}" m WHERE m."username" = %s',
            [username],
        )
        return cursor.fetchone()  # type: ignore[no-any-return]


def latest_seat_column() -> Subquery:
    """The id of a member's latest seat, as a column of the member's query
    (``.annotate(latest_seat=…)``): it changes when he sits at a new table, which his page
    lists."""
    seats = Seat.objects.filter(member=OuterRef("pk")).order_by("-pk").values("pk")[:1]
    return Subquery(seats)


def charted_seats(member: Any, season: Season | None) -> list[MemberSeat]:
    """The member's seats at the finished tables of ``season`` (all time if None)."""
    seats = Seat.objects.filter(table__status=Table.FINISHED, table__standing=Table.COUNTED)
    if season is not None:
        seats = seats.filter(table__played_on__range=(season.starts_on, season.ends_on))
    return member_seats(member, seats=seats)


def last_results(member: Any, *, latest: int) -> list[MemberSeat]:
    """The member's ``latest`` finished tables with a stored result, newest first (one
    query)."""
    seats = Seat.objects.filter(table__status=Table.FINISHED, result__isnull=False)
    return member_seats(member, latest=latest, seats=seats)
