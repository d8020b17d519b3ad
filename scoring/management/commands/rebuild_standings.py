"""``manage.py rebuild_standings``: recompute the standings totals from the finished
tables."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from scoring.models import RivalTotal, StandingsTotal
from scoring.services import standings_rebuild


class Command(BaseCommand):
    help = (
        "Recompute the standings totals (leaderboards, profiles, head-to-head) from the "
        "finished tables; the result is what the finishes and reopens kept."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        standings_rebuild()
        self.stdout.write(
            f"{StandingsTotal.objects.count()} totals, "
            f"{RivalTotal.objects.count()} head-to-head lines"
        )
