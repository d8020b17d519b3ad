"""Tournaments: the list, a tournament's page (the field, the tours and their tables, the
standings after each tour, the penalties), its big screen, a tour's seating and printable
table cards, the standings CSV, and the writes of the organisers and the judges (the
field, check-in, the start, seating and closing a tour, extra time, penalties, the
judges' decision at a tied cut).

HTTP only: each view asks ``scoring.permissions``, calls one service or presenter and
answers a POST with a redirect (post/redirect/get), so every page works without
JavaScript; the big screen and the page's standings and tours (while the tournament
runs) redraw their region when the tournament's channel says something changed
(``live.push``), else every 10 s.
"""

from __future__ import annotations

import uuid
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.formats import sanitize_separators
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubsite.http import HtmxHttpRequest, page_or_partial
from members.http import SignedInRequest
from members.models import Member
from scoring import spreadsheets
from scoring.engine.errors import RuleError
from scoring.models import Entry, Penalty, Tour, Tournament, TourTable
from scoring.pages import tournaments as pages
from scoring.pages.confirmations import confirmable
from scoring.pages.labels import rule_error_text
from scoring.permissions import can_check_in_entry, can_judge, can_run_tournament
from scoring.selectors import tournaments as selectors
from scoring.services import tournaments as services

SCREEN_REFRESH = 10
"""Seconds between the big screen's refreshes."""


def tournament_list(request: HtmxHttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.order_by("-played_on", "-id")[:100]
    return render(request, "scoring/tournament_list.html", {"tournaments": tournaments})


def _tournament(pk: int) -> Tournament:
    return get_object_or_404(
        Tournament.objects.select_related("preferans_version__tariff", "boston_version__tariff"),
        pk=pk,
    )


def tournament_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The tournament's page, or its big screen with ``?screen=1``; for htmx, the standings
    and the tours alone (the region its poll and its stream fetch)."""
    if request.GET.get("screen") == "1":
        return tournament_screen(request, pk)
    tournament = _tournament(pk)
    page = pages.tournament_page(tournament)
    context = {
        "tournament": tournament,
        "page": page,
        "judges": can_judge(request.user, tournament),
        "confirmable": confirmable(
            request.user, page.current.tables if page.current else [], tournament
        ),
        "new_key": uuid.uuid4,  # each confirmation form gets a key of its own
    }

    def whole_page() -> dict[str, Any]:
        runs = can_run_tournament(request.user)
        members = (
            Member.objects.filter(is_active=True)
            .exclude(pk__in=[e.member_id for e in page.entries if e.member_id])
            .order_by("display_name")
            if runs and tournament.is_draft
            else []
        )
        return {
            **context,
            "runs": runs,
            "members": members,
            "field_rows": [
                (e, can_check_in_entry(request.user, tournament, e)) for e in page.entries
            ],
            "categories": Penalty.GIVEN,
        }

    return page_or_partial(
        request, "scoring/tournament_detail.html#tournament-live", context, page=whole_page
    )


def tournament_screen(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The big screen for the club's TV: the standings and the tables in play in large
    type, its region redrawn every 10 s (for htmx, the region alone)."""
    tournament = _tournament(pk)
    context = {
        "tournament": tournament,
        "page": pages.tournament_page(tournament, history=False),
        "refresh": SCREEN_REFRESH,
    }
    return page_or_partial(request, "scoring/tournament_screen.html#screen-body", context)


def _tour(tournament: Tournament, number: int) -> Tour:
    return get_object_or_404(Tour, tournament=tournament, number=number)


def tour_seating(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """A tour's seating as a page (printable): each table, its players in seat order."""
    tournament = _tournament(pk)
    view = _tour_view(tournament, number)
    return render(
        request, "scoring/tournament_seating.html", {"tournament": tournament, "view": view}
    )


def tour_cards(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """A printable card per table of a tour: the table's number, its players by seat."""
    tournament = _tournament(pk)
    view = _tour_view(tournament, number)
    return render(
        request, "scoring/tournament_cards.html", {"tournament": tournament, "view": view}
    )


def tour_protocol(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """A tour's results protocol, for print: each table with its players in seat order,
    their results, places and tour points, the byes, and lines for the judges' signatures."""
    tournament = _tournament(pk)
    view = _tour_view(tournament, number)
    return render(
        request,
        "scoring/tournament_tour_protocol.html",
        {"tournament": tournament, "view": view, "judges": _judge_names(tournament)},
    )


def tournament_protocol(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The standings protocol, for print: the standings after the last closed tour (the
    final table once the tournament is finished), the penalties in force, and lines for
    the judges' signatures."""
    tournament = _tournament(pk)
    page = pages.tournament_page(tournament, history=False)
    if not page.standings.tours:
        raise Http404
    return render(
        request,
        "scoring/tournament_protocol.html",
        {
            "tournament": tournament,
            "page": page,
            "penalties": [p for p in page.penalties if p.in_force],
            "judges": _judge_names(tournament),
        },
    )


def _judge_names(tournament: Tournament) -> list[str]:
    return sorted(str(judge.name) for judge in tournament.judges.all())


def _tour_view(tournament: Tournament, number: int) -> pages.TourView:
    for view in pages.tour_views(selectors.tours(tournament)):
        if view.tour.number == number:
            return view
    raise Http404


def tournament_csv(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The standings as CSV: one row per player and tour (``pages.CSV_COLUMNS``)."""
    tournament = _tournament(pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.pk}.csv"'
    writer = spreadsheets.writer(response)
    writer.writerow(pages.CSV_COLUMNS)
    writer.writerows(pages.csv_rows(tournament))
    return response


# -- writes ---------------------------------------------------------------------------------


def _back(tournament: Tournament) -> HttpResponse:
    return redirect("scoring:tournament_detail", pk=tournament.pk)


def _refuse(request: HtmxHttpRequest, tournament: Tournament, error: RuleError) -> HttpResponse:
    messages.error(request, rule_error_text(error))
    return _back(tournament)


def _organisers(request: HtmxHttpRequest, pk: int) -> Tournament:
    tournament = _tournament(pk)
    if not can_run_tournament(request.user):
        raise PermissionDenied
    return tournament


def _judges(request: HtmxHttpRequest, pk: int) -> Tournament:
    tournament = _tournament(pk)
    if not can_judge(request.user, tournament):
        raise PermissionDenied
    return tournament


def _posted_int(request: HtmxHttpRequest, name: str) -> int | None:
    try:
        return int(request.POST.get(name, ""))
    except ValueError:
        return None


@login_required
@require_POST
def entry_add(request: SignedInRequest, pk: int) -> HttpResponse:
    """An organiser enters a member (``member``: his id) or a guest (``guest_name``)."""
    tournament = _organisers(request, pk)
    member_pk = _posted_int(request, "member")
    member = Member.objects.filter(pk=member_pk).first() if member_pk is not None else None
    try:
        if member_pk is not None and member is None:
            raise RuleError(_("choose a member"), field="member")
        if member is None and not request.POST.get("guest_name", "").strip():
            raise RuleError(_("choose a member or type a guest's name"), field="member")
        services.entry_add(
            tournament=tournament, member=member, guest_name=request.POST.get("guest_name", "")
        )
    except RuleError as error:
        return _refuse(request, tournament, error)
    return _back(tournament)


@login_required
@require_POST
def entry_check_in(request: SignedInRequest, pk: int) -> HttpResponse:
    """An organiser or a judge checks a player in (or out again); a member himself."""
    tournament = _tournament(pk)
    entry = get_object_or_404(Entry, tournament=tournament, pk=_posted_int(request, "entry") or 0)
    if not can_check_in_entry(request.user, tournament, entry):
        raise PermissionDenied
    try:
        services.entry_check_in(entry=entry, checked_in=request.POST.get("checked_in") != "0")
    except RuleError as error:
        return _refuse(request, tournament, error)
    return _back(tournament)


@login_required
@require_POST
def tournament_start(request: SignedInRequest, pk: int) -> HttpResponse:
    tournament = _organisers(request, pk)
    try:
        services.tournament_start(tournament=tournament)
    except RuleError as error:
        return _refuse(request, tournament, error)
    return _back(tournament)


@login_required
@require_POST
def tour_seat(request: SignedInRequest, pk: int) -> HttpResponse:
    """A judge seats the next tour and opens its tables; then its seating page."""
    tournament = _judges(request, pk)
    try:
        tour = services.tour_seat(tournament=tournament, by=request.user)
    except RuleError as error:
        return _refuse(request, tournament, error)
    return redirect("scoring:tour_seating", pk=tournament.pk, number=tour.number)


@login_required
@require_POST
def tour_close(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    tournament = _judges(request, pk)
    try:
        services.tour_close(tour=_tour(tournament, number))
    except RuleError as error:
        return _refuse(request, tournament, error)
    return _back(tournament)


@login_required
@require_POST
def table_extra_time(request: SignedInRequest, pk: int, number: int, table: int) -> HttpResponse:
    """A judge gives one table of a tour played to time extra minutes."""
    tournament = _judges(request, pk)
    link = get_object_or_404(TourTable, tour=_tour(tournament, number), number=table)
    try:
        services.table_extra_time(link=link, minutes=_posted_int(request, "minutes") or 0)
    except RuleError as error:
        return _refuse(request, tournament, error)
    return _back(tournament)


def _points(text: str) -> Decimal:
    try:
        value = Decimal(sanitize_separators(text.strip() or "0"))
    except InvalidOperation:
        raise RuleError(_("points are a number, e.g. 10 or 2.5"), field="points") from None
    if not value.is_finite() or abs(value) >= 10**8:
        raise RuleError(_("points are a number, e.g. 10 or 2.5"), field="points")
    return value


@login_required
@require_POST
def penalty_add(request: SignedInRequest, pk: int) -> HttpResponse:
    """A judge gives a penalty: a player, its category, the reason, points off."""
    tournament = _judges(request, pk)
    entry = Entry.objects.filter(
        tournament=tournament, pk=_posted_int(request, "entry") or 0
    ).first()
    try:
        if entry is None:
            raise RuleError(_("choose a player of the tournament"), field="entry")
        services.penalty_add(
            tournament=tournament,
            entry=entry,
            category=request.POST.get("category", ""),
            reason=request.POST.get("reason", "")[:500],
            points=_points(request.POST.get("points", "")),
            by=request.user,
        )
    except RuleError as error:
        return _refuse(request, tournament, error)
    return _back(tournament)


@login_required
@require_POST
def penalty_reverse(request: SignedInRequest, pk: int, penalty: int) -> HttpResponse:
    tournament = _judges(request, pk)
    given = get_object_or_404(Penalty, tournament=tournament, pk=penalty)
    try:
        services.penalty_reverse(
            penalty=given, by=request.user, reason=request.POST.get("reason", "")[:500]
        )
    except RuleError as error:
        return _refuse(request, tournament, error)
    return _back(tournament)


@login_required
@require_POST
def cut_decide(request: SignedInRequest, pk: int) -> HttpResponse:
    """A judge decides a tie at the cut: the tied players who go on (``entry``, one box
    each) and why (``reason``)."""
    tournament = _judges(request, pk)
    ticked = request.POST.getlist("entry")
    wanted = {int(value) for value in ticked if value.isdigit()}
    chosen = list(Entry.objects.filter(tournament=tournament, pk__in=wanted))
    try:
        if len(chosen) != len(set(ticked)):
            raise RuleError(_("choose players of the tournament"), field="entry")
        services.cut_decide(
            tournament=tournament,
            chosen=chosen,
            reason=request.POST.get("reason", "")[:500],
            by=request.user,
        )
    except RuleError as error:
        return _refuse(request, tournament, error)
    return _back(tournament)


@login_required
@require_POST
def cut_decision_reverse(request: SignedInRequest, pk: int) -> HttpResponse:
    """A judge reverses the judges' decision at the cut, saying why."""
    tournament = _judges(request, pk)
    try:
        services.cut_decision_reverse(
            tournament=tournament, by=request.user, reason=request.POST.get("reason", "")[:500]
        )
    except RuleError as error:
        return _refuse(request, tournament, error)
    return _back(tournament)
