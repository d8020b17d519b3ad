"""The paper history brought in (scoring/services/history.py): the dry run writes
nothing, an import writes every table or none, and its tables count in the totals, the
ratings and the profiles exactly as played ones (the standings' oracle agrees)."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.models import (
    AuditEntry,
    Guest,
    HistoryImport,
    Rating,
    RatingHistory,
    Seat,
    StandingsTotal,
    Table,
)
from scoring.services.guests import guest_merge
from scoring.services.history import HistoryRefused, history_import, history_plan
from tests import factories
from tests.scoring.services.test_standings import assert_totals_match_the_oracle

pytestmark = pytest.mark.django_db

# Anna by username, Boris by his shown name, Vera by her username in capitals, Zhanna by
# her shown name in lower case; Пётр is nobody's: a guest, the same one at both tables.
FILE = (
    "table,date,game,player,result,money\n"
    "1,2026-03-10,preferans,anna,40,20\n"
    "1,2026-03-10,preferans,Boris,-13.33,-6.67\n"
    "1,2026-03-10,preferans,Пётр,-26.67,-13.33\n"
    "2,2026-03-17,preferans,VERA,-30,\n"
    "2,2026-03-17,preferans,anna,-10,\n"
    "2,2026-03-17,preferans,пётр,25,\n"
    "2,2026-03-17,preferans,жанна р.,15,\n"
).encode()


@pytest.fixture
def zhanna() -> Any:
    return factories.member("Жанна Р.", username="zhanna")


def written() -> tuple[int, int, int, int, int]:
    return (
        Table.objects.count(),
        Seat.objects.count(),
        Guest.objects.count(),
        HistoryImport.objects.count(),
        StandingsTotal.objects.count(),
    )


def test_the_dry_run_shows_the_tables_and_new_guests_and_writes_nothing(club, zhanna):
    plan = history_plan(content=FILE)
    assert plan.ready
    assert plan.refused == ()
    assert plan.new_guests == ("Пётр",)
    first, second = plan.tables
    assert [s.player for s in first.seats][:2] == [club["Anna"], club["Boris"]]
    assert [s.name for s in second.seats] == ["Vera", "Anna", "Пётр", "Жанна Р."]
    assert [s.place for s in second.seats] == [4, 3, 1, 2]
    # The same guest object at both tables: one guest is made, not two.
    assert first.seats[2].player is second.seats[2].player
    assert written() == (0, 0, 0, 0, 0)


def test_an_import_writes_counted_totals_only_tables(club, zhanna, organiser):
    done = history_import(content=FILE, file_name="notebook.csv", by=organiser)
    assert (done.tables, done.guests, done.file_name, done.by) == (2, 1, "notebook.csv", organiser)
    tables = list(Table.objects.order_by("played_on"))
    assert [(t.status, t.standing, t.totals_only) for t in tables] == [
        (Table.FINISHED, Table.COUNTED, True)
    ] * 2
    assert [t.played_on for t in tables] == [datetime.date(2026, 3, 10), datetime.date(2026, 3, 17)]
    assert not tables[0].deal_records.exists()
    seats = list(tables[0].seats.order_by("position"))
    assert [(s.name, s.result, s.money, s.place, s.won) for s in seats] == [
        ("Anna", Decimal("40.00"), Decimal("20.00"), 1, True),
        ("Boris", Decimal("-13.33"), Decimal("-6.67"), 2, False),
        ("Пётр", Decimal("-26.67"), Decimal("-13.33"), 3, False),
    ]
    (guest,) = Guest.objects.all()
    assert Seat.objects.filter(guest=guest).count() == 2
    (entry,) = AuditEntry.objects.filter(table=tables[1])
    assert (entry.action, entry.actor, entry.after) == (
        AuditEntry.IMPORT,
        organiser,
        {"history": "2", "file": "notebook.csv"},
    )
    # Anna: 40 and −10 → 2 tables, 1 win, total 30, money 20 (the second gave none).
    anna = StandingsTotal.objects.get(member=club["Anna"], season=None, game="preferans")
    assert (anna.tables, anna.wins, anna.total, anna.money, anna.best, anna.worst) == (
        2,
        1,
        Decimal(30),
        Decimal(20),
        Decimal(40),
        Decimal(-10),
    )
    assert not StandingsTotal.objects.filter(member=None).exists()  # the guest is in none
    # The ratings (immediate tasks): Anna, Boris, Vera and Zhanna; the guest is not rated.
    assert set(Rating.objects.values_list("member__username", flat=True)) == {
        "anna",
        "boris",
        "vera",
        "zhanna",
    }
    assert RatingHistory.objects.filter(member=club["Anna"]).count() == 2
    assert_totals_match_the_oracle([*club.values(), zhanna])


def test_history_tables_mix_with_played_ones_in_the_totals(club, zhanna, organiser):
    day = datetime.date(2026, 3, 12)
    factories.finished_pulka([club["Anna"], club["Boris"], club["Vera"]], club["Boris"], day)
    history_import(content=FILE, file_name="notebook.csv", by=organiser)
    anna = StandingsTotal.objects.get(member=club["Anna"], season=None, game="preferans")
    # 40 − 10 from the notebook, −33.33 from the pulka Boris won with an unplayed 10.
    assert (anna.tables, anna.total) == (3, Decimal("-3.33"))
    board = selectors.standings("preferans", None)
    # The members' seats: 2 + 3 in the notebook (the guest's not), 3 at the pulka.
    assert sum(line.games for part in board for line in part) == 2 + 3 + 3
    assert_totals_match_the_oracle([*club.values(), zhanna])


def test_one_refused_row_writes_nothing_at_all(club, zhanna, organiser):
    bad = FILE + b"3,2026-03-24,preferans,anna,5,\n3,2026-03-24,preferans,boris,-5,\n"
    with pytest.raises(HistoryRefused) as refused:
        history_import(content=bad, file_name="bad.csv", by=organiser)
    assert [(r.line, r.error.message) for r in refused.value.plan.refused] == [
        (9, "table 3 has 2 players; Preferans is played by 3 or 4")
    ]
    assert written() == (0, 0, 0, 0, 0)


def test_a_file_imported_twice_is_refused(club, zhanna, organiser):
    history_import(content=FILE, file_name="notebook.csv", by=organiser)
    before = written()
    with pytest.raises(RuleError, match="this file was imported already"):
        history_plan(content=FILE)
    # The same file saved with Windows line ends and a byte-order mark is the same file.
    with pytest.raises(RuleError, match="this file was imported already"):
        history_import(
            content=b"\xef\xbb\xbf" + FILE.replace(b"\n", b"\r\n"), file_name="again.csv", by=None
        )
    assert written() == before


def test_a_table_the_club_has_already_is_refused_from_another_file(club, zhanna, organiser):
    history_import(content=FILE, file_name="notebook.csv", by=organiser)
    table = Table.objects.get(played_on=datetime.date(2026, 3, 10))
    # Table 1 again, its rows in another order and under another label.
    other = (
        "table,date,game,player,result,money\n"
        "x,2026-03-10,preferans,Пётр,-26.67,-13.33\n"
        "x,2026-03-10,preferans,anna,40,20\n"
        "x,2026-03-10,preferans,boris,-13.33,-6.67\n"
    ).encode()
    plan = history_plan(content=other)
    assert [(r.line, r.error.message) for r in plan.refused] == [
        (2, f"table x is in the club already: table {table.pk}")
    ]
    assert not plan.ready


def test_a_table_twice_in_one_file_is_refused():
    text = (
        "table,date,game,player,result\n"
        "1,2026-03-10,preferans,A,1\n1,2026-03-10,preferans,B,-1\n1,2026-03-10,preferans,C,0\n"
        "2,2026-03-10,preferans,A,1\n2,2026-03-10,preferans,B,-1\n2,2026-03-10,preferans,C,0\n"
    )
    plan = history_plan(content=text.encode())
    assert [(r.line, r.error.message) for r in plan.refused] == [(5, "table 2 is table 1 again")]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("table,date\n".encode("cp1251") + "Пётр".encode("cp1251"), "the file is not UTF-8 text"),
        (b"x" * 1_000_001, "the file is larger than 1 MB"),
    ],
)
def test_a_file_that_cannot_be_read_is_refused_whole(content: bytes, message: str):
    with pytest.raises(RuleError, match=message):
        history_plan(content=content)


def test_players_the_club_cannot_tell_apart_are_refused(club):
    factories.member("Саша", username="sasha")  # two members shown as Саша
    factories.member("Саша", username="alexandra")
    text = (
        "table,date,game,player,result\n"
        "1,2026-03-10,preferans,саша,1\n1,2026-03-10,preferans,boris,-1\n"
        "1,2026-03-10,preferans,Vera,0\n"
        "2,2026-03-11,preferans,boris,1\n2,2026-03-11,preferans,Boris,-1\n"
        "2,2026-03-11,preferans,gleb,0\n"
        "3,1999-12-31,preferans,boris,1\n3,1999-12-31,preferans,vera,-1\n"
        "3,1999-12-31,preferans,gleb,0\n"
    )
    plan = history_plan(content=text.encode())
    assert [(r.line, r.error.message) for r in plan.refused] == [
        (2, "саша is the name of 2 members: write the username"),
        # "boris" and "Boris" are the username and the name of one member
        (6, "table 2: Boris is in it twice"),
        (8, "the date must be between 2000-01-01 and " + _latest()),
    ]


def _latest() -> str:
    from scoring.models.tables import latest_played_on

    return latest_played_on().isoformat()


def test_a_history_table_is_never_reopened(club, organiser):
    history_import(content=FILE, file_name="n.csv", by=organiser)
    table = Table.objects.first()
    assert table is not None
    with pytest.raises(RuleError, match="a table of paper history has no deals to correct"):
        services.table_reopen(table, by=organiser, reason="typo")


def test_a_history_guest_merged_into_a_member_moves_his_tables(club, zhanna, organiser):
    history_import(content=FILE, file_name="n.csv", by=organiser)
    guest = Guest.objects.get()
    petr = factories.member("Пётр Ильич", username="petr")
    digests = set(Table.objects.values_list("record_digest", flat=True))
    guest_merge(guest=guest, member=petr, by=organiser)
    total = StandingsTotal.objects.get(member=petr, season=None, game="preferans")
    assert (total.tables, total.total, total.wins) == (2, Decimal("-1.67"), 1)  # −26.67 + 25
    # The digests follow the seats (a member's username, not the guest's name) ...
    assert set(Table.objects.values_list("record_digest", flat=True)).isdisjoint(digests)
    # ... so the notebook brought in again, naming him, is refused table by table.
    again = FILE.replace("Пётр".encode(), b"petr").replace("пётр".encode(), b"petr")
    plan = history_plan(content=again)
    assert [r.error.message.split(":")[0] for r in plan.refused] == [
        "table 1 is in the club already",
        "table 2 is in the club already",
    ]
    assert_totals_match_the_oracle([*club.values(), zhanna, petr])


def test_the_command_dry_run_writes_nothing_and_the_import_writes(club, zhanna, tmp_path, capsys):
    path = tmp_path / "notebook.csv"
    path.write_bytes(FILE)
    call_command("import_history", str(path), "--dry-run")
    out = capsys.readouterr().out
    assert "table 2: 2026-03-17 preferans: Vera -30.00, Anna -10.00, Пётр 25.00" in out
    assert "New guests: Пётр" in out
    assert written() == (0, 0, 0, 0, 0)
    call_command("import_history", str(path), "--by", "anna")
    assert "Imported 2 tables and 1 new guests." in capsys.readouterr().out
    assert HistoryImport.objects.get().by == club["Anna"]


def test_the_command_exits_2_and_writes_nothing_on_a_refused_row(club, tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_bytes(FILE.replace(b"anna,40,20", b"anna,forty,20"))
    for options in ([], ["--dry-run"]):
        with pytest.raises(CommandError) as error:
            call_command("import_history", str(path), *options)
        assert error.value.returncode == 2
        assert "line 2: result: forty is not a number" in capsys.readouterr().err
    assert written() == (0, 0, 0, 0, 0)
