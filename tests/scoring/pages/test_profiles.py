"""A member's profile (scoring/pages/profiles.py and the member page): statistics, head-to-head
and charts from a hand-built history whose every number is worked out below."""

from __future__ import annotations

import datetime
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from scoring import services
from scoring.models import RatingHistory, Season, Seat, Table
from scoring.pages import profiles
from scoring.selectors import profiles as profile_reads
from tests import factories
from tests.built_once import built_once, fresh
from tests.factories import finished_pulka

pytestmark = pytest.mark.django_db

SPRING = (datetime.date(2026, 3, 1), datetime.date(2026, 5, 31))


# Sochi, pool target 10, Anna deals first; what each deal writes:
HAND_BUILT = [
    # A made 7: Anna's pool 4; Boris whists alone (greedy): all 3 defenders' tricks × 4 =
    # 12 whists on Anna.
    {
        "kind": "game",
        "declarer": "Anna",
        "contract": "7S",
        "answers": {"Boris": "whist", "Vera": "pass"},
        "tricks": {"Anna": 7, "Boris": 2, "Vera": 1},
    },
    # A failed 8, two down: remise 2 × 6 on Anna's mountain; each whister writes 2 × 6 for
    # his tricks and 2 × 6 consolation: 24 each on Anna.
    {
        "kind": "game",
        "declarer": "Anna",
        "contract": "8H",
        "answers": {"Boris": "whist", "Vera": "whist"},
        "tricks": {"Anna": 6, "Boris": 2, "Vera": 2},
    },
    # A made misère (10): 6 closes Anna's pool, the other 4 help Boris (the largest open
    # pool, first clockwise among equals): 4 points given, 4 × 10 help whists.
    {"kind": "misere", "declarer": "Anna", "tricks": {"Anna": 0}},
    # Two pass-outs: Anna takes 2 and then 1 tricks, Boris 5 and 4, Vera 3 and 5.
    {"kind": "passout", "tricks": {"Anna": 2, "Boris": 5, "Vera": 3}},
    {"kind": "passout", "tricks": {"Anna": 1, "Boris": 4, "Vera": 5}},
]

BOSTON = [
    {"kind": "ask", "declarer": "Anna", "partner": "Vera", "suit": "minor", "tricks": 9},
    {"kind": "ask", "declarer": "Anna", "suit": "major", "tricks": 3},  # alone, failed
    {"kind": "independence", "declarer": "Boris", "suit": "minor", "tricks": 8},
    {"kind": "pass"},
    {"kind": "independence", "declarer": "Anna", "suit": "minor", "tricks": 9},
]


def build_history(club: dict[str, Any]) -> dict[str, Any]:
    """Anna's history: the hand-built pulka (1 March, she wins), Boris's unplayed 10
    (5 March, Anna and Gleb share 2nd), a Boston table (3 March) and, after the spring
    season, her own unplayed 10 (10 June)."""
    anna, boris, vera, gleb = (club[n] for n in ("Anna", "Boris", "Vera", "Gleb"))
    Season.objects.create(name="Spring", starts_on=SPRING[0], ends_on=SPRING[1], min_games=1)
    pulka = factories.pulka(
        [anna, boris, vera], pool_target=10, played_on=datetime.date(2026, 3, 1)
    )
    for deal in HAND_BUILT:
        services.deal_create(pulka, deal, by=anna)
    services.table_finish(pulka, by=anna)
    finished_pulka([anna, boris, gleb], boris, datetime.date(2026, 3, 5))
    boston = factories.boston_table([anna, boris, vera, gleb])
    boston.played_on = datetime.date(2026, 3, 3)
    boston.save(update_fields=["played_on"])
    for deal in BOSTON:
        services.deal_create(boston, deal, by=anna)
    services.table_finish(boston, by=anna)
    finished_pulka([anna, boris, gleb], anna, datetime.date(2026, 6, 10))
    return club


def results(table_day: datetime.date) -> dict[str, Seat]:
    return {s.name: s for s in Seat.objects.filter(table__played_on=table_day)}


def svgs(html: str) -> list[ET.Element]:
    return [
        ET.fromstring(svg)  # noqa: S314 - our own page
        for svg in re.findall(r"<svg\b.*?</svg>", html, flags=re.DOTALL)
    ]


def head_to_head(html: str) -> str:
    section = re.search(r'<section id="head-to-head".*?</section>', html, flags=re.DOTALL)
    assert section is not None
    return section.group()


def rival_names(html: str) -> list[str]:
    """The rivals' names in the head-to-head's cards, in their order."""
    return re.findall(r'<h3 class="card__title"><a href="[^"]+">([^<]+)</a>', html)


@pytest.fixture(scope="class")
def history_club(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """``build_history()`` on the ``club``'s members, once for a class's tests."""
    with built_once(django_db_blocker):
        yield build_history(factories.club_members())


@pytest.mark.usefixtures("history_club")
class TestHistory:
    """The tests that read Anna's ``history``, built once for them all (``history_club``):
    each test runs in a savepoint on top of it and gets its own copies of the members."""

    @pytest.fixture
    def history(self, history_club: dict[str, Any]) -> dict[str, Any]:
        return fresh(history_club)

    def test_the_hand_built_pulka_stores_what_the_comments_say(self, history):
        seats = results(datetime.date(2026, 3, 1))
        assert seats["Anna"].stats == {
            "declared_7": 1,
            "made_7": 1,
            "declared_8": 1,
            "made_8": 0,
            "misere_declared": 1,
            "misere_made": 1,
            "passouts": 2,
            "passout_tricks": 3,
            "whists_received": 12 + 24 + 24,
            "help_given": 4,
        }
        assert seats["Boris"].stats == {
            "whists_written": 12 + 24,
            "help_received": 4,
            "passouts": 2,
            "passout_tricks": 9,
        }
        assert (seats["Anna"].place, seats["Boris"].place, seats["Vera"].place) == (1, 2, 3)
        assert (seats["Anna"].result, seats["Boris"].result) == (Decimal("13.33"), Decimal("-0.67"))
        assert seats["Vera"].result == Decimal("-12.67")

    def test_preferans_statistics_add_up_every_pulka(self, history):
        stats = profiles.preferans_stats(profile_reads.member_totals(history["Anna"]))

        assert stats.tables == 3
        assert [(t.label, t.declared, t.made, t.percent) for t in stats.levels] == [
            ("6", 0, 0, None),
            ("7", 1, 1, 100),
            ("8", 1, 0, 0),
            ("9", 0, 0, None),
            ("10", 1, 1, 100),  # the unplayed 10 of 10 June
        ]
        assert (stats.misere.declared, stats.misere.made, stats.misere.percent) == (1, 1, 100)
        assert (stats.passouts, stats.passout_tricks, stats.passout_average) == (
            2,
            3,
            Decimal("1.50"),
        )
        assert (stats.whists_written, stats.whists_received) == (0, 60)
        assert (stats.help_given, stats.help_received) == (4, 0)

        boris = profiles.preferans_stats(profile_reads.member_totals(history["Boris"]))
        assert (boris.whists_written, boris.whists_received) == (36, 0)
        assert (boris.help_given, boris.help_received) == (0, 4)
        assert boris.passout_average == Decimal("4.50")  # 9 tricks in 2 pass-outs

    def test_boston_statistics_by_kind(self, history):
        stats = profiles.boston_stats(profile_reads.member_totals(history["Anna"]))

        assert stats.tables == 1
        assert [(t.label, t.declared, t.made, t.percent) for t in stats.kinds] == [
            ("Ask, supported (8 together)", 1, 1, 100),
            ("Ask, alone (5)", 1, 0, 0),
            ("Independence", 1, 1, 100),
        ]
        assert profiles.boston_stats(profile_reads.member_totals(history["Vera"])).kinds == ()

    def test_summaries_per_game(self, history):
        anna = history["Anna"]
        preferans, boston = profiles.summaries(
            profile_reads.member_totals(anna), {"preferans": 1.5}
        )

        money = sum(
            Seat.objects.filter(member=anna, table__game=Table.PREFERANS).values_list(
                "money", flat=True
            )
        )
        # 13.33 (1 March) − 33.33 (5 March) + 66.67 (10 June).
        assert (preferans.tables, preferans.wins, preferans.total) == (3, 2, Decimal("46.67"))
        assert (preferans.best, preferans.worst) == (Decimal("66.67"), Decimal("-33.33"))
        assert preferans.average == Decimal("15.56")
        assert preferans.money == money
        assert preferans.rating == 1.5
        assert (boston.tables, boston.wins, boston.total_shown, boston.rating) == (1, 0, "12", None)

    def test_head_to_head(self, history):
        rivals = profiles.rivals(history["Anna"])

        assert [
            (r.game, r.name, r.tables, r.mine_shown, r.theirs_shown, r.above, r.above_percent)
            for r in rivals
        ] == [
            # Boston, 3 March: Anna 12 chips; Boris 36 (first), Vera −20, Gleb −28.
            ("boston", "Boris", 1, "12", "36", 0, 0),
            ("boston", "Gleb", 1, "12", "-28", 1, 100),
            ("boston", "Vera", 1, "12", "-20", 1, 100),
            # Boris: 1 March 13.33 v −0.67 (above), 5 March −33.33 v 66.67, 10 June 66.67 v
            # −33.33 (above).
            ("preferans", "Boris", 3, "46.67", "32.67", 2, 67),
            # Gleb: 5 March both −33.33 (a shared place is not above), 10 June 66.67 v −33.33.
            ("preferans", "Gleb", 2, "33.34", "-66.66", 1, 50),
            ("preferans", "Vera", 1, "13.33", "-12.67", 1, 100),
        ]
        # Seen from the other side, the same tables.
        boris = {(r.game, r.name): r for r in profiles.rivals(history["Boris"])}
        assert boris["preferans", "Anna"].mine_shown == "32.67"
        assert boris["preferans", "Anna"].above == 1

    def test_the_result_chart_covers_the_chosen_season(self, history):
        seats = profile_reads.member_seats(history["Anna"])
        spring = Season.objects.get()

        assert [v for _day, v in profiles.result_series(seats, Table.PREFERANS, spring)] == [
            Decimal("13.33"),
            Decimal("-20.00"),
        ]
        assert [v for _day, v in profiles.result_series(seats, Table.PREFERANS, None)] == [
            Decimal("13.33"),
            Decimal("-20.00"),
            Decimal("46.67"),
        ]
        with translation.override("en"):
            days = [d for d, _v in profiles.result_series(seats, Table.PREFERANS, spring)]
        assert days == ["1 Mar 26", "5 Mar 26"]

    def test_the_member_page_shows_statistics_head_to_head_and_charts(
        self, client: Client, history
    ):
        url = reverse("members:detail", args=["anna"])

        response = client.get(url, {"season": Season.objects.get().pk})

        assert response.status_code == 200
        html = response.content.decode()
        assert "style=" not in html
        assert "<style" not in html
        assert "Preferans statistics" in html
        assert "Boston statistics" in html
        assert "Head to head" in html
        assert "1.50 per pass-out" in html
        assert "4 pool points" in html
        assert f'href="{reverse("members:detail", args=["boris"])}"' in html
        charts = svgs(html)
        titles = [c.find("{http://www.w3.org/2000/svg}title").text for c in charts]
        assert titles == [
            "Preferans: cumulative result, Spring",
            "Boston: cumulative result, Spring",
            "Preferans: rating after each table",
            "Boston: rating after each table",
        ]
        lines = [c.find(".//{http://www.w3.org/2000/svg}polyline") for c in charts]
        assert len(lines[0].get("points").split()) == 2  # the two spring pulkas
        rated = RatingHistory.objects.filter(member=history["Anna"], game=Table.PREFERANS).count()
        assert len(lines[2].get("points").split()) == rated == 3
        assert 'aria-current="page">Spring<' in html

        all_time = client.get(url, {"season": "all"}).content.decode()
        assert "Preferans: cumulative result, all time" in all_time

    def test_ten_rivals_or_fewer_per_game_need_no_link(self, client: Client, history):
        section = head_to_head(
            client.get(reverse("members:detail", args=["anna"])).content.decode()
        )

        assert rival_names(section) == ["Boris", "Gleb", "Vera", "Boris", "Gleb", "Vera"]
        assert "?rivals=all" not in section
        assert "with the most tables together" not in section


@pytest.mark.parametrize(
    ("asked", "today", "expected"),
    [
        (None, datetime.date(2026, 4, 1), "Spring"),  # the current season
        (None, datetime.date(2026, 7, 1), "Spring"),  # between seasons: the latest begun
        (None, datetime.date(2026, 1, 1), None),  # before any season: all time
        ("all", datetime.date(2026, 4, 1), None),
        ("nonsense", datetime.date(2026, 4, 1), "Spring"),
        ("autumn", datetime.date(2026, 4, 1), "Autumn"),
    ],
)
def test_which_season_the_chart_shows(asked, today, expected):
    spring = Season(pk=1, name="Spring", starts_on=SPRING[0], ends_on=SPRING[1])
    autumn = Season(
        pk=2,
        name="Autumn",
        starts_on=datetime.date(2026, 9, 1),
        ends_on=datetime.date(2026, 11, 30),
    )
    asked = "2" if asked == "autumn" else asked

    chosen = profiles.chosen_season([autumn, spring], asked, today)

    assert (chosen.name if chosen else None) == expected


def test_a_member_without_tables_has_a_plain_page(client: Client, club):
    html = client.get(reverse("members:detail", args=["gleb"])).content.decode()

    assert "No tables yet." in html
    assert "<svg" not in html
    assert "Head to head" not in html


@pytest.mark.parametrize("tables", [2, 12])
def test_the_profile_costs_the_same_queries_whatever_the_history(
    client: Client, club, django_assert_num_queries: Any, tables: int
):
    anna, boris, vera, gleb = (club[n] for n in ("Anna", "Boris", "Vera", "Gleb"))
    Season.objects.create(name="Spring", starts_on=SPRING[0], ends_on=SPRING[1])
    for i in range(tables):
        seated = [anna, boris, vera] if i % 2 else [anna, boris, gleb]
        finished_pulka(seated, seated[i % 3], datetime.date(2026, 3, 1 + i))
    factories.pulka([anna, vera, gleb])  # in play: listed, not counted
    url = reverse("members:detail", args=["anna"])

    # A visitor: the version of the page (his latest seat and the stamp: 1), then the page:
    # the member with his latest seat and the standings stamp, his groups (2), his totals,
    # rating history, the seasons, the seats the chart draws, his latest tables and the
    # head-to-head (6), the club's name (1).
    with django_assert_num_queries(10):
        response = client.get(url)
    # Again, nothing changed: the page is kept whole for visitors (its version only).
    with django_assert_num_queries(1):
        client.get(url)
    # A member signed in gets the same kept page with his own parts filled in: its version
    # (1), the session and himself with whether he is an organiser (2). Another member's
    # balance is not his to see, so nothing of Anna's is asked.
    client.force_login(vera)
    with django_assert_num_queries(3):
        client.get(url)

    assert len(response.context["profile"].lines) == tables + 1
    assert response.context["profile"].preferans.tables == tables
    assert sum(r.tables for r in response.context["profile"].rivals) == 2 * tables


# -- the rows ------------------------------------------------------------------------------


def test_remembered_dates_follow_the_language():
    day = datetime.date(2026, 3, 1)

    with translation.override("en"):
        english = profiles.date_texts(profiles.CHART_DAY)(day)
    with translation.override("ru"):
        russian = profiles.date_texts(profiles.CHART_DAY)(day)

    assert english == "1 Mar 26"
    assert russian != english
    with translation.override("en"):
        assert profiles.date_texts("SHORT_DATE_FORMAT")(day) == "03/01/2026"


def test_names_in_the_rows_are_escaped(client: Client, club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    boris.display_name = "<b>Bo & 'Ris'</b>"
    boris.save(update_fields=["display_name"])
    finished_pulka([anna, boris, vera], anna, datetime.date(2026, 3, 1))

    html = client.get(reverse("members:detail", args=["anna"])).content.decode()

    assert "<b>Bo" not in html
    assert "&lt;b&gt;Bo &amp; &#x27;Ris&#x27;&lt;/b&gt;</a>" in html  # as {{ name }} writes it


# -- the head-to-head's first ten per game -------------------------------------------------------


# Anna's Preferans rivals, as they are made (not in the order the page lists them), and
# the pulkas she plays with them: each pair once, Nina and Oleg twice more, Kira and Yuri
# once more.
TWELVE = ("Zoya", "Yuri", "Oleg", "Nina", "Mark", "Pavel", "Lev", "Kira", "Ivan", "Egor")
TWELVE += ("Fedor", "Hana")
PULKAS = [TWELVE[i : i + 2] for i in range(0, 12, 2)]
PULKAS += [("Nina", "Oleg"), ("Nina", "Oleg"), ("Kira", "Yuri")]
# Most tables together first, then by name: Pavel and Zoya, with one table as six of the
# listed ones, come after them by name.
FIRST_TEN = [("Nina", 3), ("Oleg", 3), ("Kira", 2), ("Yuri", 2)]
FIRST_TEN += [(name, 1) for name in ("Egor", "Fedor", "Hana", "Ivan", "Lev", "Mark")]
BOSTON_THREE = [("Boris", 1), ("Gleb", 1), ("Vera", 1)]


def build_many_rivals(club: dict[str, Any]) -> dict[str, Any]:
    """Anna with twelve Preferans rivals (``PULKAS``) and three Boston ones (a table with
    Boris, Vera and Gleb)."""
    anna = club["Anna"]
    rival = {name: factories.member(name, username=name.lower()) for name in TWELVE}
    for i, (first, second) in enumerate(PULKAS):
        finished_pulka([anna, rival[first], rival[second]], anna, datetime.date(2026, 3, 1 + i))
    factories.boston_table(
        [anna, club["Boris"], club["Vera"], club["Gleb"]],
        deals=[{"kind": "pass"}],
        finished=True,
        played_on=datetime.date(2026, 3, 20),
    )
    return club


@pytest.fixture(scope="class")
def many_rivals_club(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """``build_many_rivals()`` on the ``club``'s members, once for a class's tests."""
    with built_once(django_db_blocker):
        yield build_many_rivals(factories.club_members())


@pytest.mark.usefixtures("many_rivals_club")
class TestManyRivals:
    """The tests that read Anna's ``many_rivals``, built once for them all
    (``many_rivals_club``): each test runs in a savepoint on top of it and gets its own
    copies of the members."""

    @pytest.fixture
    def many_rivals(self, many_rivals_club: dict[str, Any]) -> dict[str, Any]:
        return fresh(many_rivals_club)

    def test_the_head_to_head_can_keep_the_rivals_with_the_most_tables_per_game(self, many_rivals):
        anna = many_rivals["Anna"]

        shown = profiles.rivals(anna, per_game=profiles.RIVALS_SHOWN)
        every = profiles.rivals(anna)

        assert profiles.RIVALS_SHOWN == 10
        assert [(r.game, r.name, r.tables) for r in shown] == [
            *(("boston", name, tables) for name, tables in BOSTON_THREE),
            *(("preferans", name, tables) for name, tables in FIRST_TEN),
        ]
        assert [(r.game, r.name, r.tables) for r in every] == [
            *(("boston", name, tables) for name, tables in BOSTON_THREE),
            *(("preferans", name, tables) for name, tables in FIRST_TEN),
            ("preferans", "Pavel", 1),
            ("preferans", "Zoya", 1),
        ]
        # The same rows, whether cut or not.
        assert shown == [r for r in every if r.name not in ("Pavel", "Zoya")]
        assert {(r.game, r.in_game) for r in every} == {("boston", 3), ("preferans", 12)}
        assert profiles.rivals_cut(shown) == [profiles.RivalsCut("preferans", 10, 12)]
        assert profiles.rivals_cut(every) == []

    @pytest.mark.parametrize("asked", [None, "ALL", "all ", "1", "yes"])
    def test_the_member_page_lists_ten_rivals_per_game_and_links_to_all(
        self, client: Client, many_rivals, asked
    ):
        url = reverse("members:detail", args=["anna"])

        section = head_to_head(client.get(url, {"rivals": asked} if asked else {}).content.decode())

        assert rival_names(section) == [n for n, _t in BOSTON_THREE] + [n for n, _t in FIRST_TEN]
        note = "Preferans: the 10 rivals of 12 with the most tables together."
        assert f'<p>{note} <a href="?rivals=all#head-to-head">All rivals</a></p>' in section
        assert "Boston:" not in section

    def test_all_rivals_on_request(self, client: Client, many_rivals):
        url = reverse("members:detail", args=["anna"])

        section = head_to_head(client.get(url, {"rivals": "all"}).content.decode())

        assert rival_names(section) == [
            *(n for n, _t in BOSTON_THREE),
            *(n for n, _t in FIRST_TEN),
            "Pavel",
            "Zoya",
        ]
        assert "?rivals=all" not in section
        assert "with the most tables together" not in section

    def test_the_rivals_link_in_russian(self, many_rivals):
        url = reverse("members:detail", args=["anna"])

        section = head_to_head(Client().get(url).content.decode())

        note = "Преферанс: 10 соперников из 12, с кем больше всего общих столов."
        assert f'<p>{note} <a href="?rivals=all#head-to-head">Все соперники</a></p>' in section

    def test_the_cache_keeps_the_short_and_the_full_head_to_head_apart(
        self, client: Client, many_rivals, django_assert_num_queries: Any
    ):
        url = reverse("members:detail", args=["anna"])
        full = {"rivals": "all"}

        # Each kind of list is made once (the page's version, and the 9 queries of a profile,
        # the cut one among them; the club's name only the first time, then it is cached)…
        with django_assert_num_queries(10):
            short = client.get(url)
        with django_assert_num_queries(9):
            every = client.get(url, full)
        # …and then comes from the cache, each under its own key (the page's version only).
        with django_assert_num_queries(1):
            short_again = client.get(url)
        with django_assert_num_queries(1):
            every_again = client.get(url, full)

        sizes = [
            len(rival_names(head_to_head(r.content.decode())))
            for r in (short, every, short_again, every_again)
        ]
        assert sizes == [13, 15, 13, 15]
