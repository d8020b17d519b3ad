"""The engine's refusals and explanations on the table page, in the member's language:
each refusal once, on the field it concerns; the preview («Откуда эти числа?») and the
deal log in Russian words. English pages stay English."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from django.urls import reverse

from scoring.models import DealRecord
from tests import factories
from tests.factories import FIRST_GAME, HTMX, post_deal
from tests.html_forms import field_errors, group_errors

pytestmark = pytest.mark.django_db


def russian(table) -> Client:
    """A client with no Accept-Language (the site's default is Russian), signed in as the
    table's first player."""
    client = Client()
    client.force_login(table.seats.order_by("position").first().member)
    return client


def test_tricks_that_do_not_add_up_are_refused_in_russian_on_the_tricks_once() -> None:
    table = factories.pulka()
    short = FIRST_GAME | {"tricks:Vera": "0"}  # 6 + 3 + 0 = 9 of 10

    response = post_deal(russian(table), table, short, **HTMX)

    page = response.content.decode()
    refusal = "взятки должны составлять 10, а указано 9"
    assert group_errors(page, "tricks") == [refusal]
    assert html.unescape(page).count(refusal) == 1
    assert "must add up" not in page
    assert not DealRecord.objects.filter(table=table).exists()


def test_a_half_whist_said_first_is_refused_in_russian_on_the_answers() -> None:
    table = factories.pulka()
    half_first = FIRST_GAME | {"answer:Boris": "half", "answer:Vera": "pass"}

    page = post_deal(russian(table), table, half_first, **HTMX).content.decode()

    refusal = "полвиста говорит второй вистующий, когда первый спасовал"
    assert group_errors(page, "answers") == [refusal]
    assert html.unescape(page).count(refusal) == 1


def test_a_misere_with_a_partner_is_refused_in_russian_on_the_partner() -> None:
    table = factories.boston_table(system="value-card")
    card = {
        "kind": "card",
        "declarer": "Anna",
        "partner": "Boris",
        "contract": "small-misere",
        "column": "spades",
        "tour": "simple",
        "tricks": "0",
    }

    page = post_deal(russian(table), table, card, **HTMX).content.decode()

    refusal = "заказ «маленький мизер» играют без партнёра"
    assert field_errors(page, "id_partner") == [refusal]
    assert html.unescape(page).count(refusal) == 1


def test_the_same_refusal_is_english_on_the_english_site(client) -> None:
    table = factories.pulka()
    client.force_login(table.seats.order_by("position").first().member)

    page = post_deal(client, table, FIRST_GAME | {"tricks:Vera": "0"}, **HTMX).content.decode()

    assert group_errors(page, "tricks") == ["must add up to 10, got 9"]
    assert "взятки" not in page


def test_the_preview_says_the_rules_and_the_arithmetic_in_russian() -> None:
    # Target 1: the made 6♠ is worth 2, of which 1 closes Anna's pool.
    table = factories.pulka(pool_target=1)

    response = post_deal(russian(table), table, FIRST_GAME | {"preview": "1"}, **HTMX)

    page = html.unescape(response.content.decode())
    assert "игра сыграна" in page
    assert "2; 1 до закрытия пули" in page
    for key in ("game-made", "up to the target", "whists-for-tricks"):
        assert key not in page


def test_the_deal_log_says_a_pass_out_in_russian() -> None:
    # Sochi pass-out, first of a series: each trick costs 1 on the mountain (5 × 1).
    passout = {"kind": "passout", "tricks": {"Anna": 5, "Boris": 5, "Vera": 0}}
    table = factories.pulka(deals=[passout])

    response = russian(table).get(reverse("scoring:table_detail", args=[table.pk]))

    page = html.unescape(response.content.decode())
    assert "взятки на распасах: 5 × 1 (распасы 1)" in page
    assert "(p1)" not in page


def test_the_history_of_an_undo_is_in_russian_without_the_services_key() -> None:
    table = factories.pulka(
        deals=[{"kind": "passout", "tricks": {"Anna": 5, "Boris": 5, "Vera": 0}}]
    )
    client = russian(table)

    client.post(reverse("scoring:deal_undo", args=[table.pk]))
    page = html.unescape(
        client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    )

    assert "последняя раздача отменена" in page
    assert "«undo»" not in page
