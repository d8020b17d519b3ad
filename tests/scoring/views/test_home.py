"""The home page, the club's dashboard: tonight's evening, the tables in play with their
mini sheets, the leaders of the season, the next evening, the latest finished tables and a
member's own last results; what a visitor, a member and an organiser each see."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from scoring import services
from scoring.models import (
    Attendance,
    Evening,
    EveningTable,
    Guest,
    HomeStamp,
    Season,
    Seat,
    Table,
)
from scoring.services import calendar, evenings
from tests import factories
from tests.factories import finished_pulka
from tests.html_forms import form_data

pytestmark = pytest.mark.django_db

HOME = "/"


def days_ago(n: int) -> datetime.date:
    return timezone.localdate() - datetime.timedelta(days=n)


def leaders(response: Any) -> dict[str, list[tuple[int, str]]]:
    return {
        game: [(line.rank, line.name) for line in lines]
        for game, _label, _url, lines in response.context["leaders"]
    }


def test_the_home_page_keeps_its_introduction(client: Client):
    """The club's welcome (scoring.models.Club: the migration's texts) and what the site
    does, in the page's language."""
    english = client.get(HOME).content.decode()
    russian = Client().get(HOME).content.decode()  # the site's own language

    assert "<h1>Preferans and Boston club</h1>" in english
    assert "Our club&#x27;s site for scoring Preferans (the pulka) and Boston" in english
    assert "Deal by deal." in english
    assert "<h1>Клуб преферанса и бостона</h1>" in russian
    assert "Сайт нашего клуба для подсчёта очков в преферанс (пулька) и бостон" in russian
    assert "Запись по раздачам." in russian
    for html in (english, russian):
        assert "style=" not in html
        assert "<style" not in html


def test_tables_in_play_and_the_latest_finished(client: Client, club):
    anna, boris, vera, gleb, _dina = club.values()
    in_play = factories.pulka([anna, boris, vera])
    finished = [finished_pulka([anna, boris, gleb], anna, days_ago(10 - i)).pk for i in range(6)]

    response = client.get(HOME)

    html = response.content.decode()
    live, latest = html.split('id="latest"')
    assert f'href="{reverse("scoring:table_detail", args=[in_play.pk])}"' in live
    assert "updates live" in live
    shown = [int(pk) for pk in re.findall(r'href="/tables/(\d+)/"', latest)]
    assert shown == finished[::-1][:5]  # the five latest, newest first
    assert "Anna, Boris, Gleb" in latest
    assert f'href="{reverse("scoring:table_list")}"' in html


def test_the_current_seasons_top_five(client: Client, club):
    anna, boris, vera, gleb, dina = club.values()
    Season.objects.create(name="Now", starts_on=days_ago(30), ends_on=days_ago(-30), min_games=1)
    finished_pulka([anna, boris, vera], anna, days_ago(40))  # before the season
    finished_pulka([anna, boris, vera], boris, days_ago(3))
    finished_pulka([boris, gleb, dina], boris, days_ago(2))
    finished_pulka([vera, gleb, dina], vera, days_ago(1))

    response = client.get(HOME)

    html = response.content.decode()
    assert "Season Now: the leaders" in html
    board = leaders(response)
    # Boris +133.34; Vera 66.67 − 33.33; then Anna, Gleb and Dina lower.
    assert board[Table.PREFERANS][:2] == [(1, "Boris"), (2, "Vera")]
    assert [rank for rank, _name in board[Table.PREFERANS]] == [1, 2, 3, 4, 5]
    assert board[Table.BOSTON] == []
    assert "Nobody is ranked yet." in html
    season = Season.objects.get()
    url = reverse("scoring:season_standings", kwargs={"pk": season.pk, "game": "preferans"})
    assert f'href="{url}"' in html
    assert f'href="{reverse("members:detail", args=["boris"])}"' in html


def test_between_seasons_the_home_page_shows_all_time(client: Client, club):
    Season.objects.create(name="Old", starts_on=days_ago(90), ends_on=days_ago(60))
    anna, boris, vera = club["Anna"], club["Boris"], club["Vera"]
    finished_pulka([anna, boris, vera], vera, days_ago(1))

    response = client.get(HOME)

    assert "All time: the leaders" in response.content.decode()
    assert leaders(response)[Table.PREFERANS][0] == (1, "Vera")


def test_private_standings_stay_off_the_home_page(client: Client, club, settings):
    settings.STANDINGS_PUBLIC = False
    anna, boris, vera = club["Anna"], club["Boris"], club["Vera"]
    finished_pulka([anna, boris, vera], anna, days_ago(1))

    anonymous = client.get(HOME)
    client.force_login(anna)
    member = client.get(HOME)

    assert "leaders" not in anonymous.context
    assert 'id="leaders"' not in anonymous.content.decode()
    assert 'id="leaders"' in member.content.decode()


# Tonight: Anna and Boris here (Boris sits out) and a guest; Vera, Gleb and Dina are not.
VERA_MADE_SIX = {
    "kind": "game",
    "declarer": "Vera",
    "contract": "6H",
    "answers": {"Anna": "pass", "Dina": "pass"},
}


@pytest.fixture
def tonight(club) -> dict[str, Any]:
    """Tonight's evening with three checked in, one of its tables in play (one deal: Vera's
    six of hearts, both defenders passing), another table in play outside it, an evening
    announced for next week, and a finished table of Gleb's."""
    anna, boris, vera, gleb, dina = club.values()
    organiser = factories.member("Olga", username="olga", organiser=True)
    evening = Evening.objects.create(
        organiser=organiser, played_on=timezone.localdate(), place="Room 5"
    )
    Attendance.objects.create(evening=evening, member=anna)
    Attendance.objects.create(evening=evening, member=boris, sits_out=True)
    Attendance.objects.create(evening=evening, guest=Guest.objects.create(name="Pavel"))
    at_evening = factories.pulka([anna, vera, dina], deals=[VERA_MADE_SIX])
    EveningTable.objects.create(evening=evening, table=at_evening, round=1)
    elsewhere = factories.boston_table([boris, gleb, dina, anna])
    finished_pulka([gleb, boris, dina], gleb, days_ago(3))
    announced = Evening.objects.create(
        organiser=organiser, played_on=days_ago(-7), place="The river house"
    )
    Evening.objects.create(organiser=organiser, played_on=days_ago(-14), place="Later")
    return {
        "evening": evening,
        "at_evening": at_evening,
        "elsewhere": elsewhere,
        "announced": announced,
        "organiser": organiser,
    }


def section(html: str, id_: str) -> str:
    """The HTML of ``<section id="id_">`` (empty if the page has none)."""
    start = html.find(f'<section id="{id_}"')
    if start < 0:
        return ""
    return html[start : html.index("</section>", start)]


def test_a_tables_card_shows_its_mini_sheet(client: Client, tonight):
    """Vera's six made with both defenders passing: 2 in her pool (Sochi: a six is worth
    2), nothing on any mountain, no whists written. The balance, as if settled now: her
    pool's 2 points are 20 whists (10 each), the mean is 20 / 3 = 6.67, so Vera +13.33 and
    Anna and Dina −6.67 each; one deal."""
    html = client.get(HOME).content.decode()

    cards = section(html, "in-play")
    card = cards[cards.index(f'id="table-{tonight["at_evening"].pk}-title"') :]
    card = card[: card.index("</article>")]
    assert '<span class="badge badge--live">in play</span>' in card
    assert "round 1" in card
    assert "1 deal" in card
    rows = re.findall(r'<tr><th scope="row">(\w+)</th>(.*?)</tr>', card)
    cells = {name: re.findall(r'<td class="num">([^<]*)</td>', row) for name, row in rows}
    assert cells == {
        "Anna": ["0", "0", "-6.67"],
        "Vera": ["2", "0", "13.33"],
        "Dina": ["0", "0", "-6.67"],
    }
    assert f'href="/tables/{tonight["elsewhere"].pk}/"' in cards  # outside the evening too


def test_a_visitor_sees_the_club_without_the_private_parts(client: Client, tonight):
    html = client.get(HOME).content.decode()

    here = section(html, "tonight")
    assert "Room 5" in here
    assert "Anna" in here
    assert 'Boris <span class="badge badge--muted">sits out</span>' in here
    assert 'Pavel <span class="badge badge--guest">guest</span>' in here
    assert "Vera" not in here
    assert re.search(r'stat__value">3<.*?checked in', here)
    assert re.search(r'stat__value">1<.*?tables in play', here)  # the Boston table is not its
    nxt = section(html, "next-evening")
    assert f'href="{reverse("scoring:evening_detail", args=[tonight["announced"].pk])}"' in nxt
    assert "The river house" in nxt
    assert "Later" not in nxt
    assert 'id="own-results"' not in html
    assert "I am here" not in html
    assert "Run the evening" not in html
    assert "Announce an evening" not in html
    assert "style=" not in html


def test_a_member_sees_his_own_results_and_checks_himself_in(client: Client, club, tonight):
    client.force_login(club["Gleb"])

    html = client.get(HOME).content.decode()

    here = section(html, "tonight")
    check_in = reverse("scoring:evening_check_in", args=[tonight["evening"].pk])
    assert f'action="{check_in}"' in here
    assert f'name="member" value="{club["Gleb"].pk}"' in here
    assert "Run the evening" not in html
    own = section(html, "own-results")
    # Gleb won his one finished table (finished_pulka: the winner +66.67 whists).
    seat = Seat.objects.get(member=club["Gleb"], table__status=Table.FINISHED)
    assert f'<a href="/tables/{seat.table_id}/">Preferans #{seat.table_id}</a>' in own
    assert "badge--done" in own
    assert f"{seat.result:.2f} whists" in own
    assert f'href="{reverse("members:detail", args=["gleb"])}"' in own
    assert f'href="/tables/{tonight["elsewhere"].pk}/"' not in own  # in play: no result yet


def test_a_member_who_is_here_is_not_asked_again(client: Client, club, tonight):
    client.force_login(club["Anna"])

    here = section(client.get(HOME).content.decode(), "tonight")

    assert "You are checked in" in here
    assert "I am here" not in here


def test_an_organiser_runs_the_evening_from_the_home_page(client: Client, tonight):
    client.force_login(tonight["organiser"])

    here = section(client.get(HOME).content.decode(), "tonight")

    url = reverse("scoring:evening_detail", args=[tonight["evening"].pk])
    assert f'<a class="button" href="{url}">Run the evening</a>' in here
    assert "I am here" in here  # he is not checked in himself


def test_without_an_evening_tonight_an_organiser_may_announce_one(client: Client, club):
    organiser = factories.member("Olga", username="olga", organiser=True)
    visitor = client.get(HOME).content.decode()
    client.force_login(organiser)
    html = client.get(HOME).content.decode()

    assert "No club evening tonight." in section(visitor, "tonight")
    assert "Announce an evening" not in visitor
    assert "No evening is announced yet." in section(visitor, "next-evening")
    assert "No table is in play." in section(visitor, "in-play")
    link = f'<a class="button" href="{reverse("scoring:evening_list")}">Announce an evening</a>'
    assert link in section(html, "tonight")


def test_a_new_deal_shows_on_the_card(client: Client, tonight):
    """The mini sheet is kept per revision: the next deal makes a new one."""
    table = tonight["at_evening"]
    client.get(HOME)
    factories.played(table, [VERA_MADE_SIX], by=table.seats.get(position=0).member)

    card = section(client.get(HOME).content.decode(), "in-play")

    assert "2 deals" in card
    assert re.search(r'<th scope="row">Vera</th><td class="num">4</td>', card)


@pytest.mark.parametrize("tables", [1, 8])
def test_the_home_page_costs_the_same_queries_whatever_the_tables(
    client: Client, club, django_assert_num_queries: Any, tables: int
):
    Season.objects.create(name="Now", starts_on=days_ago(30), ends_on=days_ago(-30), min_games=1)
    members = list(club.values())
    for i in range(tables):
        seated = members[i % 3 : i % 3 + 3]
        finished_pulka(seated, seated[0], days_ago(i % 20))
        factories.pulka(seated)  # in play

    # The page's version (1: selectors.home); making the page: tables in play (1), the
    # latest finished (1), the seats of both (1), each new revision's mini sheet (its
    # deals, 1 a table), tonight's evening (1), the next (1), the season (1), the standings
    # stamp (1), two boards of two queries each (4), the leaders' usernames (1), the
    # club's name (1).
    with django_assert_num_queries(14 + tables):
        response = client.get(HOME)
    # Again, nothing changed: the version, and the page kept for everyone, filled in as a
    # visitor's (clubsite.pages).
    with django_assert_num_queries(1):
        again = client.get(HOME)

    assert again.content == response.content

    assert len(response.context["in_play"]) == tables
    assert len(response.context["latest"]) == min(tables, 5)


@pytest.mark.parametrize("role", ["member", "organiser"])
def test_a_signed_in_dashboard_costs_a_constant_number_of_queries(
    client: Client, club, tonight, django_assert_num_queries: Any, role: str
):
    user = tonight["organiser"] if role == "organiser" else club["Gleb"]
    client.force_login(user)
    client.get(HOME)

    # The session (1) and its member (1); the page's version with tonight's evening (1),
    # and the page kept for everyone; his own parts, who is here and his last results,
    # kept under the page's stamps.
    with django_assert_num_queries(3):
        client.get(HOME)


def test_without_a_home_stamp_the_page_is_made_for_each_request(
    client: Client, club, tonight, django_assert_num_queries: Any
):
    """A database just flushed has no stamp: nothing is kept, and each part is right."""
    HomeStamp.objects.all().delete()
    anna = signed_in(club["Anna"])
    anna.get(HOME)

    # The session, the member and the version (3); the page made: the tables in play, the
    # latest finished, their seats, tonight's evening and who is here, the next evening,
    # the season and the standings stamp (8; the mini sheets and the leaders kept); hers:
    # tonight's evening with her check-in, and her last results (2).
    with django_assert_num_queries(13):
        html = anna.get(HOME).content.decode()

    assert "You are checked in" in section(html, "tonight")
    assert 'id="own-results"' in html
    assert "I am here" not in client.get(HOME).content.decode()


def test_his_last_results_follow_his_tables(club, tonight, django_capture_on_commit_callbacks: Any):
    """Kept under the page's stamps: a finish or a reopen of his table shows at once."""
    gleb = signed_in(club["Gleb"])
    table = factories.pulka([club["Gleb"], club["Vera"], club["Dina"]])
    played = f'href="/tables/{table.pk}/">Preferans #{table.pk}</a>'
    assert played not in section(gleb.get(HOME).content.decode(), "own-results")

    with django_capture_on_commit_callbacks(execute=True):
        services.table_finish(table, by=tonight["organiser"])
    assert played in section(gleb.get(HOME).content.decode(), "own-results")

    with django_capture_on_commit_callbacks(execute=True):
        services.table_reopen(table, by=tonight["organiser"], reason="a typo")
    assert played not in section(gleb.get(HOME).content.decode(), "own-results")


def test_the_tables_in_play_redraw_themselves(
    client: Client, tonight, django_assert_num_queries: Any
):
    """The region polls the home page with htmx and gets itself alone: the tables in play
    and their seats, the mini sheets from the cache."""
    page = client.get(HOME).content.decode()
    region = section(page, "in-play")
    assert 'hx-get="/" hx-trigger="every 10s, live-changed" hx-swap="outerHTML"' in region
    # and a pushed event of any table in play redraws it sooner (static/js/live.js)
    assert 'data-live-events="/events/in-play/" data-live-pause="2"' in region
    table = tonight["at_evening"]
    factories.played(table, [VERA_MADE_SIX], by=table.seats.get(position=0).member)

    with django_assert_num_queries(3):  # the tables, their seats, the new revision's deals
        response = client.get(HOME, headers={"HX-Request": "true"})
    with django_assert_num_queries(2):
        client.get(HOME, headers={"HX-Request": "true"})

    html = response.content.decode()
    assert html.lstrip().startswith('<section id="in-play"')
    assert 'id="tonight"' not in html
    assert "<html" not in html
    assert "2 deals" in html


# -- kept for everyone, each viewer's own parts filled in (clubsite.pages) -------------------


def signed_in(member: Any) -> Client:
    client = Client(headers={"accept-language": "en"})
    client.force_login(member)
    return client


@pytest.mark.parametrize("first", ["member", "organiser"])
def test_a_visitor_never_sees_the_parts_of_whoever_made_the_page(
    client: Client, club, tonight, first: str
):
    """The page is made once, whoever asks first; a member's own parts are never in it."""
    maker = tonight["organiser"] if first == "organiser" else club["Gleb"]
    made = signed_in(maker).get(HOME).content.decode()
    assert "I am here" in made  # neither is checked in

    html = client.get(HOME).content.decode()

    assert "I am here" not in html
    assert "Run the evening" not in html
    assert 'id="own-results"' not in html
    assert "csrfmiddlewaretoken" not in html
    assert "Sign out" not in html
    assert "Deal by deal." in html  # what the site does: for visitors
    assert "<!--own:" not in html
    assert "<!--own:" not in made


def test_a_member_sees_his_own_parts_in_the_page_a_visitor_made(client: Client, club, tonight):
    client.get(HOME)
    gleb, anna = club["Gleb"], club["Anna"]

    his = signed_in(gleb).get(HOME).content.decode()
    hers = signed_in(anna).get(HOME).content.decode()
    organisers = signed_in(tonight["organiser"]).get(HOME).content.decode()

    check_in = reverse("scoring:evening_check_in", args=[tonight["evening"].pk])
    assert f'action="{check_in}"' in section(his, "tonight")
    assert f'name="member" value="{gleb.pk}"' in section(his, "tonight")
    assert "csrfmiddlewaretoken" in section(his, "tonight")
    assert 'id="own-results"' in his
    assert "Deal by deal." not in his
    assert "You are checked in" in section(hers, "tonight")
    assert "I am here" not in hers
    assert f'name="member" value="{gleb.pk}"' not in hers
    url = reverse("scoring:evening_detail", args=[tonight["evening"].pk])
    assert f'<a class="button" href="{url}">Run the evening</a>' in organisers
    assert "Run the evening" not in his + hers
    # The kept parts are everyone's: who is here, the cards, the next evening.
    for html in (his, hers, organisers):
        assert 'Boris <span class="badge badge--muted">sits out</span>' in html
        assert "The river house" in section(html, "next-evening")


def test_private_leaders_are_a_members_own_part(client: Client, club, settings):
    settings.STANDINGS_PUBLIC = False
    anna, boris, vera = club["Anna"], club["Boris"], club["Vera"]
    finished_pulka([anna, boris, vera], anna, days_ago(1))

    first = signed_in(anna).get(HOME).content.decode()
    visitor = client.get(HOME).content.decode()
    member = signed_in(boris).get(HOME).content.decode()

    assert 'id="leaders"' in first
    assert 'id="leaders"' not in visitor
    assert 'id="leaders"' in member


def test_the_announcement_button_is_an_organisers_own(client: Client, club):
    organiser = factories.member("Olga", username="olga", organiser=True)
    client.get(HOME)

    html = signed_in(organiser).get(HOME).content.decode()

    link = f'<a class="button" href="{reverse("scoring:evening_list")}">Announce an evening</a>'
    assert link in section(html, "tonight")
    assert "Announce an evening" not in signed_in(club["Gleb"]).get(HOME).content.decode()


def _deal(tonight: dict[str, Any]) -> None:
    table = tonight["at_evening"]
    factories.played(table, [VERA_MADE_SIX], by=table.seats.get(position=0).member)


def _opened(tonight: dict[str, Any]) -> None:
    club = tonight["club"]
    tonight["new"] = factories.pulka([club["Gleb"], club["Vera"], club["Boris"]])


def _checked_in(tonight: dict[str, Any]) -> None:
    gleb = tonight["club"]["Gleb"]
    url = reverse("scoring:evening_check_in", args=[tonight["evening"].pk])
    assert signed_in(gleb).post(url, {"member": gleb.pk}).status_code == 302


def _club_edited(tonight: dict[str, Any]) -> None:
    organiser = tonight["organiser"]
    organiser.is_staff = True
    organiser.save(update_fields=["is_staff"])
    admin = signed_in(organiser)
    change = reverse("admin:scoring_club_change", args=[1])
    data = form_data(admin.get(change).content.decode(), "club_form")
    data |= {"intro_en": "We play on Fridays now.", "_save": "Save"}
    assert admin.post(change, data).status_code == 302


def _renamed(tonight: dict[str, Any]) -> None:
    organiser = tonight["organiser"]
    organiser.display_name = "Olga Petrova"
    services.member_save(member=organiser)


def _season(tonight: dict[str, Any]) -> None:
    services.season_save(
        season=Season(name="Winter", starts_on=days_ago(30), ends_on=days_ago(-30))
    )


def _tonight_section(html: str) -> str:
    return section(html, "tonight")


# Each change to what the home page shows, made by the site's own write (a service, a view,
# the admin), and what the next request shows: never the page kept before it.
CHANGES: dict[str, tuple[Any, Any]] = {
    "a deal saved": (_deal, lambda t, html: "2 deals" in section(html, "in-play")),
    "a table opened": (
        _opened,
        lambda t, html: "new" in t and f'href="/tables/{t["new"].pk}/"' in section(html, "in-play"),
    ),
    "a table finished": (
        lambda t: services.table_finish(t["at_evening"], by=t["organiser"]),
        lambda t, html: f'href="/tables/{t["at_evening"].pk}/"' in section(html, "latest"),
    ),
    "a table reopened": (
        lambda t: services.table_reopen(t["finished"], by=t["organiser"], reason="a typo"),
        lambda t, html: f'href="/tables/{t["finished"].pk}/"' in section(html, "in-play"),
    ),
    "a member checked in": (
        _checked_in,
        lambda t, html: re.search(r'stat__value">4<.*?checked in', _tonight_section(html)),
    ),
    "a guest checked in": (
        lambda t: evenings.evening_check_in_guest(
            evening=t["evening"], name="Ivan", by=t["organiser"]
        ),
        lambda t, html: "Ivan" in _tonight_section(html),
    ),
    "a member checked out": (
        lambda t: evenings.evening_check_out(evening=t["evening"], member=t["club"]["Boris"]),
        lambda t, html: "Boris" not in _tonight_section(html),
    ),
    "a member sits out": (
        lambda t: evenings.evening_sits_out(
            evening=t["evening"], member=t["club"]["Anna"], sits_out=True
        ),
        lambda t, html: 'Anna <span class="badge badge--muted">' in _tonight_section(html),
    ),
    "an evening announced": (
        lambda t: evenings.evening_create(
            organiser=t["organiser"],
            played_on=days_ago(-3),
            place="The boathouse",
            game=Table.PREFERANS,
            table_size=3,
        ),
        lambda t, html: "The boathouse" in section(html, "next-evening"),
    ),
    "an evening called off": (
        lambda t: calendar.evening_cancel(evening=t["announced"]),
        lambda t, html: "Later" in section(html, "next-evening"),
    ),
    "the club's introduction edited in the admin": (
        _club_edited,
        lambda t, html: "We play on Fridays now." in html,
    ),
    "a member renamed (the standings stamp)": (
        _renamed,
        lambda t, html: "organiser Olga Petrova" in _tonight_section(html),
    ),
    "a season begun (the standings stamp)": (
        _season,
        lambda t, html: "Season Winter: the leaders" in html,
    ),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_every_change_shows_on_the_next_request(
    client: Client, club, tonight, change: str, django_capture_on_commit_callbacks: Any
):
    """A visitor's and a member's page, kept before the change, are made afresh after it."""
    tonight["club"] = club
    tonight["finished"] = Table.objects.get(status=Table.FINISHED)
    make, shows = CHANGES[change]
    member = signed_in(club["Dina"])
    before = [client.get(HOME).content.decode(), member.get(HOME).content.decode()]
    assert not any(shows(tonight, html) for html in before)

    with django_capture_on_commit_callbacks(execute=True):  # as when the change commits
        make(tonight)

    after = [client.get(HOME).content.decode(), member.get(HOME).content.decode()]
    assert all(shows(tonight, html) for html in after)


def test_the_region_asked_by_htmx_is_never_kept_as_the_page(client: Client, tonight):
    region = client.get(HOME, headers={"HX-Request": "true"}).content.decode()
    page = client.get(HOME).content.decode()

    assert region.lstrip().startswith('<section id="in-play"')
    assert "<html" in page
    assert 'id="tonight"' in page
