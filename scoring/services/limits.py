"""How much one member may add to the club in an hour: tables opened
(``CLUB_TABLES_PER_HOUR``) and game records imported (``CLUB_IMPORTS_PER_HOUR``), each
``RuleError`` past its limit, before anything is read or stored (issue #35 item 3).

What they bound: every table is kept for good, shown in the lists and standings, and its
sheet drawn; an import of the most deals takes two seconds to store and its sheet pages
to draw. A member at a club evening opens a table every half hour or so, and imports a
few games of their own at most; a script opening or importing in a loop is stopped at
the limit. Organisers are exempt: they open an evening's tables for everyone and bring
whole archives in, and they are the club's own people. A limit of 0 is no limit.

Counted from what is stored (the tables a member opened, the import entries of the
table history), so every worker of every app server counts the same, and nothing is
kept for it. Two requests at the same instant may both pass at the limit: one table
over, at most one per request in flight."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.models import AuditEntry, Table
from scoring.permissions import is_organiser

HOUR = timedelta(hours=1)


def tables_per_hour_check(*, by: Member) -> None:
    """``RuleError`` if ``by`` has opened ``CLUB_TABLES_PER_HOUR`` tables in the last hour
    (imported ones are counted as imports)."""
    limit: int = settings.CLUB_TABLES_PER_HOUR
    if limit <= 0 or is_organiser(by):
        return
    opened = (
        Table.objects.filter(opened_by=by, opened_at__gte=timezone.now() - HOUR)
        .exclude(audit__action=AuditEntry.IMPORT)
        .count()
    )
    if opened >= limit:
        raise RuleError(
            _(
                "you have opened as many tables this hour as a member may (%(limit)s): "
                "try again later, or ask an organiser"
            )
            % {"limit": limit}
        )


def imports_per_hour_check(*, by: Member) -> None:
    """``RuleError`` if ``by`` has imported ``CLUB_IMPORTS_PER_HOUR`` game records in the
    last hour."""
    limit: int = settings.CLUB_IMPORTS_PER_HOUR
    if limit <= 0 or is_organiser(by):
        return
    imported = AuditEntry.objects.filter(
        action=AuditEntry.IMPORT, actor=by, at__gte=timezone.now() - HOUR
    ).count()
    if imported >= limit:
        raise RuleError(
            _(
                "you have imported as many games this hour as a member may (%(limit)s): "
                "try again later, or ask an organiser"
            )
            % {"limit": limit}
        )
