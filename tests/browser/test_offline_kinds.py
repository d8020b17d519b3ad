"""Every deal kind and every declarer offline (issue 30, item 1), and the form's feedback
and focus (item 3), in Chromium on a 390×844 phone.

The deal form switches its kind and declarer in the page (static/js/deal-form.js): a
pass-out, a misère, a dark pass-out and a game by a declarer the form did not suggest are
entered with no connection, kept in the outbox, and stored once each, in order, when it
returns. A deal that fails the page's own checks is refused at entry, in words, and never
kept. Offline is Playwright's ``context.set_offline`` (tests/browser/test_offline.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connections
from playwright.sync_api import Page, expect

from scoring.models import DealRecord, Table
from tests import factories
from tests.browser.conftest import PHONE
from tests.browser.test_offline import _QUEUED_KEYS, APP, QUEUED, controlled, only_script_problems
from tests.browser.test_pulka_flow import sign_in, swapped_by

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def records(table: Table) -> list[dict[str, Any]]:
    """The table's deals as stored, in order (the connection closed: see test_offline)."""
    try:
        deals = DealRecord.objects.filter(table=table, deleted=False).order_by("sequence")
        return [deal.data for deal in deals]
    finally:
        connections.close_all()


def tap(page: Page, field: str, value: str) -> None:
    form = page.locator("#deal-form form")
    form.locator(f'label.segment:has(input[name="{field}"][value="{value}"])').tap()
    expect(form.locator(f'input[name="{field}"][value="{value}"]')).to_be_checked()


def dark_table() -> Table:
    """Anna, Boris and Vera under a tariff that plays dark games; Anna deals first."""
    factories.preferans_tariff("Тёмная", dark_games=True)
    players = [factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera")]
    return factories.pulka(players, tariff="Тёмная", pool_target=50)


def test_every_kind_and_declarer_entered_offline_is_stored_once_in_order(
    new_page, browser_problems
):
    table = dark_table()
    page = new_page(**APP)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    controlled(page)
    form = page.locator("#deal-form form")
    outbox = page.locator("#outbox")
    missing = form.locator(".deal-missing")
    save = form.get_by_role("button", name="Save deal")

    page.context.set_offline(True)
    page.reload()
    expect(page.locator(".offline-banner")).to_be_visible()

    # A pass-out: its trick pads appear without the server. Anna 4 alone does not add up:
    # refused at entry, in words, and nothing kept.
    tap(page, "kind", "passout")
    expect(form.locator('fieldset.trick-pad[data-player="Vera"]')).to_be_visible()
    expect(form.locator('input[name="level"]').first).to_be_hidden()
    tap(page, "tricks:Anna", "4")
    save.tap()
    expect(missing).to_have_text("Not saved: distribute the tricks: 4 of 10.")
    expect(outbox).to_have_count(0)
    assert page.evaluate(_QUEUED_KEYS) == []
    # Boris 4, and Vera's 2 is derived: deal 1.
    tap(page, "tricks:Boris", "4")
    expect(form.locator('input[name="tricks:Vera"][value="2"]')).to_be_checked()
    save.tap()
    expect(outbox).to_contain_text(QUEUED.format(n=1))
    expect(form.locator('input[name="kind"][value="game"]')).to_be_checked()  # cleared
    expect(missing).to_be_hidden()  # a fresh form says nothing

    # A misère by Vera (the form suggests Boris): only her tricks are asked.
    tap(page, "kind", "misere")
    tap(page, "declarer", "Vera")
    expect(form.locator("fieldset.trick-pad:visible")).to_have_count(1)
    expect(form.locator('fieldset.trick-pad[data-player="Vera"]')).to_be_visible()
    tap(page, "tricks:Vera", "0")
    save.tap()
    expect(outbox).to_contain_text(QUEUED.format(n=2))

    # A dark pass-out: Anna 3, Boris 3, Vera 4.
    tap(page, "kind", "passout")
    form.get_by_label("dark (в тёмную)").check()
    tap(page, "tricks:Anna", "3")
    tap(page, "tricks:Boris", "3")
    expect(form.locator('input[name="tricks:Vera"][value="4"]')).to_be_checked()
    save.tap()
    expect(outbox).to_contain_text(QUEUED.format(n=3))

    # A game by Vera: her defenders answer, Anna first (clockwise after Vera), then Boris.
    tap(page, "declarer", "Vera")
    answers = form.locator("fieldset.answer:visible legend")
    expect(answers).to_have_text(["Anna", "Boris"])
    expect(form.locator('input[name="drawn"]')).to_have_value("game:Vera")
    tap(page, "level", "7")
    tap(page, "answer:Boris", "whist")
    tap(page, "tricks:Anna", "1")
    tap(page, "tricks:Boris", "2")
    expect(form.locator('input[name="tricks:Vera"][value="7"]')).to_be_checked()
    save.tap()
    expect(outbox).to_contain_text(QUEUED.format(n=4))
    assert records(table) == []

    page.context.set_offline(False)

    expect(outbox).to_contain_text("Deals sent from this phone: 4.")
    assert records(table) == [
        {"kind": "passout", "tricks": {"Anna": 4, "Boris": 4, "Vera": 2}},
        {"kind": "misere", "declarer": "Vera", "tricks": {"Vera": 0}},
        {"kind": "passout", "dark": True, "tricks": {"Anna": 3, "Boris": 3, "Vera": 4}},
        {
            "kind": "game",
            "declarer": "Vera",
            "contract": "7S",
            "answers": {"Anna": "pass", "Boris": "whist"},
            "tricks": {"Anna": 1, "Boris": 2, "Vera": 7},
        },
    ]
    expect(page.locator("#sheet .deal-log > li")).to_have_count(4)
    assert page.evaluate(_QUEUED_KEYS) == []
    assert only_script_problems(browser_problems) == []


def test_after_a_save_the_form_says_so_and_takes_the_focus(new_page, browser_problems):
    table = dark_table()
    page = new_page(**APP)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_function("() => typeof window.htmx === 'object'")
    form = page.locator("#deal-form form")

    # The first Tab reaches the skip link, which leads into the form.
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to the deal form")
    expect(skip).to_be_focused()
    expect(skip).to_be_visible()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(form.locator('input[name="kind"][value="game"]')).to_be_focused()
    expect(form.locator(".deal-missing")).to_be_hidden()  # untouched: no warning

    tap(page, "level", "6")
    swapped_by(page, "#sheet", form.get_by_role("button", name="Save deal").tap)
    said = page.locator("#deal-form .buttons .deal-saved")
    expect(said).to_have_text("Deal 1 saved.")
    expect(said).to_have_attribute("role", "status")
    expect(page.locator("#deal-form form input[name='kind'][value='game']")).to_be_focused()
    expect(page.locator("#deal-form .deal-missing")).to_be_hidden()

    # The next action takes the message away.
    tap(page, "level", "7")
    expect(said).to_have_count(0)

    # A correction's message, atop the table page, goes at the next action too.
    page.locator("#sheet .deal-fix").first.click()
    page.locator("#id_reason").fill("the contract was 7")
    page.locator("form#deal-edit").get_by_role("button", name="Save correction").click()
    corrected = page.locator("main > .messages")
    expect(corrected).to_have_text("Deal 1 corrected.")
    tap(page, "kind", "misere")
    expect(corrected).to_have_count(0)
    assert only_script_problems(browser_problems) == []


def test_without_javascript_a_save_is_said_at_save_and_tab_goes_into_the_form(
    new_page, browser_problems
):
    """No script: the saved deal's message comes beside Save (not atop the page), and the
    page opens at the form, so the next Tab is the form's first control."""
    table = dark_table()
    page = new_page(**PHONE, java_script_enabled=False)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    form = page.locator("#deal-form form")
    form.locator('label.segment:has(input[name="level"][value="6"])').tap()
    form.get_by_role("button", name="Save deal").tap()

    expect(page).to_have_url(re.compile(rf"/tables/{table.pk}/#deal-form$"))
    expect(page.locator("#deal-form .buttons .deal-saved")).to_have_text("Deal 1 saved.")
    expect(page.locator("main > .messages > li")).to_have_count(0)
    page.keyboard.press("Tab")
    expect(form.locator('input[name="kind"][value="game"]')).to_be_focused()
    assert only_script_problems(browser_problems) == []
