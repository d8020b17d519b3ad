"""A finished table's result confirmed on the phone (scoring/views/confirmations.py): on
the table's page (htmx and a plain POST) and on the tournament's page, the state in
words on both, the reopen button while it is provisional, and the tour's close refused
in Russian while a table waits."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring.models import AuditEntry, Table, Tour, Tournament
from scoring.services import tournaments as services
from scoring.services.confirmations import table_confirm
from tests import factories
from tests.factories import HTMX

pytestmark = pytest.mark.django_db
RU = {"HTTP_ACCEPT_LANGUAGE": "ru"}


@pytest.fixture
def judge() -> Member:
    return factories.member("Judith")


@pytest.fixture
def tour(judge: Member) -> Tour:
    """Six players at two tables of three; tour 1 played, nobody has confirmed."""
    tournament = factories.tournament(correction_minutes=0)
    tournament.judges.add(judge)
    services.tournament_start(tournament=tournament, seed=7)
    seated = services.tour_seat(tournament=tournament, by=judge)
    return factories.tour_played(seated, judge, confirm=False)  # type: ignore[no-any-return]


def _table(tour: Tour, number: int = 1) -> Table:
    return tour.tables.get(number=number).table


def _players(table: Table) -> list[Member]:
    return [s.member for s in table.seats.order_by("position").select_related("member")]


def _confirm(client: Client, table: Table, **headers: Any) -> Any:
    return client.post(
        reverse("scoring:table_confirm", args=[table.pk]), factories.drawn(table), **headers
    )


def test_the_table_page_says_provisional_and_offers_the_player_his_tap(
    client: Client, tour: Tour, django_assert_num_queries: Any
) -> None:
    table = _table(tour)
    client.force_login(_players(table)[0])
    url = reverse("scoring:table_detail", args=[table.pk])
    client.get(url, **RU)  # the sheet and the history are drawn once per revision
    # The session, the member, the table's version (from Redis where one is shared:
    # live.revisions), the tour link with its tournament and the table's confirmations (the
    # table with its seats, the sheet, the history and the page around his parts come from
    # the cache, kept under the table's revision).
    with django_assert_num_queries(5):
        page = client.get(url, **RU).content.decode()
    assert "предварительно: подтвердили 0 из 3" in page
    assert "станет окончательным, когда подтвердят все игроки" in page
    assert reverse("scoring:table_confirm", args=[table.pk]) in page
    assert "Подтвердить результат" in page
    # while provisional, the player himself may reopen it to correct a deal
    assert reverse("scoring:table_reopen", args=[table.pk]) in page


def test_a_member_not_at_the_table_sees_the_state_and_no_button(client: Client, tour: Tour) -> None:
    table = _table(tour)
    client.force_login(factories.member("Mila"))
    page = client.get(reverse("scoring:table_detail", args=[table.pk]), **RU).content.decode()
    assert "предварительно: подтвердили 0 из 3" in page
    assert reverse("scoring:table_confirm", args=[table.pk]) not in page
    assert reverse("scoring:table_reopen", args=[table.pk]) not in page


def test_htmx_confirms_and_gets_the_table_body_again(client: Client, tour: Tour) -> None:
    table = _table(tour)
    first = _players(table)[0]
    client.force_login(first)

    response = _confirm(client, table, **HTMX, **RU)

    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="table-body"')
    assert "предварительно: подтвердили 1 из 3" in html
    assert f"Подтвердили: {first.name}" in html
    assert reverse("scoring:table_confirm", args=[table.pk]) not in html  # his tap is in
    assert response["X-Table-Revision"] == str(Table.objects.get(pk=table.pk).revision)
    assert table.audit.filter(action=AuditEntry.CONFIRM, actor=first).count() == 1


def test_without_javascript_the_last_tap_makes_it_final(client: Client, tour: Tour) -> None:
    table = _table(tour)
    *others, last = _players(table)
    for player in others:
        table_confirm(table=table, by=player)
    client.force_login(last)

    response = _confirm(client, table)

    assert response.status_code == 302
    assert response["Location"] == reverse("scoring:table_detail", args=[table.pk])
    page = client.get(response["Location"], **RU).content.decode()
    assert "окончательно" in page and "предварительно" not in page
    # final: a player no longer reopens it; the judge would, with a reason
    assert reverse("scoring:table_reopen", args=[table.pk]) not in page


def test_a_tap_sent_twice_is_answered_as_the_first_and_stored_once(
    client: Client, tour: Tour
) -> None:
    table = _table(tour)
    client.force_login(_players(table)[0])
    data = {**factories.drawn(table), "write_key": "5b0c1c8e-2f49-4c8e-9a55-0d6f3c1e7a10"}
    url = reverse("scoring:table_confirm", args=[table.pk])
    assert client.post(url, data).status_code == 302
    assert client.post(url, data).status_code == 302
    assert table.audit.filter(action=AuditEntry.CONFIRM).count() == 1


def test_the_tournament_page_shows_each_table_s_state_and_the_player_s_button(
    client: Client, tour: Tour, django_assert_num_queries: Any
) -> None:
    table = _table(tour, 2)
    player = _players(table)[0]
    client.force_login(player)
    url = reverse("scoring:tournament_detail", args=[tour.tournament_id])
    # The page's 10 with a tour in play, and its finished tables' seats and confirmations.
    with django_assert_num_queries(12):
        page = client.get(url, **RU).content.decode()
    assert page.count("предварительно: подтвердили 0 из 3") == 2
    mine = reverse("scoring:tour_table_confirm", args=[tour.tournament_id, 1, 2])
    theirs = reverse("scoring:tour_table_confirm", args=[tour.tournament_id, 1, 1])
    assert mine in page and theirs not in page

    response = client.post(mine, factories.drawn(table), **RU)

    assert response.status_code == 302 and response["Location"] == url
    page = client.get(url, **RU).content.decode()
    assert "Стол 2: результат подтверждён." in page
    assert "предварительно: подтвердили 1 из 3" in page
    assert mine not in page


def test_closing_the_tour_says_in_russian_which_tables_wait_and_for_whom(
    client: Client, tour: Tour, judge: Member
) -> None:
    client.force_login(judge)
    waiting = ", ".join(p.name for p in _players(_table(tour, 2)))
    table_confirm(table=_table(tour, 1), by=judge)

    response = client.post(
        reverse("scoring:tour_close", args=[tour.tournament_id, 1]), follow=True, **RU
    )

    page = response.content.decode()
    assert f"результаты ещё не окончательные: стол 2 (ждём: {waiting})" in page
    assert not Tour.objects.get(pk=tour.pk).is_closed
    assert Tournament.objects.get(pk=tour.tournament_id).is_running


def test_the_judge_confirms_for_the_whole_table_from_the_tournament_page(
    client: Client, tour: Tour, judge: Member
) -> None:
    client.force_login(judge)
    url = reverse("scoring:tournament_detail", args=[tour.tournament_id])
    page = client.get(url).content.decode()
    for number in (1, 2):
        link = reverse("scoring:tour_table_confirm", args=[tour.tournament_id, 1, number])
        assert link in page
        client.post(link, factories.drawn(_table(tour, number)))
    page = client.get(url).content.decode()
    assert page.count("result final") == 2
    closed = client.post(reverse("scoring:tour_close", args=[tour.tournament_id, 1]))
    assert closed.status_code == 302
    assert Tour.objects.get(pk=tour.pk).is_closed
