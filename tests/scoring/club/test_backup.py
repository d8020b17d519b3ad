"""Backup and restore of the whole club (``scoring/club/backup.py``, ``export_club``,
``import_club``): a club restored from its backup scores every table exactly as before."""

from __future__ import annotations

import datetime
import importlib
import io
import json
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from members.models import ORGANISERS, Member
from scoring import selectors, services
from scoring.club.backup import BackupError, club_import
from scoring.club.demo import DEMO_CLUB, SOCHI, load_demo
from scoring.management.commands.import_club import Command as ImportCommand
from scoring.models import (
    AccountEntry,
    Attendance,
    AuditEntry,
    BostonTariff,
    BostonTariffVersion,
    Club,
    DealRecord,
    Evening,
    EveningSeries,
    Guest,
    Penalty,
    PreferansTariff,
    PreferansTariffVersion,
    Rating,
    RatingHistory,
    Season,
    Seat,
    Table,
    Tour,
    Tournament,
    TourSeat,
    TourTable,
)
from tests.built_once import built_once

# The demo club's backup restored, whole or up to its error: slow.
pytestmark = [pytest.mark.django_db, pytest.mark.slow]

PRESETS = importlib.import_module("scoring.migrations.0002_preset_tariffs")
FSPR = importlib.import_module("scoring.migrations.0028_fspr_leningrad_preset")
CLUB = importlib.import_module("scoring.migrations.0013_club")


def build_club() -> None:
    """The demo club, plus what the demo lacks: a second tariff version in use, a second
    season (with a tariff of each game; the demo's own has its usual ones), corrected and
    deleted deals, a reopened table whose control time was marked, a deactivated member
    with a permission."""
    load_demo(stdout=io.StringIO())
    olga = Member.objects.get(username="olga")
    sochi = PreferansTariff.objects.get(name=SOCHI)
    sochi.passout_whists = 6  # tables use version 1 already: this publishes version 2
    version = services.tariff_publish(sochi, by=olga)
    assert version.number == 2
    services.season_save(  # after the demo's tables: it sums them
        season=Season(
            name="Осень",
            starts_on=datetime.date(2020, 9, 1),
            ends_on=datetime.date(2099, 11, 30),
            preferans_tariff=sochi,
            boston_tariff=BostonTariff.objects.first(),
            min_games=2,
        )
    )
    players = [Member.objects.get(username=name) for name in ("vera", "dina", "egor")]
    table = services.table_open(
        game=Table.PREFERANS,
        version=version,
        members=players,
        by=olga,
        played_on=datetime.date(2026, 1, 2),
        price=Decimal("0.25"),
    )
    names = selectors.seat_names(table)
    game = {
        "kind": "game",
        "declarer": names[0],
        "contract": "6S",
        "answers": {names[1]: "whist", names[2]: "pass"},
        "tricks": {names[0]: 6, names[1]: 3, names[2]: 1},
    }
    passout = {"kind": "passout", "tricks": {names[0]: 4, names[1]: 4, names[2]: 2}}
    first = services.deal_create(table, game, by=olga).record
    services.deal_create(table, passout, by=players[1])
    services.deal_create(table, game, by=players[1])
    services.deal_edit(first, first.data, by=olga, reason="re-entered the same")
    services.deal_undo(table, by=olga)
    services.table_finish(table, by=olga)
    services.table_reopen(table, by=olga, reason="a deal was missing")
    services.deal_create(table, game, by=olga)
    # Three deals: the deal is back at the first dealer, so marking the control time
    # completes the pulka at once (§13.12); the backup keeps the mark and its history.
    services.control_time_mark(table, by=olga)
    services.table_finish(table, by=olga)
    egor = players[2]
    egor.is_active = False
    egor.email = "egor@club.example"
    egor.first_name, egor.last_name = "Егор", "Петров"
    services.member_save(member=egor)
    egor.user_permissions.add(Permission.objects.get(codename="view_season"))


def empty_the_club() -> None:
    """What a freshly migrated database holds: the preset tariffs, the Organisers group and
    the club's first texts."""
    # Account entries refuse a delete (they are append-only): the plain manager's query.
    AccountEntry._base_manager.all().delete()
    Evening.objects.all().delete()  # check-ins, requests, links, settlements go with them
    Tournament.objects.all().delete()  # its field, tours, their tables' links, penalties
    EveningSeries.objects.all().delete()
    Table.objects.all().delete()  # seats, deals, audit, rating history go with them
    Guest.objects.all().delete()
    Rating.objects.all().delete()
    Season.objects.all().delete()
    Member.objects.all().delete()
    Group.objects.exclude(name=ORGANISERS).delete()
    PreferansTariffVersion.objects.all().delete()
    BostonTariffVersion.objects.all().delete()
    PreferansTariff.objects.all().delete()
    BostonTariff.objects.all().delete()
    PRESETS.create_presets(apps, None)
    FSPR.create_preset(apps, None)
    Club.objects.filter(pk=1).update(**{k: v for k, v in CLUB.CLUB.items() if k != "id"})


def natural_key(table: Table) -> tuple[Any, ...]:
    first = min(table.deal_records.all(), key=lambda d: d.sequence, default=None)
    return (
        table.played_on,
        selectors.seat_names(table),
        json.dumps(first.data if first else None, sort_keys=True),
    )


def _player(row: Any) -> Any:
    """A seat's or a check-in's player: a member's username, or a guest's id and name."""
    return row.member.username if row.member else ("guest", row.guest_id, row.guest.name)


def evenings_state() -> list[dict[str, Any]]:
    """Everything of each evening: its own fields, check-ins, requests, the draw, its
    tables by round and its settled payments (with who settled them)."""
    state = []
    for evening in Evening.objects.order_by("pk"):
        state.append(
            {
                "fields": (
                    evening.pk,
                    evening.played_on,
                    evening.place,
                    evening.organiser.username,
                    evening.game,
                    evening.table_size,
                    evening.seed,
                    evening.draft,
                    evening.created_at,
                    evening.starts_at,
                    evening.seats,
                ),
                "here": [
                    (
                        _player(a),
                        a.arrived_at,
                        a.sits_out,
                        getattr(a.checked_in_by, "username", None),
                    )
                    for a in evening.attendances.order_by("pk")
                ],
                "guests": sorted(evening.guests.values_list("pk", "name", "created_at")),
                "apart": sorted(evening.apart.values_list("first__username", "second__username")),
                "tables": sorted(evening.links.values_list("table_id", "round")),
                "settled": sorted(
                    evening.settlements.values_list(
                        "payer", "payee", "amount", "settled_by__username", "settled_at"
                    )
                ),
                # The answers in the order they queue: the waiting list as it was.
                "answers": list(
                    evening.answers.order_by("queued_at", "id").values_list(
                        "member__username", "answer", "queued_at"
                    )
                ),
            }
        )
    return state


def accounts_state() -> list[tuple[Any, ...]]:
    """Every account entry as it reads: whose, how much, what, when, by whom, why."""
    return list(
        AccountEntry.objects.order_by("pk").values_list(
            "pk",
            "member__username",
            "amount",
            "kind",
            "evening_id",
            "guest_id",
            "recorded_by__username",
            "recorded_at",
            "reason",
        )
    )


def club_state() -> dict[Any, dict[str, Any]]:
    """Everything a member can see of each table, keyed by its natural key."""
    tables = Table.objects.select_related(
        "preferans_version__tariff", "boston_version__tariff", "opened_by"
    ).prefetch_related("seats__member", "deal_records__created_by", "audit__actor", "audit__deal")
    state = {}
    for table in tables:
        state[natural_key(table)] = {
            "game": table.game,
            "tariff": (table.version.tariff.name, table.version.number),
            "status": table.status,
            "revision": table.revision,
            "settings": (
                table.pool_target,
                table.price,
                table.first_dealer,
                table.control_time,
                table.preference_suit,
                table.control_time_deal,
            ),
            "digest": table.record_digest,
            "times": (table.opened_at, table.finished_at),
            "opened_by": getattr(table.opened_by, "username", None),
            "result": table.result,
            "document": selectors.replay(table).document(),
            "seats": [
                (s.position, _player(s), s.name, s.result, s.money, s.place, s.won, s.stats)
                for s in sorted(table.seats.all(), key=lambda s: s.position)
            ],
            "deals": [
                (
                    d.sequence,
                    d.data,
                    d.deleted,
                    getattr(d.created_by, "username", None),
                    d.created_at,
                )
                for d in sorted(table.deal_records.all(), key=lambda d: d.sequence)
            ],
            "audit": sorted(
                (
                    e.at,
                    e.action,
                    getattr(e.actor, "username", None),
                    e.reason,
                    json.dumps([e.before, e.after], sort_keys=True),
                    e.deal.sequence if e.deal else None,
                )
                for e in table.audit.all()
            ),
        }
    return state


def club_setup() -> dict[str, Any]:
    """The members, groups, tariffs, seasons and ratings, by natural keys."""
    return {
        "members": sorted(
            (
                m.username,
                m.display_name,
                m.first_name,
                m.last_name,
                m.email,
                m.is_staff,
                m.is_superuser,
                m.is_active,
                m.date_joined,
                tuple(sorted(g.name for g in m.groups.all())),
                tuple(sorted(p.codename for p in m.user_permissions.all())),
            )
            for m in Member.objects.prefetch_related("groups", "user_permissions")
        ),
        "groups": sorted(
            (g.name, tuple(sorted(p.codename for p in g.permissions.all())))
            for g in Group.objects.prefetch_related("permissions")
        ),
        "preferans": sorted(
            (
                t.name,
                t.description,
                t.passout_whists,
                tuple((v.number, json.dumps(v.rules)) for v in t.versions.order_by("number")),
            )
            for t in PreferansTariff.objects.all()
        ),
        "boston": sorted(
            (
                t.name,
                t.system,
                tuple((v.number, json.dumps(v.rules)) for v in t.versions.order_by("number")),
                tuple(t.payment_rows.values_list("contract", "required", "base", "rate")),
                tuple(t.card_rows.values_list("row", "unit", "three_honours", "overtrick")),
            )
            for t in BostonTariff.objects.all()
        ),
        "seasons": list(
            Season.objects.values_list(
                "name",
                "starts_on",
                "ends_on",
                "preferans_tariff__name",
                "boston_tariff__name",
                "min_games",
                "ranking",
                # A league (the demo's season is one): its rule and numbers come back.
                "league_rule",
                "league_nights",
                "place_points",
                "sole_positive",
                "second_negative",
                "bands",
                "best_of",
            )
        ),
        "ratings": sorted(
            (r.member.username, r.game, round(r.ordinal, 9), r.tables)
            for r in Rating.objects.select_related("member")
        ),
        "rating history": RatingHistory.objects.count(),
        "club": list(Club.objects.values()),
    }


def export(tmp_path: Path) -> Path:
    path = tmp_path / "club.json"
    out = io.StringIO()
    call_command("export_club", str(path), stdout=out)
    assert "Exported 8 members" in out.getvalue()
    return path


def run_import(*argv: str) -> tuple[int, str, str]:
    """``manage.py import_club ARGV`` as the shell runs it: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    command = ImportCommand(stdout=out, stderr=err)
    # run_from_argv closes the database connections when it ends, which would end the
    # test's transaction on PostgreSQL.
    with mock.patch("django.core.management.base.connections.close_all"):
        try:
            command.run_from_argv(["manage.py", "import_club", *argv])
        except SystemExit as exit_:
            return int(exit_.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def _restore(tmp_path: Path, document: dict[str, Any]) -> None:
    path = tmp_path / "club.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    status, _out, err = run_import(str(path))
    assert (status, err) == (0, "")


def test_the_control_time_mark_is_restored_and_an_older_backup_has_none(tmp_path: Path) -> None:
    document = a_backup()
    marked = [t for t in document["tables"] if t.get("control_time_deal") is not None]
    assert [(t["control_time_deal"], t["status"]) for t in marked] == [(3, Table.FINISHED)]
    assert [e["action"] for e in marked[0]["audit"]].count(AuditEntry.MARK) == 1

    _restore(tmp_path, document)
    table = Table.objects.get(pk=marked[0]["id"])
    assert table.control_time_deal == 3
    game = selectors.replay(table).game
    assert (game.last_round, game.deals_left()) == (True, 0)  # the round was over
    assert table.record_digest == marked[0]["record_digest"]

    # A backup made before tables kept the mark has no such field: restored, unmarked.
    empty_the_club()
    for item in document["tables"]:
        del item["control_time_deal"]
    _restore(tmp_path, document)
    assert not Table.objects.filter(control_time_deal__isnull=False).exists()


_BACKUP: list[str] = []

TABLES = 66 + 11 + 17
"""The built club's tables: the demo's paper year (scoring/club/demo_history.csv, first by
date: the cases that break a played table's deals find it with ``_finished``), the demo's
10 played, one opened here, and the 17 its two tournaments opened. The backup carries those
as tables, and the tournaments themselves (their format, field, judges, tours and their
tables, stored scores and penalties) under ``tournaments``."""


def a_backup() -> dict[str, Any]:
    """The club's backup, with the club emptied again. Built once: each test starts from the
    freshly migrated database, into which the document's ids restore as they are."""
    if not _BACKUP:
        build_club()
        out = io.StringIO()
        call_command("export_club", stdout=out)
        empty_the_club()
        _BACKUP.append(out.getvalue())
    return json.loads(_BACKUP[0])


def _finished(document: dict[str, Any]) -> int:
    """The index of the backup's first finished table with deals."""
    return next(
        i
        for i, table in enumerate(document["tables"])
        if table["status"] == Table.FINISHED and table["deals"]
    )


def _open(document: dict[str, Any]) -> int:
    """The index of the backup's first table in play."""
    return next(i for i, table in enumerate(document["tables"]) if table["status"] == Table.OPEN)


def _guest_seat(document: dict[str, Any]) -> tuple[Any, ...]:
    """Where the demo's guest's seat is in the backup (at tonight's round 2)."""
    return next(
        ("tables", i, "seats", j)
        for i, table in enumerate(document["tables"])
        for j, seat in enumerate(table["seats"])
        if seat.get("guest") is not None
    )


def _drop(document: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    *where, key = path
    item: Any = document
    for step in where:
        item = item[step]
    del item[key]
    return document


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"x": value}
    return value


def _set(document: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return document


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "is not valid JSON (line 1, column 2"),
        ("[1, 2]", 'not a club backup: "format" must be "clubsite-backup"'),
        ('{"format": "pulka/1"}', 'not a club backup: "format" must be "clubsite-backup"'),
        ('{"format": "clubsite-backup", "version": 9}', 'backup "version" 9 is not one'),
        ('{"format": "clubsite-backup", "version": 1}', "members: missing"),
        # Issue 19: these ended in a traceback.
        ("[" * 100_000 + "]" * 100_000, "its JSON is nested too deeply"),
        ('{"format": "clubsite-backup", "version": ' + "9" * 5_000 + "}", "cannot be read"),
    ],
)
def test_a_malformed_document_exits_2_and_says_why(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")

    status, out, err = run_import(str(path))

    assert status == 2
    assert message in err
    assert out == ""
    assert Member.objects.count() == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: _set(d, ("members", 0, "password"), "pbkdf2_sha256$1$x$y"),
            "members[0].password: unknown field",
        ),
        (lambda d: _set(d, ("members", 0, "is_staff"), "maybe"), "members[0].is_staff:"),
        (lambda d: _set(d, ("tables", 0, "version"), 7), "tables[0].version: no version 7"),
        (lambda d: _set(d, ("tables", 0, "opened_by"), "nobody"), "no member 'nobody'"),
        (lambda d: _set(d, ("tables", 0, "game"), "poker"), "tables[0].version: no version"),
        (
            lambda d: _set(d, ("tables", _finished(d), "deals", 0, "data"), {"kind": "nonsense"}),
            "]: its deals do not replay",
        ),
        # A table of the paper year whose results were changed no longer adds up.
        (
            lambda d: _set(d, ("tables", 0, "seats", 0, "result"), "1000.00"),
            "tables[0].seats: the results of paper history must add up to 0",
        ),
        (
            lambda d: _set(d, ("tables", 0, "seats", 0, "place"), 3),
            "tables[0].seats[0]: place 3, but the results give 1",
        ),
        (lambda d: _set(d, ("tables", 1, "seats"), "four"), "tables[1].seats: must be a list"),
        (
            lambda d: _set(d, ("members", 1, "groups"), [{"name": "x"}]),
            "members[1].groups: must be a list of strings",
        ),
        (lambda d: _set(d, ("tables", 2, "tariff"), ["Sochi"]), "the document is malformed"),
        (
            lambda d: _set(d, ("tariffs", "preferans", 0, "versions", 0, "rules"), {"x": 1}),
            "tariffs.preferans[0].versions[0].rules:",
        ),
        # Forged or damaged figures (issue 19): the deals are replayed and must give them.
        (
            lambda d: _set(d, ("tables", _finished(d), "seats", 0, "money"), "999.00"),
            "].seats[0].money: '999.00', but its deals give",
        ),
        (
            lambda d: _set(d, ("tables", _finished(d), "seats", 1, "place"), 7),
            "].seats[1].place: 7, but its deals give",
        ),
        (
            lambda d: _set(d, ("tables", _finished(d), "seats", 2, "result"), "0.01"),
            "].seats[2].result: '0.01', but its deals give",
        ),
        (
            lambda d: _set(d, ("tables", _finished(d), "seats", 0, "won"), "true"),
            "].seats[0].won: ",
        ),
        (
            lambda d: _set(d, ("tables", _finished(d), "result", "players"), {}),
            "].result: not the result its deals give",
        ),
        (
            lambda d: _set(d, ("tables", _open(d), "seats", 0, "money"), "5.00"),
            "].seats[0].money: '5.00', but its deals give None",
        ),
        (lambda d: _set(d, ("tables", _open(d), "result"), {}), "a table in play has no result"),
        # Numbers out of any range, and ids that cannot be kept (issue 19).
        (lambda d: _set(d, ("tables", 0, "pool_target"), 10**30), "tables[0]: pool_target:"),
        (lambda d: _set(d, ("tables", 0, "price"), "1e999999"), "tables[0]: price:"),
        (
            lambda d: _set(d, ("tables", 0, "control_time_deal"), 100_001),
            "tables[0]: control_time_deal: Ensure this value is less than or equal to 100000",
        ),
        (
            lambda d: _set(d, ("tables", 0, "control_time_deal"), -1),
            "tables[0]: control_time_deal:",
        ),
        (lambda d: _set(d, ("tables", 0, "id"), 10**30), "tables[0].id: must be a whole number"),
        (lambda d: _set(d, ("tables", 0, "id"), "7"), "tables[0].id: must be a whole number"),
        (lambda d: _set(d, ("tables", 0, "id"), 0), "tables[0].id: must be a whole number"),
        (
            lambda d: _set(d, ("tables", 1, "id"), d["tables"][0]["id"]),
            "tables[1]: the database refused it",
        ),
        (
            lambda d: _set(
                d, ("tables", _finished(d), "deals", 0, "data", "tricks"), {"x": 10**30}
            ),
            "]: its deals do not replay",
        ),
        (
            lambda d: _set(d, ("tables", _finished(d), "deals", 0, "data"), _nested(500)),
            "tables[",
        ),
        # Dates within the sane range (issue 19): a far-future table would make every
        # later finish rebuild all ratings.
        (
            lambda d: _set(d, ("tables", 0, "played_on"), "9999-12-31"),
            "tables[0].played_on: the date must be between 2000-01-01 and ",
        ),
        (
            lambda d: _set(d, ("tables", 0, "played_on"), "1999-12-31"),
            "tables[0].played_on: the date must be between 2000-01-01 and ",
        ),
        # The club's texts go through the same checks as the admin's.
        (lambda d: _set(d, ("club", "name"), "К" * 101), "club: name: Ensure this value"),
        (lambda d: _set(d, ("club", "name"), ""), "club: name: This field cannot be blank."),
        (lambda d: _set(d, ("club", "colour"), "red"), "club.colour: unknown field"),
        (lambda d: _set(d, ("club",), "Клуб"), "club: must be a JSON object"),
        # Moments a row was written, in the same range (found by the backup fuzz: a history
        # entry or a tariff version of 9999-12-31 23:59 UTC restored, and then the table's
        # page and the tariff list failed showing it in Moscow time, in year 10000).
        (
            lambda d: _set(d, ("tables", 0, "audit", 0, "at"), "9999-12-31T23:59:59+00:00"),
            "tables[0].audit[0].at: the time must be between 2000-01-01 and ",
        ),
        (
            lambda d: _set(
                d, ("tariffs", "preferans", 0, "versions", 0, "created_at"), "9999-12-31T23:59"
            ),
            "tariffs.preferans[0].versions[0].created_at: the time must be between 2000-01-01",
        ),
        (
            lambda d: _set(d, ("members", 0, "date_joined"), "0001-01-01T00:00:00+00:00"),
            "members[0].date_joined: the time must be between 2000-01-01 and ",
        ),
        (  # more deals than a game record may have (issue 19), refused before any is stored
            lambda d: _set(
                d, ("tables", _finished(d), "deals"), d["tables"][_finished(d)]["deals"][:1] * 1_001
            ),
            "].deals: 1,001 deals; a game has at most 1,000",
        ),
        # A null in a column that holds none (found by the backup fuzz: the club's English
        # name as null was an IntegrityError, a traceback instead of a message).
        (lambda d: _set(d, ("club", "name_en"), None), "club.name_en: must not be null"),
        # Guests and evenings refer to guests, members and tables of the backup.
        (lambda d: _set(d, ("guests", 0, "name"), " "), "guests[0].name: must be a non-empty"),
        (lambda d: _drop(d, ("guests", 0, "id")), "guests[0].id: missing"),
        (
            lambda d: _set(d, (*_guest_seat(d), "guest"), 999),
            ".guest: no guest 999 in the backup",
        ),
        (
            lambda d: _set(d, (*_guest_seat(d), "member"), "anna"),
            "]: must name a member or a guest",
        ),
        (
            lambda d: _set(d, ("evenings", 0, "tables", 0, "table"), 99_999),
            "evenings[0].tables[0].table: no table 99999 in the backup",
        ),
        (
            lambda d: _set(d, ("evenings", 0, "settlements", 0, "payer"), "m1"),
            'evenings[0].settlements[0].payer: must be "club", "member:<username>" or',
        ),
        (
            lambda d: _set(d, ("accounts", -1, "evening"), 99_999),
            "accounts[9].evening: no evening 99999 in the backup",
        ),
        (
            lambda d: _set(d, ("accounts", -1, "guest"), 99_999),
            "accounts[9].guest: no guest 99999 in the backup",
        ),
        (
            lambda d: _set(d, ("accounts", 0, "member"), "nobody"),
            "accounts[0].member: no member 'nobody' in the backup",
        ),
        (
            lambda d: _set(d, ("accounts", 0, "amount"), "0"),
            "accounts[0]: the database refused it",
        ),
        (
            lambda d: _set(d, ("evenings", 0, "organiser"), "nobody"),
            "evenings[0].organiser: no member 'nobody' in the backup",
        ),
        (
            lambda d: _set(
                d, ("evenings", 0, "draft"), [{"players": ["member:anna"], "first_dealer": 0}]
            ),
            "evenings[0].draft[0].players: 3 or 4 players checked in, each once",
        ),
        # Next Friday's answers (the demo's third evening by date).
        (
            lambda d: _set(d, ("evenings", 2, "answers", 0, "answer"), "perhaps"),
            'evenings[2].answers[0].answer: must be "yes", "maybe" or "no"',
        ),
        (
            lambda d: _set(d, ("evenings", 2, "answers", 0, "member"), "nobody"),
            "evenings[2].answers[0].member: no member 'nobody' in the backup",
        ),
        (
            lambda d: _set(d, ("evenings", 2, "answers", 0, "queued_at"), None),
            "evenings[2].answers[0].queued_at: a «yes» needs the time it was given",
        ),
        # What the invitation refuses (issue 35): names of pages, a name that signs in as
        # another, one differing only in case, an address two members would share.
        (
            lambda d: _set(d, ("members", 1, "username"), "settings"),
            "members[1].username: 'settings' is the name of a page of the site",
        ),
        (
            lambda d: _set(d, ("members", 1, "username"), "sign-in"),
            "members[1].username: 'sign-in' is the name of a page of the site",
        ),
        (
            lambda d: _set(d, ("members", 1, "username"), "ａｎｎａ"),
            "members[1].username: 'ａｎｎａ' is not in Unicode's normal form (NFKC)",
        ),
        (
            lambda d: _set(d, ("members", 1, "username"), d["members"][0]["username"].upper()),
            "in another case",
        ),
        (
            lambda d: _set(d, ("members", 1, "email"), d["members"][0]["email"].upper()),
            "members[1].email: members[0] has the same address",
        ),
    ],
)
def test_a_broken_backup_exits_2_and_changes_nothing(
    tmp_path: Path, change: Any, message: str
) -> None:
    document = change(a_backup())
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document), encoding="utf-8")

    status, out, err = run_import(str(path))

    assert status == 2, out
    assert message in err
    assert Member.objects.count() == 0
    assert Table.objects.count() == 0
    assert sorted(PreferansTariff.objects.values_list("name", flat=True)) == sorted(
        [*PRESETS.PREFERANS, FSPR.NAME]
    )
    assert Club.objects.get().name == CLUB.CLUB["name"]


def _permission_keys(permissions: Any) -> set[str]:
    return {f"{p.content_type.app_label}.{p.codename}" for p in permissions.all()}


def test_a_backup_grants_no_more_than_the_organisers_own_permissions() -> None:
    """A crafted backup's Organisers gained ``members.change_member`` and
    ``auth.change_group`` (the admin's member and group editors): the group keeps the
    permissions the migrations give it, and nothing beyond them is granted to any group
    or member; what was left out is reported."""
    document = a_backup()
    own = _permission_keys(Group.objects.get(name=ORGANISERS).permissions)
    organisers = next(group for group in document["groups"] if group["name"] == ORGANISERS)
    organisers["permissions"] = ["members.change_member", "auth.change_group"]
    document["groups"].append(
        {"name": "Helpers", "permissions": ["auth.change_group", "scoring.view_season"]}
    )
    document["members"][0]["permissions"] = ["members.change_member", "scoring.view_season"]

    summary = club_import(document)

    assert _permission_keys(Group.objects.get(name=ORGANISERS).permissions) == own
    assert _permission_keys(Group.objects.get(name="Helpers").permissions) == {
        "scoring.view_season"
    }
    member = Member.objects.get(username=document["members"][0]["username"])
    assert _permission_keys(member.user_permissions) == {"scoring.view_season"}
    assert summary.refused_permissions == {"members.change_member", "auth.change_group"}


def test_the_clubs_name_and_introduction_are_restored() -> None:
    document = a_backup()
    assert {name: document["club"][name] for name in DEMO_CLUB} == DEMO_CLUB  # the demo's
    assert document["club"]["account_table_money"] == "150.00"
    assert Club.objects.get().name == CLUB.CLUB["name"]  # the emptied club

    club_import(document)

    club = Club.objects.get()
    assert {name: getattr(club, name) for name in DEMO_CLUB} == DEMO_CLUB


def test_a_backup_from_before_the_clubs_texts_keeps_the_first_ones() -> None:
    document = a_backup()
    del document["club"]

    club_import(document)

    assert Member.objects.count() == 8
    assert Club.objects.get().name == CLUB.CLUB["name"]


def test_a_refusal_is_one_line(tmp_path: Path) -> None:
    """Found by the backup fuzz: on PostgreSQL a repeated id's refusal went on with the
    server's ``DETAIL:`` line; the shell gets one line, the detail kept on it."""
    document = a_backup()
    document["tables"][1]["id"] = document["tables"][0]["id"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document), encoding="utf-8")

    status, out, err = run_import(str(path))

    assert (status, out) == (2, "")
    assert err.startswith(f"CommandError: {path}: tables[1]: the database refused it: ")
    assert err.count("\n") == 1
    assert err.endswith("\n")
    assert Table.objects.count() == 0


def test_a_refusal_quotes_no_control_characters(tmp_path: Path) -> None:
    """A value the refusal quotes cannot drive the terminal (seen in the backup fuzz's
    messages: tabs, escapes)."""
    document = a_backup()
    document["members"][0]["is_staff"] = "\x1b[2Jyes\tno"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document), encoding="utf-8")

    status, _out, err = run_import(str(path))

    assert status == 2
    assert "members[0].is_staff: “\\x1b[2Jyes\\tno” value must be either True or False" in err
    assert "\x1b" not in err


def test_import_reads_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    text = json.dumps(a_backup())
    monkeypatch.setattr("sys.stdin", io.StringIO(text))

    status, out, _ = run_import("-")

    assert status == 0, out
    assert "Restored 8 members" in out
    assert Table.objects.count() == TABLES


def test_call_command_raises_with_exit_status_2() -> None:
    with pytest.raises(CommandError, match=r"cannot read /nonexistent/club\.json") as raised:
        call_command("import_club", "/nonexistent/club.json")

    assert raised.value.returncode == 2


_VOLATILE = [
    # Per-request tokens: the CSRF token (form fields, meta, htmx headers).
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*'), r"\1…"),
    (re.compile(r'("X-CSRFToken": ?")[^"]*'), r"\1…"),
    (re.compile(r'(name="csrf-token" content=")[^"]*'), r"\1…"),
    # Each write form's idempotency key, fresh with every page drawn (docs/architecture.md).
    (re.compile(r'(name="write_key" value=")[^"]*'), r"\1…"),
]


def site_pages(client: Any) -> dict[str, str]:
    """The HTML of every page a member reads: home, the table list, each table (its page,
    print view, export), the standings of each game all time and in each season, the
    season list, each member's profile, and each evening (its page, ledger and CSV: the
    demo's have a guest, check-ins, two rounds and a settled payment)."""
    from django.core.cache import cache

    from scoring.live.snapshots import SNAPSHOTS

    cache.clear()  # rendered from the database, not from sheets cached before
    SNAPSHOTS.clear()
    urls = [
        reverse("scoring:home"),
        reverse("scoring:rules"),
        reverse("scoring:table_list"),
        reverse("scoring:season_list"),
    ]
    for pk, totals_only in Table.objects.order_by("pk").values_list("pk", "totals_only"):
        # A table of paper history has a page and no print view or record (404).
        for name in (
            ("table_detail",) if totals_only else ("table_detail", "table_print", "table_export")
        ):
            urls.append(reverse(f"scoring:{name}", args=[pk]))
    for game in ("preferans", "boston"):
        urls.append(reverse("scoring:standings", args=[game]))
        urls.append(reverse("scoring:standings_csv", args=[game]))
        for pk in Season.objects.order_by("pk").values_list("pk", flat=True):
            urls.append(reverse("scoring:season_standings", args=[pk, game]))
            urls.append(reverse("scoring:season_standings_csv", args=[pk, game]))
    for username in Member.objects.order_by("username").values_list("username", flat=True):
        urls.append(reverse("members:detail", args=[username]))
    urls.append(reverse("scoring:evening_list"))
    for pk in Evening.objects.order_by("pk").values_list("pk", flat=True):
        for name in ("evening_detail", "evening_ledger", "evening_ledger_csv"):
            urls.append(reverse(f"scoring:{name}", args=[pk]))
    urls.append(reverse("scoring:tournament_list"))
    for pk in Tournament.objects.order_by("pk").values_list("pk", flat=True):
        for name in ("tournament_detail", "tournament_screen", "tournament_csv"):
            urls.append(reverse(f"scoring:{name}", args=[pk]))
        for number in Tour.objects.filter(tournament=pk).values_list("number", flat=True):
            for name in ("tour_seating", "tour_cards"):
                urls.append(reverse(f"scoring:{name}", args=[pk, number]))
    pages = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        text = response.content.decode()
        for pattern, replacement in _VOLATILE:
            text = pattern.sub(replacement, text)
        pages[url] = text
    return pages


def _a_member_pays_for_tonights_guest() -> None:
    """A guest's table money paid from a member's account: its guest comes back too."""
    here = Attendance.objects.filter(guest__isnull=False).select_related("evening").first()
    assert here is not None
    organiser = here.evening.organiser
    AccountEntry.objects.create(
        member=organiser,
        kind=AccountEntry.GUEST,
        amount=Decimal(-150),
        evening=here.evening,
        guest_id=here.guest_id,
        recorded_by=organiser,
        reason="guest",
    )


@pytest.fixture(scope="class")
def built_club(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """``build_club()`` once for the tests of the class below (it took 1.5-2 s, seven times a
    run): each test runs in a savepoint on top of it and is rolled back to it, and the club
    itself is rolled back when the class's last test ends. Its backup is kept for
    ``a_backup()`` too."""
    with built_once(django_db_blocker):
        build_club()
        if not _BACKUP:
            out = io.StringIO()
            call_command("export_club", stdout=out)
            _BACKUP.append(out.getvalue())
        yield


@pytest.mark.usefixtures("built_club")
class TestTheWholeClub:
    """The whole club, built once (``built_club``), then backed up and restored."""

    def test_a_restored_club_scores_every_table_as_before(
        self, tmp_path: Path, client: Any
    ) -> None:
        before, setup_before, evenings_before = club_state(), club_setup(), evenings_state()
        _a_member_pays_for_tonights_guest()
        accounts_before = accounts_state()
        assert Seat.objects.filter(guest__isnull=False).exists()  # the demo seats a guest
        # The finished evening, tonight's, and eight Fridays announced ahead.
        assert len(evenings_before) == 10
        assert sum(len(e["answers"]) for e in evenings_before) == 6
        path = export(tmp_path)
        empty_the_club()
        assert Member.objects.count() == 0
        assert PreferansTariff.objects.get(name=SOCHI).versions.count() == 1  # presets are back

        status, out, err = run_import(str(path))

        assert (status, err) == (0, "")
        assert "Restored 8 members, 7 tariffs (8 versions; 7 preset tariffs replaced)" in out
        assert f"2 seasons and {TABLES} tables" in out
        # the last and tonight's, 8 Fridays; tonight's guest, the paper's 2, the cup's 6
        assert "10 evenings, 9 guests and 11 account entries;" in out
        assert "unusable" in out and "changepassword" in out
        after = club_state()
        assert len(after) == len(before) == TABLES
        assert evenings_state() == evenings_before
        assert accounts_state() == accounts_before
        # the demo's top-ups, table money and refund; a member paid for tonight's guest
        assert len(accounts_before) == 11
        assert after.keys() == before.keys()
        for key, table in before.items():
            assert after[key] == table, key
        assert club_setup() == setup_before
        assert sum(len(t["audit"]) for t in after.values()) == AuditEntry.objects.count()
        assert not any(m.has_usable_password() for m in Member.objects.all())
        # The restored site works: a finished table's page shows its sheet.
        restored = Table.objects.filter(status=Table.FINISHED).first()
        assert client.get(reverse("scoring:table_detail", args=[restored.pk])).status_code == 200

    def test_export_to_stdout_is_the_same_document(self, tmp_path: Path) -> None:
        out = io.StringIO()
        call_command("export_club", stdout=out)
        document = json.loads(out.getvalue())
        from_file = json.loads(export(tmp_path).read_text(encoding="utf-8"))

        assert document["format"] == "clubsite-backup"
        assert document["version"] == 1
        document.pop("exported_at"), from_file.pop("exported_at")
        assert document == from_file
        assert not any("password" in member for member in document["members"])

    def test_import_refuses_a_club_that_is_not_empty(self, tmp_path: Path) -> None:
        path = export(tmp_path)
        counts = (Member.objects.count(), Table.objects.count(), DealRecord.objects.count())
        tariffs = list(PreferansTariffVersion.objects.values_list("pk", flat=True))

        status, out, err = run_import(str(path))

        assert status == 2
        assert out == ""
        assert f"the club is not empty (8 members, {TABLES} tables, 2 seasons)" in err
        assert "Nothing was changed" in err
        assert (Member.objects.count(), Table.objects.count(), DealRecord.objects.count()) == counts
        assert list(PreferansTariffVersion.objects.values_list("pk", flat=True)) == tariffs

    def test_a_restore_keeps_every_number_and_new_rows_continue_after_them(
        self, tmp_path: Path, client: Any
    ) -> None:
        """Issue 19: a restore renumbered 29 of 31 tables, so printed sheets and links pointed
        at other games. Tables, seasons, tariffs and their versions keep their ids, and the
        next table opened gets the number after the highest one restored."""
        # Gaps, as a real club has: the first tables were deleted long ago.
        for table in Table.objects.order_by("pk")[:2]:
            table.delete()
        numbers = {
            "tables": {t.pk: natural_key(t) for t in Table.objects.all()},
            "seasons": dict(Season.objects.values_list("pk", "name")),
            "preferans": dict(PreferansTariff.objects.values_list("pk", "name")),
            "boston": dict(BostonTariff.objects.values_list("pk", "name")),
            "versions": dict(PreferansTariffVersion.objects.values_list("pk", "number")),
            "members": dict(Member.objects.values_list("pk", "username")),
            "deals": set(DealRecord.objects.values_list("pk", "table_id", "sequence")),
            "audit": set(AuditEntry.objects.values_list("pk", "table_id", "action")),
        }
        path = export(tmp_path)
        pages = {
            pk: client.get(reverse("scoring:table_detail", args=[pk])).status_code
            for pk in numbers["tables"]
        }
        # Numbers past any the database has handed out, as a club restored on a new server
        # has: PostgreSQL's sequences must be moved past them, or the next table collides.
        document = json.loads(path.read_text(encoding="utf-8"))
        for key in ("tables", "seasons"):
            for item in document[key]:
                item["id"] += 1_000
        for evening in document["evenings"]:  # an evening names its tables by their ids
            for link in evening["tables"]:
                link["table"] += 1_000
        for tournament in document["tournaments"]:  # so do a tournament's tours
            for tour in tournament["tour_set"]:
                for link in tour["tables"]:
                    link["table"] += 1_000
        path.write_text(json.dumps(document), encoding="utf-8")
        numbers["tables"] = {pk + 1_000: key for pk, key in numbers["tables"].items()}
        numbers["seasons"] = {pk + 1_000: name for pk, name in numbers["seasons"].items()}
        pages = {pk + 1_000: code for pk, code in pages.items()}
        for key in ("deals", "audit"):
            numbers[key] = {(pk, table + 1_000, more) for pk, table, more in numbers[key]}
        empty_the_club()

        status, out, err = run_import(str(path))

        assert (status, err) == (0, ""), out
        assert {t.pk: natural_key(t) for t in Table.objects.all()} == numbers["tables"]
        assert dict(Season.objects.values_list("pk", "name")) == numbers["seasons"]
        assert dict(PreferansTariff.objects.values_list("pk", "name")) == numbers["preferans"]
        assert dict(BostonTariff.objects.values_list("pk", "name")) == numbers["boston"]
        assert (
            dict(PreferansTariffVersion.objects.values_list("pk", "number")) == numbers["versions"]
        )
        assert dict(Member.objects.values_list("pk", "username")) == numbers["members"]
        assert set(DealRecord.objects.values_list("pk", "table_id", "sequence")) == numbers["deals"]
        assert set(AuditEntry.objects.values_list("pk", "table_id", "action")) == numbers["audit"]
        assert pages == {
            pk: client.get(reverse("scoring:table_detail", args=[pk])).status_code
            for pk in numbers["tables"]
        }
        # The sequences moved past the restored ids (PostgreSQL; SQLite takes the highest).
        olga = Member.objects.get(username="olga")
        table = services.table_open(
            game=Table.PREFERANS,
            version=PreferansTariffVersion.objects.order_by("pk").first(),
            members=list(Member.objects.order_by("username")[:3]),
            by=olga,
        )
        assert table.pk == max(numbers["tables"]) + 1
        tricks = dict(zip(selectors.seat_names(table), (4, 4, 2), strict=True))
        deal = services.deal_create(table, {"kind": "passout", "tricks": tricks}, by=olga).record
        assert deal.pk > max(pk for pk, *_ in numbers["deals"])
        season = Season.objects.create(
            name="Зима", starts_on=datetime.date(2027, 1, 1), ends_on=datetime.date(2027, 2, 1)
        )
        assert season.pk > max(numbers["seasons"])
        assert Member.objects.create(username="new").pk > max(numbers["members"])

    @pytest.mark.parametrize("who", ["a visitor", "the organiser"])  # a crawl, twice, each
    def test_the_demo_club_restored_shows_every_page_byte_for_byte(
        self, tmp_path: Path, client: Any, who: str
    ) -> None:
        """Issue 19: the demo club and a season, exported and restored into an empty database,
        show the same HTML on every page (per-request tokens aside) — the same table numbers,
        results, standings, ratings and profiles."""
        if who == "the organiser":
            client.force_login(Member.objects.get(username="olga"))
        before = site_pages(client)
        assert len(before) > 40
        path = export(tmp_path)
        empty_the_club()

        status, out, err = run_import(str(path))

        assert (status, err) == (0, ""), out
        if who == "the organiser":
            client.force_login(Member.objects.get(username="olga"))
        after = site_pages(client)
        assert after.keys() == before.keys()
        for url, page in before.items():
            assert after[url] == page, url


def test_the_tournaments_are_carried_with_their_tours_scores_and_penalties() -> None:
    """The demo's cup (4 tours, all closed: the fourth is the final after the cut) and its
    league (tour 1 closed, tour 2 in play) come back with their field, judges, tours, tour
    tables, stored scores and a penalty given and reversed (added here)."""
    document = a_backup()
    cup, league = document["tournaments"]
    assert [len(t["tour_set"]) for t in (cup, league)] == [4, 2]
    assert [t["tours"] for t in (cup, league)] == [4, 3]  # the format's count, not the played
    assert [t["closed_at"] is not None for t in league["tour_set"]] == [True, False]
    entry = cup["entries"][0]["id"]
    cup["penalties"] = [
        {
            "category": Penalty.POINTS,
            "reason": "late for tour 2",
            "points": "5.00",
            "at": cup["created_at"],
            "entry": entry,
            "tour": 2,
            "by": "olga",
            "reversed_by": "olga",
            "reversed_at": cup["created_at"],
            "reversal_reason": "the clock was wrong",
        }
    ]

    summary = club_import(document)

    assert summary.counts["tournaments"] == 2
    restored = Tournament.objects.get(pk=cup["id"])
    assert (restored.status, restored.tours, restored.cut_after, restored.cut_to) == (
        Tournament.FINISHED,
        4,
        3,
        3,
    )
    assert restored.version is not None and restored.version.number == cup["version"]
    assert sorted(restored.judges.values_list("username", flat=True)) == cup["judges"]
    assert restored.entries.count() == len(cup["entries"]) == 12  # 6 members, 6 guests
    assert [t.number for t in restored.tour_set.all()] == [1, 2, 3, 4]
    # 12 players at four tables of three in tours 1-3; the cut keeps one table of three.
    assert [t.tables.count() for t in restored.tour_set.all()] == [4, 4, 4, 1]
    assert restored.tour_set.get(number=4).seats.exclude(table=None).count() == 3
    (penalty,) = restored.penalties.all()
    assert (penalty.entry_id, penalty.tour.number, penalty.points) == (entry, 2, Decimal(5))
    assert (penalty.by.username, penalty.reversal_reason) == ("olga", "the clock was wrong")
    assert not penalty.in_force
    seats = TourSeat.objects.filter(tour__tournament=restored)
    stored = {s["id"]: s for tour in cup["tour_set"] for s in tour["seats"]}
    assert {s.pk: (str(s.points), s.place) for s in seats} == {
        pk: (s["points"], s["place"]) for pk, s in stored.items()
    }
    link = TourTable.objects.filter(tour__tournament=restored).order_by("pk").first()
    assert link is not None and link.table_id == cup["tour_set"][0]["tables"][0]["table"]


def test_a_forged_tournament_score_is_refused() -> None:
    """A closed tour's points must be what its tables' results give through the format."""
    document = a_backup()
    seat = document["tournaments"][0]["tour_set"][0]["seats"][0]
    seat["points"] = str(Decimal(seat["points"]) + 100)

    with pytest.raises(BackupError, match=r"tournaments\[0\]\.tour_set \(tour 1\): the stored"):
        club_import(document)
    assert Tournament.objects.count() == 0


def test_a_tour_seat_must_be_the_player_at_that_seat_of_the_table() -> None:
    document = a_backup()
    first, second = document["tournaments"][0]["tour_set"][0]["seats"][:2]
    first["entry"], second["entry"] = second["entry"], first["entry"]

    with pytest.raises(BackupError, match=r"tour_set\[0\]\.seats\[0\]: not the player"):
        club_import(document)
    assert Tournament.objects.count() == 0


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("entry", 999_999, r"penalties\[0\]\.entry: the tournament has no entry 999999"),
        ("tour", 7, r"penalties\[0\]\.tour: the tournament has no tour 7"),
    ],
)
def test_a_penalty_must_name_an_entry_and_a_tour_of_its_tournament(
    where: str, value: int, message: str
) -> None:
    document = a_backup()
    cup = document["tournaments"][0]
    penalty = {
        "category": Penalty.WARNING,
        "reason": "noise",
        "entry": cup["entries"][0]["id"],
        "tour": 1,
        "by": "olga",
    }
    cup["penalties"] = [penalty | {where: value}]

    with pytest.raises(BackupError, match=message):
        club_import(document)


def test_a_backup_from_before_tournaments_were_kept_restores_without_them() -> None:
    document = a_backup()
    del document["tournaments"]

    club_import(document)

    assert Tournament.objects.count() == 0
    assert Table.objects.count() == TABLES  # their tables are ordinary tables
