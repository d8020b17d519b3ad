"""Seasons and leaderboards on the site: pages, sorting, CSV, who may see them, the season
admin, and the queries each page costs."""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from members.models import ORGANISERS
from scoring import services
from scoring.models import PreferansTariff, Rating, Season, Seat, Table
from tests import factories
from tests.built_once import built_once, fresh
from tests.factories import finished_pulka

pytestmark = pytest.mark.django_db

SPRING = (datetime.date(2026, 3, 1), datetime.date(2026, 5, 31))
HEADER = [
    "Rank",
    "Member",
    "Games",
    "Whists",
    "Money",
    "Average",
    "Best",
    "Worst",
    "Wins",
    "Rating",
]


def build_spring(club: dict[str, Any]) -> Season:
    """Spring (1 March – 31 May, 2 games to qualify) and five pulkas around it; each
    winner's balance is 66.67 whists, the two others' −33.33.

    In the season: Boris wins 1 and 2 March, Anna 31 May; Vera plays twice, Gleb once.
    Outside it: Anna wins 28 February, Vera 1 June."""
    anna, boris, vera, gleb = (club[n] for n in ("Anna", "Boris", "Vera", "Gleb"))
    season = Season.objects.create(
        name="Spring", starts_on=SPRING[0], ends_on=SPRING[1], min_games=2
    )
    finished_pulka([anna, boris, vera], anna, datetime.date(2026, 2, 28))  # the day before
    finished_pulka([anna, boris, vera], boris, datetime.date(2026, 3, 1))  # first day
    finished_pulka([anna, boris, gleb], boris, datetime.date(2026, 3, 2))
    finished_pulka([anna, boris, vera], anna, datetime.date(2026, 5, 31))  # last day
    finished_pulka([anna, boris, vera], vera, datetime.date(2026, 6, 1))  # the day after
    return season


def money(name: str, season: Season | None = None) -> Decimal:
    seats = Seat.objects.filter(member__display_name=name, table__game=Table.PREFERANS)
    if season is not None:
        seats = seats.filter(table__played_on__range=(season.starts_on, season.ends_on))
    return sum(seats.values_list("money", flat=True), Decimal(0))


def board(response: Any, part: str = "ranked") -> list[tuple[int | None, str]]:
    return [(line.rank, line.name) for line in response.context[part]]


def season_url(season: Season, game: str = Table.PREFERANS, suffix: str = "/") -> str:
    name = "scoring:season_standings" if suffix == "/" else "scoring:season_standings_csv"
    return reverse(name, kwargs={"pk": season.pk, "game": game})


# -- the leaderboard, sorting and CSV of the spring club ----------------------------------


@pytest.fixture(scope="class")
def spring_club(
    django_db_setup: None, django_db_blocker: Any
) -> Iterator[tuple[dict[str, Any], Season]]:
    """The ``club``'s members and ``build_spring()``, built once for a class's tests."""
    with built_once(django_db_blocker):
        members = factories.club_members()
        yield members, build_spring(members)


@pytest.mark.usefixtures("spring_club")
class TestSpring:
    """The tests that read the ``spring`` club, built once for them all (``spring_club``:
    five pulkas played deal by deal took longer than the tests); each test runs in a
    savepoint on top of it and gets its own copies of the members and the season."""

    @pytest.fixture
    def club(self, spring_club: tuple[dict[str, Any], Season]) -> dict[str, Any]:
        return fresh(spring_club[0])

    @pytest.fixture
    def spring(self, spring_club: tuple[dict[str, Any], Season]) -> Season:
        return fresh(spring_club[1])

    def test_the_season_leaderboard(self, client: Client, spring):
        response = client.get(season_url(spring))

        assert response.status_code == 200
        # Money: Boris 66.67 + 66.67 − 33.33, Anna −33.33 − 33.33 + 66.67, Vera −33.33 × 2.
        assert money("Boris", spring) > money("Anna", spring) > money("Vera", spring)
        assert board(response) == [(1, "Boris"), (2, "Anna"), (3, "Vera")]
        assert board(response, "below") == [(None, "Gleb")]
        boris = response.context["ranked"][0]
        assert (boris.games, boris.total, boris.wins) == (3, "100.01", 2)
        assert (boris.best, boris.worst, boris.average) == ("66.67", "-33.33", "33.34")
        assert boris.money == str(money("Boris", spring))
        html = response.content.decode()
        assert "Ranked by total money, then average result per game, then wins" in html
        assert "A member needs 2 games to be ranked" in html
        assert 'id="below-minimum"' in html
        assert html.index(">Vera<") < html.index('id="below-minimum"') < html.index(">Gleb<")
        assert f'href="{reverse("members:detail", args=["boris"])}"' in html
        assert f'href="{season_url(spring, suffix=".csv")}"' in html
        assert "style=" not in html
        assert "<style" not in html

    def test_the_board_links_the_default_tariff_and_escapes_names(
        self, client: Client, spring, club
    ):
        sochi = PreferansTariff.objects.get(name="Сочи (Sochi)")
        spring.preferans_tariff = sochi
        spring.save(update_fields=["preferans_tariff"])
        club["Vera"].display_name = "<i>Vera & co</i>"
        club["Vera"].save(update_fields=["display_name"])

        html = client.get(season_url(spring)).content.decode()

        tariff_url = reverse("scoring:preferans_tariff_detail", args=[sochi.pk])
        assert f'<dd><a href="{tariff_url}">Сочи (Sochi)</a></dd>' in html
        assert ">&lt;i&gt;Vera &amp; co&lt;/i&gt;</a></th>" in html
        assert "<i>Vera" not in html
        assert '<span aria-label="unranked">–</span>' in html  # Gleb, below the minimum
        russian = client.get(season_url(spring), headers={"accept-language": "ru"})
        assert '<span aria-label="без места">–</span>' in russian.content.decode()
        assert "—" in client.get(season_url(spring, Table.BOSTON)).content.decode()  # no tariff

    def test_season_boundaries_on_the_page(self, client: Client, spring):
        season = client.get(season_url(spring))
        all_time = client.get(reverse("scoring:standings", args=[Table.PREFERANS]))

        games = {
            line.name: line.games for line in season.context["ranked"] + season.context["below"]
        }
        assert games == {"Anna": 3, "Boris": 3, "Vera": 2, "Gleb": 1}
        assert {line.name: line.games for line in all_time.context["ranked"]} == {
            "Anna": 5,
            "Boris": 5,
            "Vera": 4,
            "Gleb": 1,
        }
        assert not all_time.context["below"]  # all time has no minimum
        assert "All time" in all_time.content.decode()

    @pytest.mark.parametrize(
        ("ranking", "min_games", "ranked", "below"),
        [
            ("money, average, wins", 2, [(1, "Boris"), (2, "Anna"), (3, "Vera")], ["Gleb"]),
            ("wins", 2, [(1, "Boris"), (2, "Anna"), (3, "Vera")], ["Gleb"]),
            # Anna's and Boris's best are both 66.67: one rank, listed by name.
            ("best", 2, [(1, "Anna"), (1, "Boris"), (3, "Vera")], ["Gleb"]),
            ("best, wins", 2, [(1, "Boris"), (2, "Anna"), (3, "Vera")], ["Gleb"]),
            ("games", 1, [(1, "Anna"), (1, "Boris"), (3, "Vera"), (4, "Gleb")], []),
            ("games, wins", 1, [(1, "Boris"), (2, "Anna"), (3, "Vera"), (4, "Gleb")], []),
            # Vera's and Gleb's averages are both −33.33: one rank, listed by name.
            ("average", 1, [(1, "Boris"), (2, "Anna"), (3, "Gleb"), (3, "Vera")], []),
            # Those below the minimum are listed in the same order: Gleb −33.33, Vera −66.66.
            ("total", 3, [(1, "Boris"), (2, "Anna")], ["Gleb", "Vera"]),
        ],
    )
    def test_ranking_order_and_qualification(
        self, client: Client, spring, ranking, min_games, ranked, below
    ):
        Season.objects.filter(pk=spring.pk).update(ranking=ranking, min_games=min_games)

        response = client.get(season_url(spring))

        assert board(response) == ranked
        assert [name for _rank, name in board(response, "below")] == below

    @pytest.mark.parametrize(
        ("query", "names", "sorted_header"),
        [
            ({}, ["Boris", "Anna", "Vera"], ("rank", "ascending")),
            ({"sort": "rank", "dir": "desc"}, ["Vera", "Anna", "Boris"], ("rank", "descending")),
            ({"sort": "name"}, ["Anna", "Boris", "Vera"], ("name", "ascending")),
            ({"sort": "name", "dir": "desc"}, ["Vera", "Boris", "Anna"], ("name", "descending")),
            ({"sort": "wins", "dir": "asc"}, ["Vera", "Anna", "Boris"], ("wins", "ascending")),
            ({"sort": "wins"}, ["Boris", "Anna", "Vera"], ("wins", "descending")),
            # Equal values keep the official order.
            ({"sort": "games"}, ["Boris", "Anna", "Vera"], ("games", "descending")),
            ({"sort": "worst", "dir": "asc"}, ["Boris", "Anna", "Vera"], ("worst", "ascending")),
            ({"sort": "password"}, ["Boris", "Anna", "Vera"], ("rank", "ascending")),
            (
                {"sort": "money", "dir": "sideways"},
                ["Boris", "Anna", "Vera"],
                ("money", "descending"),
            ),
        ],
    )
    def test_sorting_by_a_column_keeps_the_official_rank(
        self, client: Client, spring, query, names, sorted_header
    ):
        response = client.get(season_url(spring), query)

        official = {"Boris": 1, "Anna": 2, "Vera": 3}
        assert board(response) == [(official[name], name) for name in names]
        marked = [(h.column.key, h.sorted) for h in response.context["headers"] if h.sorted]
        assert marked == [sorted_header]
        html = response.content.decode()
        key, state = sorted_header
        toggled = "asc" if state == "descending" else "desc"
        assert f'aria-sort="{state}"><a href="?sort={key}&amp;dir={toggled}#leaderboard"' in html

    def test_column_headers_link_to_a_sort_by_that_column(self, client: Client, spring):
        headers = {h.column.key: h.url for h in client.get(season_url(spring)).context["headers"]}

        assert headers["rank"] == "?sort=rank&dir=desc#leaderboard"  # sorted by rank: toggles
        assert headers["name"] == "?sort=name&dir=asc#leaderboard"
        assert headers["money"] == "?sort=money&dir=desc#leaderboard"
        assert list(headers) == [
            "rank",
            "name",
            "games",
            "total",
            "money",
            "average",
            "best",
            "worst",
            "wins",
            "rating",
        ]

    def test_the_csv_download(self, client: Client, spring):
        response = client.get(season_url(spring, suffix=".csv"))

        assert response.status_code == 200
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        assert response["Content-Disposition"] == 'attachment; filename="spring-preferans.csv"'
        body = response.content.decode("utf-8")
        assert body.startswith("\ufeff")  # a byte-order mark: spreadsheets then read UTF-8
        rows = list(csv.reader(io.StringIO(body.removeprefix("\ufeff"))))
        rating = {
            r.member.display_name: f"{r.ordinal:.2f}"
            for r in Rating.objects.filter(game=Table.PREFERANS).select_related("member")
        }
        # Each loser's −33.33 whists is −33.33 or −33.34 in money (the table's spare cent).
        assert rows == [
            HEADER,
            [
                "1",
                "Boris",
                "3",
                "100.01",
                "100.01",
                "33.34",
                "66.67",
                "-33.33",
                "2",
                rating["Boris"],
            ],
            ["2", "Anna", "3", "0.01", "0.01", "0.00", "66.67", "-33.33", "1", rating["Anna"]],
            [
                "3",
                "Vera",
                "2",
                "-66.66",
                "-66.68",
                "-33.33",
                "-33.33",
                "-33.33",
                "0",
                rating["Vera"],
            ],
            [
                "",
                "Gleb",
                "1",
                "-33.33",
                "-33.34",
                "-33.33",
                "-33.33",
                "-33.33",
                "0",
                rating["Gleb"],
            ],
        ]
        assert [row[4] for row in rows[1:]] == [
            str(money(name, spring)) for name in ("Boris", "Anna", "Vera", "Gleb")
        ]

    def test_the_all_time_csv_and_a_cyrillic_season_name(self, client: Client, spring):
        Season.objects.filter(pk=spring.pk).update(name="Весна 2026")

        all_time = client.get(reverse("scoring:standings_csv", args=[Table.PREFERANS]))
        season = client.get(season_url(spring, suffix=".csv"))

        assert all_time["Content-Disposition"] == 'attachment; filename="all-time-preferans.csv"'
        assert len(list(csv.reader(io.StringIO(all_time.content.decode("utf-8-sig"))))) == 5
        assert season["Content-Disposition"] == (
            "attachment; filename*=utf-8''%D0%B2%D0%B5%D1%81%D0%BD%D0%B0-2026-preferans.csv"
        )

    def test_both_csvs_neutralise_a_formula_in_a_name_and_keep_negative_numbers(
        self, client: Client, spring, club
    ):
        """The attack's repro: a display name a spreadsheet would run as a formula comes out
        with a leading apostrophe (text); balances such as −33.34 stay plain numbers."""
        hyperlink = '=HYPERLINK("http://x","y")'
        club["Vera"].display_name = hyperlink
        club["Vera"].save(update_fields=["display_name"])
        club["Gleb"].display_name = "@SUM(1+1)"
        club["Gleb"].save(update_fields=["display_name"])

        for url in (
            season_url(spring, suffix=".csv"),
            reverse("scoring:standings_csv", args=[Table.PREFERANS]),
        ):
            body = client.get(url).content.decode("utf-8-sig")
            rows = {row[1]: row for row in csv.reader(io.StringIO(body))}

            assert hyperlink not in rows, url
            vera = rows["'" + hyperlink]
            assert rows["'@SUM(1+1)"][2] == "1"
            assert vera[4].startswith("-") and Decimal(vera[4]) < 0  # money: a number
            assert vera[7] == "-33.33"  # worst
            # Every cell is either plain text or a number; none starts a formula.
            for row in rows.values():
                for cell in row:
                    if cell[:1] in ("=", "+", "@", "-"):
                        assert cell[:1] == "-" and Decimal(cell) < 0, cell

    def test_the_russian_board_writes_decimal_commas_and_its_csv_keeps_points(self, spring):
        """One number format on a Russian page (Boris: 100.01 whists, best 66.67, worst
        −33.33, average 33.34); the CSV beside it stays machine-readable and says so."""
        russian = Client(headers={"accept-language": "ru"})

        html = russian.get(season_url(spring)).content.decode()
        body = russian.get(season_url(spring, suffix=".csv")).content.decode("utf-8")

        boris = re.search(r'<tr>\s*<td class="col-rank">1</td>.*?</tr>', html, re.S)
        assert boris is not None
        for shown in ("100,01", "33,34", "66,67", "-33,33"):
            assert f">{shown}</td>" in boris.group()
        assert "100.01" not in boris.group()
        assert "числа с десятичной точкой" in html
        assert "1,Boris,3,100.01,100.01,33.34,66.67,-33.33,2," in body


# -- without the spring club: an empty season, Boston -------------------------------------


def test_a_season_without_tables_and_an_unknown_game(client: Client):
    season = Season.objects.create(
        name="Winter", starts_on=datetime.date(2027, 1, 1), ends_on=datetime.date(2027, 2, 28)
    )

    response = client.get(season_url(season, Table.BOSTON))

    assert response.status_code == 200
    assert "No finished tables yet." in response.content.decode()
    assert client.get(f"/seasons/{season.pk}/whist/").status_code == 404
    assert client.get("/seasons/999/preferans/").status_code == 404
    assert client.get("/standings/poker.csv").status_code == 404


def test_a_boston_board_counts_chips(client: Client, club):
    table = factories.boston_table([club[n] for n in ("Anna", "Boris", "Vera", "Gleb")])
    services.deal_create(
        table,
        {"kind": "ask", "declarer": "Anna", "partner": "Vera", "suit": "minor", "tricks": 9},
        by=club["Anna"],
    )
    services.table_finish(table, by=club["Anna"])

    response = client.get(reverse("scoring:standings", args=[Table.BOSTON]))

    html = response.content.decode()
    assert ">Chips</a>" in html
    lines = {line.name: line for line in response.context["ranked"]}
    # A supported minor ask made with 9: 4 chips from each opponent, for each of the pair.
    assert (lines["Anna"].total, lines["Vera"].total) == ("4", "4")
    assert (lines["Boris"].total, lines["Gleb"].total) == ("-4", "-4")
    assert lines["Anna"].money == "4.00"


# -- the seasons page ---------------------------------------------------------------------


def test_the_seasons_page_lists_seasons_newest_first_and_all_time(client: Client):
    today = timezone.localdate()
    past = Season.objects.create(
        name="Past", starts_on=datetime.date(2020, 1, 1), ends_on=datetime.date(2020, 6, 30)
    )
    now = Season.objects.create(
        name="Now",
        starts_on=today - datetime.timedelta(days=1),
        ends_on=today + datetime.timedelta(days=1),
    )

    html = client.get(reverse("scoring:season_list")).content.decode()

    assert html.index(">Now<") < html.index(">Past<")
    assert f'href="{season_url(past)}"' in html
    assert f'href="{season_url(now, Table.BOSTON)}"' in html
    assert f'href="{reverse("scoring:standings", args=[Table.PREFERANS])}"' in html
    assert "in progress" in html
    assert "finished" in html


def test_a_past_season_stays_browsable(client: Client, club):
    past = Season.objects.create(
        name="2020", starts_on=datetime.date(2020, 1, 1), ends_on=datetime.date(2020, 6, 30)
    )
    finished_pulka([club["Anna"], club["Boris"], club["Vera"]], club["Anna"], past.starts_on)

    response = client.get(season_url(past))

    assert response.status_code == 200
    assert board(response, "below") == [(None, "Anna"), (None, "Boris"), (None, "Vera")]
    assert "this table is final" in response.content.decode()


# -- who may see standings ----------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "/seasons/",
        "/standings/preferans/",
        "/standings/boston.csv",
        "SEASON",
        "SEASON_CSV",
    ],
)
def test_private_standings_send_visitors_to_sign_in(client: Client, settings, club, url):
    settings.STANDINGS_PUBLIC = False
    season = Season.objects.create(name="S", starts_on=SPRING[0], ends_on=SPRING[1])
    url = {"SEASON": season_url(season), "SEASON_CSV": season_url(season, suffix=".csv")}.get(
        url, url
    )

    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"] == f"{reverse('members:login')}?next={url}"
    client.force_login(club["Anna"])
    assert client.get(url).status_code == 200


def test_standings_are_public_by_default(client: Client):
    assert not hasattr(settings, "STANDINGS_PUBLIC") or settings.STANDINGS_PUBLIC
    assert client.get("/seasons/").status_code == 200


# -- queries ------------------------------------------------------------------------------


def main(response: Any) -> str:
    """The page below the site's header."""
    return response.content.decode().partition('<main id="main">')[2]


@pytest.mark.parametrize("tables", [1, 10])
def test_leaderboard_pages_cost_the_same_queries_whatever_the_tables(
    client: Client, club, django_assert_num_queries: Any, tables: int
):
    season = Season.objects.create(name="S", starts_on=SPRING[0], ends_on=SPRING[1])
    members = [club[n] for n in ("Anna", "Boris", "Vera", "Gleb")]
    for i in range(tables):
        seated = members[i % 2 : i % 2 + 3]
        finished_pulka(seated, seated[i % 3], SPRING[0] + datetime.timedelta(days=i))

    # The page's version (the stamp: 1, clubsite.pages), the season with its tariffs and
    # the standings stamp (1), the members' totals and the ratings (2), the members'
    # usernames for the profile links (1); each page also the club's name (1).
    with django_assert_num_queries(6):
        page = client.get(season_url(season), {"sort": "money"})
    # Again, nothing changed: the page is kept whole for visitors (its version only).
    with django_assert_num_queries(1):
        again = client.get(season_url(season), {"sort": "money"})
    assert again.content == page.content
    with django_assert_num_queries(3):
        client.get(season_url(season, suffix=".csv"))
    with django_assert_num_queries(5):  # the club's name is cached now
        client.get(reverse("scoring:standings", args=[Table.PREFERANS]))
    with django_assert_num_queries(1):
        client.get(reverse("scoring:standings", args=[Table.PREFERANS]))
    with django_assert_num_queries(2):
        client.get(reverse("scoring:standings_csv", args=[Table.PREFERANS]))
    with django_assert_num_queries(1):  # the seasons
        client.get(reverse("scoring:season_list"))
    # A member signed in gets the same kept page, his own parts filled in (clubsite.pages):
    # the session and himself (2), the page's version (1).
    client.force_login(members[0])
    with django_assert_num_queries(3):
        mine = client.get(season_url(season), {"sort": "money"})
    assert main(mine) == main(page)

    assert sum(line.games for line in page.context["ranked"] + page.context["below"]) == (
        3 * tables
    )


# -- the season admin ---------------------------------------------------------------------


@pytest.fixture
def season_admin():
    return reverse("admin:scoring_season_changelist")


def test_the_organisers_group_may_edit_seasons():
    codenames = set(
        Group.objects.get(name=ORGANISERS)
        .permissions.filter(content_type__model="season")
        .values_list("codename", flat=True)
    )

    assert codenames == {"add_season", "change_season", "delete_season", "view_season"}


def test_an_organiser_edits_a_current_season(client: Client, season_admin, organiser):
    today = timezone.localdate()
    season = Season.objects.create(
        name="Now",
        starts_on=today - datetime.timedelta(days=10),
        ends_on=today + datetime.timedelta(days=10),
    )
    client.force_login(organiser)

    page = client.get(f"{season_admin}{season.pk}/change/")
    html = page.content.decode()
    response = client.post(
        f"{season_admin}{season.pk}/change/",
        {
            "name": "Now",
            "starts_on": season.starts_on.isoformat(),
            "ends_on": season.ends_on.isoformat(),
            "preferans_tariff": "",
            "boston_tariff": "",
            "min_games": "3",
            "ranking": "wins, money",
            "table_money": "1.50",
        },
    )

    assert page.status_code == 200
    assert 'name="_save"' in html
    assert "Default tariffs" in html
    assert "Qualification and ranking" in html
    assert "<code>average</code> (average result per game)" in html
    assert response.status_code == 302
    season.refresh_from_db()
    assert (season.min_games, season.order) == (3, ("wins", "money"))
    assert season.table_money == Decimal("1.50")


def test_a_bad_ranking_is_refused_in_the_admin(client: Client, season_admin, organiser):
    client.force_login(organiser)

    response = client.post(
        f"{season_admin}add/",
        {
            "name": "Next",
            "starts_on": "2030-01-01",
            "ends_on": "2030-03-31",
            "min_games": "5",
            "ranking": "money, luck",
        },
    )

    assert response.status_code == 200
    assert "unknown ranking key" in response.content.decode()
    assert not Season.objects.exists()


def test_a_past_season_is_read_only_in_the_admin(client: Client, season_admin, organiser):
    past = Season.objects.create(
        name="2020", starts_on=datetime.date(2020, 1, 1), ends_on=datetime.date(2020, 6, 30)
    )
    client.force_login(organiser)

    page = client.get(f"{season_admin}{past.pk}/change/")
    post = client.post(
        f"{season_admin}{past.pk}/change/",
        {"name": "Renamed", "starts_on": "2020-01-01", "ends_on": "2020-06-30", "min_games": "1"},
    )
    delete = client.post(f"{season_admin}{past.pk}/delete/", {"post": "yes"})

    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    assert "2020" in page.content.decode()
    assert post.status_code == 403
    assert delete.status_code == 403
    past.refresh_from_db()
    assert past.name == "2020"


def test_staff_who_are_not_organisers_get_403(client: Client, season_admin):
    staff = factories.member("Stas", is_staff=True, username="stas")
    staff.user_permissions.add(*Permission.objects.filter(content_type__model="season"))
    season = Season.objects.create(name="S", starts_on=SPRING[0], ends_on=SPRING[1])
    client.force_login(staff)

    assert client.get(season_admin).status_code == 403
    assert client.get(f"{season_admin}{season.pk}/change/").status_code == 403
    assert client.get(f"{season_admin}add/").status_code == 403


def test_an_organiser_sees_seasons_in_the_admin_list(client: Client, season_admin, organiser):
    Season.objects.create(name="Spring", starts_on=SPRING[0], ends_on=SPRING[1])
    client.force_login(organiser)

    html = client.get(season_admin).content.decode()

    assert "Spring" in html
    assert "finished (read-only)" in html  # spring 2026 is over by the time the tests run
    assert "/seasons/" in html
