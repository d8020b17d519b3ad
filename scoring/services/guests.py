"""Guest writes: merging a guest's history into a member (docs/evenings.md, Guests).

Bad input raises ``RuleError`` (a message for the organiser) and changes nothing.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils.translation import gettext as _

from members.models import Member
from scoring import selectors
from scoring.engine.errors import RuleError
from scoring.live import revisions
from scoring.models import (
    Attendance,
    AuditEntry,
    Guest,
    RatingHistory,
    Seat,
    SeatChange,
    Settlement,
    Table,
)
from scoring.models.evenings import party_key
from scoring.services import locking
from scoring.services.history import history_table_digest
from scoring.services.home import home_changed
from scoring.services.ratings import ratings_update_task
from scoring.services.standings import standings_after_finish, standings_before_reopen
from scoring.services.tables import table_digest


def guest_merge(*, guest: Guest, member: Member, by: Member) -> list[Table]:
    """Seat ``member`` wherever ``guest`` sat and was checked in, in one transaction: his
    seats (their names stay: the deal logs read them), check-ins and the evenings' settled
    payments become the member's; each table's audit records it; the finished tables'
    digests and the games' ratings follow. The guest is gone afterwards. Refused when the
    member is seated at one of the guest's tables or checked in at one of his evenings
    (one person cannot have played twice). Returns the guest's tables."""
    with transaction.atomic():
        guest = locking.lock_row(guest)
        member = locking.lock_row(member)
        # A seat he left to a substitute mid-pulka (``SeatChange``) is one of his tables too.
        tables = list(
            Table.objects.filter(Q(seats__guest=guest) | Q(seat_changes__guest=guest))
            .distinct()
            .order_by("pk")
        )
        twice = list(
            Seat.objects.filter(table__in=tables, member=member).values_list("table_id")
        ) + list(SeatChange.objects.filter(table__in=tables, member=member).values_list("table_id"))
        if twice:
            raise RuleError(
                _("%(member)s is seated at table %(table)s, where the guest played")
                % {"member": member.name, "table": twice[0][0]},
                field="member",
            )
        evenings = Attendance.objects.filter(guest=guest).values("evening_id")
        if Attendance.objects.filter(evening__in=evenings, member=member).exists():
            raise RuleError(
                _("%(member)s was checked in at an evening the guest came to")
                % {"member": member.name},
                field="member",
            )
        # Only the tables that count are in the standings (not an import awaiting
        # acceptance, say): a merge must not add the others.
        finished = [t for t in tables if not t.is_open and t.counts]
        for table in finished:  # the standings totals count the member's seats only:
            standings_before_reopen(table)  # taken off as they were, added back with his
        _move(guest, member, evenings)
        home_changed()  # his name in who is here tonight, and at the latest tables
        for table in finished:
            standings_after_finish(table)
        for table in tables:
            _record(table, guest, member, by)
        # The tables' rating rows go (as after a reopen): the update rebuilds the games.
        RatingHistory.objects.filter(table__in=tables).delete()
        for game in sorted({t.game for t in finished}):
            ratings_update_task.enqueue(game)
        guest.delete()
        return tables


def _move(guest: Guest, member: Member, evenings: QuerySet[Attendance, Any]) -> None:
    """The guest's seats, check-ins and settled payments become the member's."""
    Seat.objects.filter(guest=guest).update(member=member, guest=None)
    SeatChange.objects.filter(guest=guest).update(member=member, guest=None)
    Attendance.objects.filter(guest=guest).update(member=member, guest=None)
    settled = Settlement.objects.filter(evening__in=evenings)
    settled.filter(payer=guest.key).update(payer=party_key(member.pk))
    settled.filter(payee=guest.key).update(payee=party_key(member.pk))


def _record(table: Table, guest: Guest, member: Member, by: Member) -> None:
    """The table's audit entry, its revision moved on (the seat is the member's now: he
    may score), and a finished table's digest (it names the members by username)."""
    AuditEntry.objects.create(
        table=table,
        action=AuditEntry.MERGE,
        actor=by,
        before={"guest": guest.name},
        after={"member": member.username},
    )
    changes: dict[str, Any] = {"revision": F("revision") + 1}
    if table.totals_only:  # paper history: no deals, its digest is of its seats
        seats = Seat.objects.filter(table=table).select_related("member")
        changes["record_digest"] = history_table_digest(table.game, table.played_on, seats)
    elif not table.is_open:
        changes["record_digest"] = table_digest(table, selectors.replay(table))
    Table.objects.filter(pk=table.pk).update(**changes)
    revisions.table_moved(table.pk)
