"""Provisional, then final (issue 32, item 6): a player confirms a finished table's
result, a judge or an organiser confirms it for the whole table, and a table is reopened
only by whom its finality allows (``selectors.confirmations`` works the finality out;
``permissions.can_confirm``, ``can_reopen_confirmed`` say who; the views ask them).

Each confirmation is an entry of the table's history (``AuditEntry.CONFIRM``: who, when;
``{"for": "table"}`` when made for all its players) and moves the table's revision on,
so its page and its tournament's redraw (the table's event reaches its tournament's
channel: ``live.push``). A reopening is the table's own
(``services.tables.table_reopen``: who and why in the history); finishing the table
again starts its confirmations afresh.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.live import revisions
from scoring.models import AuditEntry, Table, Tournament, TourTable
from scoring.permissions import can_confirm_for_table, is_seated
from scoring.selectors.confirmations import FOR_TABLE, finalities, table_finality, tour_link
from scoring.services.tables import (
    ANY,
    Drawn,
    _check_drawn,
    _keep_key,
    _locked,
    table_reopen,
)


def _tournament(table: Table) -> Tournament | None:
    link = tour_link(table)
    return link.tour.tournament if link is not None else None


def table_confirm(*, table: Table, by: Member, drawn: Drawn = ANY) -> Table:
    """``by`` confirms ``table``'s result: his own tap as a member seated at it, or, as a
    judge of its tournament or an organiser who is not seated there (or has confirmed
    already), for the whole table. Refused in words when the table is in play, needs no
    confirmation, is final already, or is not his to confirm."""
    with transaction.atomic():
        locked = _locked(table)
        _check_drawn(locked, drawn, AuditEntry.CONFIRM)
        if locked.is_open:
            raise RuleError(
                _("the table is in play: its result is confirmed once it finishes"), field="table"
            )
        finality = table_finality(locked)
        if not finality.needed:
            raise RuleError(_("this table's result needs no confirmation"), field="table")
        if finality.final:
            raise RuleError(_("this table's result is final already"), field="table")
        tournament = _tournament(locked)
        own = is_seated(by, locked) and by.pk not in finality.confirmed_ids
        if not own and not can_confirm_for_table(by, tournament):
            if is_seated(by, locked):
                raise RuleError(_("you have confirmed this table already"), field="table")
            raise RuleError(_("only the players at this table confirm it"), field="table")
        locked.revision += 1
        locked.save(update_fields=["revision"])
        AuditEntry.objects.create(
            table=locked,
            action=AuditEntry.CONFIRM,
            actor=by,
            revision=locked.revision,
            after=None if own else {"for": FOR_TABLE},
        )
        revisions.table_moved(locked.pk)
        _keep_key(locked, drawn, locked.revision, AuditEntry.CONFIRM)
        return locked


def table_reopen_confirmed(table: Table, *, by: Member, reason: str, drawn: Drawn = ANY) -> Table:
    """Reopen a finished table (``services.tables.table_reopen``: who and why in its
    history, its confirmations start afresh) unless its tour is closed: the tour's points
    are stored and the next tour may be seated from them."""
    link = tour_link(table)
    if link is not None and link.tour.is_closed:
        raise RuleError(
            _("tour %(tour)s is closed: its points are stored, so its tables stay as they are")
            % {"tour": link.tour.number},
            field="table",
        )
    return table_reopen(table, by=by, reason=reason, drawn=drawn)


def tour_waiting(links: list[TourTable], tournament: Tournament, *, closed: bool) -> str:
    """The tables of a tour whose results are still provisional, in words, each with whom
    it waits for (``""``: every table is final): what refuses closing the tour."""
    finality = finalities(
        [link.table for link in links],
        window=lambda _t: tournament.correction_minutes,
        closed=lambda _t: closed,
    )
    waiting = []
    for link in links:
        state = finality[link.table.pk]
        if not state.provisional:
            continue
        whom = ", ".join(state.awaiting) or _("a judge")
        waiting.append(
            _("table %(table)s (waiting for %(whom)s)") % {"table": link.number, "whom": whom}
        )
    if not waiting:
        return ""
    return _("results not final yet: %(tables)s") % {"tables": "; ".join(waiting)}
