"""Tables: opening, the table page and its live sheet, the sheet as a picture and on
paper, finishing, the control time, reopening, export and import (deals and their
corrections: ``views/deals.py``; the revision and key every write carries:
``views/writes.py``).

Every write answers htmx with the updated partials and everyone else with a redirect
(post/redirect/get), so each page also works with JavaScript off. Permission checks are
here, in the views, before any service runs.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition, require_http_methods, require_POST

from clubsite.http import HtmxHttpRequest, once_per_request
from clubsite.pages import kept_for_visitors, kept_page
from members.http import SignedInRequest
from scoring import games, selectors, services
from scoring.engine.errors import RuleError
from scoring.live.fragments import Busy, RevisionCache, cached
from scoring.live.keys import sheet_picture_key
from scoring.models import Table
from scoring.pages import games as game_pages
from scoring.pages import share
from scoring.pages.confirmations import may_reopen
from scoring.pages.forms import (
    EarlyCloseForm,
    FinishForm,
    ImportForm,
    ReasonForm,
    reason_refusal,
)
from scoring.pages.labels import rule_error_text
from scoring.pages.tables import (
    deal_form,
    kept_table_for_page,
    listed_tables,
    own_table_context,
    sheet_context,
    sheet_html,
    table_context,
    table_for_page,
    table_rights,
    totals_context,
)
from scoring.permissions import (
    can_accept,
    can_clear_control_time,
    can_close_early,
    can_import_history,
    can_reject,
    can_score,
    can_write,
    is_organiser,
)
from scoring.selectors.deal_caps import cap_reached
from scoring.services.confirmations import table_reopen_confirmed
from scoring.views.writes import (
    finished_refusal,
    member_of,
    refuse,
    require_write,
    revision_and_key,
    table_write,
    write_answer,
)


def _require(allowed: bool) -> None:
    if not allowed:
        raise PermissionDenied


def _played(table: Table) -> Table:
    """``table``, whose deals were played here: a table of paper history has no sheet to
    poll, draw or print and no game record to export (404)."""
    if table.totals_only:
        raise Http404
    return table


# -- pages -----------------------------------------------------------------------------------


def table_list(request: HtmxHttpRequest) -> HttpResponse:
    tables = listed_tables().prefetch_related("seats")
    return render(
        request,
        "scoring/table_list.html",
        {
            "games": game_pages.PAGES.values(),
            "in_play": tables.filter(status=Table.OPEN),
            "finished": tables.filter(status=Table.FINISHED)[:30],
            "can_import_history": can_import_history(request.user),
        },
    )


@login_required
def table_open(request: SignedInRequest, game: str) -> HttpResponse:
    if game not in games.GAMES:
        raise PermissionDenied
    kind = game_pages.of(game)
    form = kind.open_form(request.POST or None, me=request.user)
    if request.method == "POST" and form.is_valid():
        members = form.members()
        user = request.user
        if user not in members and not is_organiser(user):
            form.add_error(None, _("Open a table you play at: take one of the seats."))
        else:
            try:
                services.tables_per_hour_check(by=user)
                table = services.table_open(
                    game=game,
                    version=form.cleaned_data["version"],
                    members=members,
                    by=user,
                    first_dealer=form.cleaned_data.get("first_dealer", 0),
                    pool_target=form.cleaned_data.get("pool_target", 20),
                    price=form.cleaned_data["price"],
                    control_time=form.cleaned_data.get("control_time"),
                    preference_suit=form.cleaned_data.get("preference_suit") or None,
                )
            except RuleError as error:
                form.add_error(None, rule_error_text(error))
            else:
                return redirect("scoring:table_detail", pk=table.pk)
    return render(request, "scoring/table_open.html", {"form": form, "game": kind})


def _table_version(request: HtmxHttpRequest, pk: int) -> str | None:
    """The table's version (``selectors.table_version``), read once per request: the live
    sheet's ETag and the page kept for everyone (``clubsite.pages``) both name it."""
    return once_per_request(request, "table_version", lambda: selectors.table_version(pk))


def _address_form(request: HtmxHttpRequest, table: Table) -> Any:
    """A deal's values in the address (``?kind=game&declarer=…``: the way back after
    signing in again, ``clubsite.writes``) drawn into the deal form of one who scores."""
    if "kind" in request.GET and can_write(request.user, table):
        return deal_form(selectors.current(table, latest=0), initial=request.GET.dict())
    return None


def _page_table(request: HtmxHttpRequest, pk: int) -> Table:
    """The table the page shows, read once per request (and kept per revision: a member's
    view of a kept page reads it from the cache): the page kept for everyone and the
    viewer's own parts, made in one request after a change, both show it."""

    def read() -> Table:
        version = _table_version(request, pk)
        return table_for_page(pk) if version is None else kept_table_for_page(pk, version)

    return once_per_request(request, "page_table", read)


def _own_table_parts(request: HtmxHttpRequest, pk: int) -> dict[str, Any]:
    """The table page's parts that are the viewer's own (``pages.own_table_context``)."""
    table = _page_table(request, pk)
    if table.totals_only:  # its page has no part of his but the header's
        return {}
    return own_table_context(request, table, form=_address_form(request, table))


def _table_rights(request: HtmxHttpRequest, pk: int) -> str | None:
    """What the signed-in member may do at the table (``pages.table_rights``); None when a
    deal's values are drawn into his form (``?kind=``): that form is his alone."""
    if "kind" in request.GET:
        return None
    return table_rights(request.user, _page_table(request, pk))


@kept_page(_table_version, _own_table_parts, rights=_table_rights)
def table_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The table page, kept per revision for everyone: a scorer's form and buttons, his
    editable sheet, an organiser's reopening are filled in for each (``clubsite.pages``)."""
    table = _page_table(request, pk)
    if table.totals_only:  # paper history: its totals, no sheet
        return render(request, "scoring/table_totals.html", totals_context(table))
    form = _address_form(request, table)
    return render(request, "scoring/table_detail.html", table_context(request, table, form=form))


def _at_least(request: HtmxHttpRequest) -> int | None:
    """The least revision the live sheet's fetch may be answered at, as ``X-Live-Revision``
    names it (static/js/live.js): the one its page shows, the one a pushed event told it,
    or one past the shown one for a fetch made because something changed."""
    # From META: ``request.headers`` copies every header first, for one.
    named = request.META.get("HTTP_X_LIVE_REVISION", "")
    return int(named) if named.isdigit() and len(named) < 19 else None


def _live_version(request: HtmxHttpRequest, pk: int) -> str | None:
    """The live sheet's version, read once per request: the one this process read for a
    poll less than a second ago, unless the page names a later revision
    (``selectors.polled_table_version``)."""
    return once_per_request(
        request,
        "live_version",
        lambda: selectors.polled_table_version(pk, at_least=_at_least(request)),
    )


def _etag(request: HtmxHttpRequest, pk: int) -> str | None:
    """The live sheet's version, mostly from the process's memory: an idle viewer costs a
    304 and no round trip."""
    version = _live_version(request, pk)
    if version is None:
        return None
    language = getattr(request, "LANGUAGE_CODE", "")
    return f'"{pk}-{version}-{language}"'


@condition(etag_func=_etag)
@cache_control(no_cache=True)
@kept_for_visitors(_live_version)
def table_live(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The sheet region, polled by viewers: 304 while nothing changed, and after a change
    the same answer for every viewer who is not signed in (kept whole)."""
    table = _played(table_for_page(pk, with_tariff=False))
    editable = can_write(request.user, table)
    return HttpResponse(sheet_html(request, table, None, editable=editable))


PICTURE_WAIT_SECONDS = 0.25
"""How long a request for a picture not drawn yet waits for a render slot, or for another
request's render of it, before it is answered 503: a worker thread is held no longer, so a
burst of them leaves threads for ``/healthz`` and the pages."""


def _picture_page(request: HtmxHttpRequest) -> int | None:
    """The picture's ``?page=`` (1, the top, unless asked), or None for one it cannot be."""
    asked = request.GET.get("page", "1")
    return int(asked) if asked.isdigit() and 0 < int(asked) < 10_000 else None


def _picture_etag(request: HtmxHttpRequest, pk: int) -> str | None:
    """The sheet picture's version: the table's revision, as the live sheet's, the
    language (the words drawn on the sheet are in it) and the page."""
    version = selectors.table_version(pk)
    page = _picture_page(request)
    if version is None or page is None:
        return None
    return f'"{pk}-{version}-{get_language()}-png{"" if page == 1 else f"-{page}"}"'


@condition(etag_func=_picture_etag)
def table_sheet_png(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The drawn sheet as a PNG picture, for messengers (the page's preview image) and for
    forwarding; anyone may see it, as they may the table page.

    A shared link brings every messenger's crawler, each asking again and again: the
    picture is drawn once per revision and kept (``live.fragments``), and a crawler that
    sends the ETag back gets a 304 for one query. ``no-cache``: whoever keeps it asks again
    before showing it, so nobody is shown a sheet that has moved on.

    A sheet taller than ``share.PNG_MAX_HEIGHT`` pixels comes in pages (``?page=2``…), each
    one labelled. Pictures are drawn in the site's few render slots
    (``CLUB_PICTURE_RENDERS``): a request that finds none free within
    ``PICTURE_WAIT_SECONDS`` is answered 503 with ``Retry-After``.

    A game without a drawn sheet (Boston: its sheet is the result table and the deal log)
    has no picture: 404, with a page that says so."""
    page = _picture_page(request)
    if page is None:
        raise Http404
    table = _played(table_for_page(pk, with_tariff=False))
    game = game_pages.of_table(table)
    if not game.draws_sheet:
        reason = _("This table's sheet has no drawing, so it has no picture: share its page.")
        context = {"reason": reason, "table_url": reverse("scoring:table_detail", args=[table.pk])}
        return render(request, "404.html", context, status=404)

    def draw() -> bytes:
        engine = selectors.current(table, latest=0).game
        svg = game.sheet_svg(table, engine, RevisionCache(table))
        if page > share.picture_pages(svg):
            raise Http404
        return share.sheet_png(svg, page)

    try:
        png = cached(
            sheet_picture_key(table, page),
            draw,
            slots=settings.CLUB_PICTURE_RENDERS,
            wait=PICTURE_WAIT_SECONDS,
        )
    except Busy:
        busy = HttpResponse(_("The sheet's picture is being drawn: ask again shortly."), status=503)
        busy["Retry-After"] = "2"
        busy["Cache-Control"] = "no-store"
        return busy
    response = HttpResponse(png, "image/png")
    response["Cache-Control"] = "public, no-cache"
    response["Content-Disposition"] = f'inline; filename="table-{table.pk}.png"'
    return response


def table_print(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The whole sheet on paper: the drawing, the totals and every deal (titled as the
    log titles it)."""
    table = _played(table_for_page(pk))
    context = sheet_context(table, selectors.current(table), shown=None)
    return render(request, "scoring/table_print.html", context)


# -- finishing ---------------------------------------------------------------------------------


@table_write
@require_http_methods(["GET", "POST"])
def table_finish(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Seated members finish a complete pulka (or a Boston table, which has no end of its
    own) at once. Closing one that is not complete is an organiser's: a confirmation page
    (GET) and a required reason for the history (POST)."""
    table = table_for_page(pk)
    require_write(request, can_score(request.user, table))
    if not table.is_open:
        return refuse(request, table, finished_refusal())
    state = selectors.current(table, latest=0)
    complete = games.of_table(table).is_complete(state.game) or cap_reached(
        table, state.game, state.count
    )
    if not complete and not can_close_early(request.user, table):
        return refuse(
            request,
            table,
            RuleError(
                _("Pools are still open: only an organiser can close the pulka early."),
                field="table",
            ),
        )
    form = (FinishForm if complete else EarlyCloseForm)(
        request.POST if request.method == "POST" else None
    )
    refused = None
    if request.method == "POST":
        if form.is_valid():
            return _finish(request, table, form.cleaned_data, complete)
        if complete:  # a reason too long, or with a NUL character
            return refuse(request, table, reason_refusal(form, ""))
        if "reason" in form.errors or not str(form.data.get("reason") or "").strip():
            refusal = reason_refusal(form, _("Say why the table is closed early."))
        else:
            refusal = RuleError(" ".join(str(e) for e in form.errors["counts"]), field="counts")
        refused = rule_error_text(refusal)
    return _finish_page(request, table, complete, form, refused)


def _finish(
    request: HtmxHttpRequest, table: Table, cleaned: dict[str, Any], complete: bool
) -> HttpResponse:
    """Finish ``table`` as the form said: played to the end (``complete``), it counts as
    it did; closed early, it counts only if the organiser said so."""
    reason = cleaned["reason"]
    standing = None
    if not complete:
        standing = Table.COUNTED if cleaned["counts"] else Table.LEFT_OUT

    def page_again(message: str) -> HttpResponse:
        form = (FinishForm if complete else EarlyCloseForm)(initial={"reason": reason})
        return _finish_page(request, table_for_page(table.pk), complete, form, message)

    return write_answer(
        request,
        table,
        _("Table finished."),
        lambda: services.table_finish(
            table,
            by=member_of(request),
            reason=reason,
            drawn=revision_and_key(request),
            standing=standing,
        ),
        stale_page=page_again,
    )


def _finish_page(
    request: HtmxHttpRequest, table: Table, complete: bool, form: Any, refused: str | None
) -> HttpResponse:
    context = {
        "table": table,
        "complete": complete,
        "form": form,
        "refused": refused,
        "new_key": uuid.uuid4,
    }
    return render(request, "scoring/table_finish.html", context)


# -- the control time (preferans.md §13.12) -----------------------------------------------------


@table_write
@require_http_methods(["GET", "POST"])
def control_time_mark(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A scorer marks the control time: a confirmation page that says what follows (GET),
    then the mark (POST). The round is finished from the deals on the sheet now."""
    table = table_for_page(pk)
    require_write(request, can_score(request.user, table))
    kind = games.of_table(table)
    if not kind.last_round:
        raise Http404
    state = selectors.current(table, latest=0)
    refusal = _mark_refusal(table, kind.is_complete(state.game))
    if refusal is not None:
        return refuse(request, table, refusal)
    if request.method == "POST":
        return write_answer(
            request,
            table,
            _("Control time marked: the last round is on."),
            lambda: services.control_time_mark(
                table, by=member_of(request), drawn=revision_and_key(request)
            ),
            stale_page=lambda message: _mark_page(request, table_for_page(pk), message),
        )
    return _mark_page(request, table)


def _mark_page(request: HtmxHttpRequest, table: Table, stale: str | None = None) -> HttpResponse:
    """What marking the control time now would leave to play, and the button."""
    kind = games.of_table(table)
    marked = selectors.current(table, latest=0).game.copy()
    kind.mark_control_time(marked)
    context = {
        "table": table,
        "deals_left": kind.deals_left(marked),
        "stale": stale,
        "new_key": uuid.uuid4,
    }
    return render(request, "scoring/table_control_time.html", context)


def _mark_refusal(table: Table, complete: bool) -> RuleError | None:
    """Why the control time cannot be marked now, if it cannot."""
    if not table.is_open:
        return finished_refusal()
    if table.control_time_deal is not None:
        return RuleError(_("The control time is marked already."), field="table")
    if complete:
        return RuleError(_("The pulka is complete already."), field="table")
    return None


@table_write
@require_POST
def control_time_clear(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """An organiser clears a control-time mark made by mistake, saying why."""
    table = table_for_page(pk)
    require_write(request, can_clear_control_time(request.user, table))
    reason = ReasonForm(request.POST)
    if not reason.is_valid():
        missing = _("Say why the control-time mark is cleared.")
        return refuse(request, table, reason_refusal(reason, missing))

    def clear() -> None:
        drawn = revision_and_key(request)
        if table.control_time_deal is None and drawn.revision == table.revision:
            raise RuleError(_("The control time is not marked."), field="table")
        services.control_time_clear(
            table, by=member_of(request), reason=reason.cleaned_data["reason"], drawn=drawn
        )

    return write_answer(request, table, _("Control-time mark cleared."), clear)


@table_write
@require_POST
def table_reopen(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    table = table_for_page(pk)
    require_write(request, may_reopen(request.user, table))
    reason = ReasonForm(request.POST)
    if not reason.is_valid():
        return refuse(request, table, reason_refusal(reason, _("Say why the table is reopened.")))
    return write_answer(
        request,
        table,
        _("Table reopened."),
        lambda: table_reopen_confirmed(
            table,
            by=member_of(request),
            reason=reason.cleaned_data["reason"],
            drawn=revision_and_key(request),
        ),
    )


@table_write
@require_POST
def table_decide(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Accept (``decision=accept``) or reject (``decision=reject``) a finished table
    awaiting acceptance for the standings: an organiser, or a seated member where the
    club lets the players decide (``permissions.can_accept``, ``can_reject``)."""
    table = table_for_page(pk)
    require_write(request, can_accept(request.user, table) or can_reject(request.user, table))
    decision = request.POST.get("decision")
    if decision not in ("accept", "reject"):
        return refuse(
            request, table, RuleError(_("Choose to accept or to reject."), field="decision")
        )
    accepted = decision == "accept"
    require_write(request, (can_accept if accepted else can_reject)(request.user, table))
    return write_answer(
        request,
        table,
        _("Accepted for the standings.") if accepted else _("Rejected: it does not count."),
        lambda: services.table_decide(
            table=table, by=member_of(request), accepted=accepted, drawn=revision_and_key(request)
        ),
    )


# -- export and import -------------------------------------------------------------------------


def table_export(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    table = _played(table_for_page(pk))
    response = JsonResponse(
        services.table_export(table), json_dumps_params={"ensure_ascii": False, "indent": 1}
    )
    response["Content-Disposition"] = f'attachment; filename="table-{table.pk}.json"'
    return response


@login_required
def table_import(request: SignedInRequest) -> HttpResponse:
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            table = services.record_import(
                upload=form.cleaned_data["record"],
                game=form.cleaned_data["game"],
                played_on=form.cleaned_data.get("played_on"),
                by=request.user,
            )
        except services.AlreadyImported as error:
            form.add_error("record", _already_here(error.table))
        except RuleError as error:
            form.add_error("record", rule_error_text(error, located=True))
        else:
            messages.success(
                request,
                _(
                    "Record imported as a finished table. It counts in the standings once "
                    "it is accepted."
                ),
            )
            return redirect("scoring:table_detail", pk=table.pk)
    return render(request, "scoring/table_import.html", {"form": form})


def _already_here(pk: int) -> str:
    """The refusal of a game the club has already, with a link to its table."""
    link = format_html('<a href="{}">{}</a>', reverse("scoring:table_detail", args=[pk]), pk)
    return format_html(
        _(
            "this game is in the club already, as table {table}: importing it again would "
            "count it twice in the standings"
        ),
        table=link,
    )
