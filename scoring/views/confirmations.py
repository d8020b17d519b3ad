"""A finished table's result confirmed (issue 32, item 6): by a player on the table's own
page (htmx gets the table's body again, a plain POST comes back to the page) or on his
tournament's page (back to the tournament), and for the whole table by a judge or an
organiser. Who may: ``permissions.can_confirm``; the write:
``services.confirmations.table_confirm``; what "final" means:
``selectors.confirmations``.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubsite.http import HtmxHttpRequest
from members.http import SignedInRequest
from scoring import services
from scoring.engine.errors import RuleError
from scoring.models import Table, Tour, Tournament, TourTable
from scoring.pages.labels import rule_error_text
from scoring.pages.tables import table_for_page
from scoring.permissions import can_confirm, is_seated
from scoring.selectors.confirmations import table_finality, tour_link
from scoring.services.confirmations import table_confirm as confirm
from scoring.views.writes import (
    member_of,
    require_write,
    revision_and_key,
    table_write,
    write_answer,
)


def _may_confirm(request: HtmxHttpRequest, table: Table) -> bool:
    """May confirm it now, or is seated at it: his tap sent twice is answered as the
    first, and a tap too late is told why (the service refuses it in words)."""
    link = tour_link(table)
    tournament = link.tour.tournament if link is not None else None
    user = request.user
    return is_seated(user, table) or can_confirm(user, table, table_finality(table), tournament)


@table_write
@require_POST
def table_confirm(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A player (or a judge, for the whole table) confirms a finished table's result."""
    table = table_for_page(pk)
    require_write(request, _may_confirm(request, table))
    return write_answer(
        request,
        table,
        _("Result confirmed."),
        lambda: confirm(table=table, by=member_of(request), drawn=revision_and_key(request)),
    )


@login_required
@require_POST
def tour_table_confirm(request: SignedInRequest, pk: int, number: int, table: int) -> HttpResponse:
    """The same from the tournament's page: back to it, with what happened."""
    tournament = get_object_or_404(Tournament, pk=pk)
    tour = get_object_or_404(Tour, tournament=tournament, number=number)
    link = get_object_or_404(TourTable.objects.select_related("table"), tour=tour, number=table)
    played = table_for_page(link.table_id, with_tariff=False)
    require_write(request, _may_confirm(request, played))
    try:
        confirm(table=played, by=request.user, drawn=revision_and_key(request))
    except services.AlreadyStored:
        pass
    except RuleError as error:
        messages.error(request, rule_error_text(error))
        return redirect("scoring:tournament_detail", pk=tournament.pk)
    messages.success(request, _("Table %(table)s: result confirmed.") % {"table": link.number})
    return redirect("scoring:tournament_detail", pk=tournament.pk)
