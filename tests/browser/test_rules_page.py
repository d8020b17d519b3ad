"""The rules page on a phone (390 × 844, an iPhone 12–15): the page never scrolls sideways
in either language — a wide table of numbers scrolls inside its own box — and the table
of contents leads to its sections."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    # The live server answers from its own thread, so the data must be committed; the preset
    # tariffs and the club's row (data migrations) are put back after the flush.
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PHONE = {"width": 390, "height": 844}


def page_width(page: Page) -> dict[str, int]:
    return page.evaluate(
        "() => ({scroll: document.documentElement.scrollWidth,"
        " client: document.documentElement.clientWidth})"
    )


def widest_box(page: Page) -> int:
    """The right edge of the furthest-reaching element outside the tables' scroll boxes."""
    return page.evaluate(
        """() => Math.max(...[...document.querySelectorAll('main *')]
            .filter(el => !el.closest('.table-scroll'))
            .map(el => el.getBoundingClientRect().right))"""
    )


def assert_fits_the_phone(page: Page) -> None:
    width = page_width(page)
    assert width["client"] == PHONE["width"]
    assert width["scroll"] <= width["client"], width
    assert widest_box(page) <= PHONE["width"]
    boxes = page.locator("main .table-scroll")
    assert boxes.count() >= 6
    for i in range(boxes.count()):
        box = boxes.nth(i).bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= PHONE["width"]


def test_the_rules_page_fits_a_phone_in_both_languages(
    new_page: Callable[[], Page], browser_problems
) -> None:
    page = new_page()
    page.set_viewport_size(PHONE)

    page.goto("/rules/")
    expect(page.get_by_role("heading", level=1)).to_have_text("The club's rules")
    assert_fits_the_phone(page)
    # The widest table, the Boston payment tariff, is wider than the phone and scrolls in
    # its own box.
    scroll = page.locator(".table-scroll:has(#payment-table)")
    assert scroll.evaluate("el => el.scrollWidth > el.clientWidth")

    page.get_by_role("button", name="Русский").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Правила клуба")
    assert_fits_the_phone(page)

    page.get_by_role("navigation", name="Содержание").get_by_role("link", name="Распасы").click()
    expect(page).to_have_url(page.url.split("#")[0].removesuffix("/") + "/#passouts")
    heading = page.locator("#passouts-heading")
    expect(heading).to_be_in_viewport()
    assert browser_problems.seen == []
