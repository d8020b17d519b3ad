"""Every page in one language (issue 15, item 7): the demo club's pages that a member and an
organiser use — every URL pattern of the site found by walking the resolver, as in
test_url_fuzz.py, filled with the demo club's rows, and the admin pages an organiser may
open — fetched in Russian and in English, with every word a reader sees (text, tooltips,
placeholders, labels for screen readers) checked for the other language's letters: Latin
words on a Russian page, Cyrillic words on an English one.

What may stay is a short list below, each entry with its reason: names (the club's own
data — its members, tariffs, seasons — and the languages in the language switch),
formats and units, and the game's Russian terms of art where the English page gives them
as a hint. The test reports the count per page and fails on any page above zero.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from html.parser import HTMLParser
from types import SimpleNamespace
from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.test import Client
from django.utils import timezone, translation
from django.utils.translation import gettext

from members.models import Member
from scoring.club.demo import load_demo
from scoring.models import (
    BostonTariff,
    Club,
    Evening,
    Guest,
    Penalty,
    PreferansTariff,
    Season,
    Table,
    Tournament,
)
from scoring.services import evenings, tournaments
from tests import factories
from tests.built_once import built_once
from tests.clubsite.test_url_fuzz import PATTERNS, Param, Piece

pytestmark = pytest.mark.django_db

# -- the words ------------------------------------------------------------------------------

LATIN = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")
CYRILLIC = re.compile(r"[А-Яа-яЁё]+(?:[-'’][А-Яа-яЁё]+)*")

ALLOWED_ON_RUSSIAN = {
    # The formats a download or upload is named by, and the code a phone reads.
    "CSV",
    "PNG",
    "JSON",
    "QR",
    # The language switch names each language in its own tongue.
    "English",
    # The messenger the club's chat is on, named as Russian speakers write it.
    "Telegram",
    # The sites whose published events two tournament formats reproduce.
    "Gambler",
    "PlayElephant",
    # The letters of the tariff's formulas, each defined where it is used: V the value of
    # a contract, O the defence's obligation, n the number of players.
    "V",
    "O",
    "n",
}
ALLOWED_ON_ENGLISH = {
    # The language switch names each language in its own tongue.
    "Русский",
}
ALLOWED_ON_PAGE = {
    # The season's ranking field is typed as these keys; the help text beside it gives
    # each one's meaning in the page's language. A league's bands are typed as JSON, as a
    # tournament's ("null": no upper bound), and the help names the best N nights.
    "/admin/scoring/season/": {
        "total",
        "money",
        "average",
        "wins",
        "rating",
        "best",
        "games",
        "null",
        "N",
    },
    # The tournament's bands are typed as JSON ("null": no upper bound) and its help names
    # the best N tours; a started tournament shows its frozen yes/no fields with Django's
    # icons (alt "True"/"False"); the judges' list has Django's own Russian hint, which
    # names the keys "Control" and "Command" on a Mac.
    "/admin/scoring/tournament/": {"null", "N", "True", "False", "Control", "Command", "Mac"},
    # A file of past results, and one of members, names its columns and games so, in every
    # language: the page says what each means in the page's language. UTF-8 is the
    # encoding's name.
    "/club/history/": {
        "username",
        "name",
        "email",
        "table",
        "date",
        "game",
        "player",
        "result",
        "money",
        "preferans",
        "boston",
        "UTF",
    },
}


ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")
SILENT = {"script", "style", "textarea", "template"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
URL = re.compile(r"https?://\S+")


class _Words(HTMLParser):
    """What a reader sees or hears of a page: text outside scripts and styles (and outside
    text areas, whose content is the organiser's own), and the tooltips, placeholders and
    labels of every element. Text inside an element marked ``lang="hint"`` (the game's
    Russian term after its English name) is kept apart."""

    def __init__(self, hint: str) -> None:
        super().__init__(convert_charrefs=True)
        self.hint = hint
        self.parts: list[str] = []
        self.hints: list[str] = []
        self._silent = 0
        self._open: list[tuple[str, bool]] = []  # (tag, is a hint)

    def _in_hint(self) -> bool:
        return any(hint for _tag, hint in self._open)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SILENT:
            self._silent += 1
        words = [value for name, value in attrs if name in ATTRIBUTES and value]
        (self.hints if self._in_hint() else self.parts).extend(words)
        if tag not in VOID:
            self._open.append((tag, dict(attrs).get("lang") == self.hint))

    def handle_endtag(self, tag: str) -> None:
        if tag in SILENT and self._silent:
            self._silent -= 1
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i][0] == tag:
                del self._open[i:]
                break

    def handle_data(self, data: str) -> None:
        if not self._silent:
            (self.hints if self._in_hint() else self.parts).append(data)


def visible_text(html: str, hint: str = "") -> str:
    """The words a reader meets, without the hints in the language ``hint``."""
    parser = _Words(hint)
    parser.feed(html)
    parser.close()
    return URL.sub(" ", "\n".join(parser.parts))


def foreign_words(html: str, language: str, names: list[str], url: str = "") -> Counter[str]:
    """The words of the other language on the page ``url`` in ``language``, the club's
    own names taken out first."""
    # An English page may give the game's Russian term as a hint, marked lang="ru"; a
    # Russian page needs no English hint.
    text = visible_text(html, hint="ru" if language == "en" else "")
    text = re.sub(r"\S+@\S+", " ", text)  # an e-mail address is data, in no language
    text = re.sub(r"\S+\.(?:csv|json)\b", " ", text)  # so is a file's name (an import's)
    # Whole names only: the username "vera" is not taken out of "average".
    if names:
        whole_names = "|".join(re.escape(name) for name in names)
        text = re.sub(rf"(?<!\w)(?:{whole_names})(?!\w)", " ", text)
    pattern, allowed = (
        (LATIN, ALLOWED_ON_RUSSIAN) if language == "ru" else (CYRILLIC, ALLOWED_ON_ENGLISH)
    )
    for prefix, words in ALLOWED_ON_PAGE.items():
        if url.startswith(prefix) and language == "ru":
            allowed = allowed | words
    return Counter(word for word in pattern.findall(text) if word not in allowed)


# -- the figures ---------------------------------------------------------------------------

WRONG_DECIMAL_MARK = {
    # A figure with the other language's decimal mark: «117.33» on a Russian page, «0,50»
    # on an English one (a date, «06.12.2026», has two points and is not a figure).
    "ru": re.compile(r"(?<![\d.,])\d+\.\d+(?![\d.])"),
    "en": re.compile(r"(?<![\d.,])\d+,\d+(?![\d,])"),
}
SHEET_CHAIN = re.compile(r'<g class="sheet-chain"[^>]*>.*?</g>', re.DOTALL)
"""A chain on the drawn sheet, «4.9.17», is the running totals joined by points as
players write them on paper, not a decimal (a fraction there has a comma: sheet.py)."""


JSON_FIELDS = re.compile(
    r'<textarea[^>]*name="(bands|place_points)"[^>]*>.*?</textarea>'
    # its help, also where the field is read-only (a started tournament): no id there
    r'|<div class="help"[^>]*>(?:(?!</div>).)*\[\[(?:(?!</div>).)*</div>',
    re.DOTALL,
)
"""A tournament's bands and place points are typed as JSON in the admin, where a decimal is
written with a point in every language («[[650, 0.1]]»): the organiser's input and its
help's example, not a figure the site shows."""


def wrong_figures(html: str, language: str) -> list[str]:
    """The figures of ``html`` written with the other language's decimal mark."""
    shown = JSON_FIELDS.sub(" ", SHEET_CHAIN.sub(" ", html))
    return WRONG_DECIMAL_MARK[language].findall(visible_text(shown))


def test_a_figure_with_the_other_languages_mark_is_found() -> None:
    html = (
        '<p>06.12.2026: 117.33</p><svg><g class="sheet-chain"><text>4.30</text></g>'
        '<text>−21.67</text></svg><p title="0.5">53,33</p>'
    )

    assert wrong_figures(html, "ru") == ["117.33", "21.67", "0.5"]
    assert wrong_figures(html, "en") == ["53,33"]


# -- the club ---------------------------------------------------------------------------------


@pytest.fixture
def demo_club() -> SimpleNamespace:
    """The demo club, with a season and an evening whose tables are drawn and opened, so that every
    page has something on it."""
    return build_demo_club()


@pytest.fixture(scope="module")
def demo_club_once(django_db_setup: None, django_db_blocker: Any) -> Iterator[SimpleNamespace]:
    """``demo_club`` built once for the module's crawls in both languages (tests/built_once.py),
    not once for each: the crawls only read it (10 s of CPU a build)."""
    with built_once(django_db_blocker):
        yield build_demo_club()


def build_demo_club() -> SimpleNamespace:
    load_demo(stdout=io.StringIO())
    olga = Member.objects.get(username="olga")
    today = timezone.localdate()
    Season.objects.create(
        name="Осень",
        starts_on=today - timedelta(days=60),
        ends_on=today + timedelta(days=30),
        preferans_tariff=PreferansTariff.objects.order_by("pk").first(),
        boston_tariff=BostonTariff.objects.order_by("pk").first(),
    )
    evening = evenings.evening_create(
        organiser=olga, played_on=today, place="Клуб", game="preferans", table_size=3
    )
    for member in Member.objects.exclude(username__in=("admin", "olga")).order_by("pk")[:3]:
        evenings.evening_check_in(evening=evening, member=member, by=olga)
    evenings.evening_draw(evening=evening, seed=1)
    evenings.evening_open_tables(evening=evening, by=olga)
    _tournament(olga)
    return SimpleNamespace(member=Member.objects.get(username="anna"), organiser=olga)


def _tournament(olga: Member) -> None:
    """A tournament with a tour played and closed, a second in play and a penalty, so
    that its pages show standings, explanations, clocks and the judges' forms."""
    cup = factories.tournament(6, name="Кубок клуба", length=Tournament.TIME, minutes=120)
    cup.judges.add(olga)
    tournaments.tournament_start(tournament=cup, seed=3)
    first = tournaments.tour_seat(tournament=cup, by=olga)
    factories.tour_played(first, olga)
    tournaments.tour_close(tour=first)
    tournaments.tour_seat(tournament=cup, by=olga)
    tournaments.penalty_add(
        tournament=cup,
        entry=cup.entries.order_by("pk")[0],
        category=Penalty.POINTS,
        reason="опоздание",
        points=Decimal(5),
        by=olga,
    )


def club_names() -> list[str]:
    """The club's own data that a page shows as it is: people, tariffs, seasons, places,
    the club's name in both languages. Longest first, so that a name is taken out whole."""
    names = [
        *Member.objects.values_list("display_name", flat=True),
        *Member.objects.values_list("username", flat=True),
        *PreferansTariff.objects.values_list("name", flat=True),
        *BostonTariff.objects.values_list("name", flat=True),
        *Season.objects.values_list("name", flat=True),
        *Evening.objects.values_list("place", flat=True),
        *Guest.objects.values_list("name", flat=True),
        *Tournament.objects.values_list("name", flat=True),
        *Penalty.objects.values_list("reason", flat=True),
        *Club.objects.values_list("name", flat=True),
        *Club.objects.values_list("name_en", flat=True),
    ]
    return sorted({name for name in names if name}, key=len, reverse=True)


# -- the pages --------------------------------------------------------------------------------

SKIPPED = {
    # Not pages: they redirect, sign out, or answer JavaScript, JSON, images or CSV.
    "admin:logout",
    "members:logout",
    "admin:jsi18n",
    "admin:autocomplete",
    "admin:view_on_site",
    "set_language",
}


def table_ids() -> list[int]:
    """One table of each kind: each Preferans tariff in play and finished, each Boston
    system."""
    chosen: dict[tuple[str, str, int | None], int] = {}
    for table in Table.objects.order_by("pk"):
        tariff = table.preferans_version_id and table.preferans_version.tariff_id
        key = (table.game, table.status, tariff or getattr(table.boston_version, "tariff_id", None))
        chosen.setdefault(key, table.pk)
    return sorted(chosen.values())


def values(name: str, param: Param, language: str) -> tuple[str, ...]:
    """What fills ``param`` of the pattern ``name``: the rows the page is about (a page
    in a language of its own, the offline page, in the crawl's)."""
    if param.choices:
        return param.choices
    if param.name == "language":
        return (language,)
    if param.name == "game":
        return ("preferans", "boston")
    if param.name == "username":
        return ("anna", "olga")
    if param.name == "object_id":
        app_label, _, rest = name.removeprefix("admin:").partition("_")
        model_name = rest.rsplit("_", 1)[0]
        model = apps.get_model(app_label, model_name)
        if model is Table:  # as on the site's own table pages: the demo's 98 are 7 kinds
            return tuple(map(str, table_ids()))
        return tuple(str(pk) for pk in model.objects.order_by("pk").values_list("pk", flat=True))
    if param.name == "deal_pk":
        return ()  # filled with the table's own deals
    if name.startswith("scoring:evening") or name.startswith("scoring:settlement"):
        return tuple(str(pk) for pk in Evening.objects.values_list("pk", flat=True))
    if name.startswith(("scoring:tournament", "scoring:tour_", "scoring:penalty")):
        tournament = Tournament.objects.get(name="Кубок клуба")
        if param.name == "pk":
            return (str(tournament.pk),)
        if param.name == "number":
            return tuple(str(n) for n in tournament.tour_set.values_list("number", flat=True))
        if param.name == "table":
            return ("1",)
        if param.name == "penalty":
            return tuple(str(pk) for pk in tournament.penalties.values_list("pk", flat=True))
    if name.startswith("scoring:season"):
        return tuple(str(pk) for pk in Season.objects.values_list("pk", flat=True))
    if name == "scoring:preferans_tariff_detail":
        return tuple(str(pk) for pk in PreferansTariff.objects.values_list("pk", flat=True))
    if name == "scoring:boston_tariff_detail":
        return tuple(str(pk) for pk in BostonTariff.objects.values_list("pk", flat=True))
    if param.name == "pk":
        return tuple(map(str, table_ids()))
    raise AssertionError(f"nothing fills {param.name} of {name}")


def urls(name: str, pieces: tuple[Piece, ...], language: str) -> Iterator[str]:
    if name in SKIPPED or name.startswith("//admin//") or name.startswith("admin:password"):
        return
    params = [piece for piece in pieces if isinstance(piece, Param)]
    if any(param.name in ("url", "uidb64", "token") for param in params):
        return
    if name.startswith("admin:") and not admin_model_used_by_organisers(name):
        return
    filled: list[str] = [""]
    for piece in pieces:
        if isinstance(piece, str):
            filled = [url + piece for url in filled]
        elif piece.name == "deal_pk":
            filled = [url + deal for url in filled for deal in deals_of(url)]
        else:
            filled = [url + value for url in filled for value in values(name, piece, language)]
    yield from (re.sub("/+", "/", url) for url in filled)


def deals_of(url: str) -> list[str]:
    """The first deal of the table that ``url`` points at (every deal has the same page)."""
    table = Table.objects.get(pk=int(url.rstrip("/").rsplit("/", 2)[-2]))
    deal = table.deal_records.order_by("pk").first()
    return [str(deal.pk)] if deal else []


def admin_model_used_by_organisers(name: str) -> bool:
    """The admin's index and the pages of the models an organiser may open."""
    if name in ("admin:index", "admin:app_list", "admin:login"):
        return True
    return any(
        name.startswith(f"admin:{model._meta.app_label}_{model._meta.model_name}_")
        for model in admin.site._registry
        if model._meta.app_label in ("scoring", "members")
    )


@dataclass(frozen=True)
class Page:
    url: str
    role: str
    words: Counter[str]
    figures: list[str]


def crawl(language: str, people: SimpleNamespace) -> list[Page]:
    names = club_names()
    pages: list[Page] = []
    for role in ("member", "organiser"):
        client = Client(headers={"accept-language": language})
        client.force_login(getattr(people, role))
        for name, pieces in PATTERNS:
            for url in urls(name, pieces, language):
                response = client.get(url)
                if response.status_code != 200:
                    continue
                if not response["Content-Type"].startswith("text/html"):
                    continue
                html = response.content.decode()
                words = foreign_words(html, language, names, url)
                # A fragment (the live sheet) has no <html>; a page says its language.
                if "<html" in html and f'<html lang="{language}"' not in html:
                    words["<html lang> is not " + language] += 1
                pages.append(Page(url, role, words, wrong_figures(html, language)))
    return pages


def figures_report(pages: list[Page]) -> str:
    failing = [page for page in pages if page.figures]
    lines = [f"{len(failing)} of {len(pages)} pages have figures in the other language's way:"]
    lines += [f"  {page.role:9s} {page.url}  {' '.join(page.figures[:8])}" for page in failing]
    return "\n".join(lines)


def report(pages: list[Page]) -> str:
    failing = [page for page in pages if page.words]
    lines = [f"{len(failing)} of {len(pages)} pages have words of the other language:"]
    for page in failing:
        words = ", ".join(f"{word}×{n}" for word, n in page.words.most_common())
        lines.append(f"{sum(page.words.values()):4d}  {page.role:9s} {page.url}  {words}")
    return "\n".join(lines)


@pytest.mark.slow  # a crawl of the whole site
@pytest.mark.parametrize("language", ["ru", "en"])
def test_every_page_speaks_one_language(language: str, demo_club_once: SimpleNamespace) -> None:
    pages = crawl(language, demo_club_once)

    print(report(pages))
    assert len(pages) > 60
    assert not [page for page in pages if page.words], report(pages)
    # One number format per language (issue 30, item 10): the figures too, charts included.
    assert not [page for page in pages if page.figures], figures_report(pages)


def test_djangos_date_filter_label_is_russian() -> None:
    """Django 6.1's label of an admin change list's date filter is not in Django's own
    Russian catalogue yet, so locale/ru translates it; this call is also where
    makemessages finds the message."""
    with translation.override("ru"):
        assert (
            gettext("Filter by %(field_name)s") % {"field_name": "первый день"}
            == "Фильтр: первый день"
        )
