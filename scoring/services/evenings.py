"""Evening writes: create an evening, check members and guests in, the seating draw
(draw, swap, open its tables), and marking the ledger's payments as settled.

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
from scoring.models import (
    ApartRequest,
    Attendance,
    Evening,
    EveningTable,
    Guest,
    Seat,
    Settlement,
    Table,
)
from scoring.models.evenings import party_key
from scoring.selectors import evenings as selectors
from scoring.selectors.tariffs import opening_tariff
from scoring.services import locking
from scoring.services.guest_names import guest_name_check
from scoring.services.home import home_changed
from scoring.services.tables import Player, table_open

MAX_SEED = 999_999
"""Seeds are drawn below a million: short enough to read out and type in again."""


def evening_create(
    *, organiser: Member, played_on: datetime.date, place: str, game: str, table_size: int
) -> Evening:
    if game not in games.GAMES:
        raise RuleError(_("no such game"), field="game")
    if table_size not in (3, 4):
        raise RuleError(_("a table has 3 or 4 players"), field="table_size")
    with transaction.atomic():
        home_changed()  # tonight's evening, or the next one, on the home page
        return Evening.objects.create(
            organiser=organiser, played_on=played_on, place=place, game=game, table_size=table_size
        )


def _locked(evening: Evening) -> Evening:
    return locking.lock_row(evening)


def evening_check_in(*, evening: Evening, member: Member, by: Member) -> Attendance:
    """Check ``member`` in (a late arrival too). Twice is refused."""
    if not member.is_active:
        raise RuleError(_("this member is not active"), field="member")
    try:
        with transaction.atomic():
            attendance = Attendance.objects.create(evening=evening, member=member, checked_in_by=by)
            home_changed()  # who is here tonight
            return attendance
    except IntegrityError:
        raise RuleError(_("this member is checked in already"), field="member") from None


GUEST_NAME_LENGTH = Guest._meta.get_field("name").max_length
"""The longest guest's name (the column's)."""


def evening_check_in_guest(
    *, evening: Evening, name: str = "", guest: Guest | None = None, by: Member
) -> Attendance:
    """Check a guest in: a new guest by ``name``, or ``guest``, who came before (so his
    evenings stay one history, to merge into a member some day). Two guests of one name
    at one evening are refused: the sheets and the ledger could not tell them apart."""
    if guest is None:
        name = " ".join(name.split())
        if not name or len(name) > (GUEST_NAME_LENGTH or 0):
            raise RuleError(
                _("type the guest's name (at most %(n)s characters)") % {"n": GUEST_NAME_LENGTH},
                field="name",
            )
        name = guest_name_check(name=name, field="name")  # not a member's, nor invisible
    else:
        name = guest.name
    with transaction.atomic():
        locked = _locked(evening)
        if locked.attendances.filter(guest__name__iexact=name).exists():
            raise RuleError(
                _("a guest called %(name)s is here already: add a surname or an initial")
                % {"name": name},
                field="name",
            )
        if guest is None:
            guest = Guest.objects.create(name=name, evening=locked)
        home_changed()  # who is here tonight
        return Attendance.objects.create(evening=locked, guest=guest, checked_in_by=by)


def _whose(player: Player) -> dict[str, Player]:
    """The filter keyword that picks ``player``'s rows: a member's or a guest's."""
    return {"guest": player} if isinstance(player, Guest) else {"member": player}


def _party(player: Player) -> str:
    return player.key if isinstance(player, Guest) else party_key(player.pk)


def evening_check_out(*, evening: Evening, member: Player) -> None:
    """Undo a check-in (a wrong tap) of a member or a guest: refused once he has a seat
    at the evening's tables or in the draw waiting to open."""
    with transaction.atomic():
        locked = _locked(evening)
        seated = Seat.objects.filter(table__evening_link__evening=locked, **_whose(member))
        if _party(member) in _drafted(locked) or seated.exists():
            raise RuleError(_("this member has a seat tonight already"), field="member")
        if not Attendance.objects.filter(evening=locked, **_whose(member)).delete()[0]:
            raise RuleError(_("this member is not checked in"), field="member")
        home_changed()  # who is here tonight


def evening_sits_out(*, evening: Evening, member: Player, sits_out: bool) -> None:
    """Mark a checked-in member or guest as sitting out the next draw (or back in)."""
    here = Attendance.objects.filter(evening=evening, **_whose(member))
    with transaction.atomic():
        if not here.update(sits_out=sits_out):
            raise RuleError(_("this member is not checked in"), field="member")
        home_changed()  # who sits out tonight


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


def _drafted(evening: Evening) -> set[str]:
    """The party keys in the draw waiting to open."""
    return {key for table in (evening.draft or []) for key in table["players"]}


def evening_draw(*, evening: Evening, seed: int | None = None) -> Evening:
    """Draw the next round (scoring/engine/draw.py) for the checked-in members and guests
    who are not sitting out and not at one of the evening's tables still in play; kept as the
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
        here = [a for a in selectors.attendances(locked) if a.party not in busy]
        players = tuple(a.party for a in here)
        sits_out = frozenset(a.party for a in here if a.sits_out)
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
            {"players": list(t.players), "first_dealer": t.first_dealer} for t in result.tables
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


def evening_swap(*, evening: Evening, first: str, second: str) -> Evening:
    """Swap two players of the draft (party keys; at different tables, or two seats of
    one table)."""
    with transaction.atomic():
        locked = _locked(evening)
        draft: list[dict[str, Any]] = locked.draft or []
        where = {
            key: (t, i) for t, table in enumerate(draft) for i, key in enumerate(table["players"])
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
    tariff a table opened by hand starts on that day (``opening_tariff``: the season's
    default first, then what the club plays now)."""
    tariff = opening_tariff(games.of(evening.game), evening.played_on)
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
        players = _players(_drafted(locked))
        last = locked.links.aggregate(last=Max("round"))["last"] or 0
        tables = []
        for drawn in locked.draft:
            table = table_open(
                game=locked.game,
                version=version,
                members=[players[key] for key in drawn["players"]],
                by=by,
                first_dealer=drawn["first_dealer"],
                played_on=locked.played_on,
            )
            EveningTable.objects.create(evening=locked, table=table, round=last + 1)
            tables.append(table)
        locked.draft = None
        locked.save(update_fields=["draft"])
        return tables


def _players(keys: set[str]) -> dict[str, Player]:
    """The members and guests of the party keys ``keys`` (two queries)."""
    ids = {prefix: {int(k[1:]) for k in keys if k[0] == prefix} for prefix in "mg"}
    found: dict[str, Player] = {
        party_key(pk): m for pk, m in Member.objects.in_bulk(ids["m"]).items()
    }
    found |= {g.key: g for g in Guest.objects.filter(pk__in=ids["g"])}
    return found


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
