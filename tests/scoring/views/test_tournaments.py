"""The tournament pages (scoring/views/tournaments.py): the list, a tournament's page with
its standings explained, the big screen, the seating and table cards, the CSV, and the
judges' writes with their refusals."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring.models import Penalty, Tour, Tournament
from scoring.services import tournaments as services
from tests import factories
from tests.factories import HTMX

pytestmark = pytest.mark.django_db


@pytest.fixture
def judge() -> Member:
    return factories.member("Judith")


@pytest.fixture
def cup(judge: Member) -> Tournament:
    """Six players, two tours of raw results; tour 1 played and closed."""
    tournament = factories.tournament()
    tournament.judges.add(judge)
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=judge)
    factories.tour_played(tour, judge)
    services.tour_close(tour=tour)
    return tournament  # type: ignore[no-any-return]


def _detail(t: Tournament) -> str:
    return reverse("scoring:tournament_detail", args=[t.pk])


def test_the_list_shows_each_tournament(client: Client, cup: Tournament) -> None:
    page = client.get(reverse("scoring:tournament_list")).content.decode()
    assert "Cup" in page and _detail(cup) in page


def test_the_page_shows_standings_with_every_number_explained(
    client: Client, cup: Tournament, django_assert_num_queries: Any
) -> None:
    with django_assert_num_queries(7):
        page = client.get(_detail(cup)).content.decode()
    assert "Standings" in page and "after tour 1" in page
    assert "result 66.67, counted as it is → 66.67" in page
    assert "66.67 (tours counted) = 66.67" in page
    tour = cup.tour_set.get()
    for link in tour.tables.all():
        assert reverse("scoring:table_detail", args=[link.table_id]) in page


def test_the_page_costs_the_same_queries_after_more_tours(
    client: Client, cup: Tournament, judge: Member, django_assert_num_queries: Any
) -> None:
    tour = services.tour_seat(tournament=cup, by=judge)
    factories.tour_played(tour, judge)
    services.tour_close(tour=tour)
    with django_assert_num_queries(7):
        page = client.get(_detail(cup)).content.decode()
    assert "Standings after tour 1" in page and "after tour 2" in page


def test_the_russian_page_writes_numbers_the_russian_way(client: Client, cup: Tournament) -> None:
    page = client.get(_detail(cup), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Турнирная таблица" in page
    assert "66,67" in page


def test_the_big_screen_refreshes_its_region_every_ten_seconds(
    client: Client, cup: Tournament
) -> None:
    page = client.get(_detail(cup) + "?screen=1").content.decode()
    assert (
        'hx-trigger="every 10s, live-changed"' in page
        and "big-screen" in page
        and "<header" in page
    )
    region = client.get(reverse("scoring:tournament_screen", args=[cup.pk]), **HTMX)
    html = region.content.decode()
    assert html.lstrip().startswith('<div id="screen-body"') and "<header" not in html


def test_htmx_gets_the_standings_and_the_tours_alone(
    client: Client, cup: Tournament, judge: Member, django_assert_num_queries: Any
) -> None:
    # The region the page's poll and its stream fetch (scoring.live.push): the standings
    # and every tour, the judge's forms in them, and nothing of the field or penalties.
    tour = services.tour_seat(tournament=cup, by=judge)
    client.force_login(judge)
    # The presenter's 6 (tournament, field, tours, tables, seats, penalties), the session,
    # the judge and whether he judges this one: the whole page's 10 less the club's header.
    with django_assert_num_queries(9):
        html = client.get(_detail(cup), **HTMX).content.decode()
    assert html.lstrip().startswith('<div id="tournament-live"') and "<header" not in html
    assert "after tour 1" in html and "Close the tour" in html
    assert reverse("scoring:tour_close", args=[cup.pk, tour.number]) in html
    assert "<h2>The field (" not in html and "Give a penalty" not in html
    assert reverse("scoring:penalty_add", args=[cup.pk]) not in html


def test_the_seating_page_and_the_table_cards(client: Client, cup: Tournament) -> None:
    tour = cup.tour_set.get()
    seating = client.get(reverse("scoring:tour_seating", args=[cup.pk, 1])).content.decode()
    cards = client.get(reverse("scoring:tour_cards", args=[cup.pk, 1])).content.decode()
    for seat in tour.seats.select_related("entry__member"):
        assert seat.entry.name in seating and seat.entry.name in cards
    assert cards.count('class="table-card"') == 2
    assert client.get(reverse("scoring:tour_seating", args=[cup.pk, 9])).status_code == 404


def test_the_csv_has_one_row_per_player_and_tour(client: Client, cup: Tournament) -> None:
    response = client.get(reverse("scoring:tournament_csv", args=[cup.pk]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["tour", "player", "table", "result", "place", "points", "total"]
    assert len(rows) == 7
    tour = cup.tour_set.get()
    winner = tour.seats.select_related("entry__member", "table").get(position=0, table__number=1)
    row = next(r for r in rows if r[1] == winner.entry.name)
    assert row == [
        "1",
        winner.entry.name,
        str(winner.table.table_id),
        "66.67",
        "1",
        "66.67",
        "66.67",
    ]


def test_a_judge_gives_a_penalty_and_a_member_may_not(
    client: Client, cup: Tournament, judge: Member
) -> None:
    entry = cup.entries.first()
    assert entry is not None
    data = {"entry": entry.pk, "category": "points", "points": "2.5", "reason": "slow play"}
    client.force_login(factories.member("Somebody"))
    assert client.post(reverse("scoring:penalty_add", args=[cup.pk]), data).status_code == 403
    assert not Penalty.objects.exists()

    client.force_login(judge)
    response = client.post(reverse("scoring:penalty_add", args=[cup.pk]), data)
    assert response.status_code == 302
    assert Penalty.objects.get().points == Decimal("2.5")
    assert "slow play" in client.get(_detail(cup)).content.decode()


def test_a_penalty_without_a_reason_is_refused_in_russian(
    client: Client, cup: Tournament, judge: Member
) -> None:
    entry = cup.entries.first()
    assert entry is not None
    client.force_login(judge)
    response = client.post(
        reverse("scoring:penalty_add", args=[cup.pk]),
        {"entry": entry.pk, "category": "points", "points": "abc", "reason": "x"},
        HTTP_ACCEPT_LANGUAGE="ru",
        follow=True,
    )
    assert "очки" in response.content.decode()
    assert not Penalty.objects.exists()


def test_a_judge_seats_the_next_tour_and_lands_on_its_seating(
    client: Client, cup: Tournament, judge: Member
) -> None:
    client.force_login(judge)
    response = client.post(reverse("scoring:tour_seat", args=[cup.pk]))
    assert response["Location"] == reverse("scoring:tour_seating", args=[cup.pk, 2])
    assert Tour.objects.filter(tournament=cup).count() == 2


def test_the_tour_protocol_prints_each_table_with_results_places_and_points(
    client: Client, cup: Tournament, judge: Member
) -> None:
    """Tour 1: two tables of three; at each the declarer's unplayed 10NT gives him +66.67
    whists and each other player −33.33 (Sochi, pool 10); raw points are the results."""
    response = client.get(reverse("scoring:tour_protocol", args=[cup.pk, 1]))
    page = response.content.decode()
    assert response.status_code == 200
    assert 'class="print protocol"' in page and "Tour 1: results" in page
    assert page.count('class="protocol__table"') == 2
    tour = cup.tour_set.get()
    for seat in tour.seats.select_related("entry__member"):
        assert seat.entry.name in page
    # Per table: the winner's result and points (2 × 66.67), the others' (2 × 2 × −33.33).
    assert page.count("<strong>66.67</strong>") == 2
    assert page.count(">66.67<") == 2 + 2
    assert page.count(">-33.33<") == 2 * 2 * 2
    assert "Chief judge" in page and "Judith" in page
    detail = client.get(_detail(cup)).content.decode()
    assert reverse("scoring:tour_protocol", args=[cup.pk, 1]) in detail
    assert client.get(reverse("scoring:tour_protocol", args=[cup.pk, 9])).status_code == 404


def test_the_standings_protocol_ranks_the_field_with_a_fixed_number_of_queries(
    client: Client, cup: Tournament, judge: Member, django_assert_num_queries: Any
) -> None:
    url = reverse("scoring:tournament_protocol", args=[cup.pk])
    with django_assert_num_queries(7):
        page = client.get(url).content.decode()
    assert "Standings after tour 1" in page  # tour 2 is still to play
    assert page.count("<strong>66.67</strong>") == 2  # the two table winners' totals
    assert page.count("<strong>-33.33</strong>") == 4
    assert (
        reverse("scoring:tournament_protocol", args=[cup.pk])
        in client.get(_detail(cup)).content.decode()
    )

    tour = services.tour_seat(tournament=cup, by=judge)
    factories.tour_played(tour, judge)
    services.tour_close(tour=tour)
    with django_assert_num_queries(7):
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Итоговая таблица" in page and "Главный судья" in page


def test_there_is_no_standings_protocol_before_a_tour_is_closed(client: Client) -> None:
    tournament = factories.tournament()
    url = reverse("scoring:tournament_protocol", args=[tournament.pk])
    assert client.get(url).status_code == 404
