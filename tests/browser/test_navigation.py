"""The site's navigation in real Chromium (docs/design.md): on a phone a one-line header and
a tab bar at the foot of the screen; on a desktop the full menu, no tab bar, and lists that
use the width."""

from __future__ import annotations

import datetime
import re

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.browser.conftest import PHONE
from tests.browser.test_pulka_flow import sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

TAP_TARGET = 44  # CSS px


def club() -> None:
    """Six tables: two in play, four finished."""
    anna, boris, vera, gleb = (
        factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera", "Gleb")
    )
    factories.pulka([anna, boris, vera])
    factories.pulka([boris, vera, gleb])
    for day in range(1, 5):
        factories.finished_pulka([anna, vera, gleb], anna, datetime.date(2026, 3, day))


def test_a_phone_has_a_one_line_header_and_a_tab_bar(new_page):
    club()
    page = new_page(**PHONE)
    sign_in(page, "anna")
    page.goto("/tables/")

    header = page.locator("header.site-header").bounding_box()
    assert header is not None and header["height"] <= 60, header  # was 160 px on three lines
    expect(page.get_by_role("navigation", name="Sections")).to_be_hidden()
    tabs = page.get_by_role("navigation", name="Main").get_by_role("link")
    expect(tabs).to_have_text(["Tables", "Evening", "Standings", "Me"])
    height = PHONE["viewport"]["height"]
    for box in (tabs.nth(i).bounding_box() for i in range(4)):
        assert box is not None
        assert box["height"] >= TAP_TARGET and box["width"] >= TAP_TARGET, box
        assert box["y"] + box["height"] <= height and box["y"] >= height - 80, box
    expect(tabs.first).to_have_attribute("aria-current", "page")

    # The sections the tab bar leaves out are in the header's menu, which opens without
    # JavaScript; «Me» is the member's own page.
    page.locator(".site-menu > summary").tap()
    page.get_by_role("navigation", name="More").get_by_role("link", name="Tariffs").tap()
    expect(page.get_by_role("heading", level=1)).to_have_text("The club's tariffs")
    tabs.last.tap()
    expect(page).to_have_url(re.compile(r"/members/anna/$"))
    expect(tabs.last).to_have_attribute("aria-current", "page")
    # Nothing at the foot of a page hides under the bar. (The page loaded whole first, and
    # the scroll waited for: under load the URL changed while the page still grew, and the
    # foot was measured half-way down.)
    page.wait_for_load_state("networkidle")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_function(
        "() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1"
    )
    last = page.locator("main > :last-child").bounding_box()
    bar = page.locator("nav.tab-bar").bounding_box()
    assert last is not None and bar is not None
    assert last["y"] + last["height"] <= bar["y"], (last, bar)


def test_a_desktop_has_the_full_menu_and_lists_in_columns(new_page):
    club()
    page = new_page(viewport={"width": 1366, "height": 900})
    page.goto("/tables/")

    # Tables, Evenings, Tournaments, Standings, Tariffs, Rules (a visitor: no Admin)
    expect(page.get_by_role("navigation", name="Sections").get_by_role("link")).to_have_count(6)
    expect(page.locator("nav.tab-bar")).to_be_hidden()
    expect(page.locator(".site-menu")).to_be_hidden()
    cards = page.locator("ul.table-list").last.locator(".card")
    expect(cards).to_have_count(4)
    lefts = {round(box["x"]) for box in (cards.nth(i).bounding_box() or {} for i in range(4))}
    assert len(lefts) >= 3, lefts  # three or four cards to a row, not one column
    main = page.locator("main").bounding_box()
    assert main is not None and main["width"] > 1000, main  # not a 640 px column
