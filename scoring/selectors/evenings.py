"""Evening reads: who is here, the season's meetings the draw weighs, and the ledger.

The ledger is read from the money each seat was left when its table finished
(``Seat.money``); tables still in play are not in it yet (the page says how many).
"""

from __future__ import annotations

import datetime
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations
from typing import Any

from django.db.models import Exists, OuterRef
from django.utils.translation import gettext as _

from scoring.engine.draw import Pair
from scoring.engine.ledger import CLUB, evening_ledger
from scoring.models import Attendance, Evening, Guest, Season, Seat, Settlement, Table
from scoring.models.evenings import party_key
from scoring.models.guests import guest_key


def attendances(evening: Evening) -> list[Attendance]:
    """Who has checked in (members and guests), in order of arrival."""
    return list(evening.attendances.select_related("member", "guest"))


RETURNING_GUESTS = 20
"""How many of the latest guests the check-in list offers to tap again."""


def returning_guests(evening: Evening) -> list[Guest]:
    """The latest guests not checked in tonight: one who comes again is checked in as the
    same guest, so his evenings stay one history (to merge into a member some day)."""
    here = Attendance.objects.filter(evening=evening, guest__isnull=False)
    return list(
        Guest.objects.exclude(pk__in=here.values("guest_id")).order_by("-created_at", "-pk")[
            :RETURNING_GUESTS
        ]
    )


def evening_tables(evening: Evening) -> list[Table]:
    """The evening's tables, by round, with their seats, members and guests."""
    return list(
        Table.objects.filter(evening_link__evening=evening)
        .select_related("evening_link")
        .prefetch_related("seats__member", "seats__guest")
        .order_by("evening_link__round", "pk")
    )


def busy_members(evening: Evening) -> set[str]:
    """The players (party keys) seated at one of the evening's tables still in play: not
    drawn again."""
    seats = Seat.objects.filter(table__evening_link__evening=evening, table__status=Table.OPEN)
    return {seat.party for seat in seats.only("member_id", "guest_id")}


def season_tables(evening: Evening) -> Any:
    """The tables of the evening's game this season (or, outside any season, this evening)."""
    season = Season.of_date(evening.played_on)
    tables = Table.objects.filter(game=evening.game)
    if season is None:
        return tables.filter(evening_link__evening=evening)
    return tables.filter(played_on__gte=season.starts_on, played_on__lte=season.ends_on)


def meetings(evening: Evening) -> tuple[dict[Pair, int], dict[str, int]]:
    """For the draw: how often each pair of players has sat at one table this season, and
    how often each has dealt first (party keys: a guest's meetings count too)."""
    seats = Seat.objects.filter(table__in=season_tables(evening)).values_list(
        "table_id", "member_id", "guest_id", "position", "table__first_dealer"
    )
    by_table: dict[int, list[str]] = {}
    first_deals: Counter[str] = Counter()
    for table_id, member_id, guest_id, position, first_dealer in seats:
        key = party_key(member_id) if member_id is not None else guest_key(guest_id)
        by_table.setdefault(table_id, []).append(key)
        if position == first_dealer:
            first_deals[key] += 1
    met: Counter[Pair] = Counter()
    for players in by_table.values():
        met.update(frozenset(pair) for pair in combinations(players, 2))
    return dict(met), dict(first_deals)


@dataclass(frozen=True)
class LedgerLine:
    """One payment of the evening: party keys, shown names, and whether it is settled."""

    payer: str
    payee: str
    payer_name: str
    payee_name: str
    amount: Decimal
    settled: Settlement | None


@dataclass(frozen=True)
class Ledger:
    lines: list[LedgerLine]
    table_money: Decimal
    tables_in_play: int


def _table_money(evening: Evening) -> Decimal:
    season = Season.of_date(evening.played_on)
    return season.table_money if season else Decimal(0)


def ledger(evening: Evening) -> Ledger:
    """The evening's ledger: its finished tables' money netted (engine ``evening_ledger``),
    with the table money of the evening's season, each line marked if it is settled."""
    money: dict[int, dict[str, Decimal]] = {}
    names: dict[str, str] = {CLUB: _("the club")}
    open_tables = 0
    for table in evening_tables(evening):
        if table.is_open:
            open_tables += 1
            continue
        for seat in table.seats.all():
            key = seat.party
            names[key] = seat.member.name if seat.member else str(seat.guest)
            money.setdefault(table.pk, {})[key] = seat.money or Decimal(0)
    table_money = _table_money(evening)
    if not money:
        # No table finished yet: nobody owes anything, and no payment to read.
        return Ledger([], table_money, open_tables)
    settled = {(s.payer, s.payee, s.amount): s for s in evening.settlements.all()}
    lines = [
        LedgerLine(
            t.payer,
            t.payee,
            names[t.payer],
            names[t.payee],
            t.amount,
            settled.get((t.payer, t.payee, t.amount)),
        )
        for t in evening_ledger(money.values(), table_money=table_money)
    ]
    return Ledger(lines, table_money, open_tables)


def club_balance(member: Any) -> Decimal:
    """What ``member`` is owed (positive) or owes (negative) over the unsettled payments
    of every evening he checked in at."""
    me = party_key(member.pk)
    balance = Decimal(0)
    for evening in Evening.objects.filter(attendances__member=member):
        for line in ledger(evening).lines:
            if line.settled is None:
                balance += line.amount * ((line.payee == me) - (line.payer == me))
    return balance


def evening_on(day: datetime.date) -> Evening | None:
    """The evening held on ``day`` (the latest created, should there be two), with its
    organiser's name at hand: one query."""
    return (
        Evening.objects.filter(played_on=day)
        .select_related("organiser")
        .order_by("-created_at", "-pk")
        .first()
    )


def tonight_for(member: Any, day: datetime.date) -> tuple[int, bool] | None:
    """The evening held on ``day`` as ``evening_on`` finds it, and whether ``member`` is
    checked in at it: one query (None: no evening that day)."""
    here = Attendance.objects.filter(evening=OuterRef("pk"), member=member)
    found: tuple[int, bool] | None = (
        Evening.objects.filter(played_on=day)
        .order_by("-created_at", "-pk")
        .annotate(here=Exists(here))
        .values_list("pk", "here")
        .first()
    )
    return found


def members_here(evening: int) -> list[int]:
    """The ids of the members checked in at ``evening`` (guests not): one query."""
    return list(
        Attendance.objects.filter(evening_id=evening, member__isnull=False)
        .order_by("member_id")
        .values_list("member_id", flat=True)
    )


def next_evening(after: datetime.date) -> Evening | None:
    """The first evening announced after ``after`` (an organiser creates one for any date):
    one query."""
    return Evening.objects.filter(played_on__gt=after).order_by("played_on", "pk").first()
