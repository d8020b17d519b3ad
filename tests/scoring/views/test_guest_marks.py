"""A guest's name is marked as a guest's wherever the site shows it (issue 35, item 4):
the table page (its result and payments), the drawn sheet and its picture's drawing, the
print view, the lists of tables (home page, table list) and the evening's page."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client
from django.urls import reverse

from scoring import selectors, services
from scoring.live.fragments import RevisionCache
from scoring.models import Guest, Table
from scoring.pages import games as game_pages
from scoring.services import evenings as evening_services
from tests import factories
from tests.factories import GAME_RECORD

pytestmark = pytest.mark.django_db

GUEST = '<span class="badge badge--guest">guest</span>'
GUEST_RU = '<span class="badge badge--guest">гость</span>'
DAY = datetime.date(2026, 3, 10)


@pytest.fixture
def table() -> Table:
    """Anna and Boris, members, and Vera, a guest, after Anna's 6♠."""
    anna = factories.member("Anna", username="anna")
    boris = factories.member("Boris", username="boris")
    return factories.pulka([anna, boris, Guest(name="Vera")], deals=[GAME_RECORD])


def test_the_table_page_marks_the_guest_in_its_result(table):
    page = Client(headers={"accept-language": "en"}).get(
        reverse("scoring:table_detail", args=[table.pk])
    )
    html = page.content.decode()
    assert f'<th scope="row">Vera {GUEST}</th>' in html
    assert f'<th scope="row">Anna {GUEST}</th>' not in html
    assert f"Deals now: <strong>Boris</strong> {GUEST}" not in html
    assert html.count(GUEST) == 1 + html.count(f"Vera {GUEST} →") + html.count(f"→ Vera {GUEST}")
    ru = Client(headers={"accept-language": "ru"}).get(
        reverse("scoring:table_detail", args=[table.pk])
    )
    assert f"Vera {GUEST_RU}" in ru.content.decode()


def test_the_sheet_marks_a_guest_dealing():
    anna = factories.member("Anna", username="anna")
    boris = factories.member("Boris", username="boris")
    table = factories.pulka([anna, boris, Guest(name="Vera")], first_dealer=2)
    html = Client().get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    assert '<strong>Vera</strong> <span class="badge badge--guest">' in html


def test_the_drawn_sheet_and_the_print_view_mark_the_guest(table):
    engine = selectors.current(table, latest=0).game
    svg = game_pages.of_table(table).sheet_svg(table, engine, RevisionCache(table))
    assert "Vera (guest)" in svg or "Vera (гость)" in svg
    assert "Anna (guest)" not in svg and "Anna (гость)" not in svg
    page = Client(headers={"accept-language": "en"}).get(
        reverse("scoring:table_print", args=[table.pk])
    )
    assert f"Vera {GUEST}" in page.content.decode()


def test_the_lists_of_tables_mark_the_guest(table):
    client = Client(headers={"accept-language": "en"})
    for url in (reverse("scoring:home"), reverse("scoring:table_list")):
        html = client.get(url).content.decode()
        assert f"Vera {GUEST}" in html, url
        assert f"Anna {GUEST}" not in html


def test_the_evening_page_marks_the_guest():
    olga = factories.member("Olga", organiser=True, username="olga")
    evening = evening_services.evening_create(
        organiser=olga, played_on=DAY, place="", game=Table.PREFERANS, table_size=3
    )
    for name in ("Anna", "Boris"):
        member = factories.member(name, username=name.lower())
        evening_services.evening_check_in(evening=evening, member=member, by=olga)
    evening_services.evening_check_in_guest(evening=evening, name="Pyotr", by=olga)
    client = Client(headers={"accept-language": "en"})
    client.force_login(olga)
    url = reverse("scoring:evening_detail", args=[evening.pk])
    assert f"Pyotr {GUEST}" in client.get(url).content.decode()  # checked in
    drawn = evening_services.evening_draw(evening=evening, seed=1)
    assert f"Pyotr {GUEST}" in client.get(url).content.decode()  # in the draw
    (table,) = evening_services.evening_open_tables(evening=drawn, by=olga)
    html = client.get(url).content.decode()
    assert f"Pyotr {GUEST}" in html and f"Anna {GUEST}" not in html  # at his table

    # Pyotr makes an unplayed 10NT and the table finishes: the others pay him.
    names = selectors.seat_names(table)
    others = [name for name in names if name != "Pyotr"]
    deal = {"kind": "game", "declarer": "Pyotr", "contract": "10N"}
    services.deal_create(table, deal | {"answers": dict.fromkeys(others, "pass")}, by=olga)
    services.table_finish(table, by=olga)
    ledger = client.get(reverse("scoring:evening_ledger", args=[evening.pk])).content.decode()
    assert f"→ Pyotr {GUEST}:" in ledger
    assert f"Anna {GUEST}" not in ledger
