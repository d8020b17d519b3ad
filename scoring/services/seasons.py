"""Season writes: a new season or an edit, and deleting seasons, each with the standings
upkeep it needs in the same transaction (docs/architecture.md, Standings totals)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet

from scoring.models import Season
from scoring.services.standings import season_standings_rebuild, standings_changed


def season_save(*, season: Season) -> Season:
    """Save a new season or an edit of one (validated by the caller: the admin's form).

    A new season, or one whose dates moved, has its totals summed again from the
    finished tables its dates hold; any other edit (its name, ranking, qualification,
    default tariffs) changes only what its pages show, so only the stamp moves."""
    with transaction.atomic():
        stored = (
            Season.objects.filter(pk=season.pk).values_list("starts_on", "ends_on").first()
            if season.pk is not None
            else None
        )
        season.save()
        if stored != (season.starts_on, season.ends_on):
            season_standings_rebuild(season)
        else:
            standings_changed()
        return season


def season_delete(*, season: Season) -> None:
    """Delete a season: its totals go with it (``on_delete``), and its boards leave the
    pages."""
    seasons_delete(seasons=Season.objects.filter(pk=season.pk))


def seasons_delete(*, seasons: QuerySet[Season]) -> int:
    """Delete the seasons of a queryset (the admin's bulk delete) and move the stamp
    once; how many seasons went."""
    with transaction.atomic():
        deleted = seasons.delete()[1].get(Season._meta.label, 0)
        standings_changed()
        return deleted
