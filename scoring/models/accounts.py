"""A member's account with the club: an append-only cash book.

Every movement of a member's money held by the club is one ``AccountEntry``: a top-up
(positive), a charge (negative), who recorded it, when and why. An entry is never edited
or deleted — a mistake is put right by a new entry of the kind ``correction`` — so the
model refuses to save a row twice and its queryset refuses ``update()`` and ``delete()``.
A member's balance is the sum of his entries (``scoring.selectors.accounts``); nothing
stores it, so nothing can drift from the entries.
"""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class AppendOnlyError(Exception):
    """An attempt to change or delete an account entry (a bug: the code never tries)."""


class AccountEntryQuerySet(models.QuerySet["AccountEntry"]):
    def update(self, **kwargs: Any) -> NoReturn:
        raise AppendOnlyError("account entries are never changed: record a correction")

    def delete(self) -> NoReturn:
        raise AppendOnlyError("account entries are never deleted: record a correction")


class AccountEntry(models.Model):
    """One movement of a member's account: ``amount`` in the club's money, positive for
    money the member gave the club (a top-up), negative for what the club took or gave
    back (table money, a refund)."""

    TOP_UP = "top_up"
    REFUND = "refund"
    TABLE_MONEY = "table_money"
    SHARED_EXPENSE = "shared_expense"
    GUEST = "guest"
    SETTLEMENT = "settlement"
    CORRECTION = "correction"
    KINDS = (
        (TOP_UP, _("top-up")),
        (REFUND, _("refund")),
        (TABLE_MONEY, _("table money")),
        (SHARED_EXPENSE, _("shared expense")),
        (GUEST, _("paid for a guest")),
        (SETTLEMENT, _("settlement")),
        (CORRECTION, _("correction")),
    )

    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("member"),
        on_delete=models.PROTECT,
        related_name="account_entries",
    )
    amount = models.DecimalField(_("amount"), max_digits=12, decimal_places=2)
    kind = models.CharField(_("kind"), max_length=20, choices=KINDS)
    evening = models.ForeignKey(
        "scoring.Evening",
        verbose_name=_("evening"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="account_entries",
    )
    # The guest whose table money a member paid (kind ``guest``): once per guest and
    # evening. Kept as a name in the reason too, so a guest merged into a member later
    # (his row deleted, this set to null) still reads right.
    guest = models.ForeignKey(
        "scoring.Guest",
        verbose_name=_("guest"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("recorded by"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now, editable=False)
    reason = models.CharField(_("why"), max_length=200, blank=True)

    objects = AccountEntryQuerySet.as_manager()

    class Meta:
        ordering = ("recorded_at", "id")
        verbose_name = _("account entry")
        verbose_name_plural = _("account entries")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(condition=~Q(amount=0), name="account_entry_not_zero"),
            models.CheckConstraint(
                condition=Q(amount__gt=0) | ~Q(kind="top_up"), name="account_top_up_positive"
            ),
            models.CheckConstraint(
                condition=Q(amount__lt=0) | ~Q(kind__in=("refund", "table_money", "guest")),
                name="account_charge_negative",
            ),
            # The evening's table money is drawn once per member, whatever closes it again.
            models.UniqueConstraint(
                fields=("evening", "member"),
                condition=Q(kind="table_money"),
                name="account_table_money_once",
            ),
            # A guest's table money is paid by one member, once per evening.
            models.UniqueConstraint(
                fields=("evening", "guest"),
                condition=Q(kind="guest"),
                name="account_guest_paid_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.member_id}: {self.amount} ({self.kind})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError("account entries are never changed: record a correction")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise AppendOnlyError("account entries are never deleted: record a correction")
