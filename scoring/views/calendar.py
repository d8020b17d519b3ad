"""Evenings announced ahead: the calendar page, scheduling (one evening or a weekly
series), a member's answer (htmx, or a plain POST), checking in those who said «приду»,
the iCal feeds (the club's, a member's own behind his private link) and that link made
anew. HTTP only: each view asks ``scoring.permissions``, calls one service or selector
and answers a POST with a redirect (post/redirect/get), or htmx with the region it
changed."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from clubsite.http import HtmxHttpRequest
from members.http import SignedInRequest
from members.models import Member
from scoring.engine.errors import RuleError
from scoring.models import Evening
from scoring.pages import calendar as feeds
from scoring.pages.forms import ScheduleForm
from scoring.pages.labels import rule_error_text
from scoring.permissions import (
    can_answer,
    can_keep_calendar_link,
    can_run_evening,
    can_schedule_evening,
    can_see_calendar,
)
from scoring.selectors import calendar as selectors
from scoring.services import calendar as services

ANSWER_TEMPLATE = "scoring/_evening_answer.html"


def evening_calendar(request: HtmxHttpRequest) -> HttpResponse:
    if not can_see_calendar(request):
        return redirect_to_login(request.get_full_path())
    return _calendar_page(request, ScheduleForm() if can_schedule_evening(request.user) else None)


def _calendar_page(request: HtmxHttpRequest, form: ScheduleForm | None) -> HttpResponse:
    evenings = selectors.upcoming()
    rolls = selectors.rolls(evenings)
    user = request.user
    token = getattr(user, "calendar_token", None)
    return render(
        request,
        "scoring/evening_calendar.html",
        {
            "items": [feeds.answer_context(request, e, rolls[e.pk]) for e in evenings],
            "form": form,
            "my_feed": request.build_absolute_uri(
                reverse("scoring:member_calendar_feed", args=[token])
            )
            if token
            else "",
            "club_feed": request.build_absolute_uri(reverse("scoring:calendar_feed")),
            "can_keep_link": can_keep_calendar_link(user),
            "back": request.path,
        },
    )


@login_required
@require_POST
def evening_schedule(request: SignedInRequest) -> HttpResponse:
    if not can_schedule_evening(request.user):
        raise PermissionDenied
    form = ScheduleForm(request.POST)
    if form.is_valid():
        try:
            evenings = services.evening_schedule(organiser=request.user, **form.cleaned_data)
        except RuleError as error:
            form.add_error(
                error.field if error.field in form.fields else None, rule_error_text(error)
            )
        else:
            messages.success(
                request,
                ngettext("%(n)s evening announced.", "%(n)s evenings announced.", len(evenings))
                % {"n": len(evenings)},
            )
            return redirect("scoring:evening_calendar")
    return _calendar_page(request, form)


def _back(request: HtmxHttpRequest, evening: Evening) -> HttpResponse:
    """Where a plain POST returns: the page it came from (``next``), else the evening's."""
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return redirect(target)
    return redirect("scoring:evening_detail", pk=evening.pk)


@login_required
@require_POST
def evening_answer(request: SignedInRequest, pk: int) -> HttpResponse:
    """The member's own answer, in one tap: htmx gets the evening's answer region again."""
    evening = get_object_or_404(Evening, pk=pk)
    if not can_answer(request.user, evening):
        raise PermissionDenied
    status = 200
    try:
        services.evening_answer(
            evening=evening, member=request.user, answer=request.POST.get("answer", "")
        )
    except RuleError as error:
        if not request.htmx:
            messages.error(request, rule_error_text(error))
            return _back(request, evening)
        status = 400
        problem = rule_error_text(error)
    else:
        if not request.htmx:
            return _back(request, evening)
        problem = ""
    context = feeds.answer_context(request, evening, selectors.roll(evening))
    context |= {"back": request.POST.get("next", ""), "problem": problem}
    response = render(request, ANSWER_TEMPLATE, context, status=status)
    if status != 200:
        response["X-Write-Refused"] = "1"
    return response


@login_required
@require_POST
def evening_check_in_answered(request: SignedInRequest, pk: int) -> HttpResponse:
    """An organiser checks in, in one tap, everyone who has a seat by his «приду»."""
    evening = get_object_or_404(Evening, pk=pk)
    if not can_run_evening(request.user):
        raise PermissionDenied
    n = services.evening_check_in_answered(evening=evening, by=request.user)
    messages.success(
        request, ngettext("%(n)s member checked in.", "%(n)s members checked in.", n) % {"n": n}
    )
    return redirect("scoring:evening_detail", pk=evening.pk)


def _ics(request: HtmxHttpRequest, name: str, member_id: int | None) -> HttpResponse:
    evenings = selectors.feed_evenings(member_id=member_id)
    body = feeds.feed(
        name=name,
        evenings=evenings,
        rolls=selectors.rolls(evenings),
        url_of=lambda e: request.build_absolute_uri(reverse("scoring:evening_detail", args=[e.pk])),
        host=request.get_host().partition(":")[0],
        member_id=member_id,
    )
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="evenings.ics"'
    response["Cache-Control"] = "private, max-age=300"
    return response


def calendar_feed(request: HtmxHttpRequest) -> HttpResponse:
    """The club's feed: every evening, for anyone who may see the calendar."""
    if not can_see_calendar(request):
        raise PermissionDenied
    return _ics(request, _("Club evenings"), None)


def member_calendar_feed(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A member's own feed behind his private link (a calendar app sends no session): the
    evenings he said «приду» or «может быть» to."""
    member = Member.objects.filter(calendar_token=token, is_active=True).first()
    if member is None or not token:
        raise Http404
    return _ics(request, _("My club evenings"), member.pk)


@login_required
@require_POST
def calendar_link_reset(request: SignedInRequest) -> HttpResponse:
    if not can_keep_calendar_link(request.user):
        raise PermissionDenied
    services.calendar_link_reset(member=request.user)
    messages.success(request, _("Your private calendar link is new: the old one works no more."))
    return redirect("scoring:evening_calendar")


@login_required
@require_POST
def evening_cancel(request: SignedInRequest, pk: int) -> HttpResponse:
    """An organiser calls off an evening announced ahead, before it has begun."""
    evening = get_object_or_404(Evening, pk=pk)
    if not can_schedule_evening(request.user):
        raise PermissionDenied
    try:
        services.evening_cancel(evening=evening)
    except RuleError as error:
        messages.error(request, rule_error_text(error))
        return redirect("scoring:evening_detail", pk=evening.pk)
    messages.success(request, _("The evening is called off."))
    return redirect("scoring:evening_calendar")
