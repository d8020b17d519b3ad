"""The widow premium's fast tricks on the deal form in a real browser (issue 31 item 3):
the row of 0–3 buttons shows once somebody whists, one tap picks it, and the saved sheet
and log carry the premium. Under the «ФСПР Ленинградская» preset Anna's 6♠ against two
whisters with two aces in the widow (3) writes 3 × 4 / 2 = 6 from Boris and from Vera."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scoring import services
from scoring.engine.preferans.rules import PreferansRules
from tests import factories
from tests.browser.test_pulka_flow import button, choose, pick, save_deal, sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SCREENSHOT = "/tmp/widow_premium.png"  # noqa: S108 - outside the repository, for a human


def test_fast_tricks_in_one_tap(new_page, browser_problems):
    rules = PreferansRules.preset("fspr_leningrad").to_dict()
    services.tariff_import(
        {"format": "house-tariff/1", "game": "preferans", "name": "ФСПР", "rules": rules},
        by=None,
    )
    players = [
        factories.member("Anna", username="anna"),
        factories.member("Boris", username="boris"),
        factories.member("Vera", username="vera"),
    ]
    table = factories.pulka(players, tariff="ФСПР", pool_target=20)

    page = new_page()
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_function("() => typeof window.htmx === 'object'")
    form = page.locator("#deal-form")
    choose(page, "declarer", "Anna")
    pick(form, "level", "6")
    pick(form, "suit", "S")
    expect(button(form, "fast_tricks", "3")).to_be_hidden()  # nobody whists yet
    pick(form, "answer:Boris", "whist")
    pick(form, "answer:Vera", "whist")
    expect(button(form, "fast_tricks", "3")).to_be_visible()
    pick(form, "tricks:Anna", "6")
    pick(form, "tricks:Boris", "2")
    pick(form, "tricks:Vera", "2")
    button(form, "fast_tricks", "3").click()  # the one tap
    expect(button(form, "fast_tricks", "3")).to_be_checked()
    page.screenshot(path=SCREENSHOT, full_page=True)

    save_deal(page)

    expect(page.locator("#sheet")).to_contain_text("widow premium (fast tricks)")
    expect(page.locator("#sheet")).to_contain_text("3 × 4 / 2 = 6")
