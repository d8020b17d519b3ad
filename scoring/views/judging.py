"""A judge's tools at a table (docs/tournaments.md, "The judges at a table"): the page
that offers them, and two seats swapped for the whole record with the table replayed.

HTTP only: each view asks ``permissions.can_judge_table`` (the judges of the table's
tournament, the organisers at any table), calls the service and answers a POST with a
redirect: the table page once it is done, the judge's page again with the reason when it
is refused (nothing changed).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubsite.http import HtmxHttpRequest
from members.models import Member
from scoring import services
from scoring.engine.errors import RuleError
from scoring.models import AuditEntry, Table, TourTable
from scoring.pages.forms import ReasonForm, reason_refusal
from scoring.pages.labels import rule_error_text
from scoring.pages.tables import stale_message, table_for_page
from scoring.permissions import can_judge_table
from scoring.services import judging
from scoring.views.writes import (
    int_or_none,
    member_of,
    require_write,
    revision_and_key,
    table_write,
)

DECISIONS = (AuditEntry.SWAP, AuditEntry.SUBSTITUTE)
"""The judges' decisions the page lists (the table's history lists them too)."""


@login_required
def table_judge(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The judge's page of a table: its seats and the swap form, with the decisions made."""
    table = table_for_page(pk, with_tariff=False)
    if not can_judge_table(request.user, table):
        raise PermissionDenied
    link = TourTable.objects.filter(table=table).select_related("tour__tournament").first()
    decisions = (
        AuditEntry.objects.filter(table=table, action__in=DECISIONS)
        .select_related("actor")
        .order_by("-at", "-id")
    )
    return render(
        request,
        "scoring/table_judge.html",
        {
            "table": table,
            "seats": list(table.seats.all()),
            "link": link,
            "decisions": decisions,
            # Who may come in as a substitute: the members not seated (one query).
            "members": Member.objects.filter(is_active=True)
            .exclude(seats__table=table)
            .order_by("first_name", "last_name", "username"),
            "new_key": uuid.uuid4,
        },
    )


@table_write
@require_POST
def table_seats_swap(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Two seats swapped for the whole record, the table replayed: ``first``, ``second``
    (the seats' positions) and the ``reason``."""
    table = table_for_page(pk, with_tariff=False)
    require_write(request, can_judge_table(request.user, table))
    reason = ReasonForm(request.POST)  # a NUL character, which PostgreSQL cannot store, too

    def write() -> None:
        first = int_or_none(request.POST.get("first"))
        second = int_or_none(request.POST.get("second"))
        if first is None or second is None:
            raise RuleError(_("choose two different seats of this table"), field="seats")
        if not reason.is_valid():
            raise reason_refusal(reason, _("say why (the history keeps it)"))
        judging.table_seats_swap(
            table=table,
            first=first,
            second=second,
            by=member_of(request),
            reason=reason.cleaned_data["reason"],
            drawn=revision_and_key(request),
        )

    return _judged(request, table, write, _("Seats swapped; the record was replayed."))


@table_write
@require_POST
def table_seat_substitute(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A substitute takes a seat from the next deal (Kodeks 3.1.2): ``position``, the
    newcomer as a ``member`` (his id) or a guest's ``guest`` name, and the ``reason``."""
    table = table_for_page(pk, with_tariff=False)
    require_write(request, can_judge_table(request.user, table))
    reason = ReasonForm(request.POST)

    def write() -> None:
        position = int_or_none(request.POST.get("position"))
        member_id = int_or_none(request.POST.get("member"))
        guest = request.POST.get("guest", "").replace("\x00", "")
        if position is None:
            raise RuleError(_("choose a seat of this table"), field="seat")
        newcomer: Member | str
        if member_id is not None:
            found = Member.objects.filter(pk=member_id, is_active=True).first()
            if found is None or guest.strip():
                raise RuleError(_("choose a member or write a guest's name, one of the two"))
            newcomer = found
        elif guest.strip():
            newcomer = guest
        else:
            raise RuleError(_("choose a member or write a guest's name, one of the two"))
        if not reason.is_valid():
            raise reason_refusal(reason, _("say why (the history keeps it)"))
        judging.table_seat_substitute(
            table=table,
            position=position,
            newcomer=newcomer,
            by=member_of(request),
            reason=reason.cleaned_data["reason"],
            drawn=revision_and_key(request),
        )

    return _judged(request, table, write, _("The substitute takes the seat from the next deal."))


def _judged(
    request: HtmxHttpRequest, table: Table, write: Callable[[], None], done: str
) -> HttpResponse:
    """Run a judge's ``write`` (its form read and its service called) and answer it: the
    table's page with ``done``, or the judge's page again with the refusal. The same form
    sent twice did its work the first time."""
    try:
        write()
    except services.AlreadyStored:
        pass
    except services.StaleWrite as stale:
        messages.error(request, stale_message(table, stale.seen))
        return redirect("scoring:table_judge", pk=table.pk)
    except RuleError as error:
        messages.error(request, rule_error_text(error, located=error.deal is not None))
        return redirect("scoring:table_judge", pk=table.pk)
    messages.success(request, done)
    return redirect("scoring:table_detail", pk=table.pk)
