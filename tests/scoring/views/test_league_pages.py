"""A season scored as a league on the site: its board and breakdown, its CSV, its nights
from the evenings or from one-tour tournaments, the upkeep when a table finishes or the
rule changes, the season admin's league fields, and the queries the page costs.

The season is tests/scoring/engine/test_league.py's, played as three club evenings of two
tables each (G, a guest, sits at two of them):

====== =================================== ====================================
night  table 1                             table 2
====== =================================== ====================================
1 Mar  A 60, B 20, C −80                   D 40, E −10, F −10, G −20
8 Mar  A −30, D 50, E −20                  B 100, C −40, F −30, G −30
15 Mar A 10, B −5, C −5                    D −50, E 70, F −20
====== =================================== ====================================
"""

from __future__ import annotations

import csv
import datetime
import io
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from scoring import services
from scoring.models import (
    Evening,
    EveningTable,
    Guest,
    Season,
    Seat,
    Table,
    Tour,
    Tournament,
    TourTable,
)
from scoring.services.standings import standings_after_finish
from tests import factories

pytestmark = pytest.mark.django_db

D = Decimal
SPRING = (datetime.date(2026, 3, 1), datetime.date(2026, 5, 31))
NIGHTS = (datetime.date(2026, 3, 1), datetime.date(2026, 3, 8), datetime.date(2026, 3, 15))
TABLES = (
    (0, {"A": 60, "B": 20, "C": -80}),
    (0, {"D": 40, "E": -10, "F": -10, "G": -20}),
    (1, {"A": -30, "D": 50, "E": -20}),
    (1, {"B": 100, "C": -40, "F": -30, "G": -30}),
    (2, {"A": 10, "B": -5, "C": -5}),
    (2, {"D": -50, "E": 70, "F": -20}),
)
SERBIAN = {
    "league_rule": Season.PLACES,
    "place_points": [3, 2, 0],
    "sole_positive": D(4),
    "second_negative": D(1),
}


def finished_table(players: dict[str, Any], results: dict[str, int], day: datetime.date) -> Table:
    """A finished, counted table of ``results`` (whists) on ``day``, its seats holding
    them as a finished table's do, added to the totals as a finish adds it."""
    table = Table.objects.create(
        game=Table.PREFERANS,
        preferans_version=factories.preferans_version(),
        played_on=day,
        status=Table.FINISHED,
        totals_only=True,
    )
    ordered = sorted(results.values(), reverse=True)
    for position, (name, result) in enumerate(results.items()):
        player = players[name]
        Seat.objects.create(
            table=table,
            position=position,
            name=player.name,
            member=player if name != "G" else None,
            guest=player if name == "G" else None,
            result=D(result),
            money=D(result),
            place=1 + ordered.index(result),
            won=result == ordered[0],
        )
    standings_after_finish(table)
    return table


@pytest.fixture
def players() -> dict[str, Any]:
    found: dict[str, Any] = {n: factories.member(f"Member {n}") for n in "ABCDEF"}
    found["G"] = Guest.objects.create(name="Guest Gosha")
    return found


@pytest.fixture
def evenings(players: dict[str, Any]) -> list[Table]:
    """The season's six tables, played at three club evenings."""
    organiser = players["A"]
    nights = [Evening.objects.create(played_on=day, organiser=organiser) for day in NIGHTS]
    tables = []
    for night, results in TABLES:
        table = finished_table(players, results, NIGHTS[night])
        EveningTable.objects.create(evening=nights[night], table=table, round=1)
        tables.append(table)
    return tables


def league(**fields: Any) -> Season:
    values = {"name": "League", "starts_on": SPRING[0], "ends_on": SPRING[1], "min_games": 1}
    return Season.objects.create(**(values | SERBIAN | fields))


def page(client: Client, season: Season, suffix: str = "/") -> Any:
    name = "scoring:season_standings" if suffix == "/" else "scoring:season_standings_csv"
    return client.get(reverse(name, kwargs={"pk": season.pk, "game": Table.PREFERANS}))


def board(response: Any, part: str = "ranked") -> list[tuple[Any, ...]]:
    return [
        (line.rank, line.name, line.points, line.counted, line.nights)
        for line in response.context[part]
    ]


def test_place_points_best_two_of_three_evenings(client: Client, evenings):
    season = league(best_of=2)

    response = page(client, season)

    # Worked out in tests/scoring/engine/test_league.py: D 4 + 4, A 4 + 3, B 4 + 2,
    # E 4 + 1, F 1 + 0.5, C 0.5 + 0 — each the best 2 of his 3 nights.
    assert response.status_code == 200
    assert board(response) == [
        (1, "Member D", "8", 2, 3),
        (2, "Member A", "7", 2, 3),
        (3, "Member B", "6", 2, 3),
        (4, "Member E", "5", 2, 3),
        (5, "Member F", "1.5", 2, 3),
        (6, "Member C", "0.5", 2, 3),
    ]
    d = response.context["ranked"][0]
    assert (d.result, d.average_place, d.tables) == ("90.00", "1.67", 3)
    assert [(r.night, r.table, r.result, r.place, r.points, r.counted) for r in d.rows] == [
        ("1 March 2026", evenings[1].pk, "40.00", 1, "4", True),
        ("8 March 2026", evenings[2].pk, "50.00", 1, "4", True),
        ("15 March 2026", evenings[5].pk, "-50.00", 3, "0", False),
    ]
    html = response.content.decode()
    assert "place 1, the only positive result (40) → 4" in html
    assert "not counted: best nights only" in html
    assert "3, 2, 0 for the 1st, 2nd, 3rd … place" in html
    assert "Only a member&#x27;s best 2 nights count." in html
    assert f'href="/tables/{evenings[5].pk}/"' in html


def test_guests_play_but_never_rank(client: Client, evenings):
    response = page(client, league())

    html = response.content.decode()
    assert "Guest Gosha" not in html
    assert len(response.context["ranked"]) == 6
    # F shares 2nd–3rd with the guest on 8 March: (1 + 0) / 2.
    f = next(line for line in response.context["ranked"] if line.name == "Member F")
    assert [(r.place, r.points) for r in f.rows] == [(2, "0.5"), (2, "0.5"), (2, "1")]


def test_average_place_in_russian(client: Client, evenings):
    season = league(league_rule=Season.AVERAGE_PLACE, place_points=[])

    response = client.get(
        reverse("scoring:season_standings", kwargs={"pk": season.pk, "game": Table.PREFERANS}),
        HTTP_ACCEPT_LANGUAGE="ru",
    )

    # B 5/3 with 115 whists; A, D and E 5/3 with 40 each share 2nd; F 2; C 3.
    assert [(line.rank, line.name, line.average_place) for line in response.context["ranked"]] == [
        (1, "Member B", "1.67"),
        (2, "Member A", "1.67"),
        (2, "Member D", "1.67"),
        (2, "Member E", "1.67"),
        (5, "Member F", "2.00"),
        (6, "Member C", "3.00"),
    ]
    html = response.content.decode()
    assert "Среднее место" in html
    assert "по среднему месту за столами" in html


def test_the_csv_has_the_league_columns(client: Client, evenings):
    response = page(client, league(best_of=2), suffix=".csv")

    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == [
        "Rank",
        "Member",
        "Points",
        "Nights counted",
        "Nights played",
        "Tables",
        "Result",
        "Average place",
    ]
    assert rows[1] == ["1", "Member D", "8", "2", "3", "3", "90.00", "1.67"]
    assert rows[6] == ["6", "Member C", "0.5", "2", "3", "3", "-85.00", "3.00"]


def test_a_season_ranked_by_its_keys_is_unchanged(client: Client, evenings):
    season = league(league_rule=Season.KEYS)

    response = page(client, season)

    assert "league" not in response.context
    assert next(iter(response.context["headers"])).column.label == "Rank"
    assert "Ranked by total money, then average result per game, then wins" in (
        response.content.decode()
    )


def test_league_nights_from_one_tour_tournaments(client: Client, players):
    # The first two nights are tournaments of one tour; the third, a club evening, does
    # not count for such a season, nor a tournament of two tours.
    made = []
    for night, results in TABLES:
        made.append((night, finished_table(players, results, NIGHTS[night])))
    for n in (0, 1):
        cup = Tournament.objects.create(name=f"Night {n + 1}", tours=1, played_on=NIGHTS[n])
        tour = Tour.objects.create(tournament=cup, number=1, seed=1, length=Tournament.POOL)
        for number, (_night, table) in enumerate(t for t in made if t[0] == n):
            TourTable.objects.create(tour=tour, number=number + 1, table=table)
    two = Tournament.objects.create(name="Cup", tours=2, played_on=NIGHTS[2])
    tour = Tour.objects.create(tournament=two, number=1, seed=1, length=Tournament.POOL)
    TourTable.objects.create(tour=tour, number=1, table=made[4][1])
    season = league(league_nights=Season.TOURNAMENTS)

    response = page(client, season)

    # Nights 1 and 2 only: D 4 + 4, A 3 + 0, B 2 + 4, E 0.5 + 1, F 0.5 + 0.5, C 0 + 0.
    assert board(response) == [
        (1, "Member D", "8", 2, 2),
        (2, "Member B", "6", 2, 2),
        (3, "Member A", "3", 2, 2),
        (4, "Member E", "1.5", 2, 2),
        (5, "Member F", "1", 2, 2),
        (6, "Member C", "0", 2, 2),
    ]
    assert response.context["ranked"][0].rows[0].night == "Night 1, 1 March 2026"
    # The same season by its evenings: the tournaments' tables are not evenings', nor is
    # the third night's first table, the two-tour cup's; its other table is left: E 70
    # alone positive 4, F −20 negative 2nd 1, D 0.
    Season.objects.filter(pk=season.pk).update(league_nights=Season.EVENINGS)
    services.season_save(season=Season.objects.get(pk=season.pk))
    lines = page(client, season).context["ranked"]
    assert [(line.rank, line.name, line.points) for line in lines] == [
        (1, "Member E", "4"),
        (2, "Member F", "1"),
        (3, "Member D", "0"),
    ]


def test_a_table_finished_and_a_rule_changed_reach_the_page(client: Client, players, evenings):
    season = league()
    assert page(client, season).context["ranked"][0].name == "Member D"

    # A fourth night, 22 March: A alone positive scores 4 and passes D (7 + 4 = 11 > 8).
    finished_table(players, {"A": 30, "B": -10, "C": -20}, datetime.date(2026, 3, 22))
    first = page(client, season).context["ranked"][0]
    assert (first.name, first.points, first.nights) == ("Member A", "11", 4)

    season.place_points = [1, 0, 0]
    season.sole_positive = None
    season.second_negative = None
    services.season_save(season=season)
    # 1 / 0 / 0: A wins t1, t5 and the fourth night (3); D t2 and t3 (2); B t4, E t6.
    lines = page(client, season).context["ranked"]
    assert [(line.name, line.points) for line in lines[:2]] == [
        ("Member A", "3"),
        ("Member D", "2"),
    ]


@pytest.mark.parametrize("tables", [1, 6])
def test_the_league_page_costs_the_same_queries_whatever_the_tables(
    client: Client, players, django_assert_num_queries: Any, tables: int
):
    for night, results in TABLES[:tables]:
        finished_table(players, results, NIGHTS[night])
    season = league()

    # The page's version (the stamp: 1), the season with the stamp (1), the season's
    # seats with the members' names (1), the usernames for the profile links (1), the
    # club's name (1).
    with django_assert_num_queries(5):
        response = page(client, season)
    with django_assert_num_queries(1):  # kept whole for visitors
        page(client, season)
    # The CSV: the season with the stamp, the seats.
    with django_assert_num_queries(2):
        page(client, season, suffix=".csv")
    assert sum(line.tables for line in response.context["ranked"]) == sum(
        len([p for p in results if p != "G"]) for _night, results in TABLES[:tables]
    )


# -- the season admin ---------------------------------------------------------------------


def admin_post(client: Client, headers: dict[str, str] | None = None, **fields: Any) -> Any:
    today = timezone.localdate()
    data = {
        "name": "League",
        "starts_on": today.isoformat(),
        "ends_on": (today + datetime.timedelta(days=90)).isoformat(),
        "min_games": "1",
        "ranking": "money, average, wins",
        "table_money": "0",
        "league_rule": Season.PLACES,
        "league_nights": Season.EVENINGS,
        "place_points": "[3, 2, 0]",
        "sole_positive": "4",
        "second_negative": "1",
        "bands": "[]",
        "best_of": "8",
    }
    return client.post(reverse("admin:scoring_season_add"), data | fields, headers=headers)


def test_an_organiser_makes_a_season_a_league_in_the_admin(client: Client, organiser):
    client.force_login(organiser)

    form = client.get(reverse("admin:scoring_season_add")).content.decode()
    response = admin_post(client)

    assert "Ranked as a league" in form
    assert "Serbian league" in form
    assert response.status_code == 302
    season = Season.objects.get()
    assert season.is_league
    assert (season.place_points, season.sole_positive, season.best_of) == ([3, 2, 0], D(4), 8)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"place_points": "[]"}, "укажите очки за каждое место за столом"),
        ({"place_points": '["three"]'}, "Запишите числа, как в примере"),
        ({"place_points": "[1e30, 2, 0]"}, "Запишите числа, как в примере"),
        ({"place_points": "[NaN, 2, 0]"}, "Запишите числа, как в примере"),
        ({"place_points": "[true, 2, 0]"}, "Запишите числа, как в примере"),
        ({"league_rule": Season.BANDS, "bands": "[[200]]"}, "Запишите числа, как в примере"),
        (
            {"league_rule": Season.BANDS, "bands": "[[200, 1], [100, 0]]"},
            "границы полос должны расти: 100 после 200",
        ),
        ({"league_rule": Season.AVERAGE_PLACE}, "средний результат места считается по всем столам"),
    ],
)
def test_a_league_rule_that_cannot_work_is_refused_in_russian(
    client: Client, organiser, fields: dict[str, str], message: str
):
    client.force_login(organiser)

    response = admin_post(client, {"accept-language": "ru"}, **fields)

    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Season.objects.exists()


# -- the home page --------------------------------------------------------------------------


def test_the_home_page_shows_a_league_seasons_leaders_by_points(
    client: Client, evenings, django_assert_num_queries: Any
):
    league(best_of=2, ends_on=timezone.localdate() + datetime.timedelta(days=10))

    # The page's version (1, selectors.home); tables in play (1), the latest finished (1),
    # their seats (1), tonight's evening (1), the next (1), the season (1), the standings
    # stamp (1), each game's league seats (2), the leaders' usernames (1), the club's
    # name (1).
    with django_assert_num_queries(12):
        response = client.get(reverse("scoring:home"))

    boards = {board.game: board for board in response.context["leaders"]}
    assert boards[Table.PREFERANS].league
    assert [(line.rank, line.name, line.points) for line in boards[Table.PREFERANS].lines] == [
        (1, "Member D", "8"),
        (2, "Member A", "7"),
        (3, "Member B", "6"),
        (4, "Member E", "5"),
        (5, "Member F", "1.5"),
    ]  # the top five (C, 6th, is left out)
    assert boards[Table.BOSTON].lines == []
    html = response.content.decode()
    assert "2 of 3" in html


def test_a_league_rule_stored_broken_says_so_instead_of_failing(client: Client, evenings):
    # Saved past the admin's checks (a shell, an old backup): place points that are no
    # numbers, and a rule with none at all.
    broken = league(place_points=["three"])
    empty = league(name="Empty", starts_on=SPRING[1], ends_on=SPRING[1], place_points=[])

    pages = [
        client.get(
            reverse("scoring:season_standings", kwargs={"pk": s.pk, "game": Table.PREFERANS}),
            headers={"accept-language": "ru"},
        )
        for s in (broken, empty)
    ]
    csv_page = page(client, broken, suffix=".csv")

    assert [p.status_code for p in pages] == [200, 200]
    assert "очки за места или диапазоны сезона записаны не числами" in pages[0].content.decode()
    assert "укажите очки за каждое место за столом" in pages[1].content.decode()
    assert pages[0].context["ranked"] == []
    assert csv_page.status_code == 200
    assert csv_page.content.decode("utf-8-sig").count("\r\n") == 1  # the header alone


def test_a_table_missing_a_result_is_no_league_table(client: Client, players):
    whole = finished_table(players, {"A": 30, "B": -10, "C": -20}, NIGHTS[0])
    broken = finished_table(players, {"D": 30, "E": -10, "F": -20}, NIGHTS[1])
    Seat.objects.filter(table=broken, member=players["F"]).update(result=None)

    lines = page(client, league()).context["ranked"]

    # The whole table only: A alone positive 4, B 2nd negative 1, C 0.
    assert [(line.name, line.points, line.tables) for line in lines] == [
        ("Member A", "4", 1),
        ("Member B", "1", 1),
        ("Member C", "0", 1),
    ]
    assert whole.pk in {row.table for line in lines for row in line.rows}
