"""Writes at a table as a member sees them in a real browser (issue 14 items 3–5): undo asks
first, naming the deal, and a save from a page older than another scorer's save is refused
with what changed, the form kept, and goes through when saved again.

The refusals come back with an error status (409, 403), which htmx swaps only because
base.html's htmx-config (responseHandling) says so: these tests are what shows that it
does, under the CSP."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scoring.models import DealRecord
from tests import factories
from tests.browser.test_pulka_flow import (
    button,
    choose,
    expect_same_document,
    mark_document,
    pick,
    save_deal,
    sign_in,
    swapped_by,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PASSOUT = {"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}}


def players() -> list:
    return [factories.member(name, username=name.lower()) for name in ("Anna", "Boris", "Vera")]


def test_undo_asks_first_naming_the_deal(new_page, browser_problems):
    table = factories.pulka(players(), pool_target=20, deals=[PASSOUT])
    page = new_page()
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_function("() => typeof window.htmx === 'object'")

    undo = page.get_by_role("link", name="Undo last deal…")
    swapped_by(page, "#undo-confirm", undo.click)
    confirm = page.locator("#undo-confirm")
    expect(confirm).to_contain_text("Undo deal 1: pass-out?")
    expect(page.locator("#sheet .deal-log > li")).to_have_count(1)  # asking undoes nothing

    swapped_by(page, "#table-body", confirm.get_by_role("button", name="Undo deal 1").click)
    # Said at the Undo button, where the member is, not atop the page.
    undone = page.locator("#table-actions .undo-result")
    expect(undone).to_have_text("Last deal undone.")
    expect(undone).to_be_focused()
    expect(page.locator(".table-head .message.success")).to_have_count(0)  # not atop
    expect(page.locator("#sheet")).to_contain_text("No deals yet.")
    assert browser_problems.seen == []
    assert not DealRecord.objects.filter(table=table, deleted=False).exists()


def test_a_save_from_an_older_page_is_refused_and_the_scorer_saves_again(
    new_page, browser_problems
):
    table = factories.pulka(players(), pool_target=20)
    url = f"/tables/{table.pk}/"
    anna, boris = new_page(), new_page()
    sign_in(anna, "anna")
    sign_in(boris, "boris")
    for page in (anna, boris):
        page.goto(url)
        page.wait_for_function("() => typeof window.htmx === 'object'")

    # Anna saves a pass-out: 4 / 3 / 3 (the script gives Vera the rest).
    choose(anna, "kind", "passout")
    form = anna.locator("#deal-form")
    pick(form, "tricks:Anna", "4")
    pick(form, "tricks:Boris", "3")
    expect(button(form, "tricks:Vera", "3")).to_be_checked()
    save_deal(anna)

    # Boris, on the page he opened before, changes the declarer (a redraw) and saves
    # «Вера 7♠ пас-пас».
    choose(boris, "declarer", "Vera")
    pick(boris.locator("#deal-form"), "level", "7")
    save = boris.locator("#deal-form").get_by_role("button", name="Save deal")
    swapped_by(boris, "#sheet", save.click)
    refusal = boris.locator("#deal-form .message.error")
    expect(refusal).to_contain_text("While you were entering it, the table changed:")
    expect(refusal).to_contain_text("deal 1 saved: pass-out")
    expect(boris.locator("#sheet .deal-log > li")).to_have_count(1)  # Anna's, shown at once
    expect(button(boris.locator("#deal-form"), "declarer", "Vera")).to_be_checked()  # kept
    assert DealRecord.objects.filter(table=table).count() == 1

    # He checks, and saves again: now it is the next deal.
    save_deal(boris)
    expect(boris.locator("#sheet .deal-log > li")).to_have_count(2)
    assert DealRecord.objects.filter(table=table).count() == 2
    # The one problem the pages saw is the refusal itself.
    deals = f"{boris.url.removesuffix(url)}{url}deals/"
    assert browser_problems.seen == [
        f"409: POST {deals}",
        "console error: Failed to load resource: the server responded with a status of 409 "
        f"(Conflict) ({deals})",
    ]


def test_a_save_after_the_session_expired_says_so_and_keeps_the_form(new_page, browser_problems):
    table = factories.pulka(players(), pool_target=20)
    page = new_page()
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_function("() => typeof window.htmx === 'object'")
    choose(page, "declarer", "Vera")
    pick(page.locator("#deal-form"), "level", "7")

    page.context.clear_cookies(name="sessionid")  # the session expired meanwhile
    mark_document(page)
    page.locator("#deal-form").get_by_role("button", name="Save deal").click()

    # The 403's message in #write-problem (HX-Retarget), the form as it was typed.
    problem = page.locator("#write-problem .write-refused")
    expect(problem).to_contain_text("You are not signed in")
    expect(problem.get_by_role("link", name="Sign in again and come back")).to_be_visible()
    expect(button(page.locator("#deal-form"), "declarer", "Vera")).to_be_checked()
    expect(button(page.locator("#deal-form"), "level", "7")).to_be_checked()
    expect_same_document(page)
    assert not DealRecord.objects.filter(table=table).exists()
    deals = f"{page.url.removesuffix(f'/tables/{table.pk}/')}/tables/{table.pk}/deals/"
    assert browser_problems.seen == [
        f"403: POST {deals}",
        "console error: Failed to load resource: the server responded with a status of 403 "
        f"(Forbidden) ({deals})",
    ]
