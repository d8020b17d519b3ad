"""What a table's pages show: the table read as they need it, the page's context, the
sheet region (the drawing, the totals and the deal log), the change history, the deal
form and its fields, and a refused write's words for what changed meanwhile. Each region
is rendered once per revision (per language and rights) and kept (``scoring.live``).
Writes nothing."""

from __future__ import annotations

import uuid
from typing import Any

from django.core.cache import cache
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from scoring import games, selectors
from scoring.engine.errors import N_, RuleError
from scoring.live.fragments import RevisionCache, cached
from scoring.live.keys import (
    deal_fields_key,
    history_key,
    page_table_key,
    qr_key,
    sheet_html_key,
    with_epoch,
)
from scoring.live.snapshots import LATEST_ROWS
from scoring.models import AuditEntry, DealRecord, Seat, Table
from scoring.pages import games as game_pages
from scoring.pages import share
from scoring.pages.confirmations import confirmation_context
from scoring.pages.forms import ReasonForm
from scoring.pages.labels import deal_words, rule_label
from scoring.permissions import (
    can_accept,
    can_clear_control_time,
    can_close_early,
    can_reject,
    can_reopen,
    can_write,
    is_organiser,
    players_may_accept,
)
from scoring.selectors.deal_caps import cap_reached, deals_played

LIVE_POLL_SECONDS = 2
AUDIT_SHOWN = 20
LOG_SHOWN = LATEST_ROWS
"""Deals shown in the log (newest first): enough to check and correct the last few; the
sheet itself holds every deal, and the whole log is one click away. A revision's snapshot
keeps as many rows, so the log is drawn without reading them."""


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
    "standing",
    "played_on",
    *(f"{game.version_field}__tariff__name" for game in games.GAMES.values()),
]
"""What a list of tables shows of each (its number, game, date, tariff and seats): never
the stored result, which grows with the game."""


def listed_tables() -> QuerySet[Table]:
    """Tables as the home page and the table list show them (seats not included)."""
    return Table.objects.select_related(*VERSIONS).only(*LIST_FIELDS)


def table_for_page(pk: int, *, with_tariff: bool = True) -> Table:
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


KEPT_TABLE_SECONDS = 60
"""How long a table read for its page is kept at most. Its key names the table's revision,
which every write to the table moves on; what no write moves (a member's new display
name, a tariff renamed in the admin) shows within this time, as on the page kept whole."""


def kept_table_for_page(pk: int, version: str) -> Table:
    """``table_for_page``, kept in the cache under the table's ``version``
    (``selectors.table_version``): a signed-in member's table page reads it from there,
    and then asks the database for nothing but his session and himself (the page around
    his parts is kept whole: ``clubsite.pages``)."""
    key = page_table_key(pk, version)
    table = cache.get(key)
    if table is None:
        table = table_for_page(pk)
        cache.set(key, table, KEPT_TABLE_SECONDS)
    return table  # type: ignore[no-any-return]


def totals_context(table: Table) -> dict[str, Any]:
    """The page of a table of paper history (``Table.totals_only``): its seats' results,
    money and places as the file gave them, and who brought it in, when, from which file."""
    imported = (
        AuditEntry.objects.filter(table=table, action=AuditEntry.IMPORT)
        .select_related("actor")
        .order_by("id")
        .first()
    )
    return {
        "table": table,
        "game": game_pages.of_table(table),
        "seats": sorted(table.seats.all(), key=lambda seat: seat.position),
        "imported": imported,
    }


def table_context(
    request: HttpRequest,
    table: Table,
    state: selectors.TableState | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The table page: the sheet region and the history (from the cache when this revision
    was rendered already) and, for those who score, the deal form."""
    context: dict[str, Any] = {
        "table": table,
        "game": game_pages.of_table(table),
        "history": _history_html(request, table),
        "new_key": uuid.uuid4,  # each write form drawn gets a key of its own
    } | _share_context(request, table)
    context |= own_table_context(request, table, state, form=extra.pop("form", None))
    return context | extra


def own_table_context(
    request: HttpRequest,
    table: Table,
    state: selectors.TableState | None = None,
    *,
    form: Any = None,
) -> dict[str, Any]:
    """What of the table page is ``request``'s user's own (the page's ``{% own %}`` parts):
    the sheet as he may edit it or not, the deal form and the table's buttons if he
    scores, a finished table's decisions and confirmation as he may take them, the judge's
    link and the reopening for an organiser."""
    writable = can_write(request.user, table)
    context: dict[str, Any] = {
        "table": table,
        "game": game_pages.of_table(table),
        "sheet": sheet_html(request, table, state, editable=writable),
        "can_score": writable,
        "can_reopen": can_reopen(request.user, table),
        # The judge's page: an organiser's at any table (a tournament's judges are led
        # there from its page, which knows them without another query here).
        "can_judge": is_organiser(request.user) and not table.totals_only,
        "new_key": uuid.uuid4,
    }
    if writable:
        context |= deal_form_context(request, table, state, form=form)
    if not table.is_open and not table.counts:
        context |= standing_context(request, table)
    if not table.is_open:
        context |= confirmation_context(request, table)
    return context


def table_rights(user: Any, table: Table) -> str | None:
    """Everything of ``user`` that his parts of a table in play's page show
    (``own_table_context``) besides his person's (his name, his token, his keys), as a
    string: those with the same rights there are shown the same parts (``clubsite.pages``).
    None for a finished table, whose decisions and confirmation are his own (what he
    accepted)."""
    if not table.is_open:
        return None
    flags = (
        can_write(user, table),
        can_close_early(user, table),
        can_clear_control_time(user, table),
        is_organiser(user),  # the judge's link
        can_reopen(user, table),
    )
    return "".join("1" if flag else "0" for flag in flags)


def standing_context(request: HttpRequest, table: Table) -> dict[str, Any]:
    """A finished table that does not count in the standings (awaiting acceptance,
    rejected, closed early and left out): why, the decisions made on it, who is still to
    accept it where the players decide, and the buttons of whoever may decide now. A
    counted table needs none of it (its decisions are in its history)."""
    user = request.user
    decided = selectors.decisions(table)
    since = [d for d in decided if table.finished_at is None or d.at >= table.finished_at]
    accepted = {d.actor_id for d in since if d.action == AuditEntry.ACCEPT}
    accept = can_accept(user, table)
    if accept and not is_organiser(user) and user.pk in accepted:
        accept = False  # his acceptance is in; the others' are awaited
    awaiting = []
    if table.standing == Table.PENDING and players_may_accept(table):
        awaiting = [
            seat.name
            for seat in table.seats.all()
            if seat.member_id is not None and seat.member_id not in accepted
        ]
    return {
        "standing_box": True,
        "decisions": decided,
        "can_accept": accept,
        "can_reject": can_reject(user, table),
        "awaiting": awaiting,
    }


def _share_context(request: HttpRequest, table: Table) -> dict[str, Any]:
    """What the page offers for sharing the table: its public link, the link's QR code
    (made once per address: segno takes milliseconds) and, when its game draws the sheet,
    the sheet's picture (also the page's preview image in messengers)."""
    url = request.build_absolute_uri(reverse("scoring:table_detail", args=[table.pk]))
    context: dict[str, Any] = {
        "share_url": url,
        "share_qr": cached(qr_key(url), lambda: share.qr_svg(url)),
    }
    if game_pages.of_table(table).draws_sheet:
        picture = reverse("scoring:table_sheet_png", args=[table.pk])
        context["share_picture"] = request.build_absolute_uri(picture)
    return context


def deal_form_context(
    request: HttpRequest,
    table: Table,
    state: selectors.TableState | None,
    form: Any = None,
) -> dict[str, Any]:
    """The deal form (a fresh one unless ``form`` is given), which needs the table replayed."""
    state = state or selectors.current(table, latest=0)
    kind = games.of_table(table)
    capped = cap_reached(table, state.game, state.count)
    complete = kind.is_complete(state.game) or capped
    marked = table.control_time_deal is not None
    context = {
        "table": table,
        "can_score": True,
        "complete": complete,
        "can_close_early": not complete and can_close_early(request.user, table),
        "can_mark": kind.last_round and not marked and not complete,
        "can_clear_mark": marked and can_clear_control_time(request.user, table),
        "deal_revision": table.revision,  # a form redrawn from what was posted keeps its own
        "new_key": uuid.uuid4,
    }
    if table.deal_cap is not None:  # a tour's table: «раздача 7 из 18»
        context |= {
            "deal_cap": table.deal_cap,
            "deal_number": deals_played(state.game, state.count) + 1,
            "capped": capped,
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
    shape = game_pages.of_table(table).empty_form_shape(state.game)
    key = deal_fields_key(table, language, shape)

    def render_fields() -> str:
        fields = context | {"form": deal_form(state)}
        return render_to_string("scoring/_deal_fields.html", fields, request)

    return cached(key, render_fields)


def sheet_html(
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
    context = sheet_context(table, state, shown) | {"can_score": editable}
    return render_to_string("scoring/table_detail.html#sheet", context, request)


def sheet_context(table: Table, state: selectors.TableState, shown: int | None) -> dict[str, Any]:
    """What the sheet shows: the game's own head (a drawing), the totals, the last ``shown``
    deals (or all)."""
    game = game_pages.of_table(table)
    document = state.document(with_deals=False)
    return {
        "table": table,
        "game": game,
        "document": document,
        "results": _result_rows(game, document),
        "guests": guest_names(table),
        "rows": _deal_rows(state, shown),
        "hidden_rows": max(0, state.count - shown) if shown else 0,
        "log_all": shown is None,
        "poll_seconds": LIVE_POLL_SECONDS,
    } | game.sheet_context(table, state.game, state.players, RevisionCache(table))


def guest_names(table: Table) -> frozenset[str]:
    """The names at ``table`` that are guests' (the pages mark them: a guest is not a
    member, whatever he is called), from its seats (prefetched by ``table_for_page``)."""
    return frozenset(seat.name for seat in table.seats.all() if seat.guest_id is not None)


def _result_rows(
    game: game_pages.GamePage, document: dict[str, Any]
) -> list[tuple[str, list[Any], Any]]:
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
    game = game_pages.of_table(state.table)
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


def deal_form(state: selectors.TableState, data: Any = None, initial: Any = None) -> Any:
    return game_pages.of_table(state.table).deal_form(state.game, state.players, data, initial)


def _history_html(request: HttpRequest, table: Table) -> str:
    """The table's change history, newest first: the latest entries (rendered once per
    revision, since every change moves the revision on), or all of them. The history's
    query is built only when it is read: its subqueries took longer to build than the
    kept fragment to read (a fifth of a scorer's page)."""
    if request.GET.get("history") == "all":
        return _render_history(request, table, list(selectors.history(table)), more=False)

    def render_latest() -> str:
        latest = list(selectors.history(table)[: AUDIT_SHOWN + 1])
        shown = latest[:AUDIT_SHOWN]
        return _render_history(request, table, shown, more=len(latest) > AUDIT_SHOWN)

    language = getattr(request, "LANGUAGE_CODE", "")
    return cached(history_key(table, language), render_latest)


def _render_history(request: HttpRequest, table: Table, entries: list[Any], *, more: bool) -> str:
    players = selectors.seat_names(table)
    for entry in entries:
        entry.text = history_text(entry, table, players)
    context = {"audit": entries, "more_history": more}
    return render_to_string("scoring/table_detail.html#history", context, request)


CHANGES = {
    AuditEntry.ADD: gettext_lazy("deal %(n)s saved: %(deal)s"),
    AuditEntry.EDIT: gettext_lazy("deal %(n)s corrected: %(deal)s"),
    AuditEntry.DELETE: gettext_lazy("deal %(n)s deleted: %(deal)s"),
    AuditEntry.UNDO: gettext_lazy("deal %(n)s undone: %(deal)s"),
}
"""A change to a deal, in the words of a refused write (the other changes: the history's)."""


HISTORY = {
    AuditEntry.ADD: pgettext_lazy("history", "deal %(n)s added: %(deal)s"),
    AuditEntry.EDIT: pgettext_lazy("history", "deal %(n)s corrected: %(deal)s"),
    AuditEntry.DELETE: pgettext_lazy("history", "deal %(n)s deleted: %(deal)s"),
    AuditEntry.UNDO: pgettext_lazy("history", "deal %(n)s undone: %(deal)s"),
}
"""A change to a deal as the history lists it, after who made it: «Анна · раздача 3
добавлена: игра 7♣ · Анна · пас–пас»."""


def history_text(entry: AuditEntry, table: Table, players: tuple[str, ...]) -> str:
    """What an entry of the history (``selectors.history``) changed: a deal's change with
    the deal's number and the deal in words, any other change by its name."""
    deal = selectors.entry_deal(entry)
    if entry.action in HISTORY and entry.deal_id is not None and deal is not None:
        words = deal_words(deal, players, preference_suit=table.preference_suit)
        return str(HISTORY[entry.action]) % {"n": entry.n, "deal": words}  # type: ignore[attr-defined]
    swapped = entry.after.get("swapped") if isinstance(entry.after, dict) else None
    if entry.action == AuditEntry.SWAP and isinstance(swapped, list) and len(swapped) == 2:
        return _("a judge swapped the seats of %(first)s and %(second)s; the record replayed") % {
            "first": swapped[0],
            "second": swapped[1],
        }
    after = entry.after if isinstance(entry.after, dict) else {}
    if entry.action == AuditEntry.SUBSTITUTE and {"from_deal", "left", "player"} <= set(after):
        return _("from deal %(n)s, instead of %(left)s: %(player)s") % {
            "n": after["from_deal"],
            "left": after["left"],
            "player": after["player"],
        }
    return str(entry.get_action_display())


def stale_message(table: Table, seen: int) -> str:
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


def edit_forms(
    table: Table, record: DealRecord, data: Any, initial: Any = None
) -> tuple[Any, ReasonForm]:
    """The correction's deal form, drawn for the sheet as it stood before this deal (with
    the deal as stored, ``data`` posted, or ``initial``), and its reason form."""
    state = selectors.replay(table)
    position = _deal_position(state, record)
    before = selectors.replay(table, state.records[:position])
    if data is None and initial is None:
        initial = game_pages.of_table(table).initial_from(record.data)
    return deal_form(before, data, initial=initial), ReasonForm(data)


class DealStruck(RuleError):
    """The deal a page is drawn for is not on the sheet any more: a delete or an undo
    struck it after the request found it."""

    def __init__(self) -> None:
        super().__init__(N_("this deal was deleted already"), field="deal")


def _deal_position(state: selectors.TableState, record: DealRecord) -> int:
    for position, live in enumerate(state.records):
        if live.pk == record.pk:
            return position
    raise DealStruck
