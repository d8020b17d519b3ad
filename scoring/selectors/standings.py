"""Season and all-time leaderboards, from the results stored on each seat when its table
finished."""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Count, Max, Min, Q, QuerySet, Sum

from members.models import name_fields, shown_name_of
from scoring.engine.standings import Standing, rank_standings
from scoring.models import Rating, Season, Seat, Table


def finished_seats(game: str, season: Season | None = None) -> QuerySet[Seat]:
    """The members' seats of finished tables of ``game`` (in ``season``'s dates, if
    given); a guest's seat is in no leaderboard."""
    seats = Seat.objects.members_only().filter(table__game=game, table__status=Table.FINISHED)
    if season is not None:
        seats = seats.filter(table__played_on__range=(season.starts_on, season.ends_on))
    return seats


def standings(game: str, season: Season | None = None) -> tuple[list[Standing], list[Standing]]:
    """The leaderboard of ``game`` for a season (or all time): ranked members, then
    those below the season's minimum. Two queries whatever the number of tables."""
    rows = (
        finished_seats(game, season)
        .values("member_id", *name_fields("member__"))
        .annotate(
            games=Count("id"),
            total=Sum("result"),
            money=Sum("money"),
            best=Max("result"),
            worst=Min("result"),
            wins=Count("id", filter=Q(won=True)),
        )
    )
    ratings = dict(Rating.objects.filter(game=game).values_list("member_id", "ordinal"))
    lines = [
        Standing(
            member=row["member_id"],
            name=shown_name_of(row, "member__"),
            games=row["games"],
            total=row["total"],
            money=row["money"],
            best=row["best"],
            worst=row["worst"],
            wins=row["wins"],
            rating=Decimal(str(round(ratings.get(row["member_id"], 0.0), 2))),
        )
        for row in rows
    ]
    order = season.order if season is not None else ("money", "average", "wins")
    return rank_standings(lines, order, season.min_games if season is not None else 0)
