"""The members' rules page (/rules/): the club's rules in Russian and English, with the
numbers of the tariffs the club plays by, a table of contents, and none of the
developers' notes of docs/rules.md.

The expected numbers are worked out by hand from preferans.md and boston.md (the seed's
printed totals for Boston)."""

from __future__ import annotations

import datetime
import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from scoring import services
from scoring.models import (
    BostonTariff,
    PreferansTariff,
    PreferansTariffVersion,
    Season,
)
from scoring.models.tariff_settings import BOSTON_SETTINGS, PREFERANS_SETTINGS, Setting
from scoring.pages import rules as rules_page
from tests import factories

pytestmark = pytest.mark.django_db

SOCHI = "Сочи (Sochi)"
LENINGRAD = "Ленинград (Leningrad)"
PAYMENT = "Бостон: тариф платежей (payment tariff)"
CARD = "Бостон: таблица стоимости (value card)"
SECTIONS = [
    "#pulka",
    "#contracts",
    "#whists",
    "#misere",
    "#passouts",
    "#settlement",
    "#last-round",
    "#boston",
    "#boston-payment",
    "#boston-card",
    "#settings",
]


class _Page(HTMLParser):
    """What the tests read of the page: every element id (with its tag), the links of the
    table of contents, each table row's cells by the row's id or first cell, and the text
    a reader sees."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[tuple[str, str]] = []
        self.toc: list[str] = []
        self.rows: dict[str, list[str]] = {}
        self.text = ""
        self._in_toc = 0
        self._row: list[str] | None = None
        self._row_id: str | None = None
        self._cell: str | None = None
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.append((a["id"] or "", tag))
        if tag in ("script", "style", "head"):
            self._hidden += 1
        if tag == "nav" and "toc" in (a.get("class") or "").split():
            self._in_toc += 1
        elif self._in_toc and tag == "a":
            self.toc.append(a.get("href") or "")
        elif tag == "tr":
            self._row, self._row_id = [], a.get("id")
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head"):
            self._hidden -= 1
        if tag == "nav" and self._in_toc:
            self._in_toc -= 1
        elif tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append(" ".join(self._cell.split()))
            self._cell = None
        elif tag == "tr" and self._row:
            self.rows[self._row_id or self._row[0]] = self._row[1:]
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell += data
        if not self._hidden:
            self.text += data


def read(html: str) -> _Page:
    parser = _Page()
    parser.feed(html)
    parser.text = " ".join(parser.text.split())
    return parser


def page(language: str) -> str:
    response = Client(headers={"accept-language": language}).get(reverse("scoring:rules"))
    assert response.status_code == 200
    return response.content.decode()


# -- the page in two languages ------------------------------------------------------------


def test_the_page_is_russian_for_russian_and_english_for_english() -> None:
    russian, english = read(page("ru")), read(page("en"))

    assert '<html lang="ru">' in page("ru")
    assert '<html lang="en">' in page("en")
    for heading in ("Правила клуба", "Пулька: пуля, гора, висты", "Висты и полвиста", "Распасы"):
        assert heading in russian.text
        assert heading not in english.text
    for heading in ("The club's rules", "The pulka: pool, mountain, whists", "Pass-outs"):
        assert heading in english.text
        assert heading not in russian.text
    # The words Russian players use, on both pages.
    for word in ("пуля", "гора", "висты", "распасы", "мизер", "полвиста"):
        assert word in russian.text.lower()
        assert word in english.text.lower()
    # The tables' labels are translated too.
    assert "Стоимость V, в пулю" in russian.text
    assert "Value V, into the pool" in english.text


def test_any_other_language_gets_the_russian_page() -> None:
    html = Client(headers={"accept-language": "de"}).get(reverse("scoring:rules")).content

    assert "Правила клуба" in read(html.decode()).text


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_table_of_contents_leads_to_every_section(language: str) -> None:
    html = read(page(language))

    assert html.toc == SECTIONS
    ids = [name for name, _tag in html.ids]
    for anchor in html.toc:
        assert ids.count(anchor[1:]) == 1, anchor  # one target each
    assert all(tag == "section" for name, tag in html.ids if f"#{name}" in SECTIONS)
    assert len(ids) == len(set(ids))  # no id twice anywhere on the page


@pytest.mark.parametrize("language", ["ru", "en"])
def test_no_developer_notes(language: str) -> None:
    html = page(language)
    text = read(html).text

    for note in ("OCR", "seed", "tests/", ".py", "docs/", ".md", "engine", "`"):
        assert note not in html, note
    for word in ("setting", "preset", "настройк"):  # the rules, not how they are configured
        assert word not in text.lower(), word


# -- the house tariffs' numbers ----------------------------------------------------------


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_sochi_numbers(language: str) -> None:
    html = read(page(language))
    rows = html.rows

    # preferans.md §3 and §11 (Sochi): V, O and the rates at 1 × V per trick.
    assert rows["levels-value"] == ["2", "4", "6", "8", "10", "10"]
    assert rows["levels-obligation"] == ["4", "2", "1", "1", "1", "—"]
    assert rows["levels-quota"] == ["2 + 2", "1 + 1", "—", "—", "—", "—"]
    assert rows["levels-whist"] == ["2", "4", "6", "8", "10", "—"]
    assert rows["levels-remise"] == ["2", "4", "6", "8", "10", "10"]  # a misère: 10 a trick
    assert rows["levels-consolation"] == ["2", "4", "6", "8", "10", "—"]
    assert rows["levels-duty"] == ["2", "4", "6", "8", "10", "—"]
    # Half-whist on 6 and 7: half the obligation × the whist price (§4.2).
    assert "6: 2 × 2 = 4; " in html.text
    assert "7: 1 × 4 = 4." in html.text


def sochi_pass_outs(html: _Page) -> None:
    assert html.rows["Распасы подряд"] == ["1", "2", "3 и далее"]
    assert html.rows["Цена взятки"] == ["1", "2", "3"]
    assert html.rows["После распасов подряд"] == ["1 и далее"]
    assert html.rows["Следующая игра не ниже"] == ["6"]


def test_the_sochi_pass_outs_and_exit() -> None:
    sochi_pass_outs(read(page("ru")))


@pytest.mark.parametrize(("language", "letters"), [("ru", "АБВ"), ("en", "ABC")])
def test_the_settlement_example(language: str, letters: str) -> None:
    rows = read(page(language)).rows
    a, b, c = letters  # the seats as each language letters them (labels.seat_letters)

    # Pools closed, mountains 12, 30, 6 (average 16), whists А→Б 40, Б→В 10, В→А 16:
    # А −10 × (12 − 16) + 40 − 16 = 64; Б −10 × 14 + 10 − 40 = −170; В 100 + 16 − 10 = 106.
    assert rows[a] == ["12", "40", "16", "64"]
    assert rows[b] == ["30", "10", "40", "-170"]
    assert rows[c] == ["6", "16", "10", "106"]


def test_the_settlement_example_says_its_figures() -> None:
    russian, english = read(page("ru")).text, read(page("en")).text

    assert "Горы: А — 12, Б — 30, В — 6; средняя — 16." in russian
    assert "Висты: А написал на Б 40, Б написал на В 10, В написал на А 16." in russian
    assert "Mountains: A 12, B 30, C 6; the average is 16." in english
    assert "Whists: A wrote 40 on B, B wrote 10 on C, C wrote 16 on A." in english


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_boston_numbers(language: str) -> None:
    html = read(page(language))
    rows = html.rows

    # boston.md §1, minor suit, simple tour: tricks, base, rate, then made exactly, slam,
    # one short and no trick — the seed's printed totals (24, 56, 36, 4, 24, 72, 20, 136).
    assert rows["payment-supported"] == ["8", "2", "2", "2", "24", "4", "56"]
    assert rows["payment-unsupported"] == ["5", "2", "2", "2", "36", "4", "24"]
    assert rows["payment-independence"] == ["8", "16", "4", "16", "72", "20", "136"]
    # boston.md §2 in the ×1 column: unit, three and four honours, each trick over.
    assert rows["card-8"] == ["12", "8", "12", "4"]
    assert rows["card-open-boston"][0] == "200"
    # 8 in diamonds (×3) made with 9 and four honours: 36 + 36 + 12.
    assert "36 + 36 + 12 = 84" in html.text
    assert "♠ ×1, ♣ ×2, ♦ ×3, ♥ ×4" in html.text


def test_each_tariff_links_to_its_page() -> None:
    html = page("ru")

    for model, name, url in (
        (PreferansTariff, SOCHI, "scoring:preferans_tariff_detail"),
        (BostonTariff, PAYMENT, "scoring:boston_tariff_detail"),
        (BostonTariff, CARD, "scoring:boston_tariff_detail"),
    ):
        tariff = model.objects.get(name=name)
        assert f'<a href="{reverse(url, args=[tariff.pk])}">{name}</a>' in html


def test_the_seasons_tariff_gives_its_numbers() -> None:
    today = timezone.localdate()
    Season.objects.create(
        name="Сейчас",
        starts_on=today - datetime.timedelta(days=10),
        ends_on=today + datetime.timedelta(days=10),
        preferans_tariff=PreferansTariff.objects.get(name=LENINGRAD),
    )

    html = read(page("ru"))

    # Leningrad: whists, remise and consolation at 2 × V, misère 20 a trick, pass-outs
    # 2, 4, 6 and out on 7, gentleman's whist, help 20 whists a point.
    assert html.rows["levels-whist"] == ["4", "8", "12", "16", "20", "—"]
    assert html.rows["levels-remise"] == ["4", "8", "12", "16", "20", "20"]
    assert html.rows["Цена взятки"] == ["2", "4", "6"]
    assert html.rows["Следующая игра не ниже"] == ["7"]
    assert "6: 2 × 4 = 8; " in html.text
    assert "джентльменский вист" in html.text
    assert "жлобский" not in html.text
    assert "каждое очко помощи вы пишете на него 20 вистов" in html.text
    tariff = PreferansTariff.objects.get(name=LENINGRAD)
    assert reverse("scoring:preferans_tariff_detail", args=[tariff.pk]) in page("ru")


def test_a_changed_tariff_value_shows_on_the_page() -> None:
    sochi = PreferansTariff.objects.get(name=SOCHI)
    sochi.value_7 = 5
    sochi.passout_ladder = "1, 3, 5"
    services.tariff_publish(sochi, by=None)
    payment = BostonTariff.objects.get(name=PAYMENT)
    payment.payment_rows.filter(contract="supported").update(base=3)
    services.tariff_publish(payment, by=None)

    html = read(page("ru"))

    assert html.rows["levels-value"] == ["2", "5", "6", "8", "10", "10"]
    assert html.rows["levels-whist"] == ["2", "5", "6", "8", "10", "—"]
    assert "7: 1 × 5 = 5." in html.text
    assert html.rows["Цена взятки"] == ["1", "3", "5"]
    # Base 3, rate 2, 8 tricks: made 3; slam 2 × 3 + 5 × 2 × 2 = 26; one short 3 + 2 = 5;
    # no trick 2 × 3 + 13 × 2 × 2 = 58.
    assert html.rows["payment-supported"] == ["8", "3", "2", "3", "26", "5", "58"]


def test_a_choice_of_the_tariff_is_said_in_words() -> None:
    sochi = PreferansTariff.objects.get(name=SOCHI)
    sochi.passout_mode = "whists"
    sochi.consolation_rate = 0
    sochi.half_whist_levels = ""
    services.tariff_publish(sochi, by=None)

    html = read(page("en"))

    assert "The player with the fewest tricks writes 5 × the price in whists" in html.text
    assert html.rows["Whists per trick"] == ["5", "10", "15"]
    assert "There is no consolation" in html.text
    assert "levels-consolation" not in html.rows
    assert "The club does not play half-whist." in html.text


def test_without_a_preferans_tariff_the_page_keeps_boston() -> None:
    PreferansTariffVersion.objects.all().delete()
    PreferansTariff.objects.all().delete()

    html = read(page("ru"))

    assert html.toc == ["#boston", "#boston-payment", "#boston-card", "#settings"]
    assert "levels-value" not in html.rows
    assert re.search(
        r"Числа на этой странице — из тарифов, по которым клуб играет сейчас: бостон", html.text
    )


@pytest.mark.parametrize("tables", [1, 6])
def test_the_pages_queries_do_not_grow_with_the_tables(
    django_assert_num_queries, tables: int
) -> None:
    for _ in range(tables):
        factories.pulka()
        factories.boston_table()
    client = Client()

    # The season (1); per game or Boston system, the most played tariff (3), and for the
    # value card, unplayed, the version that plays its preset (1); the Boston rows (2); the
    # club's name (1).
    with django_assert_num_queries(8):
        assert client.get(reverse("scoring:rules")).status_code == 200


# -- every setting, from its declaration ----------------------------------------------------


@pytest.mark.parametrize("language", ["ru", "en"])
def test_every_setting_of_each_preset_is_in_the_settings_table(language: str) -> None:
    today = timezone.localdate()
    season = Season.objects.create(
        name="Сейчас", starts_on=today - datetime.timedelta(days=10), ends_on=today
    )
    for tariff in PreferansTariff.objects.all():
        season.preferans_tariff = tariff
        season.save()

        html = read(page(language))

        for setting in PREFERANS_SETTINGS:
            assert html.rows[f"setting-preferans-{setting.name}"] == [
                setting.text(tariff.to_rules())
            ], (tariff.name, setting.name)
    for setting in BOSTON_SETTINGS:
        system = "payment-tariff" if setting.section != "value_card" else "value-card"
        assert f"setting-{system}-{setting.name}" in html.rows, setting.name


def test_a_new_setting_is_in_the_settings_table_without_a_template_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    throwaway = Setting(
        name="throwaway_bombs",
        kind="flag",
        section="dark",
        help_text="A house rule declared only in this test.",
        label="A throwaway house rule",
        rule="bombs",
    )
    monkeypatch.setattr(rules_page, "PREFERANS_SETTINGS", (*PREFERANS_SETTINGS, throwaway))

    html = read(page("en"))

    assert html.rows["setting-preferans-throwaway_bombs"] == ["no"]
    assert "A throwaway house rule" in html.text
