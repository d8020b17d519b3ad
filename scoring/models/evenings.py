"""Club evenings: who came, the seating draw, the tables it opened, the settled payments.

An evening's tables are ordinary tables (``Table``) linked to it by ``EveningTable``; its
ledger is computed from their seats' money (``Seat.money``) each time it is shown, and
only the payments marked as settled are stored (``Settlement``). Players are members or
guests (``scoring.models.guests``); the ledger and the draw key them by party
(``m<member id>``, ``g<guest id>``: ``party_key``, ``guest_key``), docs/evenings.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from scoring.models.tables import Table


def party_key(member_id: int) -> str:
    """A member's key in the draw and the ledger (a guest's is ``guest_key``: ``g<id>``)."""
    return f"m{member_id}"


def _member_or_guest() -> Q:
    return Q(member__isnull=False, guest__isnull=True) | Q(member__isnull=True, guest__isnull=False)


class EveningSeries(models.Model):
    """A weekly series an organiser scheduled at once: its evenings (``Evening.series``)
    fall on the first one's weekday, every week until ``until``."""

    starts_at = models.TimeField(_("starts at"), null=True, blank=True)
    until = models.DateField(_("every week until"))
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.pk}: → {self.until}"


class Evening(models.Model):
    """One club evening: date, place, organiser, the game and table size it is drawn for,
    and the draw waiting to be opened (``draft``: a list of tables, each
    ``{"players": [party keys clockwise], "first_dealer": seat}``; ``None`` when none)."""

    TABLE_SIZES = ((4, _("tables of 4 where possible")), (3, _("tables of 3 where possible")))

    played_on = models.DateField(_("date"), default=timezone.localdate)
    place = models.CharField(_("place"), max_length=200, blank=True)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("organiser"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    game = models.CharField(_("game"), max_length=10, choices=Table.GAMES, default=Table.PREFERANS)
    table_size = models.PositiveSmallIntegerField(_("table size"), choices=TABLE_SIZES, default=4)
    seed = models.PositiveIntegerField(_("seed of the draw"), null=True, blank=True)
    draft = models.JSONField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # Closing sends the evening's summary; the mark keeps it from going out twice.
    # Announced ahead (docs/evenings.md, "Evenings announced ahead"): when it starts, how
    # many seats («приду» answers beyond them wait), and the weekly series it belongs to.
    starts_at = models.TimeField(_("starts at"), null=True, blank=True)
    seats = models.PositiveSmallIntegerField(_("seats"), null=True, blank=True)
    series = models.ForeignKey(
        EveningSeries, null=True, blank=True, on_delete=models.SET_NULL, related_name="evenings"
    )
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True, editable=False)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("closed by"),
        null=True,
        blank=True,
        editable=False,
        on_delete=models.PROTECT,
        related_name="+",
    )

    class Meta:
        ordering = ("-played_on", "-id")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(condition=Q(table_size__in=(3, 4)), name="evening_table_size"),
            models.CheckConstraint(
                condition=Q(seats__isnull=True) | Q(seats__gte=3), name="evening_seats"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.played_on} {self.place}".strip()


class Attendance(models.Model):
    """A member or a guest (exactly one) checked in at an evening (a late arrival is
    checked in later, the same)."""

    evening = models.ForeignKey(Evening, on_delete=models.CASCADE, related_name="attendances")
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="attendances",
    )
    guest = models.ForeignKey(
        "scoring.Guest",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="attendances",
    )
    arrived_at = models.DateTimeField(auto_now_add=True)
    checked_in_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    sits_out = models.BooleanField(_("sits out"), default=False)

    class Meta:
        ordering = ("evening", "arrived_at", "id")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("evening", "member"), name="attendance_once"),
            models.UniqueConstraint(fields=("evening", "guest"), name="attendance_guest_once"),
            models.CheckConstraint(condition=_member_or_guest(), name="attendance_member_or_guest"),
        ]

    def __str__(self) -> str:
        return f"{self.evening}: {self.player}"

    @property
    def player(self) -> Any:
        """The member or the guest who came (each has a ``name``)."""
        return self.member if self.member_id is not None else self.guest

    @property
    def party(self) -> str:
        return party_key(self.member_id) if self.member_id is not None else f"g{self.guest_id}"


class EveningAnswer(models.Model):
    """A member's answer to an evening announced ahead: «приду», «может быть», «не
    приду». ``queued_at`` is when he last said «приду» (not before): the seats go to the
    earliest, the rest wait in that order and move up as soon as someone leaves."""

    YES, MAYBE, NO = "yes", "maybe", "no"
    ANSWERS = ((YES, _("coming")), (MAYBE, _("maybe")), (NO, _("not coming")))

    evening = models.ForeignKey(Evening, on_delete=models.CASCADE, related_name="answers")
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="evening_answers"
    )
    answer = models.CharField(_("answer"), max_length=5, choices=ANSWERS)
    queued_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("evening", "queued_at", "id")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("evening", "member"), name="answer_once"),
            models.CheckConstraint(
                condition=Q(answer__in=("yes", "maybe", "no")), name="answer_known"
            ),
            models.CheckConstraint(
                condition=Q(answer="yes", queued_at__isnull=False) | ~Q(answer="yes"),
                name="answer_yes_queued",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.evening}: {self.member_id} {self.answer}"


class ApartRequest(models.Model):
    """Two members who asked not to sit at one table this evening (stored lower id first)."""

    evening = models.ForeignKey(Evening, on_delete=models.CASCADE, related_name="apart")
    first = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("evening", "first", "second"), name="apart_once"),
            models.CheckConstraint(condition=Q(first__lt=F("second")), name="apart_ordered"),
        ]

    def __str__(self) -> str:
        return f"{self.evening}: {self.first_id} / {self.second_id}"


class EveningTable(models.Model):
    """A table the evening opened, and the round of the draw that seated it."""

    evening = models.ForeignKey(Evening, on_delete=models.CASCADE, related_name="links")
    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="evening_link")
    round = models.PositiveSmallIntegerField(validators=[MinValueValidator(1)])

    class Meta:
        ordering = ("evening", "round", "table")

    def __str__(self) -> str:
        return f"{self.evening}: {self.table} (round {self.round})"


class Settlement(models.Model):
    """A payment of the evening's ledger marked as paid: who marked it, and when. Payer
    and payee are party keys (``party_key``, or ``club``)."""

    evening = models.ForeignKey(Evening, on_delete=models.CASCADE, related_name="settlements")
    payer = models.CharField(max_length=20)
    payee = models.CharField(max_length=20)
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    settled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    settled_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("evening", "settled_at", "id")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=("evening", "payer", "payee", "amount"), name="settlement_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.evening}: {self.payer} → {self.payee} {self.amount}"
