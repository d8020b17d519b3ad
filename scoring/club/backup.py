"""Backup and restore of the whole club as one JSON document (``export_club`` /
``import_club``).

The document holds everything that cannot be recomputed: the club's name and introduction,
members (never their password hashes), groups, both kinds of tariff with every version,
seasons, guests, every table with its seats, deal log and audit history, and the club
evenings (check-ins, "not together" requests, the draw waiting to open, the tables by
round, the settled payments; a season's table money is the season's), the members'
account entries (a balance is their sum; an entry names its evening by ``id``), and the
tournaments (format, tariff and frozen version, judges, field, tours with their tables and
stored scores, penalties; a closed tour's scores must be what its tables give). Ratings are
left out: ``club_import`` enqueues their update, which rates every finished table in date
order (at once, or by the task worker under ``DJANGO_TASKS=database``). Rows
refer to each other by natural keys (usernames, tariff names and version numbers, deal
sequences; a guest by his row's ``id``; a ledger's party as ``club``, ``member:<username>``
or ``guest:<id>``). Each row also carries its ``id``, which the restore keeps: table 17 is table 17
again, so printed sheets and links still point at the same game (the database's id
sequences are moved past them). An ``id`` is optional; a row without one gets a new number.
A backup made before the club's texts were kept restores with the migration's texts.

What a backup grants is not taken on trust either: the Organisers group keeps the
permissions the migrations give it (the site's definition of the role), whatever the
backup lists, and no group or member is given a permission beyond that set (a crafted
backup gave the Organisers ``members.change_member`` and ``auth.change_group``); what is
left out is reported. Members are checked as an invitation checks them: a username that
is the name of a page (``settings``, ``sign-in``), one not in Unicode's normal form
(``ａｎｎａ``, which signs in as ``anna``) or one differing from another only in case is
refused, as is an e-mail address another member of the backup has (the password reset
mails every account with an address).

Restoring is for an empty club only (a fresh ``migrate``): the preset tariffs that the
migrations create are replaced by the backup's, which keep their names and version
numbers, so every table points at the version it was played under.

Nothing computed is trusted: each table's deals are replayed, and a finished table's
stored result and seat results must be what the engine gives (a backup with forged money
is refused); its duplicate-import digest is recomputed, and the ratings are rebuilt.
Dates are checked as the import page checks them: a table's day, and every moment a row
was written, between 2000-01-01 and a year from today (``validate_played_on``,
``validate_recorded_at``). A season's first and last day are not: a season may be planned
years ahead.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import Group, Permission
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone

from members.forms import is_a_page, same_address
from members.models import ORGANISERS, Member
from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.engine.ledger import CLUB
from scoring.engine.record import BAD_TEXT, MAX_DEALS, bad_text
from scoring.engine.standings import table_places
from scoring.engine.stats import before_concessions
from scoring.games import GAMES, Game
from scoring.live import keys
from scoring.models import (
    AccountEntry,
    ApartRequest,
    Attendance,
    AuditEntry,
    Club,
    DealRecord,
    Entry,
    Evening,
    EveningAnswer,
    EveningTable,
    Guest,
    Penalty,
    Season,
    Seat,
    SeatChange,
    Settlement,
    Table,
    Tour,
    Tournament,
    TourSeat,
    TourTable,
)
from scoring.models.tables import validate_played_on, validate_recorded_at
from scoring.models.tournaments import tournament_format
from scoring.services import locking, ratings_update_task, standings_rebuild
from scoring.services.tournaments import tour_scores

FORMAT = "clubsite-backup"
VERSION = 1

MEMBER_FIELDS = (
    "id",
    "username",
    "display_name",
    "first_name",
    "last_name",
    "email",
    "is_staff",
    "is_superuser",
    "is_active",
    "date_joined",
)


class BackupError(Exception):
    """A backup that cannot be restored; the message says where and why."""


# -- export -------------------------------------------------------------------------------


def club_export() -> dict[str, Any]:
    """The whole club as a JSON-ready document (format ``clubsite-backup``, version 1)."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:
            # One snapshot for every query, so a deal saved meanwhile is in all or none.
            locking.read_one_snapshot()
        usernames = dict(Member.objects.values_list("pk", "username"))
        return {
            "format": FORMAT,
            "version": VERSION,
            "exported_at": timezone.now().isoformat(),
            "club": _export_club(),
            "groups": _export_groups(),
            "members": _export_members(),
            "tariffs": {code: _export_tariffs(game, usernames) for code, game in GAMES.items()},
            "seasons": _export_seasons(),
            "guests": [_fields(guest) for guest in Guest.objects.order_by("pk")],
            "tables": _export_tables(usernames),
            "evenings": _export_evenings(usernames),
            "accounts": _export_accounts(usernames),
            "tournaments": _export_tournaments(usernames),
        }


def _export_club() -> dict[str, Any]:
    """The club's own texts (the row is always the one, so no ``id``)."""
    return {name: value for name, value in _fields(Club.load()).items() if name != "id"}


def _export_groups() -> list[dict[str, Any]]:
    groups = Group.objects.prefetch_related("permissions__content_type").order_by("name")
    return [
        {"name": group.name, "permissions": _permission_keys(group.permissions.all())}
        for group in groups
    ]


def _permission_keys(permissions: Any) -> list[str]:
    return sorted(f"{p.content_type.app_label}.{p.codename}" for p in permissions)


def _export_members() -> list[dict[str, Any]]:
    members = Member.objects.prefetch_related("groups", "user_permissions__content_type").order_by(
        "username"
    )
    return [
        {name: _plain(getattr(member, name)) for name in MEMBER_FIELDS}
        | {
            "groups": sorted(group.name for group in member.groups.all()),
            "permissions": _permission_keys(member.user_permissions.all()),
        }
        for member in members
    ]


def _export_tariffs(game: Game, usernames: dict[int, str]) -> list[dict[str, Any]]:
    rows = [name for name, _model in game.tariff_rows]
    tariff_model: Any = game.tariff_model
    tariffs = tariff_model.objects.prefetch_related("versions", *rows)
    exported = []
    for tariff in tariffs.order_by("name"):
        item: dict[str, Any] = {
            "fields": _fields(tariff),
            "changed_by": usernames.get(tariff.changed_by_id),
            "versions": [
                _fields(version) | {"created_by": usernames.get(version.created_by_id)}
                for version in sorted(tariff.versions.all(), key=lambda v: v.number)
            ],
        }
        for name in rows:
            item[name] = [_fields(row) for row in getattr(tariff, name).all()]
        exported.append(item)
    return exported


def _export_seasons() -> list[dict[str, Any]]:
    fields = [game.season_tariff_field for game in GAMES.values()]
    seasons = Season.objects.select_related(*fields)
    return [
        _fields(season) | {name: getattr(getattr(season, name), "name", None) for name in fields}
        for season in seasons.order_by("starts_on", "name")
    ]


def _export_tables(usernames: dict[int, str]) -> list[dict[str, Any]]:
    tables = (
        Table.objects.select_related(*(f"{g.version_field}__tariff" for g in GAMES.values()))
        .prefetch_related("seats", "seat_changes", "deal_records", "audit")
        .order_by("played_on", "opened_at", "pk")
    )
    exported = []
    for table in tables:
        deals = sorted(table.deal_records.all(), key=lambda d: d.sequence)
        sequences = {deal.pk: deal.sequence for deal in deals}
        exported.append(
            _fields(table)
            | {
                "tariff": table.version.tariff.name,
                "version": table.version.number,
                "opened_by": _username(usernames, table.opened_by_id),
                "seats": [
                    _fields(seat) | _seat_player(usernames, seat)
                    for seat in sorted(table.seats.all(), key=lambda s: s.position)
                ],
                # Who left a seat to a substitute mid-pulka (the replay reads them).
                "seat_changes": [
                    _fields(change)
                    | _seat_player(usernames, change)
                    | {"by": _username(usernames, change.by_id)}
                    for change in sorted(table.seat_changes.all(), key=lambda c: c.pk)
                ],
                "deals": [
                    _fields(deal) | {"created_by": _username(usernames, deal.created_by_id)}
                    for deal in deals
                ],
                "audit": [
                    _fields(entry)
                    | {
                        "deal": None if entry.deal_id is None else sequences.get(entry.deal_id),
                        "actor": _username(usernames, entry.actor_id),
                    }
                    for entry in sorted(table.audit.all(), key=lambda e: (e.at, e.pk))
                ],
            }
        )
    return exported


def _export_evenings(usernames: dict[int, str]) -> list[dict[str, Any]]:
    evenings = Evening.objects.prefetch_related(
        "attendances", "apart", "links", "settlements", "guests", "answers"
    ).order_by("played_on", "pk")
    return [
        {k: v for k, v in _fields(evening).items() if k != "draft"}
        | {
            "organiser": usernames[evening.organiser_id],
            "closed_by": _username(usernames, evening.closed_by_id),
            "guests": sorted(guest.pk for guest in evening.guests.all()),
            "attendances": [
                {k: v for k, v in _fields(a).items() if k != "id"}
                | _seat_player(usernames, a)
                | {"checked_in_by": _username(usernames, a.checked_in_by_id)}
                for a in evening.attendances.all()
            ],
            "apart": [[usernames[r.first_id], usernames[r.second_id]] for r in evening.apart.all()],
            "draft": [
                {
                    "players": [_party_name(usernames, key) for key in t["players"]],
                    "first_dealer": t["first_dealer"],
                }
                for t in evening.draft or []
            ]
            if evening.draft
            else None,
            "tables": [
                {"table": link.table_id, "round": link.round} for link in evening.links.all()
            ],
            "settlements": [
                {
                    "payer": _party_name(usernames, x.payer),
                    "payee": _party_name(usernames, x.payee),
                    "amount": _plain(x.amount),
                    "settled_by": _username(usernames, x.settled_by_id),
                    "settled_at": _plain(x.settled_at),
                }
                for x in evening.settlements.all()
            ],
            # The answers, in the order they queue (docs/evenings.md): the waiting list
            # comes back as it was. Those that never queued («maybe», «no») last, on every
            # database (SQLite sorts an empty time first, PostgreSQL last).
            "answers": [
                {
                    "member": usernames[a.member_id],
                    "answer": a.answer,
                    "queued_at": _plain(a.queued_at),
                    "answered_at": _plain(a.answered_at),
                }
                for a in sorted(evening.answers.all(), key=_queue_order)
            ],
        }
        for evening in evenings
    ]


def _queue_order(answer: EveningAnswer) -> tuple[bool, str, int]:
    """An answer's place in the export: by the time it queued, the unqueued last."""
    queued = answer.queued_at
    return (queued is None, "" if queued is None else queued.isoformat(), answer.pk)


def _export_accounts(usernames: dict[int, str]) -> list[dict[str, Any]]:
    """Every account entry, oldest first: the balances are their sums, so they come back."""
    return [
        _fields(entry)
        | {
            "member": usernames[entry.member_id],
            "evening": entry.evening_id,
            "guest": entry.guest_id,
            "recorded_by": usernames[entry.recorded_by_id],
        }
        for entry in AccountEntry.objects.order_by("recorded_at", "pk")
    ]


def _export_tournaments(usernames: dict[int, str]) -> list[dict[str, Any]]:
    """Each tournament with its format (its columns), tariff and frozen version, organiser,
    judges, field, tours played (``tour_set``: ``tours`` is the format's count; their
    tables name the table's id, their seats the tour table's number and the entry's id,
    with the stored result, place, points and explanation) and penalties (the entry's id,
    the tour's number)."""
    tournaments = (
        Tournament.objects.select_related(
            "preferans_tariff", "boston_tariff", "preferans_version", "boston_version"
        )
        .prefetch_related("judges", "entries", "tour_set__tables", "tour_set__seats", "penalties")
        .order_by("pk")
    )
    exported = []
    for tournament in tournaments:
        tours = sorted(tournament.tour_set.all(), key=lambda t: t.number)
        numbers = {tour.pk: tour.number for tour in tours}
        item = _fields(tournament) | {
            "tariff": getattr(tournament.tariff, "name", None),
            "version": getattr(tournament.version, "number", None),
            "organiser": _username(usernames, tournament.organiser_id),
            "judges": sorted(usernames[judge.pk] for judge in tournament.judges.all()),
            "entries": [
                _fields(entry) | _seat_player(usernames, entry)
                for entry in sorted(tournament.entries.all(), key=lambda e: e.pk)
            ],
            "tour_set": [],  # "tours" is the format's number of them
            "penalties": [
                _fields(penalty)
                | {
                    "entry": penalty.entry_id,
                    "tour": None if penalty.tour_id is None else numbers[penalty.tour_id],
                    "by": _username(usernames, penalty.by_id),
                    "reversed_by": _username(usernames, penalty.reversed_by_id),
                }
                for penalty in sorted(tournament.penalties.all(), key=lambda p: (p.at, p.pk))
            ],
        }
        for tour in tours:
            links = sorted(tour.tables.all(), key=lambda link: link.number)
            table_numbers = {link.pk: link.number for link in links}
            item["tour_set"].append(
                _fields(tour)
                | {
                    "tables": [_fields(link) | {"table": link.table_id} for link in links],
                    "seats": [
                        _fields(seat)
                        | {
                            "table": None
                            if seat.table_id is None
                            else table_numbers[seat.table_id],
                            "entry": seat.entry_id,
                        }
                        for seat in sorted(tour.seats.all(), key=lambda s: s.pk)
                    ],
                }
            )
        exported.append(item)
    return exported


def _party_name(usernames: dict[int, str], key: str) -> str:
    """A ledger's or a draw's party key (``m<id>``, ``g<id>``, ``club``) as the backup
    writes it: ``member:<username>`` (ids may change on a restore), ``guest:<id>``, ``club``."""
    if key.startswith("m"):
        return f"member:{usernames[int(key[1:])]}"
    if key.startswith("g"):
        return f"guest:{key[1:]}"
    return key


def _seat_player(
    usernames: dict[int, str], seat: Seat | SeatChange | Attendance | Entry
) -> dict[str, Any]:
    """Who holds a seat: ``member`` (a username), or ``guest`` (a guest's id in ``guests``)."""
    if seat.member_id is None:
        return {"guest": seat.guest_id}
    return {"member": usernames[seat.member_id]}


def _username(usernames: dict[int, str], pk: int | None) -> str | None:
    """Who a nullable member reference names (``None`` when nobody: deleted, or a command)."""
    return None if pk is None else usernames.get(pk)


def _fields(obj: models.Model) -> dict[str, Any]:
    """The row's own values (its ``id`` first, no relations) in JSON form."""
    return {"id": obj.pk} | {
        f.name: _plain(f.value_from_object(obj))
        for f in obj._meta.concrete_fields
        if not f.primary_key and not f.is_relation
    }


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime.date | datetime.time):  # datetime is a date too
        return value.isoformat()
    return value


# -- import -------------------------------------------------------------------------------


@dataclass
class ImportSummary:
    """What ``club_import`` created."""

    counts: Counter[str] = field(default_factory=Counter)
    replaced_tariffs: int = 0
    unknown_permissions: set[str] = field(default_factory=set)
    refused_permissions: set[str] = field(default_factory=set)
    """Permissions the backup gives beyond the Organisers' own (left out)."""


def club_contents() -> dict[str, int]:
    """What makes a club non-empty for ``club_import``: members, tables and seasons."""
    return {
        "members": Member.objects.count(),
        "tables": Table.objects.count(),
        "seasons": Season.objects.count(),
    }


def club_import(document: Any) -> ImportSummary:
    """Restore a ``club_export`` document into an empty club, in one transaction.

    Raises ``BackupError`` (changing nothing) if the club is not empty or the document is
    not a restorable backup. Members get unusable passwords; ratings are rebuilt.
    """
    check_header(document)
    if (where := bad_text(document)) is not None:  # a database column refuses such text
        raise BackupError(f"{BAD_TEXT} (at {where[:80]}). Nothing was changed.")
    with transaction.atomic():
        contents = club_contents()
        if any(contents.values()):
            found = ", ".join(
                f"{count} {name if count != 1 else name.removesuffix('s')}"
                for name, count in contents.items()
                if count
            )
            raise BackupError(
                f"the club is not empty ({found}): a backup restores into an empty club "
                "only (a freshly migrated database). Nothing was changed."
            )
        importer = _Importer()
        try:
            importer.run(document)
        except (
            TypeError,
            ValueError,
            KeyError,
            AttributeError,
            ArithmeticError,  # OverflowError, decimal.InvalidOperation
            RecursionError,
        ) as error:
            # A value of the wrong shape somewhere the checks above do not look.
            raise BackupError(
                f"{importer.at or 'the document'}: the document is malformed "
                f"({type(error).__name__}: {str(error)[:200]})"
            ) from None
        return importer.summary


def check_header(document: Any) -> None:
    """``BackupError`` unless ``document`` says it is a club backup this site can read."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BackupError(f'not a club backup: "format" must be "{FORMAT}"')
    version = document.get("version")
    if version != VERSION:
        raise BackupError(
            f'backup "version" {version!r} is not one this site reads (it reads {VERSION})'
        )


class _Importer:
    """One restore: maps natural keys to the new rows as it creates them."""

    def __init__(self) -> None:
        self.summary = ImportSummary()
        self.at = ""  # where the restore is, for a message about what no check foresaw
        self.restored: set[type[models.Model]] = set()  # models given rows, for sequences
        self.members: dict[str, int] = {}
        self.tariffs: dict[tuple[str, str], Any] = {}
        self.versions: dict[tuple[str, str, int], Any] = {}
        self.guests: dict[int, Guest] = {}  # by the backup's guest id
        self.tables: dict[int, Table] = {}  # by the backup's table id
        self.grantable: set[int] = set()  # the Organisers' permissions, as migrated
        self.addresses: list[tuple[str, str]] = []  # (e-mail, path) of restored members

    def run(self, document: dict[str, Any]) -> None:
        permissions = {
            f"{app}.{codename}": pk
            for pk, app, codename in Permission.objects.values_list(
                "pk", "content_type__app_label", "codename"
            )
        }
        self.grantable = set(
            Permission.objects.filter(group__name=ORGANISERS).values_list("pk", flat=True)
        )
        if "club" in document:  # a backup from before the club's texts were kept has none
            self.club(document["club"])
        for i, item in enumerate(_list(document, "groups", "", default=[])):
            self.group(item, f"groups[{i}]", permissions)
        for i, item in enumerate(_list(document, "members", "")):
            self.member(item, f"members[{i}]", permissions)
        self.replace_tariffs(_object(document.get("tariffs"), "tariffs"))
        for i, item in enumerate(_list(document, "seasons", "")):
            self.season(item, f"seasons[{i}]")
        # A backup from before guests and evenings were kept has neither.
        for i, item in enumerate(_list(document, "guests", "", default=[])):
            self.guest(item, f"guests[{i}]")
        tables = [
            self.table(item, f"tables[{i}]") for i, item in enumerate(_list(document, "tables", ""))
        ]
        for i, table in enumerate(tables):
            self.at = f"tables[{i}]"
            self.check_replay(table, f"tables[{i}]")
        for i, item in enumerate(_list(document, "evenings", "", default=[])):
            self.evening(item, f"evenings[{i}]")
        # A backup from before the members' accounts were kept has none.
        for i, item in enumerate(_list(document, "accounts", "", default=[])):
            self.account_entry(item, f"accounts[{i}]")
        # A backup from before tournaments were kept has none.
        for i, item in enumerate(_list(document, "tournaments", "", default=[])):
            self.tournament(item, f"tournaments[{i}]")
        self.at = ""
        _reset_sequences(self.restored)
        # The tables come back at their old revisions: a cache may hold those revisions
        # of the tables this database had before, drawn from other deals.
        keys.renew_epoch()
        standings_rebuild()  # the totals of the restored tables
        for game in GAMES:
            ratings_update_task.enqueue(game)  # none rated yet: rates every table

    # -- the club, members and groups

    def club(self, item: Any) -> None:
        """The club's name and introduction, over the ones the migration gave."""
        values = _values(Club, _object(item, "club"), "club")
        values.pop("id", None)  # there is one club, whatever id a document names
        club = Club.load()
        for name, value in values.items():
            setattr(club, name, value)
        try:
            club.clean_fields()
        except ValidationError as error:
            raise BackupError(f"club: {_messages(error)}") from None
        club.save()

    def group(self, item: Any, path: str, permissions: dict[str, int]) -> None:
        item = _object(item, path)
        name = _text(item, "name", path)
        group, _ = Group.objects.get_or_create(name=name)
        granted = self.permission_ids(item, path, permissions)
        if name != ORGANISERS:  # the Organisers keep the site's own definition
            group.permissions.set(granted)
        self.summary.counts["groups"] += 1

    def member(self, item: Any, path: str, permissions: dict[str, int]) -> None:
        item = _object(item, path)
        values = _values(Member, item, path, extra={"groups", "permissions"})
        if "username" not in values:
            raise BackupError(f"{path}.username: missing")
        self.check_member(values, path)
        member = Member(**values)
        member.set_unusable_password()
        self.insert(member, path)
        names = _strings(item, "groups", path)
        groups = list(Group.objects.filter(name__in=names))
        if len(groups) != len(set(names)):
            missing = set(names) - {g.name for g in groups}
            raise BackupError(f"{path}.groups: unknown group {sorted(missing)[0]!r}")
        member.groups.set(groups)
        member.user_permissions.set(self.permission_ids(item, path, permissions))
        self.members[member.username] = member.pk
        self.summary.counts["members"] += 1

    def check_member(self, values: dict[str, Any], path: str) -> None:
        """What the invitation form refuses, refused here too (the module's docstring)."""
        username = values["username"]
        if not isinstance(username, str):
            return  # the model's own checks say what is wrong with it
        if Member.normalize_username(username) != username:
            raise BackupError(
                f"{path}.username: {username!r} is not in Unicode's normal form (NFKC): "
                f"it would sign in as {Member.normalize_username(username)!r}"
            )
        if is_a_page(username):
            raise BackupError(f"{path}.username: {username!r} is the name of a page of the site")
        folded = username.casefold()
        if other := next((u for u in self.members if u.casefold() == folded), None):
            raise BackupError(f"{path}.username: {username!r} is {other!r} in another case")
        email = values.get("email")
        if isinstance(email, str) and email:
            for other_email, other_path in self.addresses:
                if same_address(email, other_email):
                    raise BackupError(
                        f"{path}.email: {other_path} has the same address: the password "
                        "reset would mail each of them the other's link"
                    )
            self.addresses.append((email, path))

    def permission_ids(self, item: dict[str, Any], path: str, known: dict[str, int]) -> list[int]:
        keys = _strings(item, "permissions", path)
        # A permission of an app this site no longer has is left out, and reported; so is
        # one beyond what the site gives its Organisers.
        self.summary.unknown_permissions |= {k for k in keys if k not in known}
        self.summary.refused_permissions |= {
            k for k in keys if k in known and known[k] not in self.grantable
        }
        return [known[k] for k in keys if k in known and known[k] in self.grantable]

    def insert(self, obj: models.Model, path: str) -> None:
        self.at = path
        _insert(obj, path)
        self.restored.add(type(obj))

    def member_id(self, username: Any, path: str) -> int | None:
        if username is None:
            return None
        if not isinstance(username, str) or username not in self.members:
            raise BackupError(f"{path}: no member {username!r} in the backup")
        return self.members[username]

    # -- tariffs and seasons

    def replace_tariffs(self, tariffs: dict[str, Any]) -> None:
        # An empty club has only the presets (no table or season uses them): versions go
        # first, since a version protects its tariff.
        for game in GAMES.values():
            tariff_model: Any = game.tariff_model
            game.versions().delete()
            self.summary.replaced_tariffs += (
                tariff_model.objects.all().delete()[1].get(tariff_model._meta.label, 0)
            )
        unknown = set(tariffs) - set(GAMES)
        if unknown:
            raise BackupError(f"tariffs.{sorted(unknown)[0]}: unknown game")
        for code, game in GAMES.items():
            for i, item in enumerate(_list(tariffs, code, "tariffs", default=[])):
                self.tariff(game, item, f"tariffs.{code}[{i}]")

    def tariff(self, game: Game, item: Any, path: str) -> None:
        tariff_model: Any = game.tariff_model
        version_model: Any = game.version_model
        item = _object(item, path)
        # A backup made before a yes/no setting became a choice stores true/false (§13.6).
        fields = tariff_model.stored_values(_object(item.get("fields"), path))
        tariff = tariff_model(**_values(tariff_model, fields, path))
        tariff.changed_by_id = self.member_id(item.get("changed_by"), f"{path}.changed_by")
        self.insert(tariff, path)
        for name, row_model in game.tariff_rows:
            for i, row in enumerate(_list(item, name, path, default=[])):
                row_path = f"{path}.{name}[{i}]"
                values = _values(row_model, _object(row, row_path), row_path)
                self.insert(row_model(tariff=tariff, **values), row_path)
        try:
            tariff.clean()  # the engine accepts the tariff's settings
        except ValidationError as error:
            raise BackupError(f"{path}: {_messages(error)}") from None
        self.tariffs[game.code, tariff.name] = tariff
        for i, version_item in enumerate(_list(item, "versions", path, default=[])):
            version_path = f"{path}.versions[{i}]"
            version_item = _object(version_item, version_path)
            version = version_model(
                tariff=tariff,
                **_values(version_model, version_item, version_path, extra={"created_by"}),
            )
            version.created_by_id = self.member_id(
                version_item.get("created_by"), f"{version_path}.created_by"
            )
            try:
                version.to_rules()
            except (RuleError, TypeError, ValueError, KeyError) as error:
                raise BackupError(f"{version_path}.rules: {error}") from None
            self.insert(version, version_path)
            self.versions[game.code, tariff.name, version.number] = version
            self.summary.counts["versions"] += 1
        self.summary.counts["tariffs"] += 1

    def season(self, item: Any, path: str) -> None:
        item = _object(item, path)
        fields = {game.code: game.season_tariff_field for game in GAMES.values()}
        season = Season(**_values(Season, item, path, extra=set(fields.values())))
        for game, name in fields.items():
            if item.get(name) is not None:
                setattr(season, name, self.tariff_named(game, item[name], f"{path}.{name}"))
        self.insert(season, path)
        self.summary.counts["seasons"] += 1

    def tariff_named(self, game: str, name: Any, path: str) -> Any:
        if (game, name) not in self.tariffs:
            raise BackupError(f"{path}: no {game} tariff {name!r} in the backup")
        return self.tariffs[game, name]

    # -- tables

    def table(self, item: Any, path: str) -> Table:
        item = _object(item, path)
        nested = {"tariff", "version", "opened_by", "seats", "seat_changes", "deals", "audit"}
        self.at = path
        table = Table(**_values(Table, item, path, extra=nested))
        try:
            validate_played_on(table.played_on)
        except ValidationError as error:
            raise BackupError(f"{path}.played_on: {_messages(error)}") from None
        key = (table.game, item.get("tariff"), item.get("version"))
        if key not in self.versions:
            raise BackupError(
                f"{path}.version: no version {key[2]!r} of the {key[0]} tariff {key[1]!r} "
                "in the backup"
            )
        setattr(table, GAMES[table.game].version_field, self.versions[key])
        table.opened_by_id = self.member_id(item.get("opened_by"), f"{path}.opened_by")
        self.insert(table, path)
        for i, seat_item in enumerate(_list(item, "seats", path)):
            seat_path = f"{path}.seats[{i}]"
            seat_item = _object(seat_item, seat_path)
            seat = Seat(
                table=table, **_values(Seat, seat_item, seat_path, extra={"member", "guest"})
            )
            self.seat_player(seat, seat_item, seat_path)
            self.insert(seat, seat_path)
        for i, change_item in enumerate(_list(item, "seat_changes", path, default=[])):
            change_path = f"{path}.seat_changes[{i}]"
            change_item = _object(change_item, change_path)
            change = SeatChange(
                table=table,
                **_values(SeatChange, change_item, change_path, extra={"member", "guest", "by"}),
            )
            self.seat_player(change, change_item, change_path)
            change.by_id = self.member_id(change_item.get("by"), f"{change_path}.by")
            self.insert(change, change_path)
        deal_items = _list(item, "deals", path, default=[])
        live = sum(not (isinstance(d, dict) and d.get("deleted")) for d in deal_items)
        if live > MAX_DEALS:  # checked before a deal is stored or replayed
            raise BackupError(
                f"{path}.deals: {live:,} deals; a game has at most {MAX_DEALS:,} "
                "(the limit for a game record)"
            )
        deals: dict[int, DealRecord] = {}
        for i, deal_item in enumerate(deal_items):
            deal_path = f"{path}.deals[{i}]"
            deal_item = _object(deal_item, deal_path)
            deal = DealRecord(
                table=table, **_values(DealRecord, deal_item, deal_path, extra={"created_by"})
            )
            deal.created_by_id = self.member_id(
                deal_item.get("created_by"), f"{deal_path}.created_by"
            )
            self.insert(deal, deal_path)
            deals[deal.sequence] = deal
        for i, entry_item in enumerate(_list(item, "audit", path, default=[])):
            entry_path = f"{path}.audit[{i}]"
            entry_item = _object(entry_item, entry_path)
            entry = AuditEntry(
                table=table, **_values(AuditEntry, entry_item, entry_path, extra={"deal", "actor"})
            )
            sequence = entry_item.get("deal")
            if sequence is not None:
                if sequence not in deals:
                    raise BackupError(f"{entry_path}.deal: the table has no deal {sequence!r}")
                entry.deal = deals[sequence]
            entry.actor_id = self.member_id(entry_item.get("actor"), f"{entry_path}.actor")
            self.insert(entry, entry_path)
        if "id" in item:
            self.tables[item["id"]] = table
        self.summary.counts["tables"] += 1
        self.summary.counts["deals"] += len(deals)
        self.summary.counts["audit entries"] += len(item.get("audit") or [])
        return table

    def seat_player(
        self, row: Seat | SeatChange | Attendance | Entry, item: dict[str, Any], path: str
    ) -> None:
        """Who holds a seat (or checked in): ``member`` (a username) or ``guest`` (the
        backup's id of a guest), exactly one."""
        if (item.get("member") is None) == (item.get("guest") is None):
            raise BackupError(f"{path}: must name a member or a guest")
        if item.get("guest") is not None:
            row.guest = self.guest_of(item["guest"], f"{path}.guest")
        else:
            row.member_id = self.member_id(item["member"], f"{path}.member")

    def guest_of(self, raw: Any, path: str) -> Guest:
        if not isinstance(raw, int) or isinstance(raw, bool) or raw not in self.guests:
            raise BackupError(f"{path}: no guest {raw!r} in the backup")
        return self.guests[raw]

    # -- guests and evenings

    def guest(self, item: Any, path: str) -> None:
        item = _object(item, path)
        values = _values(Guest, item, path)
        if "id" not in values:
            raise BackupError(f"{path}.id: missing (seats name a guest by it)")
        if not str(values.get("name", "")).strip():
            raise BackupError(f"{path}.name: must be a non-empty string")
        guest = Guest(**values)
        self.insert(guest, path)
        self.guests[guest.pk] = guest
        self.summary.counts["guests"] += 1

    def evening(self, item: Any, path: str) -> None:
        item = _object(item, path)
        nested = {
            "organiser",
            "closed_by",
            "guests",
            "attendances",
            "apart",
            "draft",
            "tables",
            "settlements",
            "answers",
        }
        evening = Evening(**_values(Evening, item, path, extra=nested))
        try:
            validate_played_on(evening.played_on)
        except ValidationError as error:
            raise BackupError(f"{path}.played_on: {_messages(error)}") from None
        organiser = self.member_id(item.get("organiser"), f"{path}.organiser")
        if organiser is None:
            raise BackupError(f"{path}.organiser: missing")
        evening.organiser_id = organiser
        evening.closed_by_id = self.member_id(item.get("closed_by"), f"{path}.closed_by")
        self.insert(evening, path)
        for i, raw in enumerate(_list(item, "guests", path, default=[])):
            guest = self.guest_of(raw, f"{path}.guests[{i}]")
            Guest.objects.filter(pk=guest.pk).update(evening=evening)
        parties = self.attendances(evening, item, path)
        for i, pair in enumerate(_list(item, "apart", path, default=[])):
            where = f"{path}.apart[{i}]"
            if not isinstance(pair, list) or len(pair) != 2:
                raise BackupError(f"{where}: must be two usernames")
            ids = sorted(self.member_id(name, where) or 0 for name in pair)
            if ids[0] == ids[1] or ids[0] == 0:
                raise BackupError(f"{where}: must be two different members")
            self.insert(ApartRequest(evening=evening, first_id=ids[0], second_id=ids[1]), where)
        self.evening_tables(evening, item, path)
        for i, raw in enumerate(_list(item, "settlements", path, default=[])):
            self.settlement(evening, raw, f"{path}.settlements[{i}]")
        for i, raw in enumerate(_list(item, "answers", path, default=[])):
            self.answer(evening, raw, f"{path}.answers[{i}]")
        draft = item.get("draft")
        if draft is not None:
            evening.draft = self.draft(draft, parties, f"{path}.draft")
            evening.save(update_fields=["draft"])
        self.summary.counts["evenings"] += 1

    def attendances(self, evening: Evening, item: dict[str, Any], path: str) -> set[str]:
        """The evening's check-ins; returns their party keys."""
        parties = set()
        for i, raw in enumerate(_list(item, "attendances", path, default=[])):
            where = f"{path}.attendances[{i}]"
            raw = _object(raw, where)
            extra = {"member", "guest", "checked_in_by"}
            attendance = Attendance(evening=evening, **_values(Attendance, raw, where, extra=extra))
            self.seat_player(attendance, raw, where)
            attendance.checked_in_by_id = self.member_id(
                raw.get("checked_in_by"), f"{where}.checked_in_by"
            )
            self.insert(attendance, where)
            parties.add(attendance.party)
        return parties

    def evening_tables(self, evening: Evening, item: dict[str, Any], path: str) -> None:
        for i, raw in enumerate(_list(item, "tables", path, default=[])):
            where = f"{path}.tables[{i}]"
            raw = _object(raw, where)
            table = raw.get("table")
            if not isinstance(table, int) or isinstance(table, bool) or table not in self.tables:
                raise BackupError(f"{where}.table: no table {table!r} in the backup")
            link = EveningTable(
                evening=evening,
                table=self.tables[table],
                **_values(EveningTable, raw, where, extra={"table"}),
            )
            if not isinstance(link.round, int) or link.round < 1:
                raise BackupError(f"{where}.round: must be a whole number from 1")
            self.insert(link, where)

    def party(self, raw: Any, path: str) -> str:
        """A party key from the backup's ``club``, ``member:<username>`` or ``guest:<id>``."""
        if raw == CLUB:
            return CLUB
        kind, _, name = raw.partition(":") if isinstance(raw, str) else ("", "", "")
        if kind == "member":
            return f"m{self.member_id(name, path)}"
        if kind == "guest" and name.isdigit():
            return self.guest_of(int(name), path).key
        raise BackupError(f'{path}: must be "club", "member:<username>" or "guest:<id>"')

    def settlement(self, evening: Evening, raw: Any, path: str) -> None:
        raw = _object(raw, path)
        extra = {"payer", "payee", "settled_by"}
        settlement = Settlement(evening=evening, **_values(Settlement, raw, path, extra=extra))
        settlement.payer = self.party(raw.get("payer"), f"{path}.payer")
        settlement.payee = self.party(raw.get("payee"), f"{path}.payee")
        settlement.settled_by_id = self.member_id(raw.get("settled_by"), f"{path}.settled_by")
        self.insert(settlement, path)

    def answer(self, evening: Evening, raw: Any, path: str) -> None:
        """A member's answer to the evening: «yes» with the moment it queued."""
        raw = _object(raw, path)
        answer = EveningAnswer(
            evening=evening, **_values(EveningAnswer, raw, path, extra={"member"})
        )
        member = self.member_id(raw.get("member"), f"{path}.member")
        if member is None:
            raise BackupError(f"{path}.member: missing")
        answer.member_id = member
        if answer.answer not in (EveningAnswer.YES, EveningAnswer.MAYBE, EveningAnswer.NO):
            raise BackupError(f'{path}.answer: must be "yes", "maybe" or "no"')
        if answer.answer == EveningAnswer.YES and answer.queued_at is None:
            raise BackupError(f"{path}.queued_at: a «yes» needs the time it was given")
        if answer.answered_at is None:
            raise BackupError(f"{path}.answered_at: missing")
        self.insert(answer, path)

    def account_entry(self, raw: Any, path: str) -> None:
        raw = _object(raw, path)
        extra = {"member", "evening", "guest", "recorded_by"}
        entry = AccountEntry(**_values(AccountEntry, raw, path, extra=extra))
        member = self.member_id(raw.get("member"), f"{path}.member")
        recorded_by = self.member_id(raw.get("recorded_by"), f"{path}.recorded_by")
        if member is None or recorded_by is None:
            raise BackupError(f"{path}: the member and who recorded it are required")
        entry.member_id, entry.recorded_by_id = member, recorded_by
        evening = raw.get("evening")
        if evening is not None:
            if not Evening.objects.filter(pk=_id(Evening, evening, f"{path}.evening")).exists():
                raise BackupError(f"{path}.evening: no evening {evening!r} in the backup")
            entry.evening_id = evening
        guest = raw.get("guest")  # the guest paid for (kind "guest"); older backups have none
        if guest is not None:
            if not Guest.objects.filter(pk=_id(Guest, guest, f"{path}.guest")).exists():
                raise BackupError(f"{path}.guest: no guest {guest!r} in the backup")
            entry.guest_id = guest
        self.insert(entry, path)
        self.summary.counts["account entries"] += 1

    def draft(self, raw: Any, here: set[str], path: str) -> list[dict[str, Any]]:
        """The draw waiting to open: tables of 3 or 4 players checked in at the evening,
        each once, with a first dealer among them."""
        if not isinstance(raw, list):
            raise BackupError(f"{path}: must be a list of tables")
        draft: list[dict[str, Any]] = []
        seen: set[str] = set()
        for i, table in enumerate(raw):
            where = f"{path}[{i}]"
            table = _object(table, where)
            players = [self.party(p, f"{where}.players") for p in _list(table, "players", where)]
            dealer = table.get("first_dealer")
            once = len(set(players)) == len(players) and set(players) <= here - seen
            if not 3 <= len(players) <= 4 or not once:
                raise BackupError(f"{where}.players: 3 or 4 players checked in, each once")
            if not isinstance(dealer, int) or not 0 <= dealer < len(players):
                raise BackupError(f"{where}.first_dealer: must be a seat of the table")
            seen |= set(players)
            draft.append({"players": players, "first_dealer": dealer})
        return draft

    # -- tournaments

    def tournament(self, item: Any, path: str) -> None:
        """A tournament and what hangs on it; its closed tours' stored scores must be what
        its tables' results give through its format (a forged backup is refused)."""
        item = _object(item, path)
        nested = {"tariff", "version", "organiser", "judges", "entries", "tour_set", "penalties"}
        tournament = Tournament(**_values(Tournament, item, path, extra=nested))
        if tournament.game not in GAMES:
            raise BackupError(f"{path}.game: unknown game {tournament.game!r}")
        game = tournament.game
        if item.get("tariff") is not None:
            tariff = self.tariff_named(game, item["tariff"], f"{path}.tariff")
            setattr(tournament, f"{game}_tariff", tariff)
            if item.get("version") is not None:
                key = (game, tariff.name, item["version"])
                if key not in self.versions:
                    raise BackupError(
                        f"{path}.version: no version {key[2]!r} of the {game} tariff "
                        f"{tariff.name!r} in the backup"
                    )
                setattr(tournament, GAMES[game].version_field, self.versions[key])
        tournament.organiser_id = self.member_id(item.get("organiser"), f"{path}.organiser")
        try:
            tournament_format(tournament)
        except RuleError as error:
            raise BackupError(f"{path}: its format does not work: {error}") from None
        self.insert(tournament, path)
        judges = [
            self.member_id(name, f"{path}.judges[{i}]")
            for i, name in enumerate(_strings(item, "judges", path))
        ]
        tournament.judges.set([pk for pk in judges if pk is not None])
        entries: dict[Any, Entry] = {}
        for i, raw in enumerate(_list(item, "entries", path, default=[])):
            where = f"{path}.entries[{i}]"
            raw = _object(raw, where)
            entry = Entry(
                tournament=tournament, **_values(Entry, raw, where, extra={"member", "guest"})
            )
            self.seat_player(entry, raw, where)
            self.insert(entry, where)
            entries[raw.get("id")] = entry
        tours: dict[int, Tour] = {}
        for i, raw in enumerate(_list(item, "tour_set", path, default=[])):
            tour = self.tour(tournament, entries, raw, f"{path}.tour_set[{i}]")
            tours[tour.number] = tour
        for i, raw in enumerate(_list(item, "penalties", path, default=[])):
            where = f"{path}.penalties[{i}]"
            raw = _object(raw, where)
            extra = {"entry", "tour", "by", "reversed_by"}
            penalty = Penalty(tournament=tournament, **_values(Penalty, raw, where, extra=extra))
            penalty.entry = self.entry_of(entries, raw.get("entry"), f"{where}.entry")
            number = raw.get("tour")
            if number is not None:
                if number not in tours:
                    raise BackupError(f"{where}.tour: the tournament has no tour {number!r}")
                penalty.tour = tours[number]
            penalty.by_id = self.member_id(raw.get("by"), f"{where}.by")
            penalty.reversed_by_id = self.member_id(raw.get("reversed_by"), f"{where}.reversed_by")
            self.insert(penalty, where)
        fmt = tournament_format(tournament)
        for number, tour in sorted(tours.items()):
            if tour.is_closed:
                self.check_scores(tour, fmt, f"{path}.tour_set (tour {number})")
        self.summary.counts["tournaments"] += 1

    def tour(self, tournament: Tournament, entries: dict[Any, Entry], raw: Any, path: str) -> Tour:
        raw = _object(raw, path)
        tour = Tour(tournament=tournament, **_values(Tour, raw, path, extra={"tables", "seats"}))
        self.insert(tour, path)
        links: dict[int, TourTable] = {}
        for i, link_raw in enumerate(_list(raw, "tables", path, default=[])):
            where = f"{path}.tables[{i}]"
            link_raw = _object(link_raw, where)
            table = link_raw.get("table")
            if not isinstance(table, int) or isinstance(table, bool) or table not in self.tables:
                raise BackupError(f"{where}.table: no table {table!r} in the backup")
            if self.tables[table].game != tournament.game:
                raise BackupError(
                    f"{where}.table: table {table} is not a game of {tournament.game}"
                )
            link = TourTable(
                tour=tour,
                table=self.tables[table],
                **_values(TourTable, link_raw, where, extra={"table"}),
            )
            self.insert(link, where)
            links[link.number] = link
        for i, seat_raw in enumerate(_list(raw, "seats", path, default=[])):
            where = f"{path}.seats[{i}]"
            seat_raw = _object(seat_raw, where)
            seat = TourSeat(
                tour=tour, **_values(TourSeat, seat_raw, where, extra={"table", "entry"})
            )
            seat.entry = self.entry_of(entries, seat_raw.get("entry"), f"{where}.entry")
            number = seat_raw.get("table")
            if number is not None:
                if number not in links:
                    raise BackupError(f"{where}.table: the tour has no table {number!r}")
                seat.table = links[number]
                player = next(
                    (s for s in seat.table.table.seats.all() if s.position == seat.position), None
                )
                if player is None or (player.member_id, player.guest_id) != (
                    seat.entry.member_id,
                    seat.entry.guest_id,
                ):
                    raise BackupError(
                        f"{where}: not the player the table has at seat {seat.position!r}"
                    )
            self.insert(seat, where)
        return tour

    def entry_of(self, entries: dict[Any, Entry], raw: Any, path: str) -> Entry:
        if isinstance(raw, bool) or raw not in entries:
            raise BackupError(f"{path}: the tournament has no entry {raw!r}")
        return entries[raw]

    def check_scores(self, tour: Tour, fmt: Any, path: str) -> None:
        """A closed tour's stored scores are the ones its tables' results give."""
        stored = {
            seat.pk: (seat.result, seat.place, seat.points, seat.calc)
            for seat in TourSeat.objects.filter(tour=tour)
        }
        for seat in tour_scores(tour, fmt):
            want = (seat.result, seat.place, seat.points, seat.calc)
            if stored.get(seat.pk) != want:
                raise BackupError(
                    f"{path}: the stored score of {seat.entry.name} is not what the tables' "
                    "results give (a forged or damaged backup)"
                )

    def check_replay(self, table: Table, path: str) -> None:
        """The restored deal log must replay under its tariff version, as the site will."""
        table = (
            Table.objects.select_related(*(game.version_field for game in GAMES.values()))
            .prefetch_related("seats", "deal_records")
            .get(pk=table.pk)
        )
        if table.totals_only:
            self.check_totals(table, path)
            return
        try:
            state = selectors.replay(table)
        except RuleError as error:
            raise BackupError(f"{path}: its deals do not replay: {error}") from None
        seats = sorted(table.seats.all(), key=lambda seat: seat.position)
        expected: Sequence[services.SeatResult | None]
        if table.status == Table.FINISHED:
            if table.result != state.document():
                raise BackupError(
                    f"{path}.result: not the result its deals give (a forged or damaged backup)"
                )
            expected = services.seat_results(table, state)
            if state.departures:
                self.restore_leavers_stats(table, state, expected)
            # The digest that refuses a second import of the game: computed, not trusted.
            digest = services.table_digest(table, state)
            Table.objects.filter(pk=table.pk).update(record_digest=digest)
        else:
            if table.result is not None:
                raise BackupError(f"{path}.result: a table in play has no result yet")
            expected = [None] * len(seats)
        for i, (seat, computed) in enumerate(zip(seats, expected, strict=True)):
            if computed is not None and _counted_before_concessions(seat.stats, computed.stats):
                seat.stats = computed.stats
                Seat.objects.filter(pk=seat.pk).update(stats=seat.stats)
            stored = (seat.result, seat.money, seat.place, seat.won, seat.stats)
            want = (
                (None, None, None, False, {})
                if computed is None
                else (computed.result, computed.money, computed.place, computed.won, computed.stats)
            )
            for name, have, should in zip(
                ("result", "money", "place", "won", "stats"), stored, want, strict=True
            ):
                if have != should:
                    raise BackupError(
                        f"{path}.seats[{i}].{name}: {_plain(have)!r}, but its deals give "
                        f"{_plain(should)!r} (a forged or damaged backup)"
                    )

    def restore_leavers_stats(
        self, table: Table, state: Any, expected: Sequence[services.SeatResult]
    ) -> None:
        """A finished table where substitutes came: each leaver's statistics are what his
        own deals give (computed, not trusted: a backup made before they were kept has
        none), and a seat that counted the leaver's deals too (such a backup) restores
        with the newcomer's own, as a seat counted before concessions does."""
        whole, leavers = services.stats_as_stored_before_substitutes(table, state)
        for seat, computed, before in zip(
            sorted(table.seats.all(), key=lambda seat: seat.position), expected, whole, strict=True
        ):
            if seat.stats != computed.stats and seat.stats == before:
                seat.stats = computed.stats
                Seat.objects.filter(pk=seat.pk).update(stats=seat.stats)
        for departed, stats in zip(state.departures, leavers, strict=True):
            SeatChange.objects.filter(pk=departed.change.pk).update(stats=stats)

    def check_totals(self, table: Table, path: str) -> None:
        """A table of paper history (``services.history``) has no deals to replay: it is
        finished, its seats' results (and money, if any) add up to 0, and their places are
        the ones the results give."""
        seats = sorted(table.seats.all(), key=lambda seat: seat.position)
        if table.status != Table.FINISHED or table.deal_records.all():
            raise BackupError(f"{path}: a table of paper history is finished and has no deals")
        results = [seat.result for seat in seats]
        if any(r is None for r in results) or sum(r or 0 for r in results) != 0:
            raise BackupError(f"{path}.seats: the results of paper history must add up to 0")
        money = [seat.money for seat in seats]
        if any(m is None for m in money) or sum(m or 0 for m in money) != 0:
            raise BackupError(f"{path}.seats: the money of paper history must add up to 0")
        places = table_places([r or Decimal(0) for r in results])
        for i, (seat, place) in enumerate(zip(seats, places, strict=True)):
            if (seat.place, seat.won, seat.stats) != (place, place == 1, {}):
                raise BackupError(
                    f"{path}.seats[{i}]: place {seat.place!r}, but the results give {place}"
                )
        Table.objects.filter(pk=table.pk).update(
            record_digest=services.history_table_digest(
                table.game,
                table.played_on,
                Seat.objects.filter(table=table).select_related("member"),
            )
        )


def _counted_before_concessions(stored: Any, computed: dict[str, Any]) -> bool:
    """Whether a seat's stored statistics are what its deals gave before conceded contracts
    were counted (a backup made then): it restores with today's counts."""
    return bool(stored != computed and stored == before_concessions(computed))


# -- reading the document -------------------------------------------------------------------


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BackupError(f"{path or 'the document'}: must be a JSON object")
    return value


def _list(item: dict[str, Any], key: str, path: str, default: Any = None) -> list[Any]:
    where = f"{path}.{key}" if path else key
    value = item.get(key, default)
    if value is None:
        raise BackupError(f"{where}: missing")
    if not isinstance(value, list):
        raise BackupError(f"{where}: must be a list")
    return value


def _strings(item: dict[str, Any], key: str, path: str) -> list[str]:
    values = _list(item, key, path, default=[])
    if not all(isinstance(value, str) for value in values):
        raise BackupError(f"{path}.{key}: must be a list of strings")
    return values


def _text(item: dict[str, Any], key: str, path: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise BackupError(f"{path}.{key}: must be a non-empty string")
    return value


def _values(
    model: type[models.Model],
    item: dict[str, Any],
    path: str,
    extra: set[str] | frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """The model's own field values from ``item`` (JSON), converted and checked; ``extra``
    names the keys that are read elsewhere (relations, nested rows)."""
    fields = {
        f.name: f
        for f in model._meta.concrete_fields
        if not f.primary_key and not f.is_relation and f.name != "password"
    }
    values: dict[str, Any] = {}
    for name, raw in item.items():
        if name in extra:
            continue
        if name == "id":
            values["id"] = _id(model, raw, f"{path}.id")
            continue
        model_field = fields.get(name)
        if model_field is None:
            raise BackupError(f"{path}.{name}: unknown field")
        if raw is None and not model_field.null:  # a CharField's to_python lets None by
            raise BackupError(f"{path}.{name}: must not be null")
        try:
            values[name] = (
                raw if isinstance(model_field, models.JSONField) else model_field.to_python(raw)
            )
        except ValidationError as error:
            raise BackupError(f"{path}.{name}: {_messages(error)}") from None
        except (TypeError, ValueError, ArithmeticError, RecursionError) as error:
            kind = type(error).__name__
            raise BackupError(f"{path}.{name}: not a valid value ({kind})") from None
    return values


def _id(model: type[models.Model], raw: Any, path: str) -> int:
    """A row's ``id`` from the backup: a whole number the database's key column holds."""
    pk = model._meta.pk
    assert pk is not None  # noqa: S101 - every model has a primary key
    low, high = connection.ops.integer_field_range(pk.get_internal_type())
    if not isinstance(raw, int) or isinstance(raw, bool) or not max(low or 1, 1) <= raw <= high:
        raise BackupError(f"{path}: must be a whole number from 1 to {high}")
    return raw


def _insert(obj: models.Model, path: str) -> None:
    """Check the row's fields and insert it as stored in the backup."""
    relations = [f.name for f in obj._meta.concrete_fields if f.is_relation]
    try:
        obj.clean_fields(exclude=relations)
    except ValidationError as error:
        raise BackupError(f"{path}: {_messages(error)}") from None
    for time_field in obj._meta.concrete_fields:
        moment = time_field.value_from_object(obj)
        if isinstance(time_field, models.DateTimeField) and moment is not None:
            try:
                validate_recorded_at(moment)
            except ValidationError as error:
                raise BackupError(f"{path}.{time_field.name}: {_messages(error)}") from None
    try:
        # ``raw`` as loaddata does: auto_now/auto_now_add fields keep the backup's times.
        # Always an insert: a repeated ``id`` is refused, never an update of the first row.
        obj.save_base(raw=True, force_insert=True)
    except DatabaseError as error:
        raise BackupError(f"{path}: the database refused it: {error}") from None
    except (TypeError, ValueError, ArithmeticError, RecursionError) as error:
        raise BackupError(f"{path}: a value the database cannot store ({error})") from None


def _reset_sequences(restored: Iterable[type[models.Model]]) -> None:
    """Move the id sequences (PostgreSQL) past the ids the backup gave, so the next table
    opened gets the number after the highest one restored. SQLite needs nothing."""
    statements = connection.ops.sequence_reset_sql(no_style(), sorted(restored, key=str))
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


def _messages(error: ValidationError) -> str:
    if hasattr(error, "error_dict"):
        return "; ".join(
            f"{name}: {' '.join(messages)}" for name, messages in error.message_dict.items()
        )
    return " ".join(error.messages)
