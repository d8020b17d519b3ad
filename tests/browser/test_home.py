"""The home page's tables in play redraw themselves (issue 29, item 3): a deal saved at a
table shows on its card on a visitor's open home page without a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests import factories

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SIX_MADE = {
    "kind": "game",
    "declarer": "Vera",
    "contract": "6H",
    "answers": {"Anna": "pass", "Boris": "pass"},
}


def test_a_deal_shows_on_the_card_of_an_open_home_page(new_page, browser_problems):
    anna, boris, vera = (factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera"))
    table = factories.pulka([anna, boris, vera], deals=[SIX_MADE])
    page = new_page()
    page.clock.install()  # the poll's timer is moved on below rather than waited for
    page.goto("/")
    card = page.locator("#in-play article.card")
    expect(card).to_contain_text("1 deal")
    vera_row = card.locator("tr", has=page.locator('th[scope="row"]', has_text="Vera"))
    expect(vera_row.locator("td").first).to_have_text("2")

    factories.played(table, [SIX_MADE], by=anna)

    # The region polls every 10 s: a deal shows after one poll.
    page.clock.run_for(10_000)
    expect(card).to_contain_text("2 deals")
    expect(vera_row.locator("td").first).to_have_text("4")  # a second six: 2 more in her pool
    assert browser_problems.seen == []
