"""Season and all-time leaderboards, from the totals kept when tables finish and reopen
(``scoring/services/standings.py``), and the stamp the standings pages are cached under.

A board reads one total per member who played, never the tables themselves, so it costs
the same whatever the club's history. Its rendered rows are cached under the standings
stamp, which every change to what the pages show replaces (``standings_cached``)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from django.db import connection
from django.db.models import Subquery

from members.models import name_fields, shown_name
from scoring.engine.standings import Standing, rank_standings
from scoring.live.fragments import cached
from scoring.live.keys import standings_key
from scoring.models import Rating, Season, StandingsStamp, StandingsTotal


def standings(game: str, season: Season | None = None) -> tuple[list[Standing], list[Standing]]:
    """The leaderboard of ``game`` for a season (or all time): ranked members, then
    those below the season's minimum. Two queries: the totals (with the members' names)
    and the ratings; their rows are one per member, whatever the number of tables."""
    rows = (
        StandingsTotal.objects.filter(game=game, season=season)
        .values_list(
            "member_id",
            "tables",
            "total",
            "money",
            "best",
            "worst",
            "wins",
            *name_fields("member__"),
        )
        .order_by()
    )
    ratings = dict(Rating.objects.filter(game=game).values_list("member_id", "ordinal"))
    lines = [
        Standing(
            member=member,
            name=shown_name(*name),
            games=tables,
            total=total,
            money=money,
            best=best,
            worst=worst,
            wins=wins,
            rating=Decimal(str(round(ratings.get(member, 0.0), 2))),
        )
        for member, tables, total, money, best, worst, wins, *name in rows
    ]
    order = season.order if season is not None else ("money", "average", "wins")
    return rank_standings(lines, order, season.min_games if season is not None else 0)


# -- the cache ------------------------------------------------------------------------------


STAMP_SQL = f'SELECT "stamp" FROM "{StandingsStamp._meta.db_table}" WHERE "id" = 1'  # noqa: S608
"""The stamp's statement, whole or as a subquery of another plain-SQL read (no input)."""


def standings_stamp() -> str:
    """The standings stamp now; empty if the database has none. Every visitor's view of a
    standings page asks it (``clubsite.pages``), so it is one statement in plain SQL: the
    ORM's query took three times as long to build as to run."""
    with connection.cursor() as cursor:
        cursor.execute(STAMP_SQL)
        row = cursor.fetchone()
    return (row[0] if row else "") or ""


def stamp_column() -> Subquery:
    """The standings stamp as a column of another query (``.annotate(standings_stamp=…)``):
    a page that reads a row anyway gets the stamp without a query of its own (each costs a
    round trip, the most of a cached page's time)."""
    return Subquery(StandingsStamp.objects.filter(pk=1).values("stamp")[:1])


def standings_cached(
    stamp: str, page: str, made_from: tuple[object, ...], make: Callable[[], str]
) -> str:
    """``make()``, the ``page`` fragment kept in the cache under ``stamp`` and
    ``made_from`` (what else the text depends on: its language, the sorting):
    read again until the standings change. Without a stamp (a database that has none yet)
    nothing is kept."""
    if not stamp:
        return make()
    return cached(standings_key(stamp, page, *made_from), make)
