"""Standings totals: what the leaderboards, the profiles and the home page show, summed
when a table finishes and taken off again when it is reopened
(``scoring/services/standings.py``), so that reading them does not grow with the club's
history. ``manage.py rebuild_standings`` recomputes them from the seats, with identical
results."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.models.seasons import Season
from scoring.models.stamps import Stamp
from scoring.models.tables import Table


def _amount() -> models.DecimalField[Decimal, Decimal]:
    return models.DecimalField(max_digits=14, decimal_places=2, default=Decimal(0))


class StandingsTotal(models.Model):
    """A member's totals in one game over a season's finished tables (``season``), or
    over all of them (``season`` empty): the sums a leaderboard line and a profile's
    summary and statistics show."""

    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    game = models.CharField(max_length=10, choices=Table.GAMES)
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    tables = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    total = _amount()
    money = _amount()
    best = _amount()
    worst = _amount()
    stats: models.JSONField[dict[str, int], dict[str, Any]] = models.JSONField(default=dict)
    """The seats' ``stats`` counts, summed key by key."""

    class Meta:
        verbose_name = _("standings total")
        verbose_name_plural = _("standings totals")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=("season", "game", "member"),
                condition=Q(season__isnull=False),
                name="standings_total_once_a_season",
            ),
            models.UniqueConstraint(
                fields=("game", "member"),
                condition=Q(season__isnull=True),
                name="standings_total_once_all_time",
            ),
        ]

    def __str__(self) -> str:  # the admin names it when a season's deletion takes it along
        return gettext("%(game)s, member %(member)s, tables: %(tables)s") % {
            "game": self.get_game_display(),
            "member": self.member_id,
            "tables": self.tables,
        }


class RivalTotal(models.Model):
    """Head-to-head in one game: the finished tables ``member`` shared with ``rival``,
    the member's and the rival's totals there, and how often the member finished above."""

    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    rival = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=10, choices=Table.GAMES)
    tables = models.PositiveIntegerField(default=0)
    mine = _amount()
    theirs = _amount()
    above = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("head-to-head total")
        verbose_name_plural = _("head-to-head totals")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("member", "game", "rival"), name="rival_total_once"),
        ]

    def __str__(self) -> str:
        return gettext("%(game)s, member %(member)s against %(rival)s, tables: %(tables)s") % {
            "game": self.get_game_display(),
            "member": self.member_id,
            "rival": self.rival_id,
            "tables": self.tables,
        }


class StandingsStamp(Stamp):
    """One row: a fresh random ``stamp`` written by every change to what the standings
    pages show (totals, ratings, members' names), in the change's transaction. Cached
    pages are kept under it, so they never outlive a change, and a restored or new
    database (a new stamp) never meets another database's pages in a shared cache."""
