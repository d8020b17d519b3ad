"""The visual system (docs/design.md): colours only in the tokens, and the navigation every
page carries — the header's menu and the phone's tab bar, with the current place marked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests import factories

CSS = Path(settings.BASE_DIR) / "static" / "css"
KEEP_THEIR_COLOURS = {
    "tokens.css",  # the colours themselves
    "sheet.css",  # the PNG renderer reads it alone, without the tokens (docs/design.md)
}
DECLARATION = re.compile(r"([a-z-]+)\s*:\s*([^;{}]+);")
COLOUR = re.compile(
    r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\(|\b(?:white|black)\b"
)


def declarations(css: str) -> list[tuple[str, str]]:
    """A style sheet's (property, value) pairs, its comments left out."""
    return DECLARATION.findall(re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL))


def literal_colours(css: str) -> list[str]:
    """The declarations of a style sheet whose value names a colour itself."""
    return [
        f"{prop}: {value.strip()}"
        for prop, value in declarations(css)
        if not prop.startswith("--") and COLOUR.search(value)
    ]


def test_the_colours_live_in_the_tokens_only():
    sheets = sorted(p for p in CSS.glob("*.css") if p.name not in KEEP_THEIR_COLOURS)
    assert {p.name for p in sheets} >= {"components.css", "site.css", "standings.css"}
    found = {p.name: literal_colours(p.read_text(encoding="utf-8")) for p in sheets}
    assert {name: colours for name, colours in found.items() if colours} == {}


def test_the_check_finds_a_literal_colour():
    assert literal_colours("a { color: #1f5f8b; }\n#sheet { border: 1px solid rgb(0 0 0); }") == [
        "color: #1f5f8b",
        "border: 1px solid rgb(0 0 0)",
    ]
    assert literal_colours("#table-body > .deal-form { color: var(--ink); }") == []


def test_the_tokens_have_a_dark_scheme_for_every_colour():
    tokens = (CSS / "tokens.css").read_text(encoding="utf-8")
    light, dark = tokens.split("@media (prefers-color-scheme: dark)", 1)
    dark = dark.split("@media print", 1)[0]
    coloured = {name for name, value in declarations(light) if COLOUR.search(value)}
    redefined = {name for name, _value in declarations(dark)}
    # The sheet stays paper in both schemes; every other colour has its dark value.
    assert coloured - redefined == {"--sheet-paper"}


def tabs(html: str) -> list[tuple[str, bool]]:
    """The tab bar's links: (href, whether it is the current page)."""
    bar = re.search(r'<nav class="tab-bar".*?</nav>', html, flags=re.DOTALL)
    assert bar is not None
    return [
        (href, current == ' aria-current="page"')
        for href, current in re.findall(r'<a href="([^"]+)"( aria-current="page")?>', bar.group())
    ]


@pytest.mark.django_db
def test_a_visitor_s_tabs_and_me_is_signing_in():
    html = Client(headers={"accept-language": "ru"}).get("/tables/").content.decode()

    assert tabs(html) == [
        ("/tables/", True),
        ("/evenings/", False),
        ("/seasons/", False),
        ("/members/sign-in/?next=/tables/", False),
    ]
    assert ">Столы</a>" in html and ">Вечер</a>" in html and ">Таблица</a>" in html
    assert ">Я</a>" in html
    assert "<svg" not in html  # icons are masks of static files: a page holds no SVG of its own


@pytest.mark.django_db
def test_a_member_s_me_is_his_own_page_and_marked_there():
    anna = factories.member("Anna", username="anna")
    factories.member("Boris", username="boris")
    client = Client()
    client.force_login(anna)

    own = tabs(client.get("/members/anna/").content.decode())
    other = tabs(client.get("/members/boris/").content.decode())
    evenings = tabs(client.get("/evenings/").content.decode())

    assert own[-1] == ("/members/anna/", True)
    assert other[-1] == ("/members/anna/", False)
    assert [current for _href, current in evenings] == [False, True, False, False]


@pytest.mark.django_db
def test_the_header_marks_the_section_and_names_the_club():
    html = Client().get("/seasons/").content.decode()
    nav = re.search(r'<nav class="site-nav".*?</nav>', html, flags=re.DOTALL)

    assert nav is not None
    assert re.findall(r'href="([^"]+)" aria-current="page"', nav.group()) == ["/seasons/"]
    assert '<details class="site-menu">' in html  # the phone's menu opens without JavaScript
