"""The judge's page of a table and the swap of two seats (scoring/views/judging.py), in
Russian as the club reads them. The numbers are tests/scoring/services/test_judging.py's:
Vera's 7♠ at pool 2 overflows onto seat 0, so whoever sits there ends at −10 and the
player in seat 1 at −20 (Sochi, the settlement divided by the players less one)."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from scoring.models import AuditEntry, Seat, SeatChange, Table
from tests import factories
from tests.fuzz_strategies import db_fingerprint
from tests.scoring.services.test_judging import VERA_SEVEN, _four

pytestmark = pytest.mark.django_db


@pytest.fixture
def olga() -> Client:
    """Olga, an organiser, on a Russian page."""
    client = Client(headers={"accept-language": "ru"})
    client.force_login(factories.member("Olga", organiser=True, username="olga"))
    return client


@pytest.fixture
def finished() -> Table:
    tariff = factories.preferans_tariff("Делим на двоих", settlement_divisor="players_minus_one")
    return factories.pulka(  # type: ignore[no-any-return]
        tariff=tariff.name, pool_target=2, deals=[VERA_SEVEN], finished=True
    )


def text(response: Any) -> str:
    return html.unescape(re.sub(r"\s+", " ", response.content.decode()))


def swap(client: Client, table: Table, **data: str) -> Any:
    fields = {"first": "0", "second": "1", "reason": "сели наоборот", **factories.drawn(table)}
    return client.post(reverse("scoring:table_seats_swap", args=[table.pk]), fields | data)


def test_the_judges_page_offers_the_swap(
    olga: Client, finished: Table, django_assert_num_queries: Any
) -> None:
    # The session, the member, the table, its seats, its tour link, the club, the decisions.
    with django_assert_num_queries(7):
        response = olga.get(reverse("scoring:table_judge", args=[finished.pk]))
    page = text(response)
    assert response.status_code == 200
    assert "Поменять местами двух игроков и пересчитать" in page
    assert "А · Anna" in page and "Б · Boris" in page and "В · Vera" in page
    assert "Принятые решения" not in page  # none yet


def test_a_swap_answers_with_the_table_replayed_and_says_so_in_the_history(
    olga: Client, finished: Table
) -> None:
    response = swap(olga, finished)

    assert response.status_code == 302
    assert response["Location"] == reverse("scoring:table_detail", args=[finished.pk])
    seats = {s.name: (s.position, s.result) for s in Seat.objects.filter(table=finished)}
    assert seats["Boris"] == (0, Decimal("-10.00"))
    assert seats["Anna"] == (1, Decimal("-20.00"))
    page = text(olga.get(response["Location"]))
    assert "Игроки поменялись местами; запись пересчитана." in page
    said = "судья поменял местами игроков Anna и Boris; запись пересчитана · «сели наоборот»"
    assert said in page
    judge_page = text(olga.get(reverse("scoring:table_judge", args=[finished.pk])))
    assert "Принятые решения" in judge_page and "Anna ↔ Boris · «сели наоборот»" in judge_page


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"second": "0"}, "выберите два разных места за этим столом"),
        ({"second": "7"}, "выберите два разных места за этим столом"),
        ({"first": "А"}, "выберите два разных места за этим столом"),
        ({"reason": "  "}, "укажите причину (она останется в истории)"),
        ({"reason": "сели\x00наоборот"}, "запрещённый символ: ноль-байт"),
        ({"reason": "я" * 201}, "не более 200"),
        ({"revision": "0"}, "Ничего не сохранено"),
    ],
)
def test_bad_input_is_refused_in_russian_and_changes_nothing(
    olga: Client, finished: Table, data: dict[str, str], message: str
) -> None:
    before = db_fingerprint()
    response = swap(olga, finished, **data)
    assert response.status_code == 302
    assert response["Location"] == reverse("scoring:table_judge", args=[finished.pk])
    assert message in text(olga.get(response["Location"]))
    assert db_fingerprint() == before


def test_a_deal_that_would_not_replay_is_refused_in_words(olga: Client) -> None:
    players = [factories.member(n) for n in ("Anna", "Boris", "Vera", "Gleb")]
    table = factories.pulka(
        players,
        deals=[
            {
                "kind": "game",
                "declarer": "Boris",
                "contract": "6S",
                "answers": {"Vera": "pass", "Gleb": "pass"},
            }
        ],
    )
    before = db_fingerprint()
    response = swap(olga, table)
    page = text(olga.get(response["Location"]))
    assert "раздача 1" in page
    assert db_fingerprint() == before
    assert not AuditEntry.objects.filter(action=AuditEntry.SWAP).exists()


def test_the_table_page_leads_an_organiser_to_the_judges_page(
    olga: Client, finished: Table
) -> None:
    link = reverse("scoring:table_judge", args=[finished.pk])
    assert link in olga.get(reverse("scoring:table_detail", args=[finished.pk])).content.decode()
    player = Client()
    player.force_login(Seat.objects.get(table=finished, name="Anna").member)
    page = player.get(reverse("scoring:table_detail", args=[finished.pk])).content.decode()
    assert link not in page


# -- a substitute mid-pulka (the numbers: tests/scoring/services/test_judging.py) ----------


@pytest.fixture
def four() -> Table:
    return _four()


def substitute(client: Client, table: Table, **data: str) -> Any:
    fields = {"position": "3", "guest": "Dima", "reason": "ушёл на поезд", **factories.drawn(table)}
    return client.post(reverse("scoring:table_seat_substitute", args=[table.pk]), fields | data)


def test_the_judges_page_offers_a_substitute_at_a_pulka_in_play(
    olga: Client, four: Table, django_assert_num_queries: Any
) -> None:
    # As at a finished table (7), and the members a substitute may be.
    with django_assert_num_queries(8):
        response = olga.get(reverse("scoring:table_judge", args=[four.pk]))
    page = text(response)
    assert "Заменить игрока со следующей раздачи" in page
    assert "Г · Gleb" in page
    # A finished table takes none: the form is not offered.
    finished = factories.pulka(deals=[VERA_SEVEN], finished=True)
    assert "Заменить игрока" not in text(
        olga.get(reverse("scoring:table_judge", args=[finished.pk]))
    )


def test_a_substitute_by_a_guests_name_shows_in_the_history(olga: Client, four: Table) -> None:
    response = substitute(olga, four)

    assert response.status_code == 302
    assert response["Location"] == reverse("scoring:table_detail", args=[four.pk])
    assert Seat.objects.get(table=four, position=3).name == "Dima"
    page = text(olga.get(response["Location"]))
    assert "Замена садится со следующей раздачи." in page
    assert "с раздачи 3 вместо Gleb — Dima · «ушёл на поезд»" in page
    judge_page = text(olga.get(reverse("scoring:table_judge", args=[four.pk])))
    assert "с раздачи 3 вместо Gleb — Dima · «ушёл на поезд»" in judge_page


def test_a_member_comes_in_as_a_substitute(olga: Client, four: Table) -> None:
    dima = factories.member("Dima")

    substitute(olga, four, guest="", member=str(dima.pk))

    seat = Seat.objects.get(table=four, position=3)
    assert (seat.member, seat.guest, seat.name) == (dima, None, "Dima")
    assert SeatChange.objects.get(table=four).name == "Gleb"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"position": "7"}, "выберите место за этим столом"),
        ({"position": ""}, "выберите место за этим столом"),
        ({"guest": ""}, "выберите члена клуба или впишите имя гостя — что-то одно"),
        ({"member": "999999"}, "выберите члена клуба или впишите имя гостя — что-то одно"),
        ({"guest": "Vera"}, "Vera"),
        ({"reason": "  "}, "укажите причину (она останется в истории)"),
        ({"reason": "ушёл\x00"}, "запрещённый символ: ноль-байт"),
        ({"revision": "0"}, "Ничего не сохранено"),
    ],
)
def test_a_bad_substitute_is_refused_in_russian_and_changes_nothing(
    olga: Client, four: Table, data: dict[str, str], message: str
) -> None:
    before = db_fingerprint()
    response = substitute(olga, four, **data)
    assert response.status_code == 302
    assert response["Location"] == reverse("scoring:table_judge", args=[four.pk])
    assert message in text(olga.get(response["Location"]))
    assert db_fingerprint() == before
