"""Seasons and ratings: what standings are built from.

A finished table belongs to the season whose dates hold its date. Leaderboards aggregate
the results stored on each seat when the table finished, so they never replay deals.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.engine.errors import RuleError
from scoring.engine.standings import RANKING_KEYS, check_order
from scoring.models.tables import Table
from scoring.models.tariffs import BostonTariff, PreferansTariff


def ranking_keys(text: str) -> tuple[str, ...]:
    """``"money, average, wins"`` → ``("money", "average", "wins")``."""
    return tuple(k.strip() for k in text.split(",") if k.strip())


def validate_ranking(text: str) -> None:
    try:
        check_order(ranking_keys(text))
    except RuleError as error:
        raise ValidationError(gettext(error.template), params=error.params or None) from None


class Season(models.Model):
    """A stretch of the club's calendar with its default tariffs and ranking rules."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    starts_on = models.DateField(_("first day"))
    ends_on = models.DateField(_("last day"))
    preferans_tariff = models.ForeignKey(
        PreferansTariff,
        verbose_name=_("default Preferans tariff"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    boston_tariff = models.ForeignKey(
        BostonTariff,
        verbose_name=_("default Boston tariff"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    min_games = models.PositiveSmallIntegerField(
        _("games to qualify"),
        default=5,
        validators=[MaxValueValidator(1000)],
        help_text=_("Members with fewer finished tables are listed apart, unranked."),
    )
    table_money = models.DecimalField(
        _("table money per player and evening"),
        max_digits=9,
        decimal_places=2,
        default=Decimal(0),
        validators=[MinValueValidator(Decimal(0))],
        help_text=_("Paid to the club by each player of a club evening; 0: none."),
    )
    ranking = models.CharField(
        _("ranking order"),
        max_length=100,
        default="money, average, wins",
        validators=[validate_ranking],
        help_text=format_lazy(
            "{} {}",
            _("The first key ranks, the others break ties, e.g. money, average, wins. Keys:"),
            ", ".join(RANKING_KEYS),
        ),
    )

    class Meta:
        ordering = ("-starts_on",)
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(
                condition=Q(ends_on__gte=F("starts_on")), name="season_ends_after_it_starts"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.starts_on and self.ends_on:
            overlapping = Season.objects.exclude(pk=self.pk).filter(
                starts_on__lte=self.ends_on, ends_on__gte=self.starts_on
            )
            if overlapping.exists():
                raise ValidationError(
                    _("These dates overlap the season %(name)s: a table must belong to one season.")
                    % {"name": overlapping.first()}
                )

    @property
    def order(self) -> tuple[str, ...]:
        return ranking_keys(self.ranking)

    @property
    def is_past(self) -> bool:
        return self.ends_on < datetime.date.today()

    @classmethod
    def of_date(cls, day: datetime.date) -> Season | None:
        return cls.objects.filter(starts_on__lte=day, ends_on__gte=day).first()


class Rating(models.Model):
    """A member's current multiplayer skill rating in one game (openskill)."""

    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.CharField(max_length=10, choices=Table.GAMES)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(help_text=_("The shown rating: mu − 3 sigma."))
    tables = models.PositiveIntegerField(default=0)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("member", "game"), name="rating_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.member} {self.game} {self.ordinal:.1f}"


class RatingHistory(models.Model):
    """A member's rating after each finished table (for the chart and the rebuild)."""

    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_history"
    )
    game = models.CharField(max_length=10, choices=Table.GAMES)
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rating_history")
    played_on = models.DateField()
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()

    class Meta:
        ordering = ("member", "game", "played_on", "table_id")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("member", "table"), name="rating_history_once"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=("member", "game", "played_on"), name="rating_history_member"),
        ]

    def __str__(self) -> str:
        return f"{self.member} after {self.table}: {self.ordinal:.1f}"
