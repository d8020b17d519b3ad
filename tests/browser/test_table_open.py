"""Opening a table on a 390×844 phone, counted in taps (issue 30, finding 9): from the
tables list, with the club's tariff, seat А (the member opening it) and the first dealer
already chosen. Taps are Playwright ``tap()`` calls on a touch context, the link to the
form and «Open the table» included; each target at least 44 × 44 CSS px.

Measured: a pulka of three regulars 4 taps (≤ 5, issue 30), of four 5, a Boston table 6
(three seats and the preference suit)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from scoring.models import Table
from tests import factories
from tests.browser.conftest import PHONE
from tests.browser.test_pulka_flow import sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

TAP_TARGET = 44


class Thumb:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.taps = 0

    def tap(self, target: Locator, *, sized: bool = True) -> None:
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        assert box is not None
        if sized:
            assert box["width"] >= TAP_TARGET and box["height"] >= TAP_TARGET, box
        target.tap()
        self.taps += 1

    def seat(self, n: int, name: str) -> None:
        button = self.page.locator(f"#id_player_{n} label.segment", has_text=name)
        self.tap(button)
        expect(button.locator("input")).to_be_checked()


def open_form(page: Page, thumb: Thumb, link: str) -> None:
    page.goto("/tables/")
    # The list's toolbar button is a small one (36 px, on a row): counted, not measured.
    thumb.tap(page.get_by_role("link", name=link), sized=False)
    expect(page.locator("#table-open")).to_be_visible()


def opened(page: Page, thumb: Thumb) -> Table:
    thumb.tap(page.get_by_role("button", name="Open the table"))
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    return Table.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))


def test_a_pulka_of_regulars_opens_in_four_taps_and_of_four_in_five(new_page):
    anna = factories.member("Anna", username="anna")
    for name in ("Boris", "Vera", "Gleb"):
        factories.member(name, username=name.lower())
    factories.member("Admin", username="admin", is_staff=True, is_superuser=True)
    page = new_page(**PHONE)
    sign_in(page, "anna")
    thumb = Thumb(page)

    open_form(page, thumb, "Open a pulka")
    form = page.locator("#table-open")
    expect(form.locator("#id_player_0 input:checked")).to_have_value(str(anna.pk))
    expect(form.locator('input[name="version"]:checked')).to_have_count(1)
    expect(form.locator('input[name="first_dealer"]:checked')).to_have_value("0")
    expect(form.locator('input[type="time"][name="control_time"]')).to_be_visible()
    expect(form.locator("select")).to_have_count(0)
    expect(form).not_to_contain_text("Admin")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["viewport"]["width"]
    thumb.seat(1, "Boris")
    thumb.seat(2, "Vera")
    table = opened(page, thumb)

    assert thumb.taps == 4  # ≤ 5 (issue 30); it was 10
    assert [s.name for s in table.seats.order_by("position")] == ["Anna", "Boris", "Vera"]
    assert table.first_dealer == 0

    thumb.taps = 0
    open_form(page, thumb, "Open a pulka")
    for n, name in enumerate(("Boris", "Vera", "Gleb"), start=1):
        thumb.seat(n, name)
    table = opened(page, thumb)
    assert thumb.taps == 5
    assert [s.name for s in table.seats.order_by("position")] == ["Anna", "Boris", "Vera", "Gleb"]


def test_a_boston_table_opens_in_six_taps(new_page):
    for n in ("Anna", "Boris", "Vera", "Gleb"):
        factories.member(n, username=n.lower())
    page = new_page(**PHONE)
    sign_in(page, "anna")
    thumb = Thumb(page)

    open_form(page, thumb, "Open a Boston table")
    for n, name in enumerate(("Boris", "Vera", "Gleb"), start=1):
        thumb.seat(n, name)
    thumb.tap(page.locator("#id_preference_suit label.segment", has_text="hearts"))
    table = opened(page, thumb)

    assert thumb.taps == 6  # three seats, the preference suit; it was 14
    assert (table.game, table.preference_suit) == (Table.BOSTON, "hearts")
