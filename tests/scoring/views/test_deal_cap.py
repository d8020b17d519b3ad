"""A tour's deal cap on the table page (issue 32; ``Table.deal_cap``,
scoring/selectors/deal_caps.py): «раздача N из M», the deal beyond the cap refused in
words with nothing stored, and at the cap the table is complete for its players to
finish — a tour of fixed deals (PlayElephant's 6) and a pool with a cap (Gambler's 18)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring.models import DealRecord, Table, Tournament
from scoring.services import tournaments as services
from tests import factories

pytestmark = pytest.mark.django_db
RU = {"HTTP_ACCEPT_LANGUAGE": "ru"}


def _first_table(judge: Member, **fields: Any) -> Table:
    tournament = factories.tournament(**fields)
    tournament.judges.add(judge)
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=judge)
    return tour.tables.get(number=1).table


def _passout(table: Table) -> dict[str, str]:
    """A pass-out at a table of three: 5, 5 and 0 tricks."""
    names = list(table.seats.order_by("position").values_list("name", flat=True))
    return {"kind": "passout", **{f"tricks:{n}": t for n, t in zip(names, "550", strict=True)}}


def _scorer(client: Client, table: Table) -> Member:
    seat = table.seats.order_by("position").select_related("member").first()
    assert seat is not None and seat.member is not None
    client.force_login(seat.member)
    return seat.member


def _page(client: Client, table: Table) -> str:
    url = reverse("scoring:table_detail", args=[table.pk])
    return client.get(url, **RU).content.decode()  # type: ignore[no-any-return]


def test_a_tour_of_two_deals_counts_them_refuses_a_third_and_lets_the_players_finish(
    client: Client,
) -> None:
    judge = factories.member("Judith")
    table = _first_table(judge, length=Tournament.DEALS, deals=2)
    assert table.deal_cap == 2
    _scorer(client, table)
    assert "раздача 1 из 2" in _page(client, table)

    factories.post_deal(client, table, _passout(table))
    assert "раздача 2 из 2" in _page(client, table)
    factories.post_deal(client, table, _passout(table))
    page = _page(client, table)
    assert "Все 2 раздач тура сыграны: завершите стол." in page
    assert reverse("scoring:table_finish", args=[table.pk]) in page

    refused = factories.post_deal(client, table, _passout(table), follow=True, **RU)

    assert "все 2 раздач тура сыграны: ничего не записано; завершите стол" in (
        refused.content.decode()
    )
    assert DealRecord.objects.filter(table=table, deleted=False).count() == 2

    finished = client.post(reverse("scoring:table_finish", args=[table.pk]), factories.drawn(table))
    assert finished.status_code == 302
    assert not Table.objects.get(pk=table.pk).is_open


def test_a_pool_with_a_cap_is_complete_at_the_cap_before_the_pool_is(client: Client) -> None:
    judge = factories.member("Judith")
    table = _first_table(judge, length=Tournament.POOL, pool_target=10, deals=1)
    _scorer(client, table)
    assert "раздача 1 из 1" in _page(client, table)

    factories.post_deal(client, table, _passout(table))

    page = _page(client, table)
    assert "Все 1 раздач тура сыграны: завершите стол." in page
    assert reverse("scoring:table_finish", args=[table.pk]) in page


def test_a_table_without_a_cap_says_nothing_of_it(client: Client) -> None:
    judge = factories.member("Judith")
    table = _first_table(judge, length=Tournament.POOL, pool_target=10, deals=None)
    assert table.deal_cap is None
    _scorer(client, table)
    factories.post_deal(client, table, _passout(table))
    page = _page(client, table)
    assert 'id="deal-form"' in page and "deal-cap" not in page
