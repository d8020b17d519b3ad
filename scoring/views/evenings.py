"""Club evenings: the list, an evening's page (check-in, the draw, its tables live), the
ledger (printable, and as CSV). HTTP only: each view asks ``scoring.permissions``, calls
one service or selector, and answers a POST with a redirect (post/redirect/get), so every
page works without JavaScript; the tables region refreshes itself with htmx.

Who is here is set in one hand, a tap per arrival (issue 30): the check-in's writes answer
htmx with the evening's page, whose setup region (``#evening-setup``) htmx swaps in, and a
plain POST with a redirect to the page; either way the list that was tapped stays open
(``?opened=``), so the next arrival is one tap too.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.formats import sanitize_separators
from django.utils.translation import get_language, get_language_info, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubsite.http import HtmxHttpRequest, page_or_partial
from members.http import SignedInRequest
from members.models import Member
from scoring import spreadsheets, telegram
from scoring.engine.errors import RuleError
from scoring.models import Club, Evening, Guest
from scoring.models.evenings import party_key
from scoring.pages.calendar import answer_context
from scoring.pages.forms import DrawForm, EveningForm, GuestForm, PairForm
from scoring.pages.labels import rule_error_text
from scoring.permissions import (
    can_check_in,
    can_pay_for_guest,
    can_run_evening,
    can_see_payments,
    can_settle,
    can_settle_by_account,
)
from scoring.selectors import accounts as account_selectors
from scoring.selectors import calendar as calendar_selectors
from scoring.selectors import evenings as selectors
from scoring.services import evenings as services
from scoring.services import notifications
from scoring.services.tables import Player


def evening_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(
        request,
        "scoring/evening_list.html",
        {
            "evenings": Evening.objects.select_related("organiser")[:100],
            "form": EveningForm() if can_run_evening(request.user) else None,
        },
    )


@login_required
@require_POST
def evening_create(request: SignedInRequest) -> HttpResponse:
    if not can_run_evening(request.user):
        raise PermissionDenied
    form = EveningForm(request.POST)
    if form.is_valid():
        evening = services.evening_create(organiser=request.user, **form.cleaned_data)
        return redirect("scoring:evening_detail", pk=evening.pk)
    evenings = Evening.objects.select_related("organiser")[:100]
    return render(request, "scoring/evening_list.html", {"evenings": evenings, "form": form})


def _names(evening: Evening) -> dict[str, str]:
    """Who is here, by party key (``m<id>``, ``g<id>``)."""
    return {a.party: a.player.name for a in selectors.attendances(evening)}


def _members_here(names: dict[str, str]) -> list[tuple[str, str]]:
    """The members among ``names``, by name: a "not together" request is between members."""
    return sorted(((k, n) for k, n in names.items() if k.startswith("m")), key=lambda i: i[1])


OPENED = ("check-in", "guest")
"""The evening page's lists that a tap leaves open (``?opened=``): the members to check
in, and the guests."""


def evening_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The evening's page; for htmx, its tables region, which polls itself (and so reads
    only the tables)."""
    evening = get_object_or_404(Evening.objects.select_related("organiser"), pk=pk)
    tables = selectors.evening_tables(evening)
    context: dict[str, Any] = {"evening": evening, "tables": tables}
    opened = request.GET.get("opened", "")
    return page_or_partial(
        request,
        "scoring/evening_detail.html#evening-tables",
        context,
        page=lambda: context | _evening_page(request, evening, opened=opened),
    )


def _evening_page(
    request: HtmxHttpRequest, evening: Evening, *, opened: str = "", refused: str = ""
) -> dict[str, Any]:
    """What the whole page shows besides the tables: who is here and who is not, the
    check-in, the draw and its forms; ``opened``, the list left open (``OPENED``), and
    ``refused``, why the tap just made stored nothing (for htmx, which swaps the setup
    region in and not the page's messages)."""
    here = selectors.attendances(evening)
    names = {a.party: a.player.name for a in here}
    here_ids = {a.member_id for a in here if a.member_id is not None}
    runs = can_run_evening(request.user)
    absent = (
        Member.objects.filter(is_active=True).exclude(pk__in=here_ids).order_by("display_name")
        if runs
        else []
    )
    choices = sorted(names.items(), key=lambda item: item[1])
    roll = calendar_selectors.roll(evening)
    if absent:  # those who said «приду» first: the check-in starts from the answers
        absent = sorted(absent, key=lambda m: m.pk not in roll.coming_ids)
    return {
        "opened": opened if opened in OPENED else "",
        "refused": refused,
        "answers": answer_context(request, evening, roll) | {"back": request.path},
        "here": here,
        "absent": absent,
        "runs": runs,
        "me_here": request.user.is_authenticated and request.user.pk in here_ids,
        "can_check_in_self": can_check_in(request.user, request.user),
        "guests_before": selectors.returning_guests(evening) if runs else [],
        "guest_form": GuestForm(),
        "draft": [
            {
                "players": [(key, names.get(key, "?")) for key in t["players"]],
                "first": names.get(t["players"][t["first_dealer"]], "?"),
            }
            for t in evening.draft or []
        ],
        "apart": [
            (names.get(party_key(r.first_id), "?"), names.get(party_key(r.second_id), "?"))
            for r in evening.apart.all()
        ],
        "draw_form": DrawForm(),
        "pair_form": PairForm(choices=_members_here(names)),
        # The swap form's fields are prefixed: both forms are on the page, ids unique.
        "swap_form": PairForm(choices=choices, prefix="swap"),
    } | _guests_paid(request, evening, here, names)


def _guests_paid(
    request: HtmxHttpRequest, evening: Evening, here: list[Any], names: dict[str, str]
) -> dict[str, Any]:
    """For an organiser, when the club draws table money from the accounts: each guest
    checked in, with the member who paid his table money (or ``None``), and the members
    checked in who may pay it."""
    guests = [a for a in here if a.guest_id]
    if not guests or not can_pay_for_guest(request.user):
        return {}  # no query for an evening of members alone
    price = Club.load().account_table_money
    if not price:
        return {}
    paid = account_selectors.guest_payers(evening)
    return {
        "guest_price": price,
        "guests_paid": [(a.guest_id, a.player.name, paid.get(a.guest_id)) for a in guests],
        "payers": [(key[1:], name) for key, name in _members_here(names)],
    }


def _back(evening: Evening) -> HttpResponse:
    return redirect("scoring:evening_detail", pk=evening.pk)


def _refuse(request: HtmxHttpRequest, evening: Evening, error: RuleError) -> HttpResponse:
    messages.error(request, rule_error_text(error))
    return _back(evening)


def _tapped(
    request: HtmxHttpRequest, evening: Evening, opened: str, error: RuleError | None = None
) -> HttpResponse:
    """The answer to a tap of the check-in (who came, who sits out, who left): for htmx
    the evening's page, of which it swaps the setup region in, with the list ``opened``
    still open and the refusal, if any, in the region; otherwise back to the page, the list
    open and in view (post/redirect/get), the refusal as a message."""
    if request.htmx:
        evening = Evening.objects.select_related("organiser").get(pk=evening.pk)
        refused = rule_error_text(error) if error is not None else ""
        context = {"evening": evening, "tables": selectors.evening_tables(evening)}
        page = _evening_page(request, evening, opened=opened, refused=refused)
        return render(request, "scoring/evening_detail.html", context | page)
    if error is not None:
        messages.error(request, rule_error_text(error))
    url = reverse("scoring:evening_detail", args=[evening.pk])
    return redirect(f"{url}?opened={opened}#{opened}" if opened else f"{url}#here")


def _posted_member(request: HtmxHttpRequest) -> Player | None:
    """The member (``member``: his id) or the guest (``guest``: his id) a POST is about."""
    model: type[Member] | type[Guest] = Guest if "guest" in request.POST else Member
    try:
        pk = int(request.POST.get("guest" if model is Guest else "member", ""))
    except ValueError:
        return None
    return model.objects.filter(pk=pk).first()


@login_required
@require_POST
def evening_check_in(request: SignedInRequest, pk: int) -> HttpResponse:
    """An organiser checks anyone in; a member checks himself in."""
    evening = get_object_or_404(Evening, pk=pk)
    member = _posted_member(request)
    if not isinstance(member, Member) or not can_check_in(request.user, member):
        raise PermissionDenied  # a guest is checked in by name (evening_check_in_guest)
    # An organiser taps arrivals in from the list; a member taps "I am here" for himself.
    opened = "check-in" if can_run_evening(request.user) else ""
    try:
        services.evening_check_in(evening=evening, member=member, by=request.user)
    except RuleError as error:
        return _tapped(request, evening, opened, error)
    return _tapped(request, evening, opened)


@login_required
@require_POST
def evening_check_in_guest(request: SignedInRequest, pk: int) -> HttpResponse:
    """An organiser checks a guest in: a new one by name, or one who came before."""
    evening = _organisers_evening(request, pk)
    guest = _posted_member(request) if "guest" in request.POST else None
    form = GuestForm(request.POST)
    try:
        if isinstance(guest, Guest):
            services.evening_check_in_guest(evening=evening, guest=guest, by=request.user)
        elif "guest" in request.POST or not form.is_valid():
            raise RuleError(_("type the guest's name"))
        else:
            name = form.cleaned_data["name"]
            services.evening_check_in_guest(evening=evening, name=name, by=request.user)
    except RuleError as error:
        return _tapped(request, evening, "guest", error)
    return _tapped(request, evening, "guest")


@login_required
@require_POST
def evening_check_out(request: SignedInRequest, pk: int) -> HttpResponse:
    evening = get_object_or_404(Evening, pk=pk)
    member = _posted_member(request)
    if member is None or not can_check_in(request.user, member):
        raise PermissionDenied
    try:
        services.evening_check_out(evening=evening, member=member)
    except RuleError as error:
        return _tapped(request, evening, "", error)
    return _tapped(request, evening, "")


@login_required
@require_POST
def evening_sits_out(request: SignedInRequest, pk: int) -> HttpResponse:
    """An organiser, or the member himself, marks him as sitting out the next draw."""
    evening = get_object_or_404(Evening, pk=pk)
    member = _posted_member(request)
    if member is None or not can_check_in(request.user, member):
        raise PermissionDenied
    try:
        services.evening_sits_out(
            evening=evening, member=member, sits_out=request.POST.get("sits_out") == "1"
        )
    except RuleError as error:
        return _tapped(request, evening, "", error)
    return _tapped(request, evening, "")


def _organisers_evening(request: HtmxHttpRequest, pk: int) -> Evening:
    evening = get_object_or_404(Evening, pk=pk)
    if not can_run_evening(request.user):
        raise PermissionDenied
    return evening


def _pair(
    request: HtmxHttpRequest, evening: Evening, prefix: str | None = None, members: bool = False
) -> tuple[str, str] | None:
    """Two party keys of players who are here (``members``: of members only)."""
    names = _names(evening)
    choices = _members_here(names) if members else list(names.items())
    form = PairForm(request.POST, choices=choices, prefix=prefix)
    if not form.is_valid():
        return None
    return form.cleaned_data["first"], form.cleaned_data["second"]


@login_required
@require_POST
def evening_apart(request: SignedInRequest, pk: int) -> HttpResponse:
    evening = _organisers_evening(request, pk)
    pair = _pair(request, evening, members=True)
    if pair is None:
        return _refuse(request, evening, RuleError(_("choose two members who are here")))
    first = Member.objects.get(pk=int(pair[0][1:]))
    second = Member.objects.get(pk=int(pair[1][1:]))
    try:
        services.evening_apart(evening=evening, first=first, second=second)
    except RuleError as error:
        return _refuse(request, evening, error)
    return _back(evening)


@login_required
@require_POST
def evening_draw(request: SignedInRequest, pk: int) -> HttpResponse:
    evening = _organisers_evening(request, pk)
    form = DrawForm(request.POST)
    if not form.is_valid():
        return _refuse(
            request,
            evening,
            RuleError(_("the seed is a number from 0 to %(max)s") % {"max": services.MAX_SEED}),
        )
    try:
        services.evening_draw(evening=evening, seed=form.cleaned_data["seed"])
    except RuleError as error:
        return _refuse(request, evening, error)
    return _back(evening)


@login_required
@require_POST
def evening_swap(request: SignedInRequest, pk: int) -> HttpResponse:
    evening = _organisers_evening(request, pk)
    pair = _pair(request, evening, prefix="swap")
    try:
        if pair is None:
            raise RuleError(_("choose two members of the draw"))
        services.evening_swap(evening=evening, first=pair[0], second=pair[1])
    except RuleError as error:
        return _refuse(request, evening, error)
    return _back(evening)


@login_required
@require_POST
def evening_open(request: SignedInRequest, pk: int) -> HttpResponse:
    evening = _organisers_evening(request, pk)
    try:
        services.evening_open_tables(evening=evening, by=request.user)
    except RuleError as error:
        return _refuse(request, evening, error)
    return _back(evening)


def _ledger_context(request: HtmxHttpRequest, evening: Evening) -> dict[str, Any]:
    ledger = selectors.ledger(evening)
    return {
        "evening": evening,
        "ledger": ledger,
        "settles": [can_settle(request.user, line.payee) for line in ledger.lines],
        "shows_paid": can_see_payments(request.user, evening),
    }


def evening_ledger(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Who pays whom tonight: one list for all the evening's finished tables, printable."""
    evening = get_object_or_404(Evening, pk=pk)
    context = _ledger_context(request, evening)
    context["rows"] = list(zip(context["ledger"].lines, context["settles"], strict=True))
    context["by_account"] = can_settle_by_account(request.user)
    return render(request, "scoring/evening_ledger.html", context)


def evening_ledger_csv(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    evening = get_object_or_404(Evening, pk=pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="evening-{evening.pk}-ledger.csv"'
    writer = spreadsheets.writer(response)
    writer.writerow(["payer", "payee", "amount"])
    for line in selectors.ledger(evening).lines:
        writer.writerow([line.payer_name, line.payee_name, line.amount])
    return response


@login_required
@require_POST
def settlement_mark(request: SignedInRequest, pk: int) -> HttpResponse:
    """Mark a payment as paid: an organiser, or the member who received it."""
    evening = get_object_or_404(Evening, pk=pk)
    payer, payee = request.POST.get("payer", ""), request.POST.get("payee", "")
    if not can_settle(request.user, payee):
        raise PermissionDenied
    try:
        amount = _amount(request.POST.get("amount", ""))
        services.settlement_mark(
            evening=evening, payer=payer, payee=payee, amount=amount, by=request.user
        )
    except RuleError as error:
        messages.error(request, rule_error_text(error))
    return redirect("scoring:evening_ledger", pk=evening.pk)


def _amount(text: str) -> Decimal:
    """A posted amount: as the ledger's form writes it (``5.00``, whatever the page's
    language), or as a member of the page's language types it (``5,00`` in Russian)."""
    for candidate in (text.strip(), sanitize_separators(text.strip())):
        try:
            amount = Decimal(candidate)
        except InvalidOperation:
            continue
        if amount.is_finite():
            return amount
    raise RuleError(_("no such payment"))


@login_required
def evening_close(request: SignedInRequest, pk: int) -> HttpResponse:
    """Close the evening: a confirmation page showing the summary and who gets it; the
    POST sends it (``notifications.evening_close``). Organisers only."""
    evening = _organisers_evening(request, pk)
    if request.method == "POST":
        try:
            sent = notifications.evening_close(evening=evening, by=request.user)
        except RuleError as error:
            return _refuse(request, evening, error)
        messages.success(
            request,
            ngettext(
                "The evening is closed: its summary goes to %(n)s member by e-mail.",
                "The evening is closed: its summary goes to %(n)s members by e-mail.",
                sent,
            )
            % {"n": sent},
        )
        return _back(evening)
    context = notifications.summary_context(evening) | {
        "recipients": notifications.summary_recipients(evening),
        "chat": telegram.configured(),
    }
    context["in_play"] = sum(table.is_open for table in context["tables"])
    # The text as it is sent, in the page's language (what goes out is in the club's:
    # ``summary_text``), escaped into the page like any value.
    language = get_language()
    context["summary"] = notifications.summary_text(context, language)
    if language != settings.LANGUAGE_CODE:
        context["sent_in"] = get_language_info(settings.LANGUAGE_CODE)["name_translated"]
    return render(request, "scoring/evening_close.html", context)
