"""Seasons and ratings: what standings are built from.

A finished table belongs to the season whose dates hold its date. Leaderboards aggregate
the results stored on each seat when the table finished, so they never replay deals.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any, ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.engine.errors import RuleError
from scoring.engine.league import LeagueRule, check_league
from scoring.engine.standings import RANKING_KEYS, check_order
from scoring.engine.tournament.points import Band, PointsRule
from scoring.models.tables import Table
from scoring.models.tariffs import BostonTariff, PreferansTariff

RANKING_WORDS: dict[str, Any] = {
    "total": _("total result"),
    "money": _("total money"),
    "average": _("average result per game"),
    "wins": _("wins"),
    "rating": _("rating"),
    "best": _("best game"),
    "games": _("games played"),
}
"""The ranking keys (``RANKING_KEYS``) in words, translatable: the standings pages and
the season admin say the order with them."""


def ranking_keys(text: str) -> tuple[str, ...]:
    """``"money, average, wins"`` → ``("money", "average", "wins")``."""
    return tuple(k.strip() for k in text.split(",") if k.strip())


def validate_ranking(text: str) -> None:
    try:
        check_order(ranking_keys(text))
    except RuleError as error:
        raise ValidationError(gettext(error.template), params=error.params or None) from None


LEAGUE_NUMBER_LIMIT = Decimal(1_000_000)
"""The largest place points, band bound or share a league takes: beyond it no club's
rule makes sense, and the engine's hundredths would overflow the decimal context."""


def _number(value: Any) -> Decimal:
    """A number of a league's place points or bands; ``ValueError`` for anything else
    (text, ``true``, NaN, infinity, beyond ``LEAGUE_NUMBER_LIMIT``)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise ValueError(value)
    number = Decimal(str(value))
    if not number.is_finite() or abs(number) > LEAGUE_NUMBER_LIMIT:
        raise ValueError(value)
    return number


def _decimal(value: Any) -> Decimal | None:
    return None if value is None else _number(value)


class Season(models.Model):
    """A stretch of the club's calendar with its default tariffs and ranking rules.

    A season ranks by its ranking keys (``ranking``, from the standings totals), or, as a
    league (``league_rule``), by the points or places of its league nights' tables
    (``scoring/engine/league.py``; docs/tournaments.md, "Seasons as leagues")."""

    KEYS, RAW, BANDS, PLACES, AVERAGE_PLACE = "keys", "raw", "bands", "places", "average_place"
    LEAGUE_RULES = (
        (KEYS, _("the ranking order below (money, average, wins …)")),
        (PLACES, _("league: place points at each table")),
        (BANDS, _("league: results counted in bands (capped)")),
        (RAW, _("league: results in whists as they are")),
        (AVERAGE_PLACE, _("league: average place at the tables")),
    )
    EVENINGS, TOURNAMENTS = "evenings", "tournaments"
    NIGHTS = (
        (EVENINGS, _("the club's evenings: each evening is a night")),
        (TOURNAMENTS, _("tournaments of one tour within the season's dates")),
    )

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

    league_rule = models.CharField(_("rank by"), max_length=16, choices=LEAGUE_RULES, default=KEYS)
    league_nights = models.CharField(
        _("league nights"), max_length=12, choices=NIGHTS, default=EVENINGS
    )
    place_points = models.JSONField(
        _("place points"),
        default=list,
        blank=True,
        help_text=_("Points for the 1st, 2nd, 3rd … place at a table, e.g. [3, 2, 0]."),
    )
    sole_positive = models.DecimalField(
        _("1st place when he alone is positive"),
        max_digits=6,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("What the winner scores instead when he is the only player above zero."),
    )
    second_negative = models.DecimalField(
        _("2nd place when negative"),
        max_digits=6,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("What the 2nd place scores instead when his result is below zero."),
    )
    bands = models.JSONField(
        _("bands"),
        default=list,
        blank=True,
        help_text=_(
            "For results counted in bands: pairs [up to, share]; [[200, 1], [650, 0.1], "
            "[null, 0]] counts a result in full up to 200 whists, one in ten from 200 to "
            "650, nothing beyond. A loss is counted the same way."
        ),
    )
    best_of = models.PositiveSmallIntegerField(
        _("best nights counted"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(1000)],
        help_text=_("Count only a member's best N nights (empty: all of them)."),
    )

    class Meta:
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
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

        if self.is_league:
            numbers = "bands" if self.league_rule == self.BANDS else "place_points"
            try:
                check_league(self.league())
            except RuleError as error:
                field = numbers if error.field == "points" else error.field
                if field not in ("league_rule", "best_of", "bands", "place_points"):
                    field = "league_rule"
                message = ValidationError(gettext(error.template), params=error.params or None)
                raise ValidationError({field: message}) from None
            except (TypeError, ValueError, ArithmeticError):
                raise ValidationError(
                    {
                        numbers: _(
                            "Write numbers as the example shows: [3, 2, 0] for place points, "
                            "[[200, 1], [null, 0]] for bands."
                        )
                    }
                ) from None

    @property
    def is_league(self) -> bool:
        """Whether the season ranks as a league (not by its ranking keys)."""
        return self.league_rule != self.KEYS

    def league(self) -> LeagueRule:
        """The engine's ``LeagueRule`` of the season's columns (``TypeError`` or
        ``ValueError`` when the bands or place points are not numbers)."""
        kind = self.league_rule
        points = PointsRule(
            kind=kind if kind in (self.RAW, self.BANDS, self.PLACES) else self.RAW,
            bands=tuple(
                Band(upto=_decimal(upto), factor=_number(factor))
                for upto, factor in (self.bands or () if kind == self.BANDS else ())
            ),
            places=tuple(
                _number(p) for p in (self.place_points or () if kind == self.PLACES else ())
            ),
            sole_positive=self.sole_positive if kind == self.PLACES else None,
            second_negative=self.second_negative if kind == self.PLACES else None,
        )
        return LeagueRule(kind=kind, points=points, best_of=self.best_of)

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
