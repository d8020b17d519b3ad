"""Account reads: a member's balance, every member's, and the cash book's entries.

A balance is the sum of the member's entries (``AccountEntry``), read in one query each
time: nothing stores it, so it cannot drift from the entries.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import DecimalField, QuerySet, Sum, Value
from django.db.models.functions import Coalesce

from members.models import Member
from scoring.models import AccountEntry

ZERO = Decimal("0.00")
CENT = Decimal("0.01")


def _cents(total: Decimal | None) -> Decimal:
    """A sum to the cent: SQLite hands back a sum of decimals as a float's digits
    («-5», «66.6700000001»), PostgreSQL as the column's own."""
    return ZERO if total is None else Decimal(total).quantize(CENT)


def balance(member: Any) -> Decimal:
    """What ``member`` holds with the club (negative: what he owes it), to the cent."""
    return _cents(
        AccountEntry.objects.filter(member=member).aggregate(total=Sum("amount"))["total"]
    )


def members_with_balances() -> list[Any]:
    """The active members, each with his ``balance`` (0.00 without entries), in name
    order: one query."""
    members = list(
        Member.objects.filter(is_active=True)
        .annotate(
            balance=Coalesce(
                Sum("account_entries__amount"),
                Value(ZERO),
                output_field=DecimalField(max_digits=14, decimal_places=2),
            )
        )
        .order_by("display_name", "username")
    )
    for member in members:
        member.balance = _cents(member.balance)
    return members


def balances() -> dict[int, Decimal]:
    """Every member's balance who has an entry, by member id: one query."""
    rows = AccountEntry.objects.values("member").annotate(total=Sum("amount"))
    return {row["member"]: _cents(row["total"]) for row in rows}


def entries(member: Any = None) -> QuerySet[AccountEntry]:
    """The cash book, newest first (one member's, if given), with the names it shows."""
    found = AccountEntry.objects.select_related("member", "recorded_by", "evening")
    if member is not None:
        found = found.filter(member=member)
    return found.order_by("-recorded_at", "-id")


def guest_payers(evening: Any) -> dict[int, str]:
    """Who paid each guest's table money at ``evening``: the member's name by guest id."""
    entries = AccountEntry.objects.filter(
        evening=evening, kind=AccountEntry.GUEST, guest__isnull=False
    ).select_related("member")
    return {e.guest_id: e.member.name for e in entries if e.guest_id is not None}
