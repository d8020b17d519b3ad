"""Deals at a table: entering one (with its preview and the form redrawn as its kind
changes), undoing the last, correcting and deleting one.

Every write answers htmx with the updated partials and everyone else with a redirect
(post/redirect/get), so each page also works with JavaScript off. Permission checks are
here, in the views, before any service runs.
"""

from __future__ import annotations

import uuid
from functools import partial
from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, retarget

from clubsite.http import HtmxHttpRequest, page_or_partial
from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.models import DealRecord, Table
from scoring.pages import games as game_pages
from scoring.pages.forms import (
    ReasonForm,
    reason_refusal,
    rule_error_to_form,
)
from scoring.pages.labels import deal_words, rule_error_text, rule_label
from scoring.pages.tables import (
    LOG_SHOWN,
    DealStruck,
    deal_form,
    deal_form_context,
    edit_forms,
    sheet_html,
    stale_message,
    table_context,
    table_for_page,
)
from scoring.permissions import (
    can_score,
    can_write,
)
from scoring.views.writes import (
    finished_refusal,
    int_or_none,
    kept_write,
    member_of,
    refusal,
    refuse,
    require_write,
    revision_and_key,
    stale_answer,
    table_page,
    table_write,
    with_revision,
    write_answer,
)


@table_write
@require_POST
def deal_create(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    table = table_for_page(pk, with_tariff=False)
    require_write(request, can_score(request.user, table))
    if not table.is_open:
        return refuse(request, table, finished_refusal())
    state = selectors.current(table, latest=LOG_SHOWN)
    kept = kept_write(request, "deal")
    if "change" in request.POST:  # the kind or declarer changed: redraw the form only
        form = deal_form(state, initial=request.POST.dict())
        return _form_response(request, table, form, state=state, **kept)
    form = deal_form(state, request.POST)
    if not form.is_valid():
        return _form_response(request, table, form, state=state, **kept)
    if "preview" in request.POST:
        try:
            preview = _preview(table, state, form.deal())
        except RuleError as error:
            rule_error_to_form(form, error)
            return _form_response(request, table, form, **kept)
        return _form_response(request, table, form, state=state, preview=preview, **kept)
    return _save_deal(request, table, form, state, kept)


def _save_deal(
    request: HtmxHttpRequest,
    table: Table,
    form: Any,
    state: selectors.TableState,
    kept: dict[str, Any],
) -> HttpResponse:
    """Store the valid ``form``'s deal, or say why not."""
    try:
        drawn = revision_and_key(request)
        saved = services.deal_create(
            table, form.deal(), by=member_of(request), drawn=drawn, seen=state
        )
    except services.AlreadyStored as stored:  # sent again: answered as the first was
        return _after_save(request, table, None, stored.revision)
    except services.StaleWrite as stale:
        return _stale_deal(request, table, stale)
    except RuleError as error:
        rule_error_to_form(form, error)
        status = 400 if error.field in ("revision", "write_key") else 200
        response = _form_response(request, table, form, **kept)  # the sheet may have moved
        return refusal(response, status) if status != 200 else response
    return _after_save(request, table, saved.state)


def _stale_deal(request: HtmxHttpRequest, table: Table, stale: services.StaleWrite) -> HttpResponse:
    """A deal refused because the table changed since its form was drawn (409): the new
    sheet, and the form drawn for it with what was typed, the message and the new
    revision, so that the scorer checks and saves again (htmx: the sheet retargeted and
    the form out of band; a plain POST: the page)."""
    message = stale_message(table, stale.seen)
    table = table_for_page(table.pk, with_tariff=False)
    state = selectors.current(table, latest=LOG_SHOWN)
    form = deal_form(state, initial=request.POST.dict())
    response = page_or_partial(
        request,
        "scoring/table_detail.html#deal-saved",
        lambda: (
            deal_form_context(request, table, state, form)
            | {"sheet": sheet_html(request, table, state, editable=True), "stale": message}
        ),
        page=lambda: table_context(request, table_for_page(table.pk), form=form, stale=message),
        retarget_to="#sheet",
    )
    return refusal(response, 409)


def _preview(table: Table, state: selectors.TableState, deal: dict[str, Any]) -> list[str]:
    result = services.deal_preview(table, deal)
    entries = game_pages.of_table(table).entries(result, state.players)
    return [f"{e.text} — {rule_label(e.rule)}: {e.calc}" for e in entries]


def _form_response(
    request: HtmxHttpRequest,
    table: Table,
    form: Any,
    *,
    state: selectors.TableState | None = None,
    **extra: Any,
) -> HttpResponse:
    """The form again, with its errors (or the preview), beside the sheet as it stands."""
    if state is None:
        table = table_for_page(table.pk)
    return page_or_partial(
        request,
        "scoring/table_detail.html#deal-form",
        lambda: deal_form_context(request, table, state, form) | extra,
        page=lambda: table_context(request, table, state, form=form, **extra),
    )


def _after_save(
    request: HtmxHttpRequest,
    table: Table,
    state: selectors.TableState | None,
    revision: int | None = None,
) -> HttpResponse:
    """htmx: the new sheet in place of the old and, out of band, an empty form for the next
    deal and the table's buttons, drawn from ``state``, the table after the deal (``None``:
    as it stands now). The history below them shows the new deal from the next page load
    on, as viewers see it. Others: back to the table page. Either way with the revision
    the deal made (``revision``: a deal sent again, stored the first time)."""
    # A deal sent again was stored the first time: its number is not known here.
    said = _("Deal saved.") if state is None else _("Deal %(n)s saved.") % {"n": state.count}
    if state is None:
        state = selectors.current(table_for_page(table.pk, with_tariff=False), latest=LOG_SHOWN)
    if revision is None:
        revision = state.table.revision
    if request.htmx:
        context = deal_form_context(request, state.table, state) | {
            "sheet": sheet_html(request, state.table, state, editable=True),
            "saved_deal": said,
        }
        response = render(request, "scoring/table_detail.html#deal-saved", context)
        return with_revision(retarget(response, "#sheet"), table.pk, revision)
    # Shown beside the form's Save (the tag), and the page opens at the form: the next Tab
    # goes into it, as after a save with JavaScript the focus does.
    messages.success(request, said, extra_tags="in-place deal-saved")
    url = reverse("scoring:table_detail", args=[table.pk]) + "#deal-form"
    return with_revision(redirect(url), table.pk, revision)


@table_write
@require_http_methods(["GET", "POST"])
def deal_undo(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Undo the last deal: a confirmation that names it in words (GET; htmx: the
    confirmation region of the table page), then the undo (POST), which carries the
    revision the confirmation was drawn at: if a deal was saved since, the undo is refused
    rather than strike it."""
    table = table_for_page(pk)
    require_write(request, can_score(request.user, table))
    if not table.is_open:
        return refuse(request, table, finished_refusal())
    if request.method == "GET":
        return _undo_page(request, table, seen=int_or_none(request.GET.get("revision")))
    try:
        services.deal_undo(table, by=member_of(request), drawn=revision_and_key(request))
    except services.AlreadyStored as stored:  # sent twice: the first one is the table now
        return _undone(request, table, stored.revision)
    except services.StaleWrite as stale:
        return stale_answer(
            request, table, stale, lambda message: _undo_page(request, table, message)
        )
    except RuleError as error:
        return refuse(request, table, error)
    return _undone(request, table)


def _undone(request: HtmxHttpRequest, table: Table, revision: int | None = None) -> HttpResponse:
    """The undo said where it was asked, at the Undo button: htmx, the table redrawn with
    the words there; a plain POST, back to the table at its buttons with them (a message
    tagged to be shown there, not atop the page)."""
    said = _("Last deal undone.")
    if request.htmx:
        response = table_page(request, table, undone=said)
    else:
        messages.success(request, said, extra_tags="in-place undo-result")
        url = reverse("scoring:table_detail", args=[table.pk]) + "#table-actions"
        response = redirect(url)
    return with_revision(response, table.pk, revision)


def _undo_page(
    request: HtmxHttpRequest, table: Table, stale: str | None = None, *, seen: int | None = None
) -> HttpResponse:
    """«Undo deal N: …?» for the last deal as the table stands now (``stale``: why the
    undo just sent was refused; ``seen``: the revision of the page the scorer came from,
    when the table has moved on since, says what changed before he confirms)."""
    table = table_for_page(table.pk)
    if stale is None and seen is not None and seen != table.revision:
        stale = stale_message(table, seen)
    state = selectors.current(table, latest=1)
    last = state.records[-1] if state.count else None
    context = {
        "table": table,
        "n": state.count,
        "words": ""
        if last is None
        else deal_words(last.data, state.players, preference_suit=table.preference_suit),
        "stale": stale,
        "new_key": uuid.uuid4,
    }
    return page_or_partial(request, "scoring/deal_undo.html#undo-confirm", context)


@table_write
def deal_edit(request: HtmxHttpRequest, pk: int, deal_pk: int) -> HttpResponse:
    table = table_for_page(pk)
    require_write(request, can_write(request.user, table))
    record = get_object_or_404(DealRecord, pk=deal_pk, table=table, deleted=False)
    try:
        return _edit_answer(request, table, record)
    except DealStruck as struck:  # by a delete or an undo that won the race: say so
        messages.error(request, rule_error_text(struck))
        if request.htmx:
            return HttpResponseClientRedirect(reverse("scoring:table_detail", args=[table.pk]))
        return redirect("scoring:table_detail", pk=table.pk)


def _edit_answer(request: HtmxHttpRequest, table: Table, record: DealRecord) -> HttpResponse:
    """The correction's page, or the correction stored and answered (``DealStruck`` when
    the deal is struck from the sheet while this request reads it)."""
    kept = kept_write(request, "edit") if request.method == "POST" else {}
    form, reason = edit_forms(table, record, request.POST or None)
    if request.method == "POST" and "change" not in request.POST:
        if form.is_valid() and reason.is_valid():
            try:
                services.deal_edit(
                    record,
                    form.deal(),
                    by=member_of(request),
                    reason=reason.cleaned_data["reason"],
                    drawn=revision_and_key(request),
                )
            except services.AlreadyStored as stored:
                return _edited(request, table, record, stored.revision)
            except services.StaleWrite as stale:
                page = partial(_edit_page_again, request, table, record)
                return stale_answer(request, table, stale, page)
            except RuleError as error:
                rule_error_to_form(form, error)
                if error.field in ("revision", "write_key"):  # nothing to correct in the form
                    return refusal(_edit_page(request, table, record, form, reason, **kept), 400)
            else:
                return _edited(request, table, record)
    elif request.method == "POST":  # the kind or declarer changed: redraw the fields
        form, _reason = edit_forms(table, record, None, initial=request.POST.dict())
        reason = ReasonForm(initial={"reason": request.POST.get("reason", "")})
    return _edit_page(request, table, record, form, reason, **kept)


def _edit_page(
    request: HtmxHttpRequest,
    table: Table,
    record: DealRecord,
    form: Any,
    reason: ReasonForm,
    **extra: Any,
) -> HttpResponse:
    n = _number(table, record)
    if n is None:
        raise DealStruck
    context = {
        "table": table,
        "form": form,
        "reason_form": reason,
        "n": n,
        "record": record,
        "new_key": uuid.uuid4,
        "edit_revision": table.revision,
    } | extra
    return render(request, "scoring/deal_edit.html", context)


def _edit_page_again(
    request: HtmxHttpRequest, table: Table, record: DealRecord, message: str
) -> HttpResponse:
    """The correction refused as stale: its page again for the table as it now stands,
    with what was typed and the message (the new revision, a new key)."""
    table = table_for_page(table.pk)
    record = get_object_or_404(DealRecord, pk=record.pk, table=table, deleted=False)
    form, _reason = edit_forms(table, record, None, initial=request.POST.dict())
    reason = ReasonForm(initial={"reason": request.POST.get("reason", "")})
    return _edit_page(request, table, record, form, reason, stale=message)


def _edited(
    request: HtmxHttpRequest, table: Table, record: DealRecord, revision: int | None = None
) -> HttpResponse:
    n = _number(table, record)
    if n is None:  # struck since (a correction sent again after a delete)
        messages.success(request, _("Deal corrected."))
    else:
        messages.success(request, _("Deal %(n)s corrected.") % {"n": n})
    return with_revision(redirect("scoring:table_detail", pk=table.pk), table.pk, revision)


def _number(table: Table, record: DealRecord) -> int | None:
    """The deal's number on the sheet, or ``None`` once it is struck."""
    live = [deal.pk for deal in selectors.live_deals(table)]
    return live.index(record.pk) + 1 if record.pk in live else None


@table_write
@require_POST
def deal_delete(request: HtmxHttpRequest, pk: int, deal_pk: int) -> HttpResponse:
    table = table_for_page(pk)
    require_write(request, can_score(request.user, table))
    record = get_object_or_404(DealRecord, pk=deal_pk, table=table)
    reason = ReasonForm(request.POST)
    if not reason.is_valid():
        return refuse(request, table, reason_refusal(reason, _("Say why the deal is deleted.")))
    return write_answer(
        request,
        table,
        _("Deal deleted."),
        lambda: services.deal_delete(
            record,
            by=member_of(request),
            reason=reason.cleaned_data["reason"],
            drawn=revision_and_key(request),
        ),
    )
