"""The members' tariff pages: the rules with their numbers, read-only, for everyone."""

from __future__ import annotations

import re
from html import unescape as html_unescape
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from scoring.models import BostonTariff, PreferansTariff

SOCHI = "Сочи (Sochi)"
LENINGRAD = "Ленинград (Leningrad)"
PAYMENT = "Бостон: тариф платежей (payment tariff)"
VALUE_CARD = "Бостон: таблица стоимости (value card)"


class _Table(HTMLParser):
    """The text of every cell of the table with id ``table_id``, row by row."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self.depth = 0
        self.rows: list[list[str]] = []
        self.cell: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and (self.depth or dict(attrs).get("id") == self.table_id):
            self.depth += 1
        elif self.depth and tag == "tr":
            self.rows.append([])
        elif self.depth and tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.depth:
            self.depth -= 1
        elif self.depth and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join(self.cell.split()))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell += data


def table(html: str, table_id: str) -> list[list[str]]:
    parser = _Table(table_id)
    parser.feed(html)
    assert parser.rows, f"no table {table_id}"
    return parser.rows


def row(rows: list[list[str]], first: str) -> list[str]:
    """The body row whose first cell is ``first`` (after the header)."""
    return next(r for r in rows[1:] if r and r[0] == first)


def preferans_url(name: str) -> str:
    return reverse(
        "scoring:preferans_tariff_detail", args=[PreferansTariff.objects.get(name=name).pk]
    )


def boston_url(name: str) -> str:
    return reverse("scoring:boston_tariff_detail", args=[BostonTariff.objects.get(name=name).pk])


# -- the list -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_list_shows_every_tariff_with_its_version(client: Client, django_assert_num_queries):
    with django_assert_num_queries(3):  # each game's tariffs (2), the club's name (1)
        response = client.get(reverse("scoring:tariff_list"))

    html = response.content.decode()
    assert response.status_code == 200
    for tariff in [*PreferansTariff.objects.all(), *BostonTariff.objects.all()]:
        assert tariff.name in html
    assert f'href="{preferans_url(SOCHI)}"' in html
    assert f'href="{boston_url(VALUE_CARD)}"' in html
    assert html.count("version 1") == 7  # the seven presets


@pytest.mark.django_db
def test_list_tells_the_federations_preset_from_leningrad(client: Client):
    """The seeded «ФСПР Ленинградская» is Leningrad plus the widow premium (and its end of
    a pass-out series): its card says the premium, Leningrad's does not."""
    html = client.get(reverse("scoring:tariff_list")).content.decode()
    text = html_unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))
    leningrad = text.split(LENINGRAD)[1].split("Ростов (Rostov)")[0]
    fspr = text.split("ФСПР Ленинградская (FSPR Leningrad)")[1].split(VALUE_CARD)[0]

    assert "gentleman's whist; whists ×2, remise ×2; pass-outs 2, 4, 6, exit 7;" in leningrad
    assert "widow premium" not in leningrad
    assert (
        "gentleman's whist; whists ×2, remise ×2; pass-outs 2, 4, 6, exit 7; "
        "widow premium (fast tricks); a pool point is worth 20 whists." in fspr
    )
    assert text.count("widow premium") == 1


@pytest.mark.django_db
def test_list_query_count_does_not_grow_with_tariffs(client: Client, django_assert_num_queries):
    from scoring import services

    for n in range(5):
        services.tariff_copy(PreferansTariff.objects.get(name=SOCHI), name=f"Копия {n}", by=None)
        services.tariff_copy(BostonTariff.objects.get(name=PAYMENT), name=f"Копия {n}", by=None)

    with django_assert_num_queries(3):  # each game's tariffs (2), the club's name (1)
        response = client.get(reverse("scoring:tariff_list"))

    assert response.content.decode().count("Копия") == 10


# -- Preferans ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_preferans_page_shows_values_rates_and_ladders(client: Client, django_assert_num_queries):
    url = preferans_url(LENINGRAD)
    with django_assert_num_queries(2):  # the tariff, the club's name
        response = client.get(url)

    html = response.content.decode()
    assert response.status_code == 200
    values = table(html, "values-table")
    assert values[0][1:] == ["6", "7", "8", "9", "10", "misère (мизер)"]
    assert row(values, "Value V, pool points (пуля)")[1:] == ["2", "4", "6", "8", "10", "10"]
    assert row(values, "Defence obligation O, tricks (обязанность)")[1:] == [
        *["4", "2", "1", "1", "1"],
        "—",
    ]
    rates = table(html, "rates-table")
    # Leningrad: whists 2 × V per trick, so 8 per trick on a 7; the whister's penalty 1 × V.
    assert row(rates, "7") == ["7", "8", "8", "8", "4"]
    assert row(rates, "10") == ["10", "20", "20", "20", "10"]
    assert "2 × V" in rates[0][1]
    assert table(html, "passout-table")[1] == ["Price per trick", "2", "4", "6"]
    assert table(html, "exit-table")[1] == ["Lowest contract allowed", "7"]
    assert re.search(r'id="misere-penalty">20<', html)
    assert "gentleman" in html
    assert "джентльменский вист" in html


@pytest.mark.django_db
def test_preferans_page_shows_dark_games_and_whist_passouts(client: Client):
    classic = client.get(preferans_url("Классика (Classic)")).content.decode()
    rostov = client.get(preferans_url("Ростов (Rostov)")).content.decode()

    assert "every amount of a dark contract × 2" in classic
    assert table(classic, "exit-table")[1] == ["Lowest contract allowed", "6", "7", "8"]
    assert table(classic, "passout-table")[1] == ["Price per trick", "1", "2", "4"]
    assert "writes 5 × the price whists" in rostov
    assert "not played" in rostov


@pytest.mark.django_db
def test_preferans_page_shows_fractional_rates_exactly(client: Client):
    from decimal import Decimal

    tariff = PreferansTariff.objects.get(name=SOCHI)
    tariff.whist_rate = Decimal("1.25")
    tariff.save()

    html = client.get(preferans_url(SOCHI)).content.decode()

    assert row(table(html, "rates-table"), "6")[1] == "2.5"
    assert row(table(html, "rates-table"), "7")[1] == "5"


@pytest.mark.django_db
def test_unknown_tariff_is_404(client: Client):
    assert client.get(reverse("scoring:preferans_tariff_detail", args=[999])).status_code == 404
    assert client.get(reverse("scoring:boston_tariff_detail", args=[999])).status_code == 404


# -- Boston -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_boston_page_shows_the_payment_tables(client: Client, django_assert_num_queries):
    url = boston_url(PAYMENT)
    with django_assert_num_queries(4):  # the tariff and its two kinds of row, the club's name
        response = client.get(url)

    html = response.content.decode()
    assert response.status_code == 200
    supported = table(html, "payment-supported")
    # Won rows 8…13, lost rows 7…0: tricks | over/short | minor | major.
    assert row(supported, "13") == ["13", "slam", "24", "48"]
    assert row(supported, "8") == ["8", "=", "2", "4"]
    assert supported[-1] == ["0", "no trick", "56", "112"]
    assert [r[0] for r in supported if r[0].isdigit()] == [
        *map(str, range(8, 14)),
        *map(str, range(7, -1, -1)),
    ]
    independence = table(html, "payment-independence")
    assert row(independence, "13")[2:] == ["72", "144"]
    assert row(independence, "7")[2:] == ["20", "40"]
    assert independence[-1][2] == "136"
    unsupported = table(html, "payment-unsupported")
    assert row(unsupported, "13")[2] == "36"
    assert row(unsupported, "4")[2] == "4"
    assert unsupported[-1][2] == "24"


@pytest.mark.django_db
def test_boston_page_shows_the_value_card(client: Client):
    html = client.get(boston_url(VALUE_CARD)).content.decode()

    card = table(html, "value-card-table")
    assert [cell.split()[1] for cell in card[0][1:]] == ["spades", "clubs", "diamonds", "hearts"]
    assert row(card, "8 tricks (8 взяток)")[1:] == ["12", "24", "36", "48"]
    assert row(card, "Open Boston (открытый бостон)")[1:] == ["200", "400", "600", "800"]
    assert row(card, "Slam by two (13 together) (шлем вдвоём)")[1:] == [
        *["50", "100", "150", "200"]
    ]
    honours = [r for r in card if r[0] == "three honours (три онёра)"]
    assert len(honours) == 8
    assert honours[-1][1:] == ["16", "32", "48", "64"]
    overtricks = [r for r in card if r[0].startswith("each trick over or short")]
    assert overtricks[0][1:] == ["1", "2", "3", "4"]


@pytest.mark.django_db
def test_boston_pages_keep_the_developers_notes_to_themselves(client: Client):
    """How the seed's OCR was corrected is for developers (docs/, the spec): a member's
    page shows the numbers, not «copy 000 prints 7»."""
    for name in (PAYMENT, VALUE_CARD):
        html = client.get(boston_url(name)).content.decode()
        for internal in ("seed", "OCR", "copy 000", "docs/", ".md"):
            assert internal not in html, (name, internal)


def section_order(html: str) -> list[str]:
    return re.findall(r'<section aria-labelledby="(payment-tariff|value-card)">', html)


@pytest.mark.django_db
def test_each_boston_page_shows_its_own_system_first(client: Client):
    payment = client.get(boston_url(PAYMENT)).content.decode()
    card = client.get(boston_url(VALUE_CARD)).content.decode()

    assert section_order(payment) == ["payment-tariff", "value-card"]
    assert section_order(card) == ["value-card", "payment-tariff"]


@pytest.mark.django_db
def test_a_house_edit_shows_at_once_on_the_boston_page(client: Client):
    tariff = BostonTariff.objects.get(name=PAYMENT)
    tariff.payment_rows.filter(contract="supported").update(rate=3)
    tariff.card_rows.filter(row="open-boston").update(unit=250)

    html = client.get(boston_url(PAYMENT)).content.decode()

    supported = table(html, "payment-supported")
    assert row(supported, "11")[2] == "11"  # base 2 + 3 over × rate 3
    assert row(table(html, "value-card-table"), "Open Boston (открытый бостон)")[4] == "1000"


@pytest.mark.django_db
def test_tariff_pages_need_no_sign_in_and_carry_no_inline_style(client: Client):
    for url in (reverse("scoring:tariff_list"), preferans_url(SOCHI), boston_url(PAYMENT)):
        response = client.get(url)
        html = response.content.decode()
        assert response.status_code == 200
        assert " style=" not in html
        assert "<style" not in html
        assert "css/tariffs.css" in html
