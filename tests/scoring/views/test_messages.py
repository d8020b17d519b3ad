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

    client.post(reverse("scoring:deal_undo", args=[table.pk]), factories.drawn(table))
    page = html.unescape(
        client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    )

    # The history names the deal undone (issue 30, finding 10), not the service's key.
    assert "раздача 1 отменена: распасы" in page
    assert "«undo»" not in page


# -- Boston and the print view (issue 15 item 4) ---------------------------------------------

VALUE_CARD_DEALS = [
    # Small misère in spades (unit 16 × 1), made: each opponent pays Anna 16.
    {
        "kind": "card",
        "declarer": "Anna",
        "contract": "small-misere",
        "column": "spades",
        "tricks": 0,
    },
    # 5 alone or 8 together in hearts (unit 4 × 4 = 16), 9 tricks together, three honours
    # (3 × 4 = 12), one overtrick (1 × 4): 16 + 12 + 4 = 32.
    {
        "kind": "card",
        "declarer": "Boris",
        "partner": "Vera",
        "contract": "5",
        "column": "hearts",
        "tricks": 9,
        "honours": 3,
    },
]


def visible(response) -> str:
    """The page's text as a reader sees it (tags and attributes gone)."""
    import re

    page = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_the_value_card_form_names_the_contracts_in_russian_and_the_columns_with_signs() -> None:
    table = factories.boston_table(system="value-card")

    response = post_deal(russian(table), table, {"kind": "card", "change": "1"}, **HTMX)

    text = visible(response)
    for contract in ("маленький мизер", "пикколиссимо", "большой мизер", "мизер четырёх туров"):
        assert contract in text
    for column in ("♠ пики", "♣ трефы", "♦ бубны", "♥ червы"):
        assert column in text
    for key in ("small-misere", "four-tour-misere", "open-boston", "spades"):
        assert key not in text


def test_the_value_card_log_says_the_contract_and_the_arithmetic_in_russian() -> None:
    table = factories.boston_table(system="value-card", deals=VALUE_CARD_DEALS)

    text = visible(russian(table).get(reverse("scoring:table_detail", args=[table.pk])))

    assert "таблица стоимости маленький мизер ♠ · Anna" in text
    assert "Boris → Anna: 16 (мизер сыгран: маленький мизер ♠ = 16)" in text
    assert (
        "Gleb → Boris: 32 (игра сыграна: 8 вдвоём (♥) 16 + три онёра 12 + взяток сверх: 1 × 4 = 32)"
        in text
    )
    assert "small misere" not in text
    assert "overtrick" not in text


def test_the_print_view_is_russian_with_signs_and_a_header_for_every_column() -> None:
    table = factories.boston_table(system="value-card", deals=VALUE_CARD_DEALS)

    response = russian(table).get(reverse("scoring:table_print", args=[table.pk]))

    page = response.content.decode()
    assert '<html lang="ru">' in page
    assert "<th></th>" not in page
    headers = ["игрок", "фишки", "деньги", "платит", "получает", "№", "раздача", "записано"]
    for header in headers:
        assert f'<th scope="col">{header}</th>' in page
    text = visible(response)
    assert "1 таблица стоимости маленький мизер ♠ · Anna Boris → Anna: 16;" in text
    assert (
        "2 таблица стоимости 5 один или 8 вдвоём ♥ · Boris · партнёр: Vera "
        "Gleb → Boris: 32; Anna → Vera: 32" in text
    )
    assert "card small-misere" not in text


def test_a_preferans_print_view_writes_contracts_with_suit_signs() -> None:
    table = factories.pulka()
    post_deal(russian(table), table, FIRST_GAME)

    text = visible(russian(table).get(reverse("scoring:table_print", args=[table.pk])))

    assert "1 игра 6♠ · Anna" in text
    assert "game 6S" not in text
    for header in ("пуля", "гора", "итог, висты"):
        assert header in text


def test_the_print_view_is_english_on_the_english_site(client) -> None:
    table = factories.boston_table(system="value-card", deals=VALUE_CARD_DEALS)
    client.force_login(table.seats.order_by("position").first().member)

    response = client.get(reverse("scoring:table_print", args=[table.pk]))

    page = response.content.decode()
    assert '<html lang="en">' in page
    assert '<th scope="col">player</th>' in page
    assert "value card small misère ♠ · Anna" in visible(response)
    assert "маленький" not in page


def test_an_error_on_a_field_the_kind_does_not_show_is_listed_above_the_form(client) -> None:
    # An adjustment shows no tricks: a bad trick value posted with it (an old page, or by
    # hand) is named in the summary, since no field beside it would show it.
    table = factories.pulka()
    client.force_login(table.seats.order_by("position").first().member)
    posted = {"kind": "adjust", "reason": "fix", "pool:Anna": "2", "tricks:Anna": "eleven"}

    page = html.unescape(post_deal(client, table, posted, **HTMX).content.decode())

    message = "Anna: Select a valid choice. eleven is not one of the available choices."
    assert f'<ul class="errorlist error-summary" role="alert"><li>{message}</li></ul>' in page
    assert not DealRecord.objects.filter(table=table).exists()
