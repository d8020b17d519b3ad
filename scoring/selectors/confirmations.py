"""Provisional, then final (issue 32, item 6): whether a finished table's result is final.

A table of a tournament's tour — and, where the club's setting says so
(``Club.confirm_tables``), an ordinary club table — is **provisional** once it finishes,
until every member seated at it has confirmed its result (one tap each: an audit entry
``CONFIRM`` by him) or the correction window (``Tournament.correction_minutes``,
``Club.confirm_minutes``; 0: no window) has passed since it finished. A judge (at a
tournament) or an organiser may confirm for the whole table: a guest has no account to
tap with, a player may have left. A table of a closed tour is final.

Nothing stores "final": it is worked out from ``finished_at``, the window and the
confirmations each time it is read, so no clock has to lock anything when a window
ends. Reopening a table and finishing it again starts afresh: only the confirmations
after its last finish count.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.utils import timezone

from scoring.models import AuditEntry, Club, Table, TourTable

FOR_TABLE = "table"
"""An audit entry's ``after`` marks a confirmation made for the whole table (a judge's or
an organiser's) with ``{"for": FOR_TABLE}``."""


@dataclass(frozen=True)
class Finality:
    """Where a finished table stands: ``needed`` (it waits for confirmation at all),
    ``final``, who confirmed and who is awaited (the members seated, by name), who
    confirmed for the whole table, and when the correction window ends (``None``: no
    window, the players' confirmation only)."""

    needed: bool
    final: bool
    confirmed: tuple[str, ...] = ()
    awaiting: tuple[str, ...] = ()
    confirmed_ids: frozenset[int] = frozenset()
    seated: int = 0
    for_table: str = ""
    window_ends: datetime.datetime | None = None
    tour_closed: bool = False

    @property
    def provisional(self) -> bool:
        return self.needed and not self.final


OPEN = Finality(needed=False, final=False)
"""A table still in play: neither provisional nor final."""

NOT_NEEDED = Finality(needed=False, final=True)
"""A finished table that nobody has to confirm: final as it finishes."""

CLOSED_TOUR = Finality(needed=True, final=True, tour_closed=True)
"""A table of a closed tour: final, whoever confirmed it."""


def finality_of(
    table: Table,
    *,
    window: int | None,
    entries: Iterable[AuditEntry],
    tour_closed: bool = False,
    now: datetime.datetime | None = None,
) -> Finality:
    """``table``'s finality from its correction ``window`` in minutes (``None``: it needs
    no confirmation; 0: no window), its ``CLOSE`` and ``CONFIRM`` audit ``entries`` (any
    order) and whether its tour is closed. Uses the table's prefetched seats."""
    if table.is_open:
        return OPEN
    if window is None or table.totals_only:
        return NOT_NEEDED
    ordered = sorted(entries, key=lambda e: e.pk)
    closes = [e.pk for e in ordered if e.action == AuditEntry.CLOSE]
    since = [
        e
        for e in ordered
        if e.action == AuditEntry.CONFIRM and e.pk > (closes[-1] if closes else 0)
    ]
    members = [s for s in sorted(table.seats.all(), key=lambda s: s.position) if s.member_id]
    ids = {e.actor_id for e in since if e.actor_id is not None}
    whole = next((e for e in since if (e.after or {}).get("for") == FOR_TABLE), None)
    confirmed = tuple(str(s.name) for s in members if s.member_id in ids)
    awaiting = tuple(str(s.name) for s in members if s.member_id not in ids)
    ends = (
        table.finished_at + datetime.timedelta(minutes=window)
        if window and table.finished_at is not None
        else None
    )
    moment = now or timezone.now()
    final = (
        tour_closed
        or whole is not None
        or bool(members and not awaiting)
        or (ends is not None and ends <= moment)
    )
    return Finality(
        needed=True,
        final=final,
        confirmed=confirmed,
        awaiting=awaiting,
        confirmed_ids=frozenset(ids),
        seated=len(members),
        for_table=str(whole.actor.name) if whole is not None and whole.actor else "",
        window_ends=ends,
        tour_closed=tour_closed,
    )


def _entries(tables: Iterable[Table]) -> dict[int, list[AuditEntry]]:
    """The ``CLOSE`` and ``CONFIRM`` entries of ``tables``, by table (one query)."""
    found: dict[int, list[AuditEntry]] = defaultdict(list)
    pks = [t.pk for t in tables if not t.is_open]
    if not pks:
        return found
    rows = (
        AuditEntry.objects.filter(
            table_id__in=pks, action__in=(AuditEntry.CLOSE, AuditEntry.CONFIRM)
        )
        .select_related("actor")
        .order_by("id")
    )
    for row in rows:
        found[row.table_id].append(row)
    return found


def finalities(
    tables: Iterable[Table],
    *,
    window: Callable[[Table], int | None],
    closed: Callable[[Table], bool] = lambda table: False,
) -> dict[int, Finality]:
    """Each table's finality by its pk, its window given by ``window`` and whether its
    tour is closed by ``closed`` (one query for all of them)."""
    listed = list(tables)
    entries = _entries(listed)
    return {
        t.pk: finality_of(t, window=window(t), entries=entries[t.pk], tour_closed=closed(t))
        for t in listed
    }


def club_window(club: Club) -> int | None:
    """The correction window of the club's ordinary tables (``None``: the setting is off)."""
    return club.confirm_minutes if club.confirm_tables else None


def tour_link(table: Table) -> TourTable | None:
    """The tour ``table`` belongs to, with its tour and tournament (``None``: a club
    table); kept on the table, as a page asks several times."""
    if not hasattr(table, "_tour_link"):
        table._tour_link = (  # type: ignore[attr-defined]
            TourTable.objects.select_related("tour__tournament").filter(table=table).first()
        )
    return table._tour_link  # type: ignore[attr-defined,no-any-return]


def table_finality(table: Table) -> Finality:
    """``table``'s finality as its own page shows it (none read while it is in play)."""
    if table.is_open or table.totals_only:
        return OPEN if table.is_open else NOT_NEEDED
    link = tour_link(table)
    if link is not None:
        window: int | None = link.tour.tournament.correction_minutes
        closed = link.tour.is_closed
    else:
        window, closed = club_window(Club.load()), False
    if window is None:
        return NOT_NEEDED
    return finalities([table], window=lambda _t: window, closed=lambda _t: closed)[table.pk]
