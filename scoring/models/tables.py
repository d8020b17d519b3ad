"""Tables: a Preferans pulka or a Boston table, its seats, its deal log and its history.

Deals are stored as they appear in the game record (game-format.md), so a table's log is
its export and the engine replays it directly. Nothing computed is stored while a table is
in play; the final settlement is kept when it finishes, for standings.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any, ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from scoring.engine.boston import SUITS
from scoring.engine.preferans.pulka import MAX_CONTROL_TIME_DEAL
from scoring.models.tariffs import BostonTariffVersion, PreferansTariffVersion
from scoring.models.vocabulary import SUIT_NAMES

EARLIEST_PLAYED_ON = datetime.date(2000, 1, 1)
"""The earliest date a table may have been played on, when imported (a record, a backup)."""


def latest_played_on() -> datetime.date:
    """The latest date an imported table may have: a year from today. A table dated far
    in the future would sort after every other, so each later finish would rebuild every
    rating (issue 19)."""
    today = timezone.localdate()
    try:
        return today.replace(year=today.year + 1)
    except ValueError:  # 29 February
        return today.replace(year=today.year + 1, day=28)


def validate_played_on(value: datetime.date) -> None:
    """``ValidationError`` unless ``value`` is between ``EARLIEST_PLAYED_ON`` and
    ``latest_played_on()``: the one range for the dates of imported tables (the import
    page, ``services.table_import``, ``import_club``)."""
    latest = latest_played_on()
    if not EARLIEST_PLAYED_ON <= value <= latest:
        raise ValidationError(
            _("the date must be between %(earliest)s and %(latest)s"),
            code="played_on",
            params={"earliest": EARLIEST_PLAYED_ON.isoformat(), "latest": latest.isoformat()},
        )


CLOCK_WINDOW = datetime.timedelta(hours=12)
"""How long after its control time a table's deals are still marked by the clock."""


def validate_recorded_at(value: datetime.datetime) -> None:
    """``ValidationError`` unless ``value`` falls on a day ``validate_played_on`` accepts,
    in the club's time zone: the range for when an imported row was written (a backup's
    ``opened_at``, ``created_at``, ``at``, ``date_joined`` …). A moment in year 9999 (or 1)
    is no time the club met, and a page showing it in local time fails (issue 19)."""
    zone = timezone.get_current_timezone()
    earliest = datetime.datetime.combine(EARLIEST_PLAYED_ON, datetime.time.min, zone)
    latest = datetime.datetime.combine(latest_played_on(), datetime.time.max, zone)
    if timezone.is_naive(value):  # as Django will store it: in the club's time zone
        value = value.replace(tzinfo=zone)
    if not earliest <= value <= latest:
        raise ValidationError(
            _("the time must be between %(earliest)s and %(latest)s"),
            code="recorded_at",
            params={"earliest": earliest.date().isoformat(), "latest": latest.date().isoformat()},
        )


class Table(models.Model):
    """A game at the club: the seed sheet's centre fields plus the tariff version."""

    PREFERANS, BOSTON = "preferans", "boston"
    GAMES = ((PREFERANS, _("Preferans")), (BOSTON, _("Boston")))
    PREFERENCE_SUITS = tuple((suit, SUIT_NAMES[suit]) for suit in SUITS)
    OPEN, FINISHED = "open", "finished"
    STATUSES = ((OPEN, _("in play")), (FINISHED, _("finished")))
    # Whether a finished table counts in the standings (the totals, ratings, profiles'
    # statistics; docs/permissions.md, "What counts in the standings"): an imported record
    # awaits acceptance, and a table an organiser closes early counts only if he says so.
    COUNTED, PENDING, REJECTED, LEFT_OUT = "counted", "pending", "rejected", "left_out"
    STANDINGS = (
        (COUNTED, _("counts in the standings")),
        (PENDING, _("awaiting acceptance")),
        (REJECTED, _("rejected: not counted")),
        (LEFT_OUT, _("closed early: not counted")),
    )

    game = models.CharField(_("game"), max_length=10, choices=GAMES)
    preferans_version = models.ForeignKey(
        PreferansTariffVersion,
        verbose_name=_("tariff"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="tables",
    )
    boston_version = models.ForeignKey(
        BostonTariffVersion,
        verbose_name=_("tariff"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="tables",
    )
    played_on = models.DateField(_("date"), default=timezone.localdate)
    pool_target = models.PositiveIntegerField(
        _("pool target"),
        default=20,
        validators=[MinValueValidator(1), MaxValueValidator(10_000)],
    )
    price = models.DecimalField(
        _("price of a whist / chip"),
        max_digits=9,
        decimal_places=2,
        default=Decimal(1),
        validators=[MinValueValidator(Decimal(0))],
    )
    first_dealer = models.PositiveSmallIntegerField(_("first dealer (seat)"), default=0)
    control_time = models.TimeField(_("control time"), null=True, blank=True)
    # preferans.md §13.12: the deals played (adjustments not counted) when the control
    # time was reached, marked by the clock or by the scorer; None while it has not been.
    control_time_deal = models.PositiveIntegerField(
        _("control time reached after deal"),
        null=True,
        blank=True,
        validators=[MaxValueValidator(MAX_CONTROL_TIME_DEAL)],
    )
    double_tour_from = models.PositiveIntegerField(
        _("double tours from deal"), null=True, blank=True
    )
    # Boston's preference suit, the suit turned at the first deal (boston.md §3): a deal
    # given by its trump is major in it. None, not "": not recorded (a Preferans table, or
    # a Boston table opened before the site asked for it).
    preference_suit = models.CharField(  # noqa: DJ001 - None means "not recorded", see above
        _("preference suit"), max_length=8, choices=PREFERENCE_SUITS, null=True, blank=True
    )
    status = models.CharField(_("status"), max_length=10, choices=STATUSES, default=OPEN)
    standing = models.CharField(
        _("in the standings"), max_length=10, choices=STANDINGS, default=COUNTED
    )
    revision = models.PositiveIntegerField(
        default=0, editable=False, help_text=_("Bumped on every change: the live sheet's ETag.")
    )
    result = models.JSONField(
        null=True, blank=True, editable=False, help_text=_("Final result document.")
    )
    # The revision whose finish was announced (e-mails and the chat's post queued), set in
    # the transaction that queues them: a task run again after its worker died finds its
    # finish announced and sends nothing twice (scoring.services.notifications).
    announced_revision = models.PositiveIntegerField(null=True, blank=True, editable=False)
    # The game's identity (SHA-256 of its canonical record, docs/operations.md "Duplicate imports"),
    # set when the table finishes: an import of a game that is here already is refused.
    # Indexed, not unique: two tables finished on the site may be the same game. None, not
    # "": a table that has no digest yet (in play, or finished before digests began).
    record_digest = models.CharField(  # noqa: DJ001 - None means "none yet", see above
        _("record digest"), max_length=64, null=True, blank=True, editable=False
    )
    # A table brought in from the club's paper history (issue 34, services.history): only
    # its seats' results were written down, so it has no deals, no sheet and no record; it
    # is never reopened, and it counts in the standings from its seats like any other.
    totals_only = models.BooleanField(_("paper history: totals only"), default=False)
    # The file such a table came from: its entry in the record book of imports (the
    # admin's). None for any other table, and for one restored from a backup, which
    # carries the tables but not the imports. An import that made tables is never deleted.
    history_import = models.ForeignKey(
        "scoring.HistoryImport",
        verbose_name=_("history import"),
        null=True,
        blank=True,
        editable=False,
        on_delete=models.PROTECT,
        related_name="tables_made",
    )
    # Set when a judge seats a substitute mid-pulka (``SeatChange``): only then does the
    # replay look the changes up, so every other table's pages ask no query more.
    has_seat_changes = models.BooleanField(default=False, editable=False)
    # A tour's table of a fixed number of deals, or a pool with a cap (Gambler's 18): the
    # most deals it plays, copied from its tour when it opens; None: no cap.
    deal_cap = models.PositiveSmallIntegerField(
        _("most deals"), null=True, blank=True, editable=False
    )
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    opened_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-played_on", "-id")
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(
                condition=(
                    Q(
                        game="preferans",
                        preferans_version__isnull=False,
                        boston_version__isnull=True,
                    )
                    | Q(game="boston", boston_version__isnull=False, preferans_version__isnull=True)
                ),
                name="table_has_its_game_tariff",
            ),
            models.CheckConstraint(condition=Q(first_dealer__lte=3), name="table_dealer_seat"),
            models.CheckConstraint(condition=Q(price__gte=0), name="table_price_not_negative"),
            models.CheckConstraint(
                condition=Q(preference_suit__isnull=True)
                | Q(game="boston", preference_suit__in=SUITS),
                name="table_preference_suit_of_boston",
            ),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=("game", "status", "played_on"), name="table_standings"),
            models.Index(fields=("record_digest",), name="table_record_digest"),
            # The tables in play and the latest finished ones, as the home page and the
            # table list show them, without reading the whole club's tables (at 100,000
            # tables the home page's "latest five" took 74 ms without it, 1 ms with it).
            models.Index(fields=("status", "-played_on", "-id"), name="table_listed"),
        ]

    def __str__(self) -> str:
        return f"{self.get_game_display()} #{self.pk}"

    @property
    def version(self) -> PreferansTariffVersion | BostonTariffVersion:
        """The tariff version the table is played under."""
        # The check constraint leaves exactly one of them set: the table's game's.
        version = self.preferans_version or self.boston_version
        assert version is not None  # noqa: S101 - the check constraint guarantees it
        return version

    @property
    def is_open(self) -> bool:
        return self.status == self.OPEN

    @property
    def counts(self) -> bool:
        """Whether the table, once finished, counts in the standings."""
        return self.standing == self.COUNTED

    def control_moment(self) -> datetime.datetime | None:
        """When the control time strikes (``None``: the table has none): ``control_time``
        on ``played_on`` in the club's time zone, or on the day after when that is before
        the table was opened (a control time of 01:00 for a table opened at 19:00 is after
        midnight)."""
        if self.control_time is None:
            return None
        moment = timezone.make_aware(datetime.datetime.combine(self.played_on, self.control_time))
        if self.opened_at is not None and moment < self.opened_at:
            moment += datetime.timedelta(days=1)
        return moment

    def clock_has_struck(self) -> bool:
        """Whether a deal saved now is played after the control time: from the control
        moment for ``CLOCK_WINDOW``. A deal saved later than that is not play at the table
        that evening but a correction (a table reopened the next day, one left open), and
        the clock leaves it alone."""
        moment = self.control_moment()
        return moment is not None and moment <= timezone.now() < moment + CLOCK_WINDOW


class SeatQuerySet(models.QuerySet["Seat"]):
    def members_only(self) -> SeatQuerySet:
        """The members' seats: guests stay out of leaderboards, ratings and profiles
        (docs/evenings.md, Guests). Every read that ranks or profiles members starts here."""
        return self.filter(member__isnull=False)


class Seat(models.Model):
    """A member or a guest at a table (exactly one of the two); ``name`` is fixed when the
    table opens, because the deal log refers to players by name and must read the same
    forever."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    guest = models.ForeignKey(
        "scoring.Guest", null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    name = models.CharField(max_length=100)
    # The final standing, stored when the table finishes (empty while it is in play).
    result = models.DecimalField(
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("Balance in whists (Preferans) or chips (Boston)."),
    )
    money = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    won = models.BooleanField(default=False, help_text=_("Finished with the best balance."))
    stats = models.JSONField(default=dict, blank=True)

    objects = SeatQuerySet.as_manager()

    class Meta:
        ordering = ("table", "position")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("table", "position"), name="seat_position_once"),
            models.UniqueConstraint(fields=("table", "member"), name="seat_member_once"),
            models.UniqueConstraint(fields=("table", "guest"), name="seat_guest_once"),
            models.CheckConstraint(
                condition=Q(member__isnull=False, guest__isnull=True)
                | Q(member__isnull=True, guest__isnull=False),
                name="seat_member_or_guest",
            ),
            models.UniqueConstraint(fields=("table", "name"), name="seat_name_once"),
            models.CheckConstraint(condition=Q(position__lte=3), name="seat_position_0_to_3"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            # A member's latest seat (the version of his page, selectors.profiles): read at
            # the end of his seats, not by walking back through the club's newest ones
            # until one is his — as far back as he last played.
            models.Index(fields=("member", "id"), name="seat_member_latest"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def party(self) -> str:
        """The seat's player as the draw and the ledger key him: ``m<id>`` or ``g<id>``."""
        return f"m{self.member_id}" if self.member_id is not None else f"g{self.guest_id}"


class SeatChange(models.Model):
    """A substitute mid-pulka (Kodeks 3.1.2, docs/tournaments.md): after the stored deal
    ``after_sequence`` (live deal ``from_deal - 1`` as the log numbered it then) the seat
    at ``position`` is held by the player its ``Seat`` row names now, and before it by the
    leaver named here. The seat row is the newcomer's, so every reader of the seats sees
    who holds it now; the deals before the change name the leaver, and the replay seats
    him there. The leaver's ``result`` and ``money`` are what he settled on leaving (the
    engine's ``substitute_seat``), counted for him in the standings, and his ``stats``
    count the deals he played there (the seat's count only the newcomer's)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seat_changes")
    position = models.PositiveSmallIntegerField()
    from_deal = models.PositiveIntegerField()
    # The stored deal (``DealRecord.sequence``) after which the newcomer came: the replay
    # seats him there, so a deal struck or undone before the change does not move it onto
    # the leaver's deals, and every deal entered since (a later sequence) is the newcomer's.
    after_sequence = models.PositiveIntegerField()
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats_left",
    )
    guest = models.ForeignKey(
        "scoring.Guest",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats_left",
    )
    name = models.CharField(max_length=100)
    result = models.DecimalField(max_digits=14, decimal_places=2)
    money = models.DecimalField(max_digits=14, decimal_places=2)
    # The leaver's statistics (``Seat.stats``' counts) over the deals he played at the
    # seat, written when the table finishes: each player's figures keep their own deals.
    stats = models.JSONField(default=dict, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.CharField(max_length=500)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("table", "after_sequence", "id")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(
                condition=Q(member__isnull=False, guest__isnull=True)
                | Q(member__isnull=True, guest__isnull=False),
                name="seat_change_member_or_guest",
            ),
            models.UniqueConstraint(fields=("table", "name"), name="seat_change_name_once"),
            models.CheckConstraint(condition=Q(from_deal__gte=2), name="seat_change_after_a_deal"),
        ]

    def __str__(self) -> str:
        return f"{self.table}: {self.name} → {self.position} from {self.from_deal}"


class DealRecord(models.Model):
    """One deal as the game record writes it. ``sequence`` only grows (a unique key that
    makes a double submission fail); a deleted deal stays, marked, for the history."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="deal_records")
    sequence = models.PositiveIntegerField()
    data = models.JSONField()
    deleted = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("table", "sequence")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("table", "sequence"), name="deal_sequence_once"),
        ]

    def __str__(self) -> str:
        return f"{self.table} deal {self.sequence}"


class AuditEntry(models.Model):
    """Who changed what on a table, when, and the deal before and after."""

    ADD, EDIT, DELETE, UNDO = "add", "edit", "delete", "undo"
    CLOSE, REOPEN, IMPORT, RETARIFF = "close", "reopen", "import", "retariff"
    MARK, CLOCK, UNMARK = "mark", "clock", "unmark"
    MERGE = "merge"
    ACCEPT, REJECT = "accept", "reject"
    SWAP = "swap"
    SUBSTITUTE = "substitute"
    CONFIRM = "confirm"
    ACTIONS = (
        (ADD, _("deal added")),
        (EDIT, _("deal edited")),
        (DELETE, _("deal deleted")),
        (UNDO, _("last deal undone")),
        (CLOSE, _("table closed")),
        (REOPEN, _("table reopened")),
        (IMPORT, _("record imported")),
        (RETARIFF, _("moved to a new tariff version")),
        (MARK, _("control time marked: the last round")),
        (CLOCK, _("control time passed: the last round")),
        (UNMARK, _("control time mark cleared")),
        (MERGE, _("a guest's seat given to a member")),
        (ACCEPT, _("accepted for the standings")),
        (REJECT, _("rejected for the standings")),
        (SWAP, _("two seats swapped by a judge, the record replayed")),
        (SUBSTITUTE, _("a substitute seated by a judge")),
        (CONFIRM, _("result confirmed")),
    )
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="audit")
    deal = models.ForeignKey(
        DealRecord, null=True, blank=True, on_delete=models.CASCADE, related_name="audit"
    )
    action = models.CharField(max_length=10, choices=ACTIONS)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)
    # The table's revision this change made (None: written before revisions were kept
    # here): a write refused as stale lists the changes after the revision it was drawn at.
    revision = models.PositiveIntegerField(null=True, blank=True, editable=False)
    reason = models.CharField(max_length=500, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ("table", "-at", "-id")
        verbose_name_plural = _("audit entries")

    def __str__(self) -> str:
        return f"{self.table}: {self.get_action_display()}"

    def summary(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "reason": self.reason,
            "before": self.before,
            "after": self.after,
        }


class WriteKey(models.Model):
    """A write at a table already stored, by the idempotency key its form carried: the
    same request sent again (a double tap, a retry, the phone's outbox) finds its key here
    and is answered as the success it was, storing nothing. Written in the transaction
    of the write itself, so a key is here exactly when its write is. What the write was
    (``action``, as its audit entry says) and its deal let a resend be answered as the
    first, and a key sent with another kind of write, deal or table be refused."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="write_keys")
    key = models.UUIDField()
    revision = models.PositiveIntegerField(help_text=_("The table's revision after the write."))
    at = models.DateTimeField(auto_now_add=True)
    # Blank: a key kept before the kind was (it answers any write at its table, as then).
    action = models.CharField(max_length=10, choices=AuditEntry.ACTIONS, blank=True, default="")
    deal = models.ForeignKey(
        DealRecord, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("table", "key"), name="write_key_once"),
        ]
        # A key is looked up whatever its table, to refuse one sent to another table.
        indexes: ClassVar[list[models.Index]] = [models.Index(fields=["key"], name="write_key")]

    def __str__(self) -> str:
        return f"{self.table}: {self.key}"
