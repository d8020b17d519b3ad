"""The deal form's rows belong to one kind and one declarer (issue 30, item 1).

The page draws every kind's fields and every player's answers and tricks, and shows those
of the deal being entered (static/js/deal-form.js switches them on the phone). Without
JavaScript the kind or the declarer can be changed without the rows following («Show
fields» not pressed): the form says which rows it showed (``drawn``), and the server
refuses such a deal, stores nothing and draws the form again for the deal chosen."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from scoring import services
from scoring.models import DealRecord, Table
from tests import factories
from tests.factories import HTMX
from tests.html_forms import form_data, shown_fields

pytestmark = pytest.mark.django_db

ROWS = (
    "The answers and tricks on the form were for another declarer or another kind of deal, "
    "so nothing was saved. They now fit your choice: check them and save again."
)


def deals(table: Table) -> list[dict[str, Any]]:
    return services.table_export(Table.objects.get(pk=table.pk))["deals"]


def form_of(html: str, table: Table) -> dict[str, Any]:
    """What a browser without JavaScript sends from the page's deal form."""
    return form_data(html, action=reverse("scoring:deal_create", args=[table.pk]))


def deal_form(html: str) -> str:
    """The deal form's region of a page, or of an htmx answer (the region alone)."""
    start = html.index('<section id="deal-form"')
    return html[start : html.index("</section>", start)]


def test_the_page_draws_every_row_and_shows_the_first_hands_game(client, table, anna):
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    form = deal_form(page)
    # Anna deals: Boris, the first hand, declares; Vera and Anna answer, in that order.
    assert 'name="drawn" value="game:Boris"' in form
    for name in ("Anna", "Boris", "Vera"):
        assert f'name="answer:{name}"' in form and f'name="tricks:{name}"' in form
    shown = shown_fields(form)
    assert {"answer:Vera", "answer:Anna", "level", "suit", "declarer"} <= shown
    assert "answer:Boris" not in shown
    assert form.index('data-player="Vera"') < form.index('data-player="Anna"')
    assert 'data-seats="Anna|Boris|Vera"' in form  # the page puts any declarer's in order


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_a_game_posted_with_another_declarers_rows_is_refused_and_redrawn(
    client, table, anna, headers
):
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    sent = form_of(page, table) | {"declarer": "Vera", "level": "7"}  # no «Show fields»
    assert sent["drawn"] == "game:Boris"

    refused = client.post(reverse("scoring:deal_create", args=[table.pk]), sent, **headers)

    assert refused.status_code == 200
    text = refused.content.decode()
    assert ROWS in text
    assert DealRecord.objects.count() == 0  # not «Вера 7♠ пас–пас» with Boris's rows
    # Drawn again for Vera: Anna and Boris answer, what was chosen is kept.
    form = deal_form(text)
    assert 'name="drawn" value="game:Vera"' in form
    assert {"answer:Anna", "answer:Boris"} <= shown_fields(form)
    assert "answer:Vera" not in shown_fields(form)
    again = form_of(text, table) | {"answer:Boris": "whist", "tricks:Vera": "7"}
    again |= {"tricks:Anna": "1", "tricks:Boris": "2"}
    stored = client.post(reverse("scoring:deal_create", args=[table.pk]), again, **headers)
    assert stored.status_code in (200, 302)
    assert deals(table) == [
        {
            "kind": "game",
            "declarer": "Vera",
            "contract": "7S",
            "answers": {"Anna": "pass", "Boris": "whist"},
            "tricks": {"Anna": 1, "Boris": 2, "Vera": 7},
        }
    ]


def test_a_misere_posted_with_the_games_rows_is_refused_then_stored(client, table, anna):
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    sent = form_of(page, table) | {"kind": "misere", "declarer": "Vera"}

    refused = client.post(reverse("scoring:deal_create", args=[table.pk]), sent)

    text = refused.content.decode()
    assert ROWS in text
    assert DealRecord.objects.count() == 0
    form = deal_form(text)
    assert 'name="drawn" value="misere:Vera"' in form
    assert {"tricks:Vera", "declarer"} <= shown_fields(form)
    assert not {"tricks:Anna", "tricks:Boris", "level", "answer:Anna"} & shown_fields(form)
    again = form_of(text, table) | {"tricks:Vera": "0"}
    assert client.post(reverse("scoring:deal_create", args=[table.pk]), again).status_code == 302
    assert deals(table) == [{"kind": "misere", "declarer": "Vera", "tricks": {"Vera": 0}}]


def test_a_passout_chosen_without_its_fields_is_refused_in_words(client, table, anna):
    """The issue's «должно быть целым числом»: a pass-out posted from a game's form."""
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    sent = form_of(page, table) | {"kind": "passout"}

    text = client.post(reverse("scoring:deal_create", args=[table.pk]), sent).content.decode()

    assert ROWS in text
    assert "whole number" not in text
    assert DealRecord.objects.count() == 0
    form = deal_form(text)
    assert 'name="drawn" value="passout:"' in form
    assert {"tricks:Anna", "tricks:Boris", "tricks:Vera"} <= shown_fields(form)
    again = form_of(text, table) | {"tricks:Anna": "4", "tricks:Boris": "4", "tricks:Vera": "2"}
    assert client.post(reverse("scoring:deal_create", args=[table.pk]), again).status_code == 302
    assert deals(table) == [{"kind": "passout", "tricks": {"Anna": 4, "Boris": 4, "Vera": 2}}]


def test_rows_that_fit_the_deal_are_stored_at_once(client, table, anna):
    """The page's script keeps ``drawn`` in step: a pass-out whose form says so is taken
    as it is, and a deal posted without ``drawn`` (by hand) is judged as before."""
    url = reverse("scoring:deal_create", args=[table.pk])
    passout = {"kind": "passout", "drawn": "passout:", "revision": "0"}
    passout |= {"tricks:Anna": "5", "tricks:Boris": "5", "tricks:Vera": "0"}
    passout |= {"declarer": "Vera"}  # a passout's declarer is no row of it
    assert client.post(url, passout).status_code == 302
    by_hand = {"kind": "misere", "declarer": "Vera", "tricks:Vera": "0", "revision": "1"}
    assert client.post(url, by_hand).status_code == 302
    assert [deal["kind"] for deal in deals(table)] == ["passout", "misere"]


def test_a_boston_form_switches_its_kind_in_the_page_and_refuses_a_stale_one(client):
    players = [factories.member(n) for n in ("Anna", "Boris", "Vera", "Gleb")]
    table = factories.boston_table(players)
    client.force_login(players[0])
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    form = deal_form(page)
    assert 'name="drawn" value="ask:"' in form
    assert 'name="payer"' in form  # drawn for the page, hidden
    assert 'name="contract"' not in form  # a payment-tariff table has no value-card contract
    shown = shown_fields(form)
    assert {"declarer", "partner", "tricks"} <= shown
    assert not {"contract", "column", "payer", "amount"} & shown

    # An adjustment chosen without «Show fields» (the payment-tariff table offers no
    # value-card contract): refused, nothing stored.
    sent = form_of(page, table) | {"kind": "adjust", "reason": "a misdeal", "amount": "5"}
    text = client.post(reverse("scoring:deal_create", args=[table.pk]), sent).content.decode()
    assert ROWS in text
    assert DealRecord.objects.count() == 0
    assert 'name="drawn" value="adjust:"' in deal_form(text)
    assert {"reason", "payer", "payee"} <= shown_fields(deal_form(text))
