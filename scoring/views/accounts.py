"""The members' accounts with the club: the organisers' cash book (record a top-up, a
refund or a correction; every member's balance; the latest entries), the entries as CSV,
an evening's shared expense split among its members, and a payment of an evening's ledger
settled through the accounts. HTTP only: each view
asks ``scoring.permissions``, calls one service or selector, and answers a POST with a
redirect (post/redirect/get).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from members.http import SignedInRequest
from members.models import Member
from scoring import spreadsheets
from scoring.engine.errors import RuleError
from scoring.models import Evening, Guest
from scoring.pages.accounts import AccountEntryForm, SharedExpenseForm
from scoring.pages.labels import rule_error_text
from scoring.permissions import can_keep_accounts, can_pay_for_guest, can_settle_by_account
from scoring.selectors import accounts as selectors
from scoring.services import accounts as services

LATEST = 50
"""How many of the latest entries the cash book shows (the CSV has them all)."""


@login_required
@require_http_methods(["GET", "POST"])
def account_book(request: SignedInRequest) -> HttpResponse:
    """The cash book: the form, every active member's balance, the latest entries."""
    if not can_keep_accounts(request.user):
        raise PermissionDenied
    form = AccountEntryForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            entry = services.account_record(
                member=data["member"],
                kind=data["kind"],
                amount=data["amount"],
                by=request.user,
                reason=data["reason"],
            )
        except RuleError as error:
            form.add_error(
                error.field if error.field in form.fields else None, rule_error_text(error)
            )
        else:
            messages.success(
                request,
                _("Recorded: %(kind)s, %(name)s.")
                % {"kind": entry.get_kind_display(), "name": data["member"].name},
            )
            return redirect("scoring:account_book")
    members = selectors.members_with_balances()
    return render(
        request,
        "scoring/account_book.html",
        {"form": form, "members": members, "entries": selectors.entries()[:LATEST]},
    )


@login_required
def account_csv(request: SignedInRequest) -> HttpResponse:
    """Every entry of the cash book, oldest first, as CSV (for the club's treasurer)."""
    if not can_keep_accounts(request.user):
        raise PermissionDenied
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="account-entries.csv"'
    writer = spreadsheets.writer(response)
    writer.writerow(
        ["recorded_at", "member", "name", "kind", "amount", "evening", "recorded_by", "reason"]
    )
    for entry in selectors.entries().reverse():
        writer.writerow(
            [
                entry.recorded_at.isoformat(),
                entry.member.username,
                entry.member.name,
                entry.kind,
                entry.amount,
                entry.evening.played_on.isoformat() if entry.evening else "",
                entry.recorded_by.username,
                entry.reason,
            ]
        )
    return response


@login_required
@require_POST
def settlement_by_account(request: SignedInRequest, pk: int) -> HttpResponse:
    """Settle a payment of the evening's ledger through the accounts (an organiser, once
    both have agreed); back to the ledger, with what was done or why not."""
    if not can_settle_by_account(request.user):
        raise PermissionDenied
    evening = get_object_or_404(Evening, pk=pk)
    try:
        amount = Decimal(request.POST.get("amount", "").strip())
    except InvalidOperation:
        amount = Decimal(-1)  # in no ledger: refused as such below
    try:
        services.settlement_by_account(
            evening=evening,
            payer=request.POST.get("payer", ""),
            payee=request.POST.get("payee", ""),
            amount=amount if amount.is_finite() else Decimal(-1),
            by=request.user,
        )
    except RuleError as error:
        messages.error(request, rule_error_text(error))
    else:
        messages.success(request, _("Settled through the accounts."))
    return redirect("scoring:evening_ledger", pk=evening.pk)


@login_required
@require_http_methods(["GET", "POST"])
def shared_expense(request: SignedInRequest, pk: int) -> HttpResponse:
    """Split an evening's shared expense among the members who share it (an organiser)."""
    if not can_keep_accounts(request.user):
        raise PermissionDenied
    evening = get_object_or_404(Evening, pk=pk)
    form = SharedExpenseForm(request.POST or None, evening=evening)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            entries = services.shared_expense_split(
                evening=evening,
                members=list(data["members"]),
                total=data["total"],
                reason=data["reason"],
                by=request.user,
            )
        except RuleError as error:
            form.add_error(
                error.field if error.field in form.fields else None, rule_error_text(error)
            )
        else:
            messages.success(
                request,
                ngettext(
                    "Charged to %(n)s member's account.",
                    "Charged to %(n)s members' accounts.",
                    len(entries),
                )
                % {"n": len(entries)},
            )
            return redirect("scoring:evening_detail", pk=evening.pk)
    return render(request, "scoring/evening_expense.html", {"evening": evening, "form": form})


@login_required
@require_POST
def guest_paid(request: SignedInRequest, pk: int) -> HttpResponse:
    """A member checked in pays a guest's table money from his account (an organiser
    records it); back to the evening's page, with what was done or why not."""
    if not can_pay_for_guest(request.user):
        raise PermissionDenied
    evening = get_object_or_404(Evening, pk=pk)
    guest = Guest.objects.filter(pk=_int(request.POST.get("guest"))).first()
    member = Member.objects.filter(pk=_int(request.POST.get("member"))).first()
    try:
        if guest is None:
            raise RuleError(_("the guest is not checked in at this evening"), field="guest")
        if member is None:
            raise RuleError(_("choose a member checked in at the evening"), field="member")
        services.guest_paid_by_member(evening=evening, guest=guest, member=member, by=request.user)
    except RuleError as error:
        messages.error(request, rule_error_text(error))
    else:
        messages.success(
            request,
            _("%(member)s pays for %(guest)s from the account.")
            % {"member": member.name, "guest": guest.name},
        )
    return redirect("scoring:evening_detail", pk=evening.pk)


def _int(raw: str | None) -> int:
    """A posted id, or 0 (no row's) for anything that is not one."""
    return int(raw) if raw and raw.isascii() and raw.isdigit() else 0
