"""The whole sheet on a phone (issue 30, finding 2 and 3): the drawn sheet fits the
phone's width, "Actual size" draws it large enough to read and scrolls it in its frame, a
live update keeps both, and no figure, name or heading of the result table is split
across lines. On a desktop the visitor's sheet fills its column."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from scoring import services
from tests import factories
from tests.browser.conftest import PC, PHONE
from tests.browser.test_pulka_flow import LIVE_SECONDS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PHONE_WIDTH = PHONE["viewport"]["width"]
READABLE_PX = 11  # the smallest words of the sheet when drawn at its actual size

FRAME = """() => {
    const frame = document.querySelector('#sheet .pulka-svg');
    const svg = frame.querySelector('svg.pulka-sheet');
    const f = frame.getBoundingClientRect();
    const s = svg.getBoundingClientRect();
    return {
        frameLeft: f.left, frameRight: f.right, svgLeft: s.left, svgRight: s.right,
        svgWidth: s.width, scrollWidth: frame.scrollWidth, clientWidth: frame.clientWidth,
        scrollLeft: frame.scrollLeft, page: document.documentElement.scrollWidth,
        smallest: Math.min(...Array.from(svg.querySelectorAll('text')).map(
            (t) => parseFloat(getComputedStyle(t).fontSize) * s.width / svg.viewBox.baseVal.width)),
    };
}"""

SPLIT_WORDS = """(selector) => {
    // Every word of the cells on one line: a Range over each word, its boxes' tops.
    const split = [];
    for (const cell of document.querySelectorAll(selector)) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const match of node.data.matchAll(/\\S+/g)) {
                const range = document.createRange();
                range.setStart(node, match.index);
                range.setEnd(node, match.index + match[0].length);
                const rects = Array.from(range.getClientRects());
                const tops = new Set(rects.map((r) => Math.round(r.top)));
                if (tops.size !== 1) split.push(match[0]);
            }
        }
    }
    return split;
}"""


def four_players() -> Any:
    """A pulka of four with long names and money in the hundreds: the widest result table
    a club writes (seat Г was the one off the phone's screen)."""
    names = ("Александра", "Борис", "Валентина", "Глеб")
    members = [factories.member(n, username=f"m{i}") for i, n in enumerate(names)]
    return factories.pulka(members, pool_target=50, deals=[misere("Борис"), misere("Валентина")])


def misere(declarer: str) -> dict[str, Any]:
    return {"kind": "misere", "declarer": declarer, "tricks": {declarer: 3}}


def test_the_whole_sheet_fits_a_phone_and_no_figure_is_split(new_page):
    table = four_players()
    page = new_page(**PHONE)
    page.goto(f"/tables/{table.pk}/")
    box = page.evaluate(FRAME)
    # The sheet is drawn within its frame, the frame does not scroll, the page is a phone's.
    assert box["svgLeft"] >= box["frameLeft"] and box["svgRight"] <= box["frameRight"], box
    assert box["scrollWidth"] <= box["clientWidth"], box
    assert box["page"] <= PHONE_WIDTH, box
    # Money, names and headings: no word on two lines.
    money = page.locator("#sheet table.result td.num")
    expect(money.last).to_contain_text(".")
    assert money.count() == 16
    assert page.evaluate(SPLIT_WORDS, "#sheet table.result :is(th, td)") == []
    # Wider than the phone (long names, English headings), the table scrolls in its box.
    scroll = page.locator("#sheet .table-scroll:has(> table.result)").bounding_box()
    assert scroll is not None and scroll["x"] + scroll["width"] <= PHONE_WIDTH, scroll


def test_actual_size_and_its_scroll_survive_a_live_update(new_page):
    table = four_players()
    page = new_page(**PHONE)
    page.goto(f"/tables/{table.pk}/")
    assert page.evaluate(FRAME)["smallest"] < READABLE_PX  # the whole sheet, smaller
    page.get_by_text("Actual size").tap()
    zoomed = page.evaluate(FRAME)
    assert zoomed["smallest"] >= READABLE_PX, zoomed
    assert zoomed["page"] <= PHONE_WIDTH, zoomed  # the frame scrolls, not the page
    page.locator("#sheet .pulka-svg").evaluate("frame => { frame.scrollLeft = 250; }")
    revision = page.locator("#sheet").get_attribute("data-revision")

    services.deal_create(table, misere("Глеб"), by=table.seats.first().member)
    expect(page.locator("#sheet")).not_to_have_attribute(
        "data-revision", revision or "", timeout=LIVE_SECONDS * 1000
    )
    expect(page.locator("#sheet .deal-log > li")).to_have_count(3)
    expect(page.locator("#sheet-zoom")).to_be_checked()
    after = page.evaluate(FRAME)
    assert after["scrollLeft"] == 250, after
    assert after["smallest"] >= READABLE_PX, after

    # Back to the whole sheet, which the next page keeps too.
    page.get_by_text("Actual size").tap()
    assert page.evaluate(FRAME)["scrollWidth"] <= page.evaluate(FRAME)["clientWidth"]


def test_a_visitor_on_a_desktop_sees_the_sheet_as_wide_as_its_column(new_page):
    table = four_players()
    page = new_page(**PC)
    page.goto(f"/tables/{table.pk}/")
    box = page.evaluate(FRAME)
    assert box["svgWidth"] > 640, box  # it was held at 40 rem
    assert box["svgRight"] <= box["frameRight"] and box["scrollWidth"] <= box["clientWidth"]
    # Its frame is as wide as "Actual size" already: the switch zooms half as large again.
    page.get_by_text("Actual size").click()
    zoomed = page.evaluate(FRAME)
    assert zoomed["svgWidth"] == pytest.approx(1.5 * box["svgWidth"], abs=1), zoomed
    assert zoomed["page"] <= PC["viewport"]["width"], zoomed
