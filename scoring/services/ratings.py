"""Ratings: each finished table moves its members' Plackett–Luce ratings by their places."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from openskill.models import PlackettLuce

from scoring.models import Rating, RatingHistory, Table

RATING_MODEL = PlackettLuce()


def ratings_after_finish(table: Table) -> None:
    """Rate a newly finished table; if it is not the latest finished table of its game
    (an imported past game, a re-finished one), rebuild that game's ratings instead, so
    the ratings are always those of the tables in date order."""
    later = Table.objects.filter(game=table.game, status=Table.FINISHED).filter(
        Q(played_on__gt=table.played_on) | Q(played_on=table.played_on, pk__gt=table.pk)
    )
    if later.exists() or RatingHistory.objects.filter(table=table).exists():
        ratings_rebuild(table.game)
        return
    ratings = {r.member_id: r for r in Rating.objects.filter(game=table.game)}
    history = _rate(table, ratings)
    for entry in history:
        ratings[entry.member_id].save()
    RatingHistory.objects.bulk_create(history)


def ratings_rebuild(game: str) -> None:
    """Recompute a game's ratings from scratch over its finished tables in date order."""
    with transaction.atomic():
        Rating.objects.filter(game=game).delete()
        RatingHistory.objects.filter(game=game).delete()
        ratings: dict[int, Rating] = {}
        history: list[RatingHistory] = []
        tables = (
            Table.objects.filter(game=game, status=Table.FINISHED)
            .order_by("played_on", "pk")
            .defer("result")  # the final result document: large, and not what rates
            .prefetch_related("seats")
        )
        for table in tables.iterator(chunk_size=500):
            history += _rate(table, ratings)
        Rating.objects.bulk_create(ratings.values())
        RatingHistory.objects.bulk_create(history, batch_size=1000)


def _rate(table: Table, ratings: dict[int, Rating]) -> list[RatingHistory]:
    """Move the seated members' ratings (in ``ratings``, in memory) by the table's final
    places; returns the history rows to store."""
    seats = sorted(table.seats.all(), key=lambda seat: seat.position)
    places: list[float] = []
    for seat in seats:
        if seat.place is None:
            return []
        places.append(seat.place)
    current = []
    for seat in seats:
        rating = ratings.get(seat.member_id)
        if rating is None:
            fresh = RATING_MODEL.rating()
            rating = Rating(
                member_id=seat.member_id,
                game=table.game,
                mu=fresh.mu,
                sigma=fresh.sigma,
                ordinal=fresh.ordinal(),
            )
            ratings[seat.member_id] = rating
        current.append([RATING_MODEL.create_rating([rating.mu, rating.sigma])])
    rated = RATING_MODEL.rate(current, ranks=places)
    history = []
    for seat, (new,) in zip(seats, rated, strict=True):
        rating = ratings[seat.member_id]
        rating.mu, rating.sigma, rating.ordinal = new.mu, new.sigma, new.ordinal()
        rating.tables += 1
        history.append(
            RatingHistory(
                member_id=seat.member_id,
                game=table.game,
                table=table,
                played_on=table.played_on,
                mu=new.mu,
                sigma=new.sigma,
                ordinal=rating.ordinal,
            )
        )
    return history
