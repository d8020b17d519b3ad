"""What the pages show of a finished table's finality (``selectors.confirmations``): the
words «предварительно: подтвердили 2 из 4» or «окончательно», whom it waits for, when
the correction window ends, and the buttons of whoever may confirm or reopen it now.
Writes nothing.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.models import Table, Tournament
from scoring.permissions import can_confirm, can_reopen_confirmed, is_seated
from scoring.selectors.confirmations import Finality, table_finality, tour_link


def finality_text(finality: Finality | None) -> str:
    """The finality in a few words (``""``: the table is in play, or nobody confirms)."""
    if finality is None or not finality.needed:
        return ""
    if finality.final:
        return _("result final")
    return _("provisional: %(confirmed)s of %(seated)s confirmed") % {
        "confirmed": len(finality.confirmed),
        "seated": finality.seated,
    }


def window_text(finality: Finality | None) -> str:
    """When a provisional table becomes final by itself, in the club's time."""
    if finality is None or not finality.provisional:
        return ""
    if finality.window_ends is None:
        return _("final once every player has confirmed")
    return _("final at %(time)s unless reopened") % {
        "time": timezone.localtime(finality.window_ends).strftime("%H:%M")
    }


def confirmation_context(request: HttpRequest, table: Table) -> dict[str, Any]:
    """A finished table's finality box on its page, and who may confirm or reopen it (the
    reopen button is this, not ``can_reopen``, once the table needs confirmation)."""
    finality = table_finality(table)
    if not finality.needed:
        return {}
    link = tour_link(table)
    tournament: Tournament | None = link.tour.tournament if link is not None else None
    user = request.user
    return {
        "finality": finality,
        "finality_text": finality_text(finality),
        "finality_window": window_text(finality),
        "can_confirm": can_confirm(user, table, finality, tournament),
        "confirm_own": is_seated(user, table) and user.pk not in finality.confirmed_ids,
        "can_reopen": can_reopen_confirmed(user, table, finality, tournament),
    }


def confirmable(user: Any, cards: list[Any], tournament: Tournament) -> set[int]:
    """The tables among a tour's ``cards`` that ``user`` may confirm now (their pks)."""
    return {
        card.table.pk
        for card in cards
        if card.finality is not None and can_confirm(user, card.table, card.finality, tournament)
    }


def may_reopen(user: Any, table: Table) -> bool:
    """Whether ``user`` may reopen the finished ``table`` now, its finality considered."""
    link = tour_link(table)
    tournament = link.tour.tournament if link is not None else None
    return can_reopen_confirmed(user, table, table_finality(table), tournament)
