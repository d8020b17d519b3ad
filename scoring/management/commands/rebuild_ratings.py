"""``manage.py rebuild_ratings``: recompute every rating from the finished tables."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from scoring.models import Rating, Table
from scoring.services import ratings_rebuild


class Command(BaseCommand):
    help = "Recompute the Preferans and Boston ratings from scratch, in date order."

    def handle(self, *args: Any, **options: Any) -> None:
        for game, label in Table.GAMES:
            ratings_rebuild(game)
            count = Rating.objects.filter(game=game).count()
            self.stdout.write(f"{label}: {count} members rated")
