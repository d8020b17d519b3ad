"""The club's paper history brought in (issue 34): a CSV of past results, read by
``scoring.engine.history``, becomes finished totals-only tables that count in the
standings, the all-time boards, the ratings and the profiles exactly as played ones do
(their seats hold the results; they have no deals and no sheet).

``history_plan`` is the dry run: what the file would create (its tables, each player
matched to a member or a guest, the new guests) and every row it refuses, with the line
and the reason, writing nothing. ``history_import`` writes the plan in one transaction,
and only a plan with nothing refused: no file is half imported. A file brought in before
(its digest) is refused, as is a table the club has already (the same date, game, players
and results: the table's own digest, so two overlapping files do not count a game twice).
The members' CSV beside it is ``services.history_members``.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import formats, timezone

from members.models import NAME_FIELDS, Member, shown_name
from scoring import games
from scoring.engine.errors import N_, RuleError
from scoring.engine.history import HistoryTable, Refusal, check_size, parse_history
from scoring.models import AuditEntry, Guest, HistoryImport, Season, Seat, Table
from scoring.models.guests import guest_name_cleaned, name_key
from scoring.models.tables import validate_played_on
from scoring.selectors.tariffs import house_tariffs
from scoring.services import locking
from scoring.services.home import home_changed
from scoring.services.ratings import ratings_update_task
from scoring.services.standings import standings_after_finish
from scoring.services.tables import seat_names_for

GUEST_NAME_LENGTH = Guest._meta.get_field("name").max_length or 60


@dataclass(frozen=True)
class PlannedSeat:
    """A player of a planned table: the member, or the guest (an existing one, or a new
    one to be made: ``guest`` unsaved), the name the table shows, and his figures."""

    player: Member | Guest
    name: str
    result: Decimal
    money: Decimal | None
    place: int

    @property
    def is_guest(self) -> bool:
        return isinstance(self.player, Guest)

    @property
    def is_new_guest(self) -> bool:
        return isinstance(self.player, Guest) and self.player.pk is None


@dataclass(frozen=True)
class PlannedTable:
    """A table the file makes: its rows' table, its tariff version and its seats."""

    source: HistoryTable
    version: object
    seats: tuple[PlannedSeat, ...]
    digest: str

    @property
    def game_label(self) -> str:
        return str(games.of(self.source.game).label)


@dataclass(frozen=True)
class HistoryPlan:
    """What a file would bring in: its tables, the new guests and every refused row."""

    digest: str
    tables: tuple[PlannedTable, ...]
    new_guests: tuple[str, ...]
    refused: tuple[Refusal, ...]

    @property
    def ready(self) -> bool:
        """Whether the file may be imported: something to bring in, nothing refused."""
        return bool(self.tables) and not self.refused


class HistoryRefused(RuleError):
    """An import of a file with refused rows: nothing was written (``plan`` says why)."""

    def __init__(self, plan: HistoryPlan) -> None:
        super().__init__(
            N_("nothing was imported: %(count)s rows of the file are refused"),
            field="file",
            count=len(plan.refused),
        )
        self.plan = plan


def file_digest(content: bytes) -> str:
    """The digest a file is known by: of its bytes, a byte-order mark and the kind of line
    ends left out (the same file saved again by another spreadsheet is the same file)."""
    body = content.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")
    return hashlib.sha256(body).hexdigest()


def history_table_digest(game: str, played_on: datetime.date, seats: Iterable[Seat]) -> str:
    """What makes two totals-only tables one game: the game, the date, and each player
    (a member by username, a guest by his name's key) with his result and money, whatever
    the order of the rows (kept as the table's ``record_digest``)."""
    players = sorted(
        [
            seat.member.username if seat.member is not None else f"guest:{name_key(seat.name)}",
            f"{seat.result:.2f}",  # as the seats keep them: 5 and 5.00 are one result
            f"{seat.money or 0:.2f}",
        ]
        for seat in seats
    )
    text = json.dumps(
        {"history": game, "date": played_on.isoformat(), "players": players},
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def history_plan(*, content: bytes) -> HistoryPlan:
    """The dry run of a file of past results (``content``, its bytes): what it would
    create and every row refused. ``RuleError`` for a file that cannot be read at all
    (too large, not UTF-8) or that was imported before. Writes nothing."""
    check_size(len(content))
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RuleError(
            N_("the file is not UTF-8 text: save it from the spreadsheet as «CSV UTF-8»"),
            field="file",
        ) from None
    digest = file_digest(content)
    before = HistoryImport.objects.filter(digest=digest).select_related("by").first()
    if before is not None:
        raise RuleError(
            N_("this file was imported already, on %(date)s by %(name)s"),
            field="file",
            date=formats.date_format(timezone.localdate(before.at)),
            name=before.by.name if before.by is not None else "—",
        )
    parsed = parse_history(text)
    return _Planner().plan(digest, parsed.tables, list(parsed.refused))


class _Planner:
    """Matches a file's players to the club's members and guests and checks each table
    against the club (its dates, its tariffs, the tables it has)."""

    def __init__(self) -> None:
        self.by_username: dict[str, Member] = {}
        self.by_name: dict[str, list[Member]] = {}
        for member in Member.objects.only(*NAME_FIELDS):
            self.by_username[name_key(member.username)] = member
            key = name_key(shown_name(*(getattr(member, f) for f in NAME_FIELDS)))
            self.by_name.setdefault(key, []).append(member)
        self.guests: dict[str, Guest] = {}
        for guest in Guest.objects.order_by("-pk"):  # the oldest guest of a name wins
            self.guests[name_key(guest.name)] = guest
        self.versions: dict[tuple[str, object], object] = {}

    def plan(
        self, digest: str, tables: Sequence[HistoryTable], refused: list[Refusal]
    ) -> HistoryPlan:
        planned: list[PlannedTable] = []
        for table in tables:
            errors: list[Refusal] = []
            made = self.table(table, errors)
            refused += errors
            if made is not None:
                planned.append(made)
        self.refuse_kept(planned, refused)
        new = {
            name_key(seat.name): seat.name
            for table in planned
            for seat in table.seats
            if seat.is_new_guest
        }
        return HistoryPlan(
            digest=digest,
            tables=tuple(planned),
            new_guests=tuple(sorted(new.values())),
            refused=tuple(sorted(refused, key=lambda r: r.line)),
        )

    def table(self, table: HistoryTable, errors: list[Refusal]) -> PlannedTable | None:
        first = table.lines[0]
        try:
            validate_played_on(table.played_on)
        except ValidationError as error:
            errors.append(Refusal(first, RuleError(" ".join(error.messages), field="date")))
        version = self.version(table.game, table.played_on)
        if version is None:
            errors.append(
                Refusal(
                    first,
                    RuleError(
                        N_("the club has no %(game)s tariff yet: add one in the admin first"),
                        field="game",
                        game=games.of(table.game).label,
                    ),
                )
            )
        players: list[Member | Guest] = []
        seen: dict[int, str] = {}
        for line, name in zip(table.lines, table.players, strict=True):
            player = self.player(name, line, errors)
            if isinstance(player, Member):
                if player.pk in seen:
                    errors.append(
                        Refusal(
                            line,
                            RuleError(
                                N_("table %(table)s: %(name)s and %(other)s are one member"),
                                field="player",
                                table=table.label,
                                name=name,
                                other=seen[player.pk],
                            ),
                        )
                    )
                seen[player.pk] = name
            if player is not None:
                players.append(player)
        if errors:
            return None
        try:
            names = seat_names_for(players)
        except RuleError as error:
            errors.append(Refusal(first, error))
            return None
        money = table.money or (None,) * len(players)
        seats = tuple(
            PlannedSeat(player, shown, result, cash, place)
            for player, shown, result, cash, place in zip(
                players, names, table.results, money, table.places, strict=True
            )
        )
        return PlannedTable(table, version, seats, _digest_of(table.game, table.played_on, seats))

    def player(self, name: str, line: int, errors: list[Refusal]) -> Member | Guest | None:
        """The member a name is (his username, else his shown name), else a guest."""
        key = name_key(name)
        if key in self.by_username:
            return self.by_username[key]
        members = self.by_name.get(key, [])
        if len(members) > 1:
            errors.append(
                Refusal(
                    line,
                    RuleError(
                        N_("%(name)s is the name of %(count)s members: write the username"),
                        field="player",
                        name=name,
                        count=len(members),
                    ),
                )
            )
            return None
        if members:
            return members[0]
        if key in self.guests:
            return self.guests[key]
        cleaned = guest_name_cleaned(name)
        if not cleaned:
            errors.append(
                Refusal(
                    line,
                    RuleError(
                        N_(
                            "a guest's name must have letters one can see, not only spaces "
                            "or invisible marks"
                        ),
                        field="player",
                    ),
                )
            )
            return None
        if len(cleaned) > GUEST_NAME_LENGTH:
            errors.append(
                Refusal(
                    line,
                    RuleError(
                        N_("a guest's name has at most %(limit)s letters"),
                        field="player",
                        limit=GUEST_NAME_LENGTH,
                    ),
                )
            )
            return None
        guest = self.guests[key] = Guest(name=cleaned)  # one new guest however many tables
        return guest

    def version(self, game: str, day: datetime.date) -> object:
        """The version a table of ``game`` on ``day`` is kept under: the newest of the
        club's tariff on that day (the season's, else the one it plays most)."""
        key = (game, _season_key(day))
        if key not in self.versions:
            tariffs = house_tariffs(day)
            tariff = (
                tariffs.preferans
                if game == games.PREFERANS.code
                else next(iter(tariffs.boston), None)
            )
            self.versions[key] = None if tariff is None else tariff.current_version
        return self.versions[key]

    def refuse_kept(self, planned: list[PlannedTable], refused: list[Refusal]) -> None:
        """Refuse (and drop) a table the club has already, or the file has twice."""
        here = dict(
            Table.objects.filter(record_digest__in=[t.digest for t in planned]).values_list(
                "record_digest", "pk"
            )
        )
        seen: dict[str, str] = {}
        for table in list(planned):
            line = table.source.lines[0]
            if table.digest in here:
                refused.append(
                    Refusal(
                        line,
                        RuleError(
                            N_("table %(table)s is in the club already: table %(number)s"),
                            field="table",
                            table=table.source.label,
                            number=str(here[table.digest]),
                        ),
                    )
                )
                planned.remove(table)
            elif table.digest in seen:
                refused.append(
                    Refusal(
                        line,
                        RuleError(
                            N_("table %(table)s is table %(other)s again"),
                            field="table",
                            table=table.source.label,
                            other=seen[table.digest],
                        ),
                    )
                )
                planned.remove(table)
            else:
                seen[table.digest] = table.source.label


def _season_key(day: datetime.date) -> object:
    """The tariffs of a day depend on its season only: days are grouped by it."""
    return tuple(
        Season.objects.filter(starts_on__lte=day, ends_on__gte=day).values_list("pk", flat=True)
    )


def _digest_of(game: str, day: datetime.date, seats: Sequence[PlannedSeat]) -> str:
    return history_table_digest(
        game,
        day,
        [
            Seat(
                name=seat.name,
                member=seat.player if isinstance(seat.player, Member) else None,
                result=seat.result,
                money=seat.money,
            )
            for seat in seats
        ],
    )


def history_import(*, content: bytes, file_name: str, by: Member | None) -> HistoryImport:
    """Bring a file of past results in, in one transaction: its new guests, its tables
    (finished, counted, totals only, each with its audit entry), the standings totals and
    the ratings' update. ``HistoryRefused`` (nothing written) when any row is refused;
    ``RuleError`` when the file cannot be read or was imported before."""
    with transaction.atomic():
        locking.take_turns("scoring.history")  # two uploads of one file: the second waits
        plan = history_plan(content=content)
        if plan.refused:
            raise HistoryRefused(plan)
        if not plan.tables:
            raise RuleError(N_("the file has no tables to import"), field="file")
        guests = 0
        for table in plan.tables:
            for seat in table.seats:
                if seat.is_new_guest:
                    seat.player.save()  # the same Guest object for each of his tables
                    guests += 1
        record = HistoryImport.objects.create(
            digest=plan.digest,
            file_name=file_name[:200],
            tables=len(plan.tables),
            guests=guests,
            by=by,
        )
        for planned in plan.tables:
            _create_table(planned, record=record)
        home_changed()  # among the home page's latest finished tables, maybe
        for game in sorted({t.source.game for t in plan.tables}):
            ratings_update_task.enqueue(game)
        return record


def _create_table(planned: PlannedTable, *, record: HistoryImport) -> Table:
    source, file_name, by = planned.source, record.file_name, record.by
    kind = games.of(source.game)
    table = Table(
        game=source.game,
        played_on=source.played_on,
        status=Table.FINISHED,
        standing=Table.COUNTED,
        totals_only=True,
        history_import=record,
        opened_by=by,
        finished_at=timezone.now(),
        record_digest=planned.digest,
        revision=1,
    )
    setattr(table, kind.version_field, planned.version)
    table.save()
    Seat.objects.bulk_create(
        Seat(
            table=table,
            position=position,
            name=seat.name,
            member=seat.player if isinstance(seat.player, Member) else None,
            guest=seat.player if isinstance(seat.player, Guest) else None,
            result=seat.result,
            # No money written down: none changed hands as far as the club knows (every
            # read that sums money, the old pages' included, expects a number).
            money=Decimal(0) if seat.money is None else seat.money,
            place=seat.place,
            won=seat.place == 1,
            stats={},
        )
        for position, seat in enumerate(planned.seats)
    )
    AuditEntry.objects.create(
        table=table,
        action=AuditEntry.IMPORT,
        actor=by,
        revision=table.revision,
        reason="paper history",
        after={"history": source.label, "file": file_name[:200]},
    )
    standings_after_finish(table)
    return table
