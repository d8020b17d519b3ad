"""The demo club (``scoring/club/demo.py``, ``manage.py load_demo``)."""

from __future__ import annotations

import dataclasses
import io
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.http import HttpRequest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from members.models import ORGANISERS, Member
from scoring import games, selectors
from scoring.club.demo import (
    BOSTON_CARD,
    BOSTON_TARIFF,
    CUP,
    GUEST,
    LEAGUE,
    TONIGHT_SEED,
    load_demo,
)
from scoring.engine.boston import score_boston
from scoring.models import (
    AccountEntry,
    AuditEntry,
    BostonTariff,
    DealRecord,
    Evening,
    HistoryImport,
    PreferansTariff,
    Season,
    Seat,
    StandingsTotal,
    Table,
    Tournament,
)
from scoring.selectors import accounts as account_selectors
from scoring.selectors import calendar as calendar_selectors
from scoring.selectors import evenings as evening_selectors
from scoring.selectors import tournaments as tournament_selectors
from tests.built_once import built_once

# The whole demo club, loaded once for the module: slow.
pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# The presets the demo plays a finished table under. Not the federation's (seeded by 0028):
# the demo's pulkas are planned one by one, and it is left for a club to pick.
PRESETS = {
    PreferansTariff: (
        "Сочи (Sochi)",
        "Ленинград (Leningrad)",
        "Ростов (Rostov)",
        "Классика (Classic)",
    ),
    BostonTariff: (
        "Бостон: тариф платежей (payment tariff)",
        "Бостон: таблица стоимости (value card)",
    ),
}


@pytest.fixture(scope="module")
def demo(django_db_setup: None, django_db_blocker: Any) -> Iterator[tuple[dict[str, str], str]]:
    """The demo club, loaded once for the tests below that read it (loading it takes more
    than a second): each test runs in a savepoint on top of it and is rolled back to it,
    and the load itself is rolled back after the module. The tests that load the demo
    into an empty database are in test_demo_load.py: a worker stealing work (xdist's
    ``worksteal``) may run this module's tests out of order, so none here may need the
    club empty."""
    with built_once(django_db_blocker):
        out = io.StringIO()
        passwords = load_demo(stdout=out)
        yield passwords, out.getvalue()


def snapshot() -> dict[str, Any]:
    return {
        "members": list(Member.objects.values_list("username", "password").order_by("pk")),
        "tables": list(Table.objects.values_list("pk", "status", "revision").order_by("pk")),
        "seats": Seat.objects.count(),
        "deals": DealRecord.objects.count(),
        "audit": AuditEntry.objects.count(),
    }


def test_demo_creates_the_members(demo: tuple[dict[str, str], str]) -> None:
    passwords, output = demo

    names = dict(Member.objects.values_list("username", "display_name"))
    assert {"Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"} <= set(names.values())
    assert set(passwords) == set(names)
    admin = Member.objects.get(username="admin")
    assert admin.is_superuser
    assert admin.is_staff
    organisers = Member.objects.filter(groups__name=ORGANISERS)
    assert organisers.count() == 1
    assert organisers.get().is_organiser
    assert not Member.objects.get(display_name="Анна").is_organiser
    assert "username" in output
    assert "password" in output
    assert "role" in output
    for username, password in passwords.items():
        assert len(password) >= 10
        assert output.count(password) == 1
        assert username in output


def test_demo_passwords_work(demo: tuple[dict[str, str], str]) -> None:
    passwords, _ = demo

    for username, password in passwords.items():
        client = Client()
        # Axes checks every sign-in against its lockouts, so login() needs a request.
        assert client.login(request=HttpRequest(), username=username, password=password), username
        assert not client.login(request=HttpRequest(), username=username, password=password + "x")


def test_demo_has_finished_tables_under_every_preset_tariff(
    demo: tuple[dict[str, str], str],
) -> None:
    for model, names in PRESETS.items():
        for name in names:
            field = "preferans_version" if model is PreferansTariff else "boston_version"
            finished = Table.objects.filter(
                status=Table.FINISHED, **{f"{field}__tariff__name": name}
            )
            assert finished.exists(), name


def test_demo_has_tonights_two_pulkas_in_play(demo: tuple[dict[str, str], str]) -> None:
    """Tonight's evening: round 1, Anna, Boris and Gleb's pulka opened by hand; round 2,
    drawn for Vera, Dina, Egor and a guest."""
    tables = Table.objects.filter(status=Table.OPEN, tour_link__isnull=True).order_by(
        "evening_link__round"
    )
    assert [t.evening_link.round for t in tables] == [1, 2]
    for table in tables:
        assert table.game == Table.PREFERANS
        assert table.version.tariff.name == "Сочи (Sochi)"
        state = selectors.replay(table)
        assert 5 <= len(state.records) <= 12
        assert not state.game.complete
    assert tables[0].seats.count() == 3
    drawn = tables[1].seats.all()
    assert sorted(s.member.username for s in drawn if s.member) == ["dina", "egor", "vera"]
    assert [s.name for s in drawn if s.guest] == [GUEST]


def test_demo_has_a_finished_evening_and_tonights(demo: tuple[dict[str, str], str]) -> None:
    today = timezone.localdate()
    last, tonight = Evening.objects.filter(played_on__lte=today).order_by("played_on")
    assert (last.played_on, tonight.played_on) == (today - timedelta(days=12), today)
    assert last.attendances.count() == 4
    lines = evening_selectors.ledger(last).lines
    assert [line.settled is not None for line in lines] == [True] + [False] * (len(lines) - 1)
    assert len(lines) >= 2  # some payments settled, some still owed
    assert tonight.attendances.count() == 7  # three at round 1, three members and a guest
    assert tonight.seed == TONIGHT_SEED
    assert tonight.draft is None  # the draw is open: its table plays


def test_demo_announces_next_friday_and_a_weekly_series(
    demo: tuple[dict[str, str], str],
) -> None:
    """Every Friday for eight weeks from next Friday, one table of 4 seats in the small
    hall; next Friday four members have the seats, Egor waits and Dina may come."""
    today = timezone.localdate()
    ahead = list(Evening.objects.filter(played_on__gt=today).order_by("played_on"))
    first = today + timedelta(days=(4 - today.weekday()) % 7 or 7)
    assert first.weekday() == 4 and 1 <= (first - today).days <= 7
    assert [e.played_on for e in ahead] == [first + timedelta(weeks=w) for w in range(8)]
    assert len({e.series_id for e in ahead}) == 1 and ahead[0].series_id is not None
    assert {(e.seats, e.starts_at.isoformat()) for e in ahead if e.starts_at} == {(4, "19:00:00")}
    roll = calendar_selectors.roll(ahead[0])
    assert [a.member.username for a in roll.coming] == ["anna", "boris", "vera", "gleb"]
    assert [a.member.username for a in roll.waiting] == ["egor"]
    assert [a.member.username for a in roll.maybe] == ["dina"]
    assert all(not calendar_selectors.roll(e).coming for e in ahead[1:])


def test_the_demo_calendar_shows_the_answers(
    demo: tuple[dict[str, str], str], client: Client
) -> None:
    client.force_login(Member.objects.get(username="egor"))
    page = client.get("/evenings/calendar/").content.decode()
    assert "4 coming of 4 seats · 1 waiting · 1 maybe · 0 not coming" in page
    assert "waiting list: number 1" in page


def test_demo_members_have_balances_that_sum_their_entries(
    demo: tuple[dict[str, str], str],
) -> None:
    last = Evening.objects.order_by("played_on").first()
    drawn = AccountEntry.objects.filter(evening=last, kind="table_money")
    assert sorted(drawn.values_list("member__username", flat=True)) == [
        "anna",
        "boris",
        "dina",
        "gleb",
    ]
    assert set(drawn.values_list("amount", flat=True)) == {Decimal("-150.00")}
    # Top-ups 1000, 500, 300, 500, 200.50; 150 drawn from the four who came; 100 to Vera.
    assert account_selectors.balances() == {
        m.pk: b
        for m, b in (
            (Member.objects.get(username="anna"), Decimal("850.00")),
            (Member.objects.get(username="boris"), Decimal("350.00")),
            (Member.objects.get(username="gleb"), Decimal("150.00")),
            (Member.objects.get(username="dina"), Decimal("50.50")),
            (Member.objects.get(username="vera"), Decimal("400.00")),
        )
    }
    assert AccountEntry.objects.count() == 10
    for member in Member.objects.all():
        entries = AccountEntry.objects.filter(member=member)
        assert account_selectors.balance(member) == sum(
            (e.amount for e in entries), Decimal("0.00")
        )


def test_demo_members_have_e_mail_addresses(demo: tuple[dict[str, str], str]) -> None:
    for member in Member.objects.all():
        assert member.email == f"{member.username}@demo.example.org"


def test_demo_results_are_what_the_engine_says(demo: tuple[dict[str, str], str]) -> None:
    finished = Table.objects.filter(status=Table.FINISHED, totals_only=False).prefetch_related(
        "seats", "deal_records"
    )

    assert finished.count() >= 8
    for table in finished:
        assert table.result == selectors.replay(table).document(), table


def test_demo_tables_look_like_club_evenings(demo: tuple[dict[str, str], str]) -> None:
    today = timezone.localdate()
    tables = list(Table.objects.filter(totals_only=False).prefetch_related("seats", "deal_records"))
    states = {table.pk: selectors.replay(table) for table in tables}
    pulkas = [t for t in tables if t.game == Table.PREFERANS]
    bostons = [t for t in tables if t.game == Table.BOSTON]

    assert len({t.played_on for t in tables}) >= 6
    assert all(today - timedelta(days=60) <= t.played_on <= today for t in tables)
    assert {t.seats.count() for t in pulkas} == {3, 4}
    assert all(t.seats.count() == 4 for t in bostons)
    for table in tables:
        deals = len(states[table.pk].records)
        assert 8 <= deals <= 25, table
    # Some pulkas play until every pool is closed, others are closed early.
    finished_pulkas = [states[t.pk].game for t in pulkas if not t.is_open]
    assert any(game.complete for game in finished_pulkas)
    assert not all(game.complete for game in finished_pulkas)

    kinds = [record.data for state in states.values() for record in state.records]
    assert {"game", "misere", "passout", "ask", "independence", "card", "pass"} <= {
        deal["kind"] for deal in kinds
    }
    assert any(d["kind"] == "passout" and d.get("dark") for d in kinds)
    assert any(d["kind"] == "ask" and d.get("partner") for d in kinds)
    assert any(d["kind"] == "ask" and not d.get("partner") for d in kinds)
    assert any(d["kind"] == "card" and d.get("honours") for d in kinds)
    bombs = [
        entry
        for table in pulkas
        for deal in states[table.pk].game.deals
        for entry in deal.entries
        if "bomb" in entry.calc
    ]
    assert bombs


def test_the_demo_has_a_year_of_paper_history_that_counts(
    demo: tuple[dict[str, str], str],
) -> None:
    """The notebook (scoring/club/demo_history.csv) brought in by the organiser, through
    the service an organiser's upload uses: its tables count like the played ones."""
    _passwords, out = demo
    paper = Table.objects.filter(totals_only=True)
    assert paper.count() == 66
    assert "And 66 tables of paper history, 2 guests among them." in out
    assert set(paper.values_list("status", "standing").distinct()) == {
        (Table.FINISHED, Table.COUNTED)
    }
    assert not DealRecord.objects.filter(table__in=paper).exists()
    by_date = paper.order_by("played_on", "pk")  # two tables on a day: the file's order
    first, last = by_date.first(), by_date.last()
    assert first is not None and last is not None
    assert (first.played_on.isoformat(), last.played_on.isoformat()) == (
        "2025-09-05",
        "2026-08-28",
    )
    # Every table of the notebook comes before the first played on the site.
    played = Table.objects.filter(totals_only=False).order_by("played_on").first()
    assert played is not None and last.played_on < played.played_on
    guests = set(Seat.objects.filter(table__in=paper, guest__isnull=False).values_list("name"))
    assert guests == {("Семён Маркович",), ("Лидия",)}
    (history,) = HistoryImport.objects.all()
    assert (history.file_name, history.tables, history.by.username) == (
        "demo_history.csv",
        66,
        "olga",
    )
    # The first notebook table (worked from the file): Ольга +18, Вера −12, Семён −6,
    # and money at half a whist.
    seats = first.seats.order_by("position")
    assert [(s.name, s.result, s.money, s.place) for s in seats] == [
        ("Ольга", 18, 9, 1),
        ("Вера", -12, -6, 3),
        ("Семён Маркович", -6, -3, 2),
    ]
    # Olga's all-time Preferans total is her notebook's and her played tables' together.
    olga = Member.objects.get(username="olga")
    seated = Seat.objects.filter(member=olga, table__game="preferans", table__status="finished")
    kept = StandingsTotal.objects.get(member=olga, season=None, game="preferans")
    assert kept.tables == seated.count() > seated.filter(table__totals_only=False).count()
    assert kept.total == sum(s.result for s in seated)


def test_the_demo_club_has_its_own_name(demo: tuple[dict[str, str], str]) -> None:
    russian = Client().get("/").content.decode()
    english = Client(headers={"accept-language": "en"}).get("/").content.decode()

    assert "<h1>Клуб «Семь пик» (демо)</h1>" in russian
    assert "Демонстрационный клуб" in russian
    assert "<h1>Seven of Spades club (demo)</h1>" in english
    assert "A demonstration club" in english


def test_demo_has_a_season_in_progress_with_every_finished_table(
    demo: tuple[dict[str, str], str],
) -> None:
    """Issue 30, finding 11: the demo had no season, so «Сезоны» was empty. It holds every
    table finished on the site; the paper year before it (``totals_only``) is all-time's."""
    today = timezone.localdate()
    season = Season.objects.get()
    finished = Table.objects.filter(status=Table.FINISHED, totals_only=False)

    assert season.name == "Клубный сезон"
    assert season.starts_on <= min(finished.values_list("played_on", flat=True))
    assert season.starts_on < today < season.ends_on
    # Its totals are the finished tables' own: each member's count of them, by game.
    for game in ("preferans", "boston"):
        played = Counter(
            seat.member.username
            for seat in Seat.objects.filter(
                table__in=finished.filter(game=game), member__isnull=False
            )
        )
        totals = StandingsTotal.objects.filter(season=season, game=game)
        assert {t.member.username: t.tables for t in totals} == dict(played)
    # Worked out from PULKAS: Anna finished four (Sochi, Rostov, the last evening's, Classic);
    # and the cup's three Swiss tours seat every entrant, her too, while its final (tour 4)
    # seats three others.
    final = Table.objects.filter(tour_link__tour__number=4, tour_link__tour__tournament__name=CUP)
    assert final.count() == 1 and not final.filter(seats__member__username="anna").exists()
    assert played_by("anna", season) == 4 + 3
    page = Client(headers={"accept-language": "ru"}).get("/seasons/").content.decode()
    assert "Клубный сезон" in page


def test_demo_season_ranks_as_a_league(demo: tuple[dict[str, str], str]) -> None:
    """Issue 32, item 7: the demo's season is a league (Serbian place points, the best 8
    nights), so a newcomer sees one at once; its nights are the club's evenings, so the
    cup's tables (a tournament's) are not in it."""
    season = Season.objects.get()
    url = reverse("scoring:season_standings", kwargs={"pk": season.pk, "game": "preferans"})
    response = Client(headers={"accept-language": "ru"}).get(url)

    assert (season.league_rule, season.best_of) == (Season.PLACES, 8)
    html = response.content.decode()
    assert "Ранжирование по очкам за места за каждым столом: 3, 2, 0" in html
    lines = [*response.context["ranked"], *response.context["below"]]
    anna = next(line for line in lines if line.username == "anna")
    # Her four club tables (the season's totals add the cup's three: played_by above).
    assert anna.tables == 4
    assert Decimal(anna.points) == sum(Decimal(row.points) for row in anna.rows if row.counted)


def played_by(username: str, season: Season) -> int:
    total = StandingsTotal.objects.get(season=season, game="preferans", member__username=username)
    return total.tables


def test_a_second_load_changes_nothing(demo: tuple[dict[str, str], str]) -> None:
    passwords, _ = demo
    before = snapshot()
    out = io.StringIO()

    assert load_demo(stdout=out) == {}

    assert snapshot() == before
    assert "demo club already loaded" in out.getvalue()
    assert "changepassword" in out.getvalue()
    assert not any(password in out.getvalue() for password in passwords.values())


def test_the_boston_tables_have_a_preference_suit_and_their_old_numbers(
    demo: tuple[dict[str, str], str],
) -> None:
    played = Table.objects.filter(totals_only=False)
    tariff = played.get(boston_version__tariff__name=BOSTON_TARIFF)
    card = played.get(boston_version__tariff__name=BOSTON_CARD)

    assert (tariff.preference_suit, card.preference_suit) == ("hearts", "diamonds")
    deals = [record.data for record in selectors.replay(tariff).records]
    assert sum("trump" in deal for deal in deals) == 8
    # The chips the table gave when every deal named its class (worked by hand, pairs,
    # seats Анна, Борис, Вера, Глеб): 1. minor ask 9 with Вера: 4, Борис → Анна, Глеб →
    # Вера; 2. Борис alone ♣ 6: 4 from each; 3. pass; 4. Глеб + Борис ♥ 7, one short:
    # (2 + 2) × 2 = 8, Глеб → Анна, Борис → Вера; 5. Вера's ♦ independence: 16 from each;
    # 6. Анна alone ♥ 4: 8 to each; 7. Глеб's ♥ independence one short: (16 + 4) × 2 = 40
    # to each; 8. Борис + Анна ♠ 10, double: (2 + 2 × 2) × 2 = 12, Вера → Борис, Глеб →
    # Анна; 9. Вера + Глеб ♥ slam: 24 × 2 = 48, Анна → Вера, Борис → Глеб; 10. Анна's ♣
    # independence 9: 20 from each.
    assert {
        name: row["chips"] for name, row in selectors.replay(tariff).document()["players"].items()
    } == {"Анна": 32, "Борис": -24, "Вера": 120, "Глеб": -128}
    assert [str(seat.money) for seat in tariff.seats.order_by("position")] == [
        "3.20",
        "-2.40",
        "12.00",
        "-12.80",
    ]
    # The value card prices by its column: its preference suit changes no number.
    state = selectors.replay(card)
    unmarked = dataclasses.replace(state.game.setup, preference_suit=None)
    parsed = [
        games.BOSTON.parse_deal(r.data, state.players, n) for n, r in enumerate(state.records, 1)
    ]
    assert score_boston(unmarked, parsed) == state.result


def test_demo_has_a_finished_cup_with_a_final_and_a_league_in_play(
    demo: tuple[dict[str, str], str],
) -> None:
    """The cup: 12 players, three Swiss tours, then the best three in a final; every tour
    closed and each player's total the sum of his results at his tables (raw points). The
    league: tour 1 closed, tour 2 in play."""
    cup = Tournament.objects.get(name=CUP)
    assert cup.status == Tournament.FINISHED and cup.entries.count() == 12
    tours = list(cup.tour_set.order_by("number"))
    assert [(t.number, t.is_final, t.is_closed) for t in tours] == [
        (1, False, True),
        (2, False, True),
        (3, False, True),
        (4, True, True),
    ]
    assert tours[3].seats.count() == 3
    lines = tournament_selectors.standings(cup).lines
    for line in lines:
        entry = cup.entries.get(pk=int(line.player[1:]))
        seats = Seat.objects.filter(table__tour_link__tour__tournament=cup)
        seats = (
            seats.filter(member=entry.member) if entry.member else seats.filter(guest=entry.guest)
        )
        assert line.total == sum(seats.values_list("result", flat=True), Decimal(0))

    league = Tournament.objects.get(name=LEAGUE)
    assert league.status == Tournament.RUNNING
    assert [t.is_closed for t in league.tour_set.order_by("number")] == [True, False]
    in_play = Table.objects.filter(tour_link__tour__tournament=league, status=Table.OPEN)
    assert in_play.count() == 2
