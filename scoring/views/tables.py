"""Tables: opening, deal entry, the live sheet, corrections, export and import.

Every write answers htmx with the updated partials and everyone else with a redirect
(post/redirect/get), so each page also works with JavaScript off. Permission checks are
here, in the views, before any service runs.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import partial, wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition, require_http_methods, require_POST
from django_htmx.http import retarget

from clubsite.pages import kept_for_visitors
from clubsite.writes import REFUSED_HEADER, came_from, write_refused
from members.models import Member
from scoring import games, selectors, services, share
from scoring.engine.errors import RuleError
from scoring.engine.record import MAX_RECORD_BYTES, load
from scoring.forms import FinishForm, ImportForm, ReasonForm, reason_refusal, rule_error_to_form
from scoring.labels import deal_words, rule_error_text, rule_label
from scoring.live.fragments import RevisionCache, cached
from scoring.live.keys import (
    deal_fields_key,
    history_key,
    qr_key,
    sheet_html_key,
    sheet_picture_key,
    with_epoch,
)
from scoring.live.snapshots import LATEST_ROWS
from scoring.models import AuditEntry, DealRecord, Guest, Seat, Table
from scoring.permissions import (
    can_clear_control_time,
    can_close_early,
    can_reopen,
    can_score,
    can_write,
    is_organiser,
)
from scoring.selectors.tariffs import version_with_rules

LIVE_POLL_SECONDS = 2
AUDIT_SHOWN = 20
LOG_SHOWN = LATEST_ROWS
"""Deals shown in the log (newest first): enough to check and correct the last few; the
sheet itself holds every deal, and the whole log is one click away. A revision's snapshot
keeps as many rows, so the log is drawn without reading them."""


def _require(allowed: bool) -> None:
    if not allowed:
        raise PermissionDenied


# What a table's pages read of it: not its stored result (for standings; large for a long
# game), and of its tariff only what the header names (a tariff has dozens of columns).
TABLE_FIELDS = [f.name for f in Table._meta.concrete_fields if f.name != "result"]
VERSIONS = tuple(f"{game.version_field}__tariff" for game in games.GAMES.values())
VERSION_FIELDS = [
    f"{game.version_field}__{field}"
    for game in games.GAMES.values()
    for field in ("number", "rules", "tariff__name")
]

LIST_FIELDS = [
    "game",
    "status",
    "played_on",
    *(f"{game.version_field}__tariff__name" for game in games.GAMES.values()),
]
"""What a list of tables shows of each (its number, game, date, tariff and seats): never
the stored result, which grows with the game."""


def listed_tables() -> QuerySet[Table]:
    """Tables as the home page and the table list show them (seats not included)."""
    return Table.objects.select_related(*VERSIONS).only(*LIST_FIELDS)


def _table(pk: int, *, with_tariff: bool = True) -> Table:
    """A table (with the database's epoch, for its cache keys) and its seats, and
    (``with_tariff``) the tariff version and tariff that the
    page's header names: two queries. The live sheet and a saved deal do without the
    tariff, whose join costs more than the rest of the read."""
    # The seats in their order at this one table: their default ordering follows the
    # tables' (a join with the table's row again, for nothing here).
    seats = Prefetch("seats", queryset=Seat.objects.order_by("position"))
    tables = with_epoch(Table.objects.only(*TABLE_FIELDS)).prefetch_related(seats)
    if with_tariff:
        tables = tables.select_related(*VERSIONS).only(*TABLE_FIELDS, *VERSION_FIELDS)
    return get_object_or_404(tables, pk=pk)


# -- pages -----------------------------------------------------------------------------------


def table_list(request: HttpRequest) -> HttpResponse:
    tables = listed_tables().prefetch_related("seats")
    return render(
        request,
        "scoring/table_list.html",
        {
            "games": games.GAMES.values(),
            "in_play": tables.filter(status=Table.OPEN),
            "finished": tables.filter(status=Table.FINISHED)[:30],
        },
    )


@login_required
def table_open(request: HttpRequest, game: str) -> HttpResponse:
    if game not in games.GAMES:
        raise PermissionDenied
    kind = games.of(game)
    form = kind.open_form(request.POST or None)
    if request.method == "POST" and form.is_valid():
        members = form.members()
        user = request.user
        assert isinstance(user, Member)  # noqa: S101 - login_required
        if user not in members and not is_organiser(user):
            form.add_error(None, _("Open a table you play at: take one of the seats."))
        else:
            try:
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


def _context(
    request: HttpRequest,
    table: Table,
    state: selectors.TableState | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The table page: the sheet region and the history (from the cache when this revision
    was rendered already) and, for those who score, the deal form."""
    writable = can_write(request.user, table)
    context: dict[str, Any] = {
        "table": table,
        "game": games.of_table(table),
        "sheet": _sheet_html(request, table, state, editable=writable),
        "history": _history_html(request, table),
        "can_score": writable,
        "can_reopen": can_reopen(request.user, table),
        "new_key": uuid.uuid4,  # each write form drawn gets a key of its own
    } | _share_context(request, table)
    if writable:
        context |= _form_context(request, table, state, form=extra.pop("form", None))
    return context | extra


def _share_context(request: HttpRequest, table: Table) -> dict[str, Any]:
    """What the page offers for sharing the table: its public link, the link's QR code
    (made once per address: segno takes milliseconds) and, when its game draws the sheet,
    the sheet's picture (also the page's preview image in messengers)."""
    url = request.build_absolute_uri(reverse("scoring:table_detail", args=[table.pk]))
    context: dict[str, Any] = {
        "share_url": url,
        "share_qr": cached(qr_key(url), lambda: share.qr_svg(url)),
    }
    if games.of_table(table).draws_sheet:
        picture = reverse("scoring:table_sheet_png", args=[table.pk])
        context["share_picture"] = request.build_absolute_uri(picture)
    return context


def _form_context(
    request: HttpRequest,
    table: Table,
    state: selectors.TableState | None,
    form: Any = None,
) -> dict[str, Any]:
    """The deal form (a fresh one unless ``form`` is given), which needs the table replayed."""
    state = state or selectors.current(table, latest=0)
    kind = games.of_table(table)
    complete = kind.is_complete(state.game)
    marked = table.control_time_deal is not None
    context = {
        "table": table,
        "can_score": True,
        "complete": complete,
        "can_close_early": not complete and can_close_early(request.user, table),
        "can_mark": kind.last_round and not marked and not complete,
        "can_clear_mark": marked and can_clear_control_time(request.user, table),
        "redraw_url": reverse("scoring:deal_create", args=[table.pk]),
        "redraw_target": "#deal-form",
        "deal_revision": table.revision,  # a form redrawn from what was posted keeps its own
        "new_key": uuid.uuid4,
    }
    if form is None:
        context["fields"] = _empty_fields(request, table, state, context)
    else:
        context["form"] = form
    return context


def _empty_fields(
    request: HttpRequest, table: Table, state: selectors.TableState, context: dict[str, Any]
) -> str:
    """The fields of an empty deal form: the same whenever the form has the same shape (who
    deals, the lowest contract), so each shape is rendered once per table and language."""
    language = getattr(request, "LANGUAGE_CODE", "")
    key = deal_fields_key(table, language, games.of_table(table).empty_form_shape(state.game))

    def render_fields() -> str:
        fields = context | {"form": _deal_form(state)}
        return render_to_string("scoring/_deal_fields.html", fields, request)

    return cached(key, render_fields)


def _sheet_html(
    request: HttpRequest,
    table: Table,
    state: selectors.TableState | None,
    *,
    editable: bool,
) -> str:
    """The sheet region: the drawing, the totals and the latest deals (all with ``?log=all``).

    After a deal everyone at the table and every viewer asks for it at once, and it is the
    same for all who see it in one language with the same rights, so it is rendered once per
    revision and then served from the cache."""
    if request.GET.get("log") == "all":
        return _render_sheet(request, table, None, editable=editable, shown=None)
    language = getattr(request, "LANGUAGE_CODE", "")
    return cached(
        sheet_html_key(table, language, editable=editable),
        lambda: _render_sheet(request, table, state, editable=editable, shown=LOG_SHOWN),
    )


def _render_sheet(
    request: HttpRequest,
    table: Table,
    state: selectors.TableState | None,
    *,
    editable: bool,
    shown: int | None,
) -> str:
    state = state or selectors.current(table, latest=shown)
    context = _sheet_context(table, state, shown) | {"can_score": editable}
    return render_to_string("scoring/table_detail.html#sheet", context, request)


def _sheet_context(table: Table, state: selectors.TableState, shown: int | None) -> dict[str, Any]:
    """What the sheet shows: the game's own head (a drawing), the totals, the last ``shown``
    deals (or all)."""
    game = games.of_table(table)
    document = state.document(with_deals=False)
    return {
        "table": table,
        "game": game,
        "document": document,
        "results": _result_rows(game, document),
        "rows": _deal_rows(state, shown),
        "hidden_rows": max(0, state.count - shown) if shown else 0,
        "log_all": shown is None,
        "poll_seconds": LIVE_POLL_SECONDS,
    } | game.sheet_context(table, state.game, state.players, RevisionCache(table))


def _result_rows(game: games.Game, document: dict[str, Any]) -> list[tuple[str, list[Any], Any]]:
    """Each player's line of the result: name, the game's columns, money."""
    return [
        (name, [row[column.key] for column in game.result_columns], row["money"])
        for name, row in document["players"].items()
    ]


def _deal_rows(state: selectors.TableState, shown: int | None) -> list[dict[str, Any]]:
    """The deal log, newest first (the last ``shown`` deals, or all those whose rows the
    state holds): each deal, what it wrote and what else its game shows (Preferans: who
    dealt; Boston: the running chip totals after it)."""
    names = state.players
    held = state.count - len(state.records)  # deals before the first row the state holds
    first = held if shown is None else max(held, state.count - shown)
    rows = []
    game = games.of_table(state.table)
    for n, shows in game.deal_rows(state.game, names, first):
        record = state.records[n - 1 - held]
        entries = [
            {"text": e.text, "rule": rule_label(e.rule), "calc": e.calc} for e in shows["entries"]
        ]
        title = game.deal_title(state.game, record.data)
        rows.append(
            shows
            | {"n": n, "record": record, "deal": record.data, "title": title, "entries": entries}
        )
    return rows[::-1]


def _deal_form(state: selectors.TableState, data: Any = None, initial: Any = None) -> Any:
    return games.of_table(state.table).deal_form(state.game, state.players, data, initial)


def _table_version(request: HttpRequest, pk: int) -> str | None:
    """The table's version (``selectors.table_version``), read once per request: the live
    sheet's ETag and the page kept for visitors (``clubsite.pages``) both name it."""
    if not hasattr(request, "_table_version"):
        request._table_version = selectors.table_version(pk)  # type: ignore[attr-defined]
    return request._table_version  # type: ignore[attr-defined,no-any-return]


@kept_for_visitors(_table_version)
def table_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The table page. A deal's values in the address (``?kind=game&declarer=…``: the way
    back after signing in again, ``clubsite.writes``) are drawn into the deal form."""
    table = _table(pk)
    form = None
    if "kind" in request.GET and can_write(request.user, table):
        form = _deal_form(selectors.current(table, latest=0), initial=request.GET.dict())
    return render(request, "scoring/table_detail.html", _context(request, table, form=form))


def _history_html(request: HttpRequest, table: Table) -> str:
    """The table's change history, newest first: the latest entries (rendered once per
    revision, since every change moves the revision on), or all of them."""
    entries = table.audit.select_related("actor")
    if request.GET.get("history") == "all":
        return _render_history(request, list(entries), more=False)

    def render_latest() -> str:
        latest = list(entries[: AUDIT_SHOWN + 1])
        return _render_history(request, latest[:AUDIT_SHOWN], more=len(latest) > AUDIT_SHOWN)

    language = getattr(request, "LANGUAGE_CODE", "")
    return cached(history_key(table, language), render_latest)


def _render_history(request: HttpRequest, entries: list[Any], *, more: bool) -> str:
    context = {"audit": entries, "more_history": more}
    return render_to_string("scoring/table_detail.html#history", context, request)


def _etag(request: HttpRequest, pk: int) -> str | None:
    """The live sheet's version: one indexed lookup, so an idle viewer costs a 304."""
    version = _table_version(request, pk)
    if version is None:
        return None
    language = getattr(request, "LANGUAGE_CODE", "")
    return f'"{pk}-{version}-{language}"'


@condition(etag_func=_etag)
@cache_control(no_cache=True)
@kept_for_visitors(_table_version)
def table_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The sheet region, polled by viewers: 304 while nothing changed, and after a change
    the same answer for every viewer who is not signed in (kept whole)."""
    table = _table(pk, with_tariff=False)
    editable = can_write(request.user, table)
    return HttpResponse(_sheet_html(request, table, None, editable=editable))


def _picture_etag(request: HttpRequest, pk: int) -> str | None:
    """The sheet picture's version: the table's revision, as the live sheet's, and the
    language (the words drawn on the sheet are in it)."""
    version = selectors.table_version(pk)
    return None if version is None else f'"{pk}-{version}-{get_language()}-png"'


@condition(etag_func=_picture_etag)
def table_sheet_png(request: HttpRequest, pk: int) -> HttpResponse:
    """The drawn sheet as a PNG picture, for messengers (the page's preview image) and for
    forwarding; anyone may see it, as they may the table page.

    A shared link brings every messenger's crawler, each asking again and again: the
    picture is drawn once per revision and kept (``live.fragments``), and a crawler that
    sends the ETag back gets a 304 for one query. ``no-cache``: whoever keeps it asks again
    before showing it, so nobody is shown a sheet that has moved on.

    A game without a drawn sheet (Boston: its sheet is the result table and the deal log)
    has no picture: 404, with a page that says so."""
    table = _table(pk, with_tariff=False)
    game = games.of_table(table)
    if not game.draws_sheet:
        reason = _("This table's sheet has no drawing, so it has no picture: share its page.")
        context = {"reason": reason, "table_url": reverse("scoring:table_detail", args=[table.pk])}
        return render(request, "404.html", context, status=404)

    def draw() -> bytes:
        engine = selectors.current(table, latest=0).game
        return share.sheet_png(game.sheet_svg(table, engine, RevisionCache(table)))

    response = HttpResponse(cached(sheet_picture_key(table), draw), "image/png")
    response["Cache-Control"] = "public, no-cache"
    response["Content-Disposition"] = f'inline; filename="table-{table.pk}.png"'
    return response


def table_print(request: HttpRequest, pk: int) -> HttpResponse:
    """The whole sheet on paper: the drawing, the totals and every deal (titled as the
    log titles it)."""
    table = _table(pk)
    context = _sheet_context(table, selectors.current(table), shown=None)
    return render(request, "scoring/table_print.html", context)


# -- every write: the revision its page showed, and its key -------------------------------------
#
# Each write form at a table carries the table's revision as the page drew it and a fresh
# idempotency key (``scoring/_write_fields.html``). The service checks both under the
# table's row lock: a key stored already answers as the success it was (``AlreadyStored``),
# a revision that is not the table's any more is refused with what changed meanwhile
# (``StaleWrite``, HTTP 409). Every write that succeeds answers with the table's new
# revision in ``X-Table-Revision``. docs/architecture.md tells the whole flow.

REVISION_HEADER = "X-Table-Revision"


class _SignedOut(Exception):
    """A write sent by somebody who is not signed in (any more)."""


def _require_write(request: HttpRequest, allowed: bool) -> None:
    """``PermissionDenied`` unless ``allowed``; a write from a visitor who is not signed in
    (his session expired) is told so instead, keeping what he typed."""
    if allowed:
        return
    if request.method == "POST" and not request.user.is_authenticated:
        raise _SignedOut
    raise PermissionDenied


def _table_write(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view that writes at table ``pk``: a write from a member whose session expired gets
    the message, a way to sign in again and what he typed (``clubsite.writes``)."""

    @wraps(view)
    def write(request: HttpRequest, pk: int, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, pk, *args, **kwargs)
        except _SignedOut:
            problem = _(
                "You are not signed in (perhaps your session has expired), so nothing was "
                "saved. What you typed is kept: sign in again and come back to the table."
            )
            back = came_from(request, reverse("scoring:table_detail", args=[pk]))
            return write_refused(request, problem, come_back=back)

    return write


def _drawn(request: HttpRequest) -> services.Drawn:
    """The revision and key a write carries; ``RuleError`` when it has no revision (a page
    from before the site asked for one, a hand-made request) or a key that is no UUID."""
    revision = _int(request.POST.get("revision"))
    if revision is None or revision < 0:
        raise RuleError(
            _(
                "Nothing was saved: the form does not say which state of the table it was "
                "filled in for. Open the table again and repeat."
            ),
            field="revision",
        )
    raw = request.POST.get("write_key") or ""
    try:
        key = uuid.UUID(raw) if raw else None
    except ValueError:
        raise RuleError(
            _("Nothing was saved: the form's key is damaged. Open the table again and repeat."),
            field="write_key",
        ) from None
    return services.Drawn(revision, key)


def _kept_write(request: HttpRequest, prefix: str) -> dict[str, Any]:
    """The revision and key a form was posted with, for the same form drawn again (a
    redraw, errors, a preview): it stays the write the scorer began on the page he saw."""
    return {
        f"{prefix}_revision": request.POST.get("revision", ""),
        f"{prefix}_key": request.POST.get("write_key", ""),
    }


CHANGES = {
    AuditEntry.ADD: gettext_lazy("deal %(n)s saved: %(deal)s"),
    AuditEntry.EDIT: gettext_lazy("deal %(n)s corrected: %(deal)s"),
    AuditEntry.DELETE: gettext_lazy("deal %(n)s deleted: %(deal)s"),
    AuditEntry.UNDO: gettext_lazy("deal %(n)s undone: %(deal)s"),
}
"""A change to a deal, in the words of a refused write (the other changes: the history's)."""


def _stale_message(table: Table, seen: int) -> str:
    """Why a write drawn at revision ``seen`` was refused: what was written since, e.g.
    «… на столе записали раздачу 12: игра 7♣ · Вера · пас–пас …»."""
    said = []
    players = selectors.seat_names(table)
    for change in selectors.changes_since(table, seen):
        if change.action in CHANGES and change.n is not None and change.deal is not None:
            words = deal_words(change.deal, players, preference_suit=table.preference_suit)
            said.append(str(CHANGES[change.action]) % {"n": change.n, "deal": words})
        else:
            said.append(str(dict(AuditEntry.ACTIONS).get(change.action, change.action)))
    changes = "; ".join(said) or _("something changed")
    return _(
        "While you were entering it, the table changed: %(changes)s. Nothing was saved: "
        "check and save again."
    ) % {"changes": changes}


def _refusal(response: HttpResponse, status: int) -> HttpResponse:
    """``response`` as the answer to a write that stored nothing: ``status``, and marked
    so that htmx swaps it in (``static/js/writes.js``)."""
    response.status_code = status
    response[REFUSED_HEADER] = "1"
    return response


def _stale(
    request: HttpRequest,
    table: Table,
    stale: services.StaleWrite,
    page: Callable[[str], HttpResponse] | None = None,
) -> HttpResponse:
    """A stale write refused (409): htmx gets the table afresh with the message; a plain
    POST its ``page`` again with the message (by default the table page)."""
    message = _stale_message(table, stale.seen)
    if request.htmx:  # type: ignore[attr-defined]
        return _refusal(_table_body(request, table, refused=message), 409)
    if page is None:
        table = _table(table.pk)
        return _refusal(
            render(request, "scoring/table_detail.html", _context(request, table, refused=message)),
            409,
        )
    return _refusal(page(message), 409)


def _revision_told(response: HttpResponse, pk: int, revision: int | None = None) -> HttpResponse:
    """A successful write's answer, with the table's new revision."""
    if revision is None:
        revision = Table.objects.values_list("revision", flat=True).get(pk=pk)
    response[REVISION_HEADER] = str(revision)
    return response


# -- deals -----------------------------------------------------------------------------------


@_table_write
@require_POST
def deal_create(request: HttpRequest, pk: int) -> HttpResponse:
    table = _table(pk, with_tariff=False)
    _require_write(request, can_score(request.user, table))
    if not table.is_open:
        return _refused(request, table, _finished_refusal())
    state = selectors.current(table, latest=LOG_SHOWN)
    kept = _kept_write(request, "deal")
    if "change" in request.POST:  # the kind or declarer changed: redraw the form only
        form = _deal_form(state, initial=request.POST.dict())
        return _form_response(request, table, form, state=state, **kept)
    form = _deal_form(state, request.POST)
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
    request: HttpRequest,
    table: Table,
    form: Any,
    state: selectors.TableState,
    kept: dict[str, Any],
) -> HttpResponse:
    """Store the valid ``form``'s deal, or say why not."""
    try:
        drawn = _drawn(request)
        saved = services.deal_create(
            table, form.deal(), by=_member(request), drawn=drawn, seen=state
        )
    except services.AlreadyStored:  # sent twice: the first one is the table now
        return _after_save(request, table, None)
    except services.StaleWrite as stale:
        return _stale_deal(request, table, stale)
    except RuleError as error:
        rule_error_to_form(form, error)
        status = 400 if error.field in ("revision", "write_key") else 200
        response = _form_response(request, table, form, **kept)  # the sheet may have moved
        return _refusal(response, status) if status != 200 else response
    return _after_save(request, table, saved.state)


def _stale_deal(request: HttpRequest, table: Table, stale: services.StaleWrite) -> HttpResponse:
    """A deal refused because the table changed since its form was drawn (409): the new
    sheet, and the form drawn for it with what was typed, the message and the new
    revision, so that the scorer checks and saves again (htmx: the sheet retargeted and
    the form out of band; a plain POST: the page)."""
    message = _stale_message(table, stale.seen)
    table = _table(table.pk, with_tariff=False)
    state = selectors.current(table, latest=LOG_SHOWN)
    form = _deal_form(state, initial=request.POST.dict())
    if not request.htmx:  # type: ignore[attr-defined]
        table = _table(table.pk)
        page = _context(request, table, form=form, stale=message)
        return _refusal(render(request, "scoring/table_detail.html", page), 409)
    context = _form_context(request, table, state, form) | {
        "sheet": _sheet_html(request, table, state, editable=True),
        "stale": message,
    }
    response = render(request, "scoring/table_detail.html#deal-saved", context)
    return _refusal(retarget(response, "#sheet"), 409)


def _preview(table: Table, state: selectors.TableState, deal: dict[str, Any]) -> list[str]:
    result = services.deal_preview(table, deal)
    entries = games.of_table(table).entries(result, state.players)
    return [f"{e.text} — {rule_label(e.rule)}: {e.calc}" for e in entries]


def _form_response(
    request: HttpRequest,
    table: Table,
    form: Any,
    *,
    state: selectors.TableState | None = None,
    **extra: Any,
) -> HttpResponse:
    """The form again, with its errors (or the preview), beside the sheet as it stands."""
    if state is None:
        table = _table(table.pk)
    if request.htmx:  # type: ignore[attr-defined]
        context = _form_context(request, table, state, form) | extra
        return render(request, "scoring/table_detail.html#deal-form", context)
    context = _context(request, table, state, form=form, **extra)
    return render(request, "scoring/table_detail.html", context)


def _after_save(
    request: HttpRequest, table: Table, state: selectors.TableState | None
) -> HttpResponse:
    """htmx: the new sheet in place of the old and, out of band, an empty form for the next
    deal and the table's buttons, drawn from ``state``, the table after the deal (``None``:
    as it stands now). The history below them shows the new deal from the next page load
    on, as viewers see it. Others: back to the table page."""
    if state is None:
        state = selectors.current(_table(table.pk, with_tariff=False), latest=LOG_SHOWN)
    revision = state.table.revision
    if not request.htmx:  # type: ignore[attr-defined]
        messages.success(request, _("Deal saved."))
        return _revision_told(redirect("scoring:table_detail", pk=table.pk), table.pk, revision)
    table = state.table
    context = _form_context(request, table, state) | {
        "sheet": _sheet_html(request, table, state, editable=True),
        "saved_deal": _("Deal saved."),
    }
    response = render(request, "scoring/table_detail.html#deal-saved", context)
    return _revision_told(retarget(response, "#sheet"), table.pk, revision)


def _after_write(
    request: HttpRequest,
    table: Table,
    message: str,
    state: selectors.TableState | None = None,
) -> HttpResponse:
    """htmx: the fresh sheet and an empty form (drawn from ``state`` when the write
    advanced it); others: back to the table page. Either way with the new revision."""
    if request.htmx:  # type: ignore[attr-defined]
        response = _table_body(request, table, state, saved=message)
    else:
        messages.success(request, message)
        response = redirect("scoring:table_detail", pk=table.pk)
    return _revision_told(response, table.pk)


def _write_answer(
    request: HttpRequest,
    table: Table,
    done: str,
    write: Callable[[], object],
    stale_page: Callable[[str], HttpResponse] | None = None,
) -> HttpResponse:
    """Make a table ``write`` and answer it: ``done`` (also when it was stored already: sent
    twice, the first one is the table now), refused as stale (409, ``stale_page`` again
    for a plain POST) or by the rules."""
    try:
        write()
    except services.AlreadyStored:
        pass
    except services.StaleWrite as stale:
        return _stale(request, table, stale, stale_page)
    except RuleError as error:
        return _refused(request, table, error)
    return _after_write(request, table, done)


def _table_body(
    request: HttpRequest,
    table: Table,
    state: selectors.TableState | None = None,
    **extra: Any,
) -> HttpResponse:
    """The whole table body again, for htmx (read afresh unless ``state`` is current)."""
    table = _table(table.pk) if state is None else state.table
    response = render(
        request, "scoring/table_detail.html#table-body", _context(request, table, state, **extra)
    )
    return retarget(response, "#table-body")


def _member(request: HttpRequest) -> Member:
    user = request.user
    assert isinstance(user, Member)  # noqa: S101 - callers check can_score first
    return user


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


@_table_write
@require_http_methods(["GET", "POST"])
def deal_undo(request: HttpRequest, pk: int) -> HttpResponse:
    """Undo the last deal: a confirmation that names it in words (GET; htmx: the
    confirmation region of the table page), then the undo (POST), which carries the
    revision the confirmation was drawn at: if a deal was saved since, the undo is refused
    rather than strike it."""
    table = _table(pk)
    _require_write(request, can_score(request.user, table))
    if not table.is_open:
        return _refused(request, table, _finished_refusal())
    if request.method == "GET":
        return _undo_page(request, table, seen=_int(request.GET.get("revision")))
    return _write_answer(
        request,
        table,
        _("Last deal undone."),
        lambda: services.deal_undo(table, by=_member(request), drawn=_drawn(request)),
        stale_page=lambda message: _undo_page(request, table, message),
    )


def _undo_page(
    request: HttpRequest, table: Table, stale: str | None = None, *, seen: int | None = None
) -> HttpResponse:
    """«Undo deal N: …?» for the last deal as the table stands now (``stale``: why the
    undo just sent was refused; ``seen``: the revision of the page the scorer came from,
    when the table has moved on since, says what changed before he confirms)."""
    table = _table(table.pk)
    if stale is None and seen is not None and seen != table.revision:
        stale = _stale_message(table, seen)
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
    if request.htmx:  # type: ignore[attr-defined]
        return render(request, "scoring/deal_undo.html#undo-confirm", context)
    return render(request, "scoring/deal_undo.html", context)


def _refused(request: HttpRequest, table: Table, error: RuleError) -> HttpResponse:
    # A correction refused for a later deal names that deal (and its field).
    refused = rule_error_text(error, located=error.deal is not None)
    if error.field in ("revision", "write_key"):  # a request without its revision, say
        if request.htmx:  # type: ignore[attr-defined]
            return _refusal(_table_body(request, table, refused=refused), 400)
        page = _context(request, _table(table.pk), refused=refused)
        return _refusal(render(request, "scoring/table_detail.html", page), 400)
    if request.htmx:  # type: ignore[attr-defined]
        return _table_body(request, table, refused=refused)
    messages.error(request, refused)
    return redirect("scoring:table_detail", pk=table.pk)


@_table_write
def deal_edit(request: HttpRequest, pk: int, deal_pk: int) -> HttpResponse:
    table = _table(pk)
    _require_write(request, can_write(request.user, table))
    record = get_object_or_404(DealRecord, pk=deal_pk, table=table, deleted=False)
    kept = _kept_write(request, "edit") if request.method == "POST" else {}
    form, reason = _edit_forms(table, record, request.POST or None)
    if request.method == "POST" and "change" not in request.POST:
        if form.is_valid() and reason.is_valid():
            try:
                services.deal_edit(
                    record,
                    form.deal(),
                    by=_member(request),
                    reason=reason.cleaned_data["reason"],
                    drawn=_drawn(request),
                )
            except services.AlreadyStored:
                return _edited(request, table, record)
            except services.StaleWrite as stale:
                page = partial(_edit_page_again, request, table, record)
                return _stale(request, table, stale, page)
            except RuleError as error:
                rule_error_to_form(form, error)
            else:
                return _edited(request, table, record)
    elif request.method == "POST":  # the kind or declarer changed: redraw the fields
        form, _reason = _edit_forms(table, record, None, initial=request.POST.dict())
        reason = ReasonForm(initial={"reason": request.POST.get("reason", "")})
    return _edit_page(request, table, record, form, reason, **kept)


def _edit_forms(
    table: Table, record: DealRecord, data: Any, initial: Any = None
) -> tuple[Any, ReasonForm]:
    """The correction's deal form, drawn for the sheet as it stood before this deal (with
    the deal as stored, ``data`` posted, or ``initial``), and its reason form."""
    state = selectors.replay(table)
    position = _deal_position(state, record)
    before = selectors.replay(table, state.records[:position])
    if data is None and initial is None:
        initial = games.of_table(table).initial_from(record.data)
    return _deal_form(before, data, initial=initial), ReasonForm(data)


def _deal_position(state: selectors.TableState, record: DealRecord) -> int:
    return next(i for i, r in enumerate(state.records) if r.pk == record.pk)


def _edit_page(
    request: HttpRequest,
    table: Table,
    record: DealRecord,
    form: Any,
    reason: ReasonForm,
    **extra: Any,
) -> HttpResponse:
    n = list(selectors.live_deals(table)).index(record) + 1
    context = {
        "table": table,
        "form": form,
        "reason_form": reason,
        "n": n,
        "record": record,
        "redraw_url": request.path,
        "redraw_target": "#deal-edit",
        "new_key": uuid.uuid4,
        "edit_revision": table.revision,
    } | extra
    return render(request, "scoring/deal_edit.html", context)


def _edit_page_again(
    request: HttpRequest, table: Table, record: DealRecord, message: str
) -> HttpResponse:
    """The correction refused as stale: its page again for the table as it now stands,
    with what was typed and the message (the new revision, a new key)."""
    table = _table(table.pk)
    record = get_object_or_404(DealRecord, pk=record.pk, table=table, deleted=False)
    form, _reason = _edit_forms(table, record, None, initial=request.POST.dict())
    reason = ReasonForm(initial={"reason": request.POST.get("reason", "")})
    return _edit_page(request, table, record, form, reason, stale=message)


def _edited(request: HttpRequest, table: Table, record: DealRecord) -> HttpResponse:
    n = list(selectors.live_deals(table)).index(record) + 1
    messages.success(request, _("Deal %(n)s corrected.") % {"n": n})
    return _revision_told(redirect("scoring:table_detail", pk=table.pk), table.pk)


@_table_write
@require_POST
def deal_delete(request: HttpRequest, pk: int, deal_pk: int) -> HttpResponse:
    table = _table(pk)
    _require_write(request, can_score(request.user, table))
    record = get_object_or_404(DealRecord, pk=deal_pk, table=table)
    reason = ReasonForm(request.POST)
    if not reason.is_valid():
        return _refused(request, table, reason_refusal(reason, _("Say why the deal is deleted.")))
    return _write_answer(
        request,
        table,
        _("Deal deleted."),
        lambda: services.deal_delete(
            record, by=_member(request), reason=reason.cleaned_data["reason"], drawn=_drawn(request)
        ),
    )


# -- finishing ---------------------------------------------------------------------------------


@_table_write
@require_http_methods(["GET", "POST"])
def table_finish(request: HttpRequest, pk: int) -> HttpResponse:
    """Seated members finish a complete pulka (or a Boston table, which has no end of its
    own) at once. Closing one that is not complete is an organiser's: a confirmation page
    (GET) and a required reason for the history (POST)."""
    table = _table(pk)
    _require_write(request, can_score(request.user, table))
    if not table.is_open:
        return _refused(request, table, _finished_refusal())
    state = selectors.current(table, latest=0)
    complete = games.of_table(table).is_complete(state.game)
    if not complete and not can_close_early(request.user, table):
        return _refused(
            request,
            table,
            RuleError(
                _("Pools are still open: only an organiser can close the pulka early."),
                field="table",
            ),
        )
    form = (FinishForm if complete else ReasonForm)(
        request.POST if request.method == "POST" else None
    )
    refused = None
    if request.method == "POST":
        if form.is_valid():
            return _finish(request, table, form.cleaned_data["reason"], complete)
        if complete:  # a reason too long, or with a NUL character
            return _refused(request, table, reason_refusal(form, ""))
        refused = rule_error_text(reason_refusal(form, _("Say why the table is closed early.")))
    return _finish_page(request, table, complete, form, refused)


def _finish(request: HttpRequest, table: Table, reason: str, complete: bool) -> HttpResponse:
    def page_again(message: str) -> HttpResponse:
        form = (FinishForm if complete else ReasonForm)(initial={"reason": reason})
        return _finish_page(request, _table(table.pk), complete, form, message)

    return _write_answer(
        request,
        table,
        _("Table finished."),
        lambda: services.table_finish(
            table, by=_member(request), reason=reason, drawn=_drawn(request)
        ),
        stale_page=page_again,
    )


def _finish_page(
    request: HttpRequest, table: Table, complete: bool, form: Any, refused: str | None
) -> HttpResponse:
    context = {
        "table": table,
        "complete": complete,
        "form": form,
        "refused": refused,
        "new_key": uuid.uuid4,
    }
    return render(request, "scoring/table_finish.html", context)


def _finished_refusal() -> RuleError:
    return RuleError(_("the table is finished; an organiser can reopen it"), field="table")


# -- the control time (preferans.md §13.12) -----------------------------------------------------


@_table_write
@require_http_methods(["GET", "POST"])
def control_time_mark(request: HttpRequest, pk: int) -> HttpResponse:
    """A scorer marks the control time: a confirmation page that says what follows (GET),
    then the mark (POST). The round is finished from the deals on the sheet now."""
    table = _table(pk)
    _require_write(request, can_score(request.user, table))
    kind = games.of_table(table)
    if not kind.last_round:
        raise Http404
    state = selectors.current(table, latest=0)
    refusal = _mark_refusal(table, kind.is_complete(state.game))
    if refusal is not None:
        return _refused(request, table, refusal)
    if request.method == "POST":
        return _write_answer(
            request,
            table,
            _("Control time marked: the last round is on."),
            lambda: services.control_time_mark(table, by=_member(request), drawn=_drawn(request)),
            stale_page=lambda message: _mark_page(request, _table(pk), message),
        )
    return _mark_page(request, table)


def _mark_page(request: HttpRequest, table: Table, stale: str | None = None) -> HttpResponse:
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
        return _finished_refusal()
    if table.control_time_deal is not None:
        return RuleError(_("The control time is marked already."), field="table")
    if complete:
        return RuleError(_("The pulka is complete already."), field="table")
    return None


@_table_write
@require_POST
def control_time_clear(request: HttpRequest, pk: int) -> HttpResponse:
    """An organiser clears a control-time mark made by mistake, saying why."""
    table = _table(pk)
    _require_write(request, can_clear_control_time(request.user, table))
    reason = ReasonForm(request.POST)
    if not reason.is_valid():
        missing = _("Say why the control-time mark is cleared.")
        return _refused(request, table, reason_refusal(reason, missing))

    def clear() -> None:
        drawn = _drawn(request)
        if table.control_time_deal is None and drawn.revision == table.revision:
            raise RuleError(_("The control time is not marked."), field="table")
        services.control_time_clear(
            table, by=_member(request), reason=reason.cleaned_data["reason"], drawn=drawn
        )

    return _write_answer(request, table, _("Control-time mark cleared."), clear)


@_table_write
@require_POST
def table_reopen(request: HttpRequest, pk: int) -> HttpResponse:
    table = _table(pk)
    _require_write(request, can_reopen(request.user, table))
    reason = ReasonForm(request.POST)
    if not reason.is_valid():
        return _refused(request, table, reason_refusal(reason, _("Say why the table is reopened.")))
    return _write_answer(
        request,
        table,
        _("Table reopened."),
        lambda: services.table_reopen(
            table, by=_member(request), reason=reason.cleaned_data["reason"], drawn=_drawn(request)
        ),
    )


# -- export and import -------------------------------------------------------------------------


def table_export(request: HttpRequest, pk: int) -> HttpResponse:
    table = _table(pk)
    response = JsonResponse(
        services.table_export(table), json_dumps_params={"ensure_ascii": False, "indent": 1}
    )
    response["Content-Disposition"] = f'attachment; filename="table-{table.pk}.json"'
    return response


@login_required
def table_import(request: HttpRequest) -> HttpResponse:
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            table = _import(form, _member(request))
        except services.AlreadyImported as error:
            form.add_error("record", _already_here(error.table))
        except RuleError as error:
            form.add_error("record", rule_error_text(error, located=True))
        else:
            messages.success(request, _("Record imported as a finished table."))
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


def _import(form: ImportForm, user: Member) -> Table:
    upload = form.cleaned_data["record"]
    if upload.size > MAX_RECORD_BYTES:  # refused before a byte of it is read
        raise RuleError(
            _("the file is larger than %(limit)s MB, the limit for a game record")
            % {"limit": f"{MAX_RECORD_BYTES / 1_000_000:g}"}
        )
    try:
        text = upload.read().decode("utf-8")
    except UnicodeDecodeError:
        raise RuleError(_("the file is not UTF-8 text")) from None
    record = load(text)
    if record["game"] != form.cleaned_data["game"]:
        raise RuleError(_("the record is a %(game)s game") % {"game": record["game"]}, field="game")
    members = _members_of(record)
    if user not in members and not is_organiser(user):
        raise RuleError(_("import a game you played in"), field="players")
    version = _version_for(record)
    return services.table_import(
        record,
        version=version,
        members=members,
        by=user,
        played_on=form.cleaned_data.get("played_on"),
    )


def _members_of(record: Any) -> list[services.Player]:
    """The club members a record's players are: by the usernames of its ``members`` field
    when it has one (a club export's: a display name may have changed since), seat by
    seat; a username this club does not have falls back to the player's name; ``null``
    is a guest's seat, seated again as a new guest of the player's name."""
    names = record.get("players")
    if services.MEMBERS_FIELD not in record:
        return list(_members_named(names))
    usernames = record[services.MEMBERS_FIELD]
    if (
        not isinstance(usernames, list)
        or not all(u is None or isinstance(u, str) for u in usernames)
        or not isinstance(names, list)
        or len(usernames) != len(names)
    ):
        raise RuleError(
            _("must list one username for each player, in the players' order"),
            field=services.MEMBERS_FIELD,
        )
    by_username = {m.username: m for m in Member.objects.filter(username__in=usernames)}
    if not all(isinstance(n, str) and n.strip() for n in names):
        raise RuleError(_("must list the players' names"), field="players")
    return [
        # null: a guest's seat (no account), who comes back as a guest of that name
        Guest(name=name[: Guest._meta.get_field("name").max_length])
        if username is None
        else by_username[username]
        if username in by_username
        else _members_named([name])[0]
        for username, name in zip(usernames, names, strict=True)
    ]


def _members_named(names: Any) -> list[Member]:
    """The club members a record's player names refer to (display name or username)."""
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise RuleError(_("must list the players' names"), field="players")
    found = []
    for name in names:
        member = Member.objects.filter(Q(display_name=name) | Q(username=name)).first()
        if member is None:
            raise RuleError(_("no member is called %(name)s") % {"name": name}, field="players")
        found.append(member)
    return found


def _version_for(record: Any) -> Any:
    """The newest tariff version whose rules are the record's rules."""
    game = games.of(record["game"])
    version = version_with_rules(game, game.parse_rules(record.get("rules", game.default_rules)))
    if version is None:
        raise RuleError(
            _("no house tariff has this record's rules; add one in the admin first"),
            field="rules",
        )
    return version
