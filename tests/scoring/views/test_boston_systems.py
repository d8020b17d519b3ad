"""Boston at its own table (issue 30, finding 8): each table's deal form offers only the
contracts its scoring system scores, a contract of the other system is refused in words
(nothing stored), and the deal log names the declarer's partner. Through real HTTP, with
the form as the page draws it."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from scoring.models import DealRecord
from tests import factories
from tests.factories import HTMX, post_deal
from tests.html_forms import field_errors
from tests.scoring.views.buttons import choices, chosen

pytestmark = pytest.mark.django_db

REFUSED_CARD = "заказ из таблицы стоимости не записывается за столом, играющим по тарифу платежей"


def signed_in(table, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(table.seats.order_by("position").first().member)
    return client


def page(client: Client, table) -> str:
    return client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()


def log_titles(text: str) -> list[str]:
    """The deal log's titles, newest first, as a reader sees them."""
    titles = re.findall(r'<span class="deal-kind">(.*?)</span>', text, flags=re.S)
    return [html.unescape(re.sub(r"<[^>]+>|\s+", " ", t)).strip() for t in titles]


def test_a_payment_tariff_table_offers_asks_and_independences_only() -> None:
    table = factories.boston_table(system="payment-tariff")

    text = page(signed_in(table), table)

    assert [value for value, _label in choices(text, "kind")] == [
        "ask",
        "independence",
        "pass",
        "adjust",
    ]
    assert chosen(text, "kind") == ["ask"]
    assert 'name="contract"' not in text


def test_a_value_card_table_offers_its_contracts_only_and_starts_on_them() -> None:
    table = factories.boston_table(system="value-card")

    text = page(signed_in(table), table)

    assert [value for value, _label in choices(text, "kind")] == ["card", "pass", "adjust"]
    assert chosen(text, "kind") == ["card"]
    # The value card's own fields are drawn at once: the contract and its column.
    assert {"5", "small-misere"} <= {v for v, _label in choices(text, "contract")}
    assert 'name="trump"' not in text


def test_a_value_card_contract_at_a_payment_tariff_table_is_refused_in_words() -> None:
    """A form from an old page (or the outbox) posts a value-card contract at a payment-
    tariff table: it is refused on the kind in the site's words, not as «'' не играет за
    этим столом», and nothing is stored."""
    table = factories.boston_table(system="payment-tariff", preference_suit="hearts")
    card = {
        "kind": "card",
        "declarer": "Anna",
        "partner": "Boris",
        "contract": "6",
        "column": "spades",
        "tricks": "6",
    }

    text = post_deal(signed_in(table, "ru"), table, card, **HTMX).content.decode()

    assert [html.unescape(e) for e in field_errors(text, "id_kind")] == [REFUSED_CARD]
    assert "не играет за этим столом" not in html.unescape(text)
    assert not DealRecord.objects.filter(table=table).exists()


def test_an_ask_at_a_value_card_table_is_refused_in_words() -> None:
    table = factories.boston_table(system="value-card")
    ask = {"kind": "ask", "declarer": "Anna", "partner": "Boris", "tricks": "8"}

    text = post_deal(signed_in(table), table, ask, **HTMX).content.decode()

    assert field_errors(text, "id_kind") == [
        "an ask or independence is not scored at a value-card table"
    ]
    assert not DealRecord.objects.filter(table=table).exists()


def test_the_log_names_the_partner_of_a_side_of_two() -> None:
    """Entered through the page's own form: Boris with Vera as partner plays 5 alone or
    8 together in hearts, 9 tricks, three honours; then Anna's small misère alone."""
    players = [factories.member(n) for n in ("Anna", "Boris", "Vera", "Gleb")]
    table = factories.boston_table(players, system="value-card")
    client = signed_in(table)
    together = {
        "kind": "card",
        "declarer": "Boris",
        "partner": "Vera",
        "contract": "5",
        "column": "hearts",
        "honours": "3",
        "tour": "simple",
        "tricks": "9",
    }
    alone = {"kind": "card", "declarer": "Anna", "contract": "small-misere"}
    alone |= {"column": "spades", "tour": "simple", "tricks": "0"}

    assert post_deal(client, table, together).status_code == 302
    assert post_deal(client, table, alone).status_code == 302

    assert log_titles(page(client, table)) == [
        "value card small misère ♠ · Anna",
        "value card 5 alone or 8 together ♥ · Boris · partner: Vera",
    ]
    russian = log_titles(page(signed_in(table, "ru"), table))
    assert russian[1] == "таблица стоимости 5 один или 8 вдвоём ♥ · Boris · партнёр: Vera"
