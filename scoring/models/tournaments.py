"""Tournaments played face to face (issue 32): the event, its field, its tours and their
tables, and the judges' penalties.

The rules — the seating of a tour, a tour's tournament points, the standings, the
formats' presets — are the engine's (``scoring/engine/tournament/``); these models keep
what the organiser chose and what was played. A tour's tables are ordinary tables
(``Table``, played on the site's usual table page) linked by ``TourTable``; each player's
result at his table, place and points are stored on his ``TourSeat`` when the tour is
closed (``services.tournaments.tour_close``), with the engine's explanation of the points.
docs/tournaments.md says it for organisers.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from scoring.engine.text import Text
from scoring.engine.tournament.formats import Cut, Format, Length
from scoring.engine.tournament.points import Band, PointsRule
from scoring.models.tables import Table
from scoring.models.tariffs import (
    BostonTariff,
    BostonTariffVersion,
    PreferansTariff,
    PreferansTariffVersion,
)


def entry_key(pk: int) -> str:
    """An entry's key for the engine: ``e`` and its id in nine digits, so that keys sort
    as the entries were made and a seed seats two fields entered alike the same way."""
    return f"e{pk:09d}"


def _member_or_guest() -> Q:
    return Q(member__isnull=False, guest__isnull=True) | Q(member__isnull=True, guest__isnull=False)


class Tournament(models.Model):
    """One competition: its name, game and tariff (the version frozen when it starts), its
    format (copied from a preset, editable while it is a draft), its judges and its field."""

    DRAFT, RUNNING, FINISHED = "draft", "running", "finished"
    STATUSES = ((DRAFT, _("draft")), (RUNNING, _("running")), (FINISHED, _("finished")))
    PRESETS = (
        ("fspr", _("Russian federation (FSPR): four at a table, played to time")),
        ("gambler", _("Gambler: Swiss, cut after tour 3, results capped")),
        ("playelephant", _("PlayElephant: fixed deals, then a final")),
        ("league_night", _("League night: one tour, place points")),
        ("custom", _("the organiser's own")),
    )
    RANDOM, SWISS, INTERVAL, SCHEDULE = "random", "swiss", "interval", "schedule"
    SEATINGS = (
        (RANDOM, _("random every tour")),
        (SWISS, _("Swiss: by the standings, avoiding repeat opponents")),
        (INTERVAL, _("interval: 1-2-3-4, then 1-3-5-7")),
        (SCHEDULE, _("a schedule published in advance, no pair meeting twice")),
    )
    POOL, DEALS, TIME = "pool", "deals", "time"
    LENGTHS = (
        (POOL, _("a pool target")),
        (DEALS, _("a fixed number of deals")),
        (TIME, _("a time limit")),
    )
    RAW, BANDS, PLACES = "raw", "bands", "places"
    POINTS = (
        (RAW, _("the result in whists as it is")),
        (BANDS, _("the result, counted in bands (caps)")),
        (PLACES, _("place points at the table")),
    )

    name = models.CharField(_("name"), max_length=200)
    game = models.CharField(_("game"), max_length=10, choices=Table.GAMES, default=Table.PREFERANS)
    played_on = models.DateField(_("date"), default=timezone.localdate)
    place = models.CharField(_("place"), max_length=200, blank=True)
    preferans_tariff = models.ForeignKey(
        PreferansTariff,
        verbose_name=_("Preferans tariff"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    boston_tariff = models.ForeignKey(
        BostonTariff,
        verbose_name=_("Boston tariff"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    # Frozen when the tournament starts: a tariff edited mid-event does not reach its tables.
    preferans_version = models.ForeignKey(
        PreferansTariffVersion,
        verbose_name=_("tariff version"),
        null=True,
        blank=True,
        editable=False,
        on_delete=models.PROTECT,
        related_name="tournaments",
    )
    boston_version = models.ForeignKey(
        BostonTariffVersion,
        verbose_name=_("tariff version"),
        null=True,
        blank=True,
        editable=False,
        on_delete=models.PROTECT,
        related_name="tournaments",
    )
    status = models.CharField(
        _("status"), max_length=10, choices=STATUSES, default=DRAFT, editable=False
    )
    seed = models.PositiveIntegerField(
        _("seed"),
        null=True,
        blank=True,
        help_text=_("The seating of every tour is drawn from it: the same seed, the same seats."),
    )
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("organiser"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    judges = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("judges"),
        blank=True,
        related_name="judged_tournaments",
    )
    # The format, copied from a preset (scoring/engine/tournament/formats.py, PRESETS).
    preset = models.CharField(_("format"), max_length=20, choices=PRESETS, default="custom")
    tours = models.PositiveSmallIntegerField(
        _("tours"), default=3, validators=[MinValueValidator(1), MaxValueValidator(30)]
    )
    seating = models.CharField(_("seating"), max_length=10, choices=SEATINGS, default=SWISS)
    table_size = models.PositiveSmallIntegerField(
        _("table size"),
        choices=((4, _("four at a table, the dealer sits out")), (3, _("three at a table"))),
        default=4,
    )
    length = models.CharField(_("a tour lasts"), max_length=10, choices=LENGTHS, default=POOL)
    pool_target = models.PositiveIntegerField(
        _("pool target"), default=10, validators=[MinValueValidator(1), MaxValueValidator(1000)]
    )
    deals = models.PositiveSmallIntegerField(
        _("deals"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(200)],
        help_text=_("The number of deals in a tour (a fixed length), or the most it may have."),
    )
    minutes = models.PositiveSmallIntegerField(
        _("minutes"),
        null=True,
        blank=True,
        validators=[MinValueValidator(10), MaxValueValidator(600)],
        help_text=_("A tour played to time: the control time comes after this many minutes."),
    )
    points = models.CharField(_("tournament points"), max_length=10, choices=POINTS, default=RAW)
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
    best_of = models.PositiveSmallIntegerField(
        _("best tours counted"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Count only a player's best N tours (empty: all of them)."),
    )
    interval = models.PositiveSmallIntegerField(
        _("interval step"),
        default=2,
        validators=[MinValueValidator(1), MaxValueValidator(10)],
        help_text=_("For interval seating: 1 seats 1-2-3-4 together, 2 seats 1-3-5-7."),
    )
    cut_after = models.PositiveSmallIntegerField(
        _("cut after tour"), null=True, blank=True, validators=[MinValueValidator(1)]
    )
    cut_to = models.PositiveSmallIntegerField(
        _("players who go on"), null=True, blank=True, validators=[MinValueValidator(3)]
    )
    final_deals = models.PositiveSmallIntegerField(
        _("deals of each tour after the cut"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
    )
    cut_carry = models.BooleanField(
        _("finalists keep their points"),
        default=True,
        help_text=_("Off: the standings after the cut start again from zero."),
    )
    yellow_below = models.DecimalField(
        _("yellow card below"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("A tour result worse than this (in whists) earns a yellow card."),
    )
    cards_to_disqualify = models.PositiveSmallIntegerField(
        _("yellow cards that disqualify"), default=2, validators=[MinValueValidator(1)]
    )
    bye_points = models.DecimalField(
        _("points of a bye"), max_digits=8, decimal_places=2, default=0
    )
    timeout_scores_zero = models.BooleanField(
        _("a table stopped by the time scores 0"), default=False
    )
    # Provisional, then final (issue 32, item 6): not part of the engine's format (it is
    # about time on the club's clock, not about points), so a preset leaves it as it is.
    correction_minutes = models.PositiveSmallIntegerField(
        _("correction window, minutes"),
        default=10,
        validators=[MaxValueValidator(1440)],
        help_text=_(
            "A finished table of a tour is provisional until every member seated at it "
            "confirms its result, or until this many minutes have passed since it finished; "
            "then it is final and only a judge reopens it, with a reason. 0: only the "
            "players' confirmation (or a judge's) makes it final."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True, editable=False)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ("-played_on", "-id")
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(
                condition=Q(boston_tariff__isnull=True, boston_version__isnull=True)
                | Q(game="boston", preferans_tariff__isnull=True, preferans_version__isnull=True),
                name="tournament_tariff_of_its_game",
            ),
            models.CheckConstraint(
                condition=Q(table_size__in=(3, 4)), name="tournament_table_size"
            ),
            models.CheckConstraint(
                condition=Q(status="draft")
                | Q(preferans_version__isnull=False)
                | Q(boston_version__isnull=False),
                name="tournament_started_frozen",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def tariff(self) -> PreferansTariff | BostonTariff | None:
        return self.preferans_tariff if self.game == Table.PREFERANS else self.boston_tariff

    @property
    def version(self) -> PreferansTariffVersion | BostonTariffVersion | None:
        """The frozen tariff version (``None`` while a draft)."""
        return self.preferans_version or self.boston_version

    @property
    def is_draft(self) -> bool:
        return self.status == self.DRAFT

    @property
    def is_running(self) -> bool:
        return self.status == self.RUNNING


class Entry(models.Model):
    """A player in a tournament's field: a member or a guest (exactly one), checked in
    on the day, and withdrawn or disqualified when he is."""

    PLAYING, WITHDRAWN, DISQUALIFIED = "playing", "withdrawn", "disqualified"
    STATUSES = (
        (PLAYING, _("playing")),
        (WITHDRAWN, _("withdrawn")),
        (DISQUALIFIED, _("disqualified")),
    )

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("member"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="entries",
    )
    guest = models.ForeignKey(
        "scoring.Guest",
        verbose_name=_("guest"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="entries",
    )
    checked_in = models.BooleanField(_("checked in"), default=False)
    status = models.CharField(_("status"), max_length=12, choices=STATUSES, default=PLAYING)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("tournament", "id")
        verbose_name = _("entry")
        verbose_name_plural = _("the field")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tournament", "member"), name="entry_member_once"),
            models.UniqueConstraint(fields=("tournament", "guest"), name="entry_guest_once"),
            models.CheckConstraint(condition=_member_or_guest(), name="entry_member_or_guest"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def player(self) -> Any:
        """The member or the guest (each has a ``name``)."""
        return self.member if self.member_id is not None else self.guest

    @property
    def name(self) -> str:
        player = self.player
        return str(player.name) if player is not None else ""

    @property
    def key(self) -> str:
        return entry_key(self.pk)

    @property
    def is_playing(self) -> bool:
        return self.status == self.PLAYING


class Tour(models.Model):
    """One tour: its number, the seed its seating was drawn from, its length, and whether
    its results are provisional (in play, or closed and open to correction) or locked."""

    PROVISIONAL, LOCKED = "provisional", "locked"
    STATUSES = ((PROVISIONAL, _("provisional")), (LOCKED, _("locked")))

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tour_set")
    number = models.PositiveSmallIntegerField(validators=[MinValueValidator(1)])
    seed = models.PositiveIntegerField(_("seed of the seating"))
    is_final = models.BooleanField(_("the final"), default=False)
    length = models.CharField(max_length=10, choices=Tournament.LENGTHS)
    pool_target = models.PositiveIntegerField(null=True, blank=True)
    deals = models.PositiveSmallIntegerField(null=True, blank=True)
    minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    status = models.CharField(_("status"), max_length=12, choices=STATUSES, default=PROVISIONAL)
    seated_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("tournament", "number")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tournament", "number"), name="tour_number_once"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.number}"

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None


class TourTable(models.Model):
    """A table of a tour: its number in the tour and the ordinary table played at it."""

    tour = models.ForeignKey(Tour, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField(validators=[MinValueValidator(1)])
    table = models.OneToOneField(Table, on_delete=models.PROTECT, related_name="tour_link")
    extra_minutes = models.PositiveSmallIntegerField(_("extra time, minutes"), default=0)

    class Meta:
        ordering = ("tour", "number")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tour", "number"), name="tour_table_number_once"),
        ]

    def __str__(self) -> str:
        return f"{self.tour}: {self.number}"


class TourSeat(models.Model):
    """Where an entry played a tour (a seat of one of its tables, or a bye: no table), and,
    once the tour is closed, his result at the table, his place there and his tournament
    points, with the engine's words for how they were counted (``calc``)."""

    tour = models.ForeignKey(Tour, on_delete=models.CASCADE, related_name="seats")
    table = models.ForeignKey(
        TourTable, null=True, blank=True, on_delete=models.CASCADE, related_name="seats"
    )
    # A tournament deletes with its field and tours at once (an empty club, a draft thrown
    # away); the admin lets an entry go only while the tournament is a draft.
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    result = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    calc = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ("tour", "table", "position")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tour", "entry"), name="tour_seat_once"),
            models.CheckConstraint(
                condition=Q(table__isnull=True, position__isnull=True)
                | Q(table__isnull=False, position__isnull=False, position__lte=3),
                name="tour_seat_bye_or_seat",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tour}: {self.entry}"

    @property
    def is_bye(self) -> bool:
        return self.table_id is None


class Penalty(models.Model):
    """A judge's decision about a player: a warning, a yellow card, points taken off, or a
    disqualification, with its reason; visible to all, and reversed (never deleted) by a
    judge, who says why.

    The judges' decision at a tied cut is kept here too, as the tournament's one history
    of the judges' decisions: a ``CUT`` row for each tied player they let go on (no points,
    no card; ``services.tournaments.cut_decide``), reversed together."""

    WARNING, YELLOW, POINTS, DISQUALIFICATION = "warning", "yellow", "points", "disqualify"
    CUT = "cut"
    GIVEN = (
        (WARNING, _("warning")),
        (YELLOW, _("yellow card")),
        (POINTS, _("points off")),
        (DISQUALIFICATION, _("disqualification")),
    )
    """The categories a judge gives as a penalty (the penalty form's)."""
    CATEGORIES = (*GIVEN, (CUT, _("goes on by the judges' decision at a tied cut")))

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="penalties")
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="penalties")
    tour = models.ForeignKey(
        Tour, null=True, blank=True, on_delete=models.CASCADE, related_name="penalties"
    )
    category = models.CharField(_("category"), max_length=12, choices=CATEGORIES)
    reason = models.CharField(_("reason"), max_length=500)
    points = models.DecimalField(
        _("points"), max_digits=14, decimal_places=2, default=0, help_text=_("Taken off the total.")
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)
    reversed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    reversed_at = models.DateTimeField(null=True, blank=True)
    reversal_reason = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ("tournament", "at", "id")
        verbose_name = _("penalty")
        verbose_name_plural = _("penalties")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(condition=Q(points__gte=0), name="penalty_points_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.entry}: {self.get_category_display()}"

    @property
    def in_force(self) -> bool:
        return self.reversed_at is None


FORMAT_FIELDS = (
    "tours",
    "seating",
    "table_size",
    "length",
    "pool_target",
    "deals",
    "minutes",
    "points",
    "bands",
    "place_points",
    "sole_positive",
    "second_negative",
    "best_of",
    "interval",
    "cut_after",
    "cut_to",
    "final_deals",
    "cut_carry",
    "yellow_below",
    "cards_to_disqualify",
    "bye_points",
    "timeout_scores_zero",
)
"""The columns a preset fills in and the organiser may edit until the tournament starts."""


def _decimal(value: Any) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def tournament_format(tournament: Tournament) -> Format:
    """The engine's ``Format`` of ``tournament``'s columns (``RuleError`` when they cannot
    work together). Tour 1 is drawn at random unless the seating is a schedule."""
    first = Tournament.SCHEDULE if tournament.seating == Tournament.SCHEDULE else Tournament.RANDOM
    seating = (first,) + (tournament.seating,) * (tournament.tours - 1)
    cut = None
    if tournament.cut_after is not None and tournament.cut_to is not None:
        cut = Cut(
            after=tournament.cut_after,
            keep=tournament.cut_to,
            deals=tournament.final_deals,
            carry=tournament.cut_carry,
        )
    return Format(
        name=tournament.preset,
        tours=tournament.tours,
        seating=seating,
        length=Length(
            kind=tournament.length,
            pool=tournament.pool_target if tournament.length == Tournament.POOL else None,
            deals=tournament.deals,
            minutes=tournament.minutes,
        ),
        points=PointsRule(
            kind=tournament.points,
            bands=tuple(
                Band(upto=_decimal(upto), factor=Decimal(str(factor)))
                for upto, factor in tournament.bands or ()
            ),
            places=tuple(Decimal(str(p)) for p in tournament.place_points or ()),
            sole_positive=tournament.sole_positive,
            second_negative=tournament.second_negative,
        ),
        best_of=tournament.best_of,
        cut=cut,
        table_size=tournament.table_size,
        interval=tournament.interval,
        yellow_below=tournament.yellow_below,
        cards_to_disqualify=tournament.cards_to_disqualify,
        bye_points=tournament.bye_points,
        timeout_scores_zero=tournament.timeout_scores_zero,
        game=tournament.game,
    )


def format_columns(fmt: Format) -> dict[str, Any]:
    """The columns that hold ``fmt`` (a preset copied into a tournament). The seating of
    the tours after the first is kept; a preset that changes it later (a schedule, then
    Swiss) keeps its second tour's."""
    later = fmt.seating[1] if len(fmt.seating) > 1 else fmt.seating[0]
    cut = fmt.cut
    return {
        "tours": fmt.tours,
        "seating": later,
        "table_size": fmt.table_size,
        "length": fmt.length.kind,
        "pool_target": fmt.length.pool or 10,
        "deals": fmt.length.deals,
        "minutes": fmt.length.minutes,
        "points": fmt.points.kind,
        "bands": [
            [None if b.upto is None else _plain(b.upto), _plain(b.factor)] for b in fmt.points.bands
        ],
        "place_points": [_plain(p) for p in fmt.points.places],
        "sole_positive": fmt.points.sole_positive,
        "second_negative": fmt.points.second_negative,
        "best_of": fmt.best_of,
        "interval": fmt.interval,
        "cut_after": cut.after if cut else None,
        "cut_to": cut.keep if cut else None,
        "final_deals": cut.deals if cut else None,
        "cut_carry": cut.carry if cut else True,
        "yellow_below": fmt.yellow_below,
        "cards_to_disqualify": fmt.cards_to_disqualify,
        "bye_points": fmt.bye_points,
        "timeout_scores_zero": fmt.timeout_scores_zero,
    }


def _plain(number: Decimal) -> int | float:
    """A number as JSON keeps it: whole numbers as integers."""
    return int(number) if number == number.to_integral_value() else float(number)


def text_to_json(text: Any) -> Any:
    """An engine ``Text`` (an explanation) as JSON the site can store and translate later:
    its template and parameters, numbers kept as numbers (``{"d": "1.5"}``)."""
    if isinstance(text, Text):
        return {"t": text.template, "p": {k: text_to_json(v) for k, v in text.params.items()}}
    if isinstance(text, Decimal):
        return {"d": str(text)}
    return text


def text_from_json(data: Any) -> Any:
    """The ``Text`` ``text_to_json`` stored (a plain value as it is)."""
    if isinstance(data, dict) and "t" in data:
        return Text(data["t"], **{k: text_from_json(v) for k, v in data.get("p", {}).items()})
    if isinstance(data, dict) and "d" in data:
        return Decimal(data["d"])
    return data
