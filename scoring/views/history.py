"""The club's paper history brought in, for organisers (issue 34): a CSV of past results
uploaded, its dry run shown (``services.history.history_plan``: the tables it would make,
the new guests, every refused row), then imported on confirmation
(``history_import``); and the template CSV. The members' CSV alike (``members_plan``,
``members_import``), each new member then mailed the link that sets his password, as
the organisers' members page invites. HTTP only."""

from __future__ import annotations

import base64
import binascii

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from members import services as member_services
from members.http import SignedInRequest
from scoring.engine.errors import RuleError
from scoring.engine.history import MAX_HISTORY_BYTES, TEMPLATE, check_size
from scoring.models import HistoryImport
from scoring.pages.forms import HistoryConfirmForm, HistoryUploadForm, MembersUploadForm
from scoring.pages.labels import rule_error_text
from scoring.permissions import can_import_history
from scoring.services.history import HistoryPlan, HistoryRefused, history_import, history_plan
from scoring.services.history_members import (
    MembersPlan,
    MembersRefused,
    members_import,
    members_plan,
)


def _require_organiser(request: SignedInRequest) -> None:
    if not can_import_history(request.user):
        raise PermissionDenied


def _upload_page(
    request: SignedInRequest,
    form: HistoryUploadForm,
    problem: str = "",
    members_form: MembersUploadForm | None = None,
) -> HttpResponse:
    imports = HistoryImport.objects.select_related("by")[:20]
    return render(
        request,
        "scoring/history_upload.html",
        {
            "form": form,
            "members_form": members_form or MembersUploadForm(prefix="members"),
            "problem": problem,
            "imports": imports,
            "limit": MAX_HISTORY_BYTES // 1_000_000,
        },
    )


def _preview(
    request: SignedInRequest, plan: HistoryPlan, content: bytes, file_name: str
) -> HttpResponse:
    confirm = HistoryConfirmForm(
        initial={"content": base64.b64encode(content).decode(), "file_name": file_name}
    )
    refused = [(r.line, rule_error_text(r.error)) for r in plan.refused]
    return render(
        request,
        "scoring/history_preview.html",
        {"plan": plan, "refused": refused, "confirm": confirm, "file_name": file_name},
    )


@login_required
def history_upload(request: SignedInRequest) -> HttpResponse:
    """The upload form (GET) and the dry run of the file sent (POST)."""
    _require_organiser(request)
    form = HistoryUploadForm(request.POST or None, request.FILES or None)
    if request.method != "POST" or not form.is_valid():
        return _upload_page(request, form)
    upload = form.cleaned_data["file"]
    try:
        check_size(upload.size)  # refused before a byte of it is read
        content = upload.read()
        plan = history_plan(content=content)
    except RuleError as error:
        form.add_error("file", rule_error_text(error))
        return _upload_page(request, form)
    return _preview(request, plan, content, upload.name or "")


@login_required
@require_POST
def history_confirm(request: SignedInRequest) -> HttpResponse:
    """Import the file the dry run showed; refused rows (the club changed meanwhile)
    show the dry run again, and nothing is written."""
    _require_organiser(request)
    form = HistoryConfirmForm(request.POST)
    try:
        if not form.is_valid():
            raise ValueError
        content = base64.b64decode(form.cleaned_data["content"], validate=True)
    except (ValueError, binascii.Error):
        messages.error(request, _("The file did not come back whole: upload it again."))
        return redirect("scoring:history_upload")
    file_name = form.cleaned_data["file_name"]
    try:
        done = history_import(content=content, file_name=file_name, by=request.user)
    except HistoryRefused as refused:
        return _preview(request, refused.plan, content, file_name)
    except RuleError as error:
        return _upload_page(request, HistoryUploadForm(), problem=rule_error_text(error))
    messages.success(
        request,
        _("Imported: %(tables)s tables, %(guests)s new guests.")
        % {"tables": done.tables, "guests": done.guests},
    )
    return redirect("scoring:history_upload")


@login_required
def history_template(request: SignedInRequest) -> HttpResponse:
    """The template CSV: every column, two tables, a guest."""
    _require_organiser(request)
    response = HttpResponse(TEMPLATE.encode(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="club-history-template.csv"'
    return response


def _members_preview(
    request: SignedInRequest, plan: MembersPlan, content: bytes, file_name: str
) -> HttpResponse:
    confirm = HistoryConfirmForm(
        initial={"content": base64.b64encode(content).decode(), "file_name": file_name}
    )
    refused = [(r.line, rule_error_text(r.error)) for r in plan.refused]
    return render(
        request,
        "scoring/history_members_preview.html",
        {"plan": plan, "refused": refused, "confirm": confirm, "file_name": file_name},
    )


@login_required
@require_POST
def history_members(request: SignedInRequest) -> HttpResponse:
    """The dry run of a members' CSV: who it would invite, every row refused."""
    _require_organiser(request)
    form = MembersUploadForm(request.POST, request.FILES, prefix="members")
    if not form.is_valid():
        return _upload_page(request, HistoryUploadForm(), members_form=form)
    upload = form.cleaned_data["file"]
    try:
        check_size(upload.size)  # refused before a byte of it is read
        content = upload.read()
        plan = members_plan(content=content)
    except RuleError as error:
        form.add_error("file", rule_error_text(error))
        return _upload_page(request, HistoryUploadForm(), members_form=form)
    return _members_preview(request, plan, content, upload.name or "")


@login_required
@require_POST
def history_members_confirm(request: SignedInRequest) -> HttpResponse:
    """Invite the members the dry run showed and mail each with an address his link;
    refused rows (the club changed meanwhile) show the dry run again, nothing written."""
    _require_organiser(request)
    form = HistoryConfirmForm(request.POST)
    try:
        if not form.is_valid():
            raise ValueError
        content = base64.b64decode(form.cleaned_data["content"], validate=True)
    except (ValueError, binascii.Error):
        messages.error(request, _("The file did not come back whole: upload it again."))
        return redirect("scoring:history_upload")
    try:
        created = members_import(content=content, by=request.user)
    except MembersRefused as refused:
        return _members_preview(request, refused.plan, content, form.cleaned_data["file_name"])
    except RuleError as error:
        return _upload_page(request, HistoryUploadForm(), problem=rule_error_text(error))
    site = member_services.Site(domain=request.get_host(), use_https=request.is_secure())
    for member in created:
        if member.email:
            member_services.password_link_send(member=member, by=request.user, site=site)
    messages.success(
        request,
        ngettext(
            "Invited %(n)s member; the link to set a password is mailed to those with an address.",
            "Invited %(n)s members; the link to set a password is mailed to those with an address.",
            len(created),
        )
        % {"n": len(created)},
    )
    return redirect("scoring:history_upload")
