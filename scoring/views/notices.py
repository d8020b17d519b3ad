"""A member's own messages (docs/evenings.md, "Reminders and messages"): his Telegram chat
linked and unlinked, the Bot API's webhook that links it, his devices subscribed to web
push, and the one-tap answer link of a reminder. HTTP only: each view asks
``scoring.permissions``, calls one service and answers."""

from __future__ import annotations

import hmac
import json
import logging
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from members.http import SignedInRequest
from members.models import Member
from scoring.engine.errors import RuleError
from scoring.models import Evening, EveningAnswer
from scoring.pages.labels import rule_error_text
from scoring.permissions import can_answer_by_link, can_choose_messages
from scoring.services import calendar as calendar_services
from scoring.services import notices

logger = logging.getLogger(__name__)

WEBHOOK_LIMIT = 64 * 1024
"""The largest update the webhook reads (a /start message is a few hundred bytes)."""


@login_required
@require_POST
def telegram_link(request: SignedInRequest) -> HttpResponse:
    """A one-time link to the club's bot: it opens Telegram, whose Start button sends the
    bot the token that names this member."""
    if not can_choose_messages(request.user):
        raise PermissionDenied
    if not notices.telegram_linking_configured():
        messages.error(request, _("The club has not set up its Telegram bot."))
        return redirect("members:settings")
    return redirect(notices.telegram_link_start(member=request.user))


@login_required
@require_POST
def telegram_unlink(request: SignedInRequest) -> HttpResponse:
    if not can_choose_messages(request.user):
        raise PermissionDenied
    notices.telegram_unlink(member=request.user)
    messages.success(request, _("Your Telegram is unlinked: the bot writes to you no more."))
    return redirect("members:settings")


@csrf_exempt  # the Bot API posts here; the secret header stands in for the CSRF token
@require_POST
def telegram_webhook(request: HttpRequest) -> HttpResponse:
    """An update from the Bot API (setWebhook with ``TELEGRAM_WEBHOOK_SECRET``): refused
    without the secret; otherwise 200 whatever it holds (the API would send it again)."""
    secret = settings.TELEGRAM_WEBHOOK_SECRET
    given = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "")
    if not secret or not hmac.compare_digest(given.encode(), secret.encode()):
        return HttpResponse(
            _("Not the club's bot: the webhook's secret is missing or wrong."),
            status=403,
            content_type="text/plain; charset=utf-8",
        )
    if len(request.body) > WEBHOOK_LIMIT:
        return JsonResponse({"ok": False, "reason": "too large"}, status=413)
    try:
        update = json.loads(request.body)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's limit
        return JsonResponse({"ok": False, "reason": "not JSON"}, status=400)
    outcome = notices.telegram_update(update)
    logger.info("Telegram webhook: %s", outcome)
    return JsonResponse({"ok": True})


def _json_body(request: HttpRequest) -> object:
    if len(request.body) > WEBHOOK_LIMIT:
        return None
    try:
        return json.loads(request.body)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's limit
        return None


@login_required
@require_POST
def push_subscribe(request: SignedInRequest) -> HttpResponse:
    """Keep this device's push subscription (the browser's JSON) as the member's."""
    if not can_choose_messages(request.user):
        raise PermissionDenied
    if not notices.webpush_configured():
        return JsonResponse({"error": _("The club has not set up web push.")}, status=400)
    try:
        notices.push_subscribe(member=request.user, subscription=_json_body(request))
    except RuleError as error:
        return JsonResponse({"error": rule_error_text(error)}, status=400)
    return JsonResponse({"message": _("This device gets web push now.")})


@login_required
@require_POST
def push_unsubscribe(request: SignedInRequest) -> HttpResponse:
    if not can_choose_messages(request.user):
        raise PermissionDenied
    body = _json_body(request)
    endpoint = body.get("endpoint") if isinstance(body, dict) else None
    if not isinstance(endpoint, str):
        return JsonResponse({"error": _("this is not a browser's push subscription")}, status=400)
    notices.push_unsubscribe(member=request.user, endpoint=endpoint)
    return JsonResponse({"message": _("This device gets no web push now.")})


@require_http_methods(["GET", "HEAD", "POST"])
def evening_answer_link(request: HttpRequest, pk: int, token: str) -> HttpResponse:
    """A reminder's one-tap answer: the page asks which answer (a GET answers nothing, so
    a mail scanner that opens links changes nothing); its buttons answer for the member
    the link was made for, without signing in."""
    evening = get_object_or_404(Evening, pk=pk)
    member_id = notices.answer_token_read(token, evening.pk)
    member = Member.objects.filter(pk=member_id).first() if member_id is not None else None
    context: dict[str, Any] = {
        "evening": evening,
        "member": member,
        "answers": EveningAnswer.ANSWERS,
    }
    if member is None:
        context["problem"] = _(
            "This answer link is not valid: it was changed, cut short or is too old. "
            "Answer on the evening's page."
        )
        return render(request, "scoring/evening_answer_link.html", context, status=400)
    if not can_answer_by_link(member, evening):
        context["problem"] = _("this evening is over: answers are closed")
        return render(request, "scoring/evening_answer_link.html", context, status=403)
    status = 200
    context["may_answer"] = True
    if request.method == "POST":
        try:
            row = calendar_services.evening_answer(
                evening=evening, member=member, answer=request.POST.get("answer", "")
            )
        except RuleError as error:
            context["problem"] = rule_error_text(error)
            status = 400
        else:
            context["done"] = row.get_answer_display()
    mine = EveningAnswer.objects.filter(evening=evening, member=member).first()
    context["current"] = mine.get_answer_display() if mine else ""
    return render(request, "scoring/evening_answer_link.html", context, status=status)
