"""Evening writes: create an evening, check members in, the seating draw (draw, swap,
open its tables), and marking the ledger's payments as settled.

Bad input raises ``RuleError`` (a message for the member) and changes nothing.
"""

from __future__ import annotations

import datetime
import secrets
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from members.models import Member
from scoring import games
from scoring.engine.draw import DrawRequest, draw, table_sizes
from scoring.engine.errors import RuleError
from scoring.models import ApartRequest, Attendance, Evening, EveningTable, Settlement, Table
from scoring.models.evenings import party_key
from scoring.selectors import evenings as selectors
from scoring.selectors.tariffs import house_tariffs
from scoring.services.tables import table_open

MAX_SEED = 999_999
"""Seeds are drawn below a million: short enough to read out and type in again."""


def evening_create(
    *, organiser: Member, played_on: datetime.date, place: str, game: str, table_size: int
) -> Evening:
    if game not in games.GAMES:
        raise RuleError(_("no such game"), field="game")
    if table_size not in (3, 4):
        raise RuleError(_("a table has 3 or 4 players"), field="table_size")
    return Evening.objects.create(
        organiser=organiser, played_on=played_on, place=place, game=game, table_size=table_size
    )


def _locked(evening: Evening) -> Evening:
    return Evening.objects.select_for_update().get(pk=evening.pk)


def evening_check_in(*, evening: Evening, member: Member, by: Member) -> Attendance:
    """Check ``member`` in (a late arrival too). Twice is refused."""
    if not member.is_active:
        raise RuleError(_("this member is not active"), field="member")
    try:
        with transaction.atomic():
            return Attendance.objects.create(evening=evening, member=member, checked_in_by=by)
    except IntegrityError:
        raise RuleError(_("this member is checked in already"), field="member") from None


def evening_check_out(*, evening: Evening, member: Member) -> None:
    """Undo a check-in (a wrong tap): refused once the member has a seat at the evening's
    tables or in the draw waiting to open."""
    with transaction.atomic():
        locked = _locked(evening)
        if (
            member.pk in _drafted(locked)
            or evening.links.filter(table__seats__member=member).exists()
        ):
            raise RuleError(_("this member has a seat tonight already"), field="member")
        if not Attendance.objects.filter(evening=locked, member=member).delete()[0]:
            raise RuleError(_("this member is not checked in"), field="member")


def evening_sits_out(*, evening: Evening, member: Member, sits_out: bool) -> None:
    """Mark a checked-in member as sitting out the next draw (or back in)."""
    if not Attendance.objects.filter(evening=evening, member=member).update(sits_out=sits_out):
        raise RuleError(_("this member is not checked in"), field="member")


def evening_apart(*, evening: Evening, first: Member, second: Member) -> ApartRequest:
    """Record that two checked-in members asked not to sit together."""
    if first.pk == second.pk:
        raise RuleError(_("choose two different members"), field="second")
    here = set(evening.attendances.values_list("member_id", flat=True))
    if not {first.pk, second.pk} <= here:
        raise RuleError(_("both members must be checked in"), field="second")
    low, high = sorted((first, second), key=lambda m: m.pk)
    request, _created = ApartRequest.objects.get_or_create(evening=evening, first=low, second=high)
    return request


def _drafted(evening: Evening) -> set[int]:
    return {pk for table in (evening.draft or []) for pk in table["players"]}


def evening_draw(*, evening: Evening, seed: int | None = None) -> Evening:
    """Draw the next round (scoring/engine/draw.py) for the checked-in members who are not
    sitting out and not at one of the evening's tables still in play; kept as the
    evening's draft, with its seed, until the organiser opens it. A new draw replaces
    the draft."""
    if seed is None:
        seed = secrets.randbelow(MAX_SEED + 1)
    if not 0 <= seed <= MAX_SEED:
        raise RuleError(
            _("the seed is a number from 0 to %(max)s") % {"max": MAX_SEED}, field="seed"
        )
    with transaction.atomic():
        locked = _locked(evening)
        busy = selectors.busy_members(locked)
        here = [a for a in selectors.attendances(locked) if a.member_id not in busy]
        players = tuple(party_key(a.member_id) for a in here)
        sits_out = frozenset(party_key(a.member_id) for a in here if a.sits_out)
        sizes = table_sizes(
            len(players) - len(sits_out), game=locked.game, prefer=locked.table_size
        )
        met, first_deals = selectors.meetings(locked)
        apart = frozenset(
            frozenset((party_key(r.first_id), party_key(r.second_id))) for r in locked.apart.all()
        )
        result = _draw(
            DrawRequest(
                players=players,
                sizes=sizes,
                seed=seed,
                sits_out=sits_out,
                apart=apart,
                meetings=met,
                first_deals=first_deals,
            )
        )
        locked.seed = seed
        locked.draft = [
            {"players": [int(p[1:]) for p in t.players], "first_dealer": t.first_dealer}
            for t in result.tables
        ]
        locked.save(update_fields=["seed", "draft"])
        return locked


def _sizes(evening: Evening, players: int) -> tuple[int, ...]:
    """The draw's table sizes, or the engine's refusal in the member's language."""
    try:
        return table_sizes(players, game=evening.game, prefer=evening.table_size)
    except RuleError:
        if evening.game == Table.BOSTON:
            message = _(
                "Boston is played four to a table: %(n)s players cannot be seated; mark "
                "someone as sitting out, or check someone in"
            )
        else:
            message = _(
                "%(n)s players cannot be seated at tables of 3 and 4; mark someone as "
                "sitting out, or check someone in"
            )
        raise RuleError(message % {"n": players}, field="players") from None


def _draw(request: DrawRequest) -> Any:
    try:
        return draw(request)
    except RuleError as error:
        if error.field != "apart":
            raise
        raise RuleError(
            _(
                "two members who asked not to sit together cannot be kept apart; change "
                "the requests or the table size"
            ),
            field="apart",
        ) from None


def evening_swap(*, evening: Evening, first: int, second: int) -> Evening:
    """Swap two members of the draft (at different tables, or two seats of one table)."""
    with transaction.atomic():
        locked = _locked(evening)
        draft: list[dict[str, Any]] = locked.draft or []
        where = {
            pk: (t, i) for t, table in enumerate(draft) for i, pk in enumerate(table["players"])
        }
        if first not in where or second not in where:
            raise RuleError(_("choose two members of the draw"), field="second")
        (ta, ia), (tb, ib) = where[first], where[second]
        draft[ta]["players"][ia], draft[tb]["players"][ib] = second, first
        locked.draft = draft
        locked.save(update_fields=["draft"])
        return locked


def _version(evening: Evening) -> Any:
    """The tariff version the evening's tables open under: the current version of the
    club's tariff for the game on that day (the season's default first)."""
    tariffs = house_tariffs(evening.played_on)
    tariff = (
        tariffs.preferans if evening.game == Table.PREFERANS else next(iter(tariffs.boston), None)
    )
    version = tariff.current_version if tariff is not None else None
    if version is None:
        raise RuleError(_("the club has no published tariff for this game"), field="game")
    return version


def evening_open_tables(*, evening: Evening, by: Member) -> list[Table]:
    """Open every table of the draft at once, as ordinary tables of the next round."""
    with transaction.atomic():
        locked = _locked(evening)
        if not locked.draft:
            raise RuleError(_("draw the tables first"), field="draft")
        busy = selectors.busy_members(locked)
        if busy & _drafted(locked):
            raise RuleError(
                _("someone in the draw is at a table in play; draw again"), field="draft"
            )
        version = _version(locked)
        members = Member.objects.in_bulk(_drafted(locked))
        last = locked.links.aggregate(last=Max("round"))["last"] or 0
        tables = []
        for drawn in locked.draft:
            table = table_open(
                game=locked.game,
                version=version,
                members=[members[pk] for pk in drawn["players"]],
                by=by,
                first_dealer=drawn["first_dealer"],
                played_on=locked.played_on,
            )
            EveningTable.objects.create(evening=locked, table=table, round=last + 1)
            tables.append(table)
        locked.draft = None
        locked.save(update_fields=["draft"])
        return tables


def settlement_mark(
    *, evening: Evening, payer: str, payee: str, amount: Decimal, by: Member
) -> Settlement:
    """Mark one payment of the evening's current ledger as paid."""
    lines = selectors.ledger(evening).lines
    if not any((x.payer, x.payee, x.amount) == (payer, payee, amount) for x in lines):
        raise RuleError(_("this payment is not in the evening's ledger"), field="payment")
    settlement, _created = Settlement.objects.get_or_create(
        evening=evening, payer=payer, payee=payee, amount=amount, defaults={"settled_by": by}
    )
    return settlement
