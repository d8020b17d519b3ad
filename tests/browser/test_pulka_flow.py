"""A pulka played through a real browser: sign in, open the table, enter a game, a pass-out
and a misère with htmx, watch the sheet update in a second window, correct a deal, close.

The same flow as tests/scoring/views/test_tables.py, but through the pages a member actually
clicks, so it also checks what the test client cannot: that htmx loads under the site's CSP,
swaps the sheet without a page load, and that the live sheet polls.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from tests import factories

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    # The live server answers from its own thread, so the data must be committed; the preset
    # tariffs (a data migration) are put back after the flush for the tests that follow.
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SCREENSHOT = "/tmp/pulka_flow.png"  # noqa: S108 - outside the repository, for a human to look at
LIVE_SECONDS = 3  # the sheet polls every 2 s


def sign_in(page: Page, username: str) -> None:
    page.goto("/members/sign-in/")
    form = page.locator("section.sign-in form")
    form.locator('input[name="username"]').fill(username)
    form.locator('input[name="password"]').fill("pw")
    form.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()


def result_row(page: Page, name: str) -> Locator:
    """The cells (pool, mountain, whists, money) of a player's line in the result table."""
    row = page.locator("#sheet table.result tbody tr").filter(
        has=page.locator("th", has_text=re.compile(rf"^{name}$"))
    )
    return row.locator("td")


def mark_document(page: Page) -> None:
    """Tag the loaded document: a page load (rather than an htmx swap) would lose the tag."""
    page.evaluate("document.body.dataset.sameDocument = 'yes'")


def expect_same_document(page: Page) -> None:
    expect(page.locator("body")).to_have_attribute("data-same-document", "yes")


def swapped_by(page: Page, selector: str, action: Callable[[], object]) -> None:
    """Run ``action`` and wait until htmx has replaced ``selector`` with a fresh element
    (the old one is tagged first), on the same document, and has wired the new element up.

    htmx binds the new content's triggers when it settles, 20 ms after the swap, and marks
    it ``htmx-added`` until then; a select changed before that sends nothing (a test on a
    busy machine once did, and waited in vain for the redraw)."""
    mark_document(page)
    page.locator(selector).evaluate("element => { element.dataset.stale = 'yes'; }")
    action()
    expect(page.locator(f"{selector}[data-stale]")).to_have_count(0)
    expect(page.locator(selector)).to_have_count(1)
    expect(page.locator(".htmx-added")).to_have_count(0)
    expect_same_document(page)


def button(form: Locator, field: str, value: str) -> Locator:
    """One button of a choice of the deal form (a radio input drawn as a button)."""
    return form.locator(f'input[name="{field}"][value="{value}"]')


def pick(form: Locator, field: str, value: str) -> None:
    button(form, field, value).check()


def choose(page: Page, field: str, value: str) -> None:
    """Pick the kind of deal or the declarer: a Preferans form switches its rows in the
    page (static/js/deal-form.js, its ``drawn`` following), a Boston form is redrawn by
    htmx for the choice (unless it is the one already chosen)."""
    form = page.locator("#deal-form")
    choice = button(form, field, value)
    if form.locator('input[name="drawn"]').count():
        choice.check()
        expect(form.locator('input[name="drawn"]')).not_to_have_value(re.compile("^$"))
    elif not choice.is_checked():
        swapped_by(page, "#deal-form", choice.check)
    expect(button(page.locator("#deal-form"), field, value)).to_be_checked()


SAVED = re.compile(r"^Deal \d+ saved\.$")
"""What the form says beside Save once a deal is stored: «Deal 3 saved.»"""


def save_deal(page: Page) -> None:
    """Save the deal: htmx swaps in the new sheet and a fresh form."""
    button = page.locator("#deal-form").get_by_role("button", name="Save deal")
    swapped_by(page, "#sheet", button.click)
    expect(page.locator("#deal-form .buttons .deal-saved")).to_have_text(SAVED)


def test_a_pulka_through_the_browser(new_page, browser_problems):
    anna = factories.member("Anna", organiser=True, username="anna")
    boris = factories.member("Boris", username="boris")
    vera = factories.member("Vera", username="vera")
    sochi = factories.preferans_version()

    # -- Anna (an organiser, who also plays) signs in and opens a three-player pulka.
    page = new_page()
    sign_in(page, "anna")
    page.goto("/tables/new/preferans/")
    opening = page.locator("#table-open")
    pick(opening, "version", str(sochi.pk))
    expect(button(opening, "player_0", str(anna.pk))).to_be_checked()  # she opens it
    pick(opening, "player_1", str(boris.pk))
    pick(opening, "player_2", str(vera.pk))
    expect(button(opening, "player_3", "")).to_be_checked()
    expect(button(opening, "first_dealer", "0")).to_be_checked()
    opening.locator('input[name="pool_target"]').fill("20")
    opening.locator('input[name="price"]').fill("1")
    opening.get_by_role("button", name="Open the table").click()
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    table_url = page.url
    expect(page.locator("#table-body h1")).to_be_visible()
    # htmx came from the site's static files and runs under the CSP.
    page.wait_for_function("() => typeof window.htmx === 'object'")

    # -- a spectator (not signed in) watches the sheet from another window.
    viewer = new_page()
    viewer.goto(table_url)
    expect(viewer.locator("#sheet")).to_contain_text("No deals yet.")
    expect(viewer.locator("#deal-form")).to_have_count(0)

    form = page.locator("#deal-form")

    # -- deal 1: Anna plays 6♠, Boris whists, Vera passes; 6 / 3 / 1 tricks.
    expect(button(form, "kind", "game")).to_be_checked()
    # Anna deals first, so the form starts on the first hand, Boris.
    expect(button(form, "declarer", "Boris")).to_be_checked()
    choose(page, "declarer", "Anna")
    pick(form, "level", "6")
    pick(form, "suit", "S")
    expect(form.locator("fieldset.tricks")).to_be_hidden()  # nobody whists yet
    pick(form, "answer:Boris", "whist")
    pick(form, "answer:Vera", "pass")
    pick(form, "tricks:Anna", "6")
    expect(form.locator(".deal-missing")).to_have_text("distribute the tricks: 6 of 10")
    pick(form, "tricks:Boris", "3")
    expect(button(form, "tricks:Vera", "1")).to_be_checked()  # the rest, derived
    expect(form.locator(".deal-missing")).to_be_hidden()
    preview = form.get_by_role("button", name="Why these numbers?")
    swapped_by(page, "#deal-form", preview.click)
    expect(form.locator(".preview")).to_contain_text("Boris → Anna: whists 8")
    expect(page.locator("#sheet")).to_contain_text("No deals yet.")  # a preview saves nothing
    expect(button(form, "tricks:Boris", "3")).to_be_checked()  # kept
    save_deal(page)
    expect(result_row(page, "Anna")).to_have_text(["2", "0", "5.33", "5.34"])
    expect(result_row(page, "Boris")).to_have_text(["0", "0", "1.33", "1.33"])
    expect(result_row(page, "Vera")).to_have_text(["0", "0", "-6.67", "-6.67"])
    expect(viewer.locator("#sheet .deal-log")).to_contain_text(
        "Boris → Anna: whists 8", timeout=LIVE_SECONDS * 1000
    )
    expect(result_row(viewer, "Anna")).to_have_text(["2", "0", "5.33", "5.34"])

    # -- deal 2: a pass-out, 5 / 5 / 0 (changing the kind switches the form's rows).
    choose(page, "kind", "passout")
    expect(form.locator('input[name="answer:Boris"]:visible')).to_have_count(0)
    expect(form.locator('input[name="declarer"]:visible')).to_have_count(0)
    expect(form.locator('input[name="tricks:Vera"]:visible')).to_have_count(11)
    pick(form, "tricks:Anna", "5")
    pick(form, "tricks:Boris", "5")
    expect(button(form, "tricks:Vera", "0")).to_be_checked()
    save_deal(page)
    expect(result_row(page, "Anna")).to_have_text(["2", "5", "-14.67", "-14.66"])
    expect(result_row(page, "Boris")).to_have_text(["0", "5", "-18.67", "-18.67"])
    expect(result_row(page, "Vera")).to_have_text(["1", "0", "33.33", "33.33"])
    expect(result_row(viewer, "Anna")).to_have_text(
        ["2", "5", "-14.67", "-14.66"], timeout=LIVE_SECONDS * 1000
    )

    # -- deal 3: Boris's misère, clean (no tricks).
    choose(page, "kind", "misere")
    choose(page, "declarer", "Boris")
    expect(form.locator("fieldset.trick-pad:visible")).to_have_count(1)  # the declarer's only
    pick(form, "tricks:Boris", "0")
    save_deal(page)
    expect(result_row(page, "Boris")).to_have_text(["10", "5", "48.00", "48.00"])
    expect(result_row(page, "Anna")).to_have_text(["2", "5", "-48.00", "-48.00"])
    expect(viewer.locator("#sheet .deal-log > li").first).to_contain_text(
        "misère · Boris", timeout=LIVE_SECONDS * 1000
    )
    expect(viewer.locator("#sheet .deal-log > li")).to_have_count(3)

    # -- correct deal 1: Anna took 5, not 6 (Boris 4): she is one down.
    first = page.locator("#sheet .deal-log > li").last
    first.get_by_role("link", name="Correct").click()
    expect(page).to_have_url(re.compile(r"/deals/\d+/edit/$"))
    expect(page.locator("h1")).to_contain_text("Correct deal 1")
    correction = page.locator("form#deal-edit")
    expect(button(correction, "declarer", "Anna")).to_be_checked()
    expect(button(correction, "tricks:Anna", "6")).to_be_checked()
    pick(correction, "tricks:Anna", "5")
    pick(correction, "tricks:Boris", "4")
    expect(button(correction, "tricks:Vera", "1")).to_be_checked()
    # The correction's reason (an adjustment's own is drawn too, hidden and not sent).
    expect(correction.locator("#id_adjust_reason")).to_be_disabled()
    correction.locator("#id_reason").fill("misread the tricks")
    correction.get_by_role("button", name="Save correction").click()
    expect(page).to_have_url(table_url)
    expect(page.locator(".messages")).to_contain_text("Deal 1 corrected.")
    expect(result_row(page, "Anna")).to_have_text(["0", "7", "-80.67", "-80.66"])
    expect(result_row(page, "Boris")).to_have_text(["10", "5", "65.33", "65.33"])
    expect(result_row(page, "Vera")).to_have_text(["1", "0", "15.33", "15.33"])
    expect(page.locator(".audit")).to_contain_text("«misread the tricks»")
    expect(result_row(viewer, "Anna")).to_have_text(
        ["0", "7", "-80.67", "-80.66"], timeout=LIVE_SECONDS * 1000
    )

    # -- the pools are still open: Anna, as an organiser, closes the table early, which
    # takes a confirmation page and a reason.
    page.get_by_role("link", name="Close the table early…").click()
    expect(page.locator("h1")).to_contain_text("Close the table early")
    page.locator('input[name="reason"]').fill("the club closes")
    page.get_by_label("yes", exact=True).check()  # it counts in the standings
    page.get_by_role("button", name="Close the table").click()
    expect(page).to_have_url(table_url)
    expect(page.locator(".messages")).to_contain_text("Table finished.")
    expect(page.locator(".audit")).to_contain_text("«the club closes»")
    expect(page.locator("#table-body .table-head")).to_contain_text("finished")
    expect(page.locator("#deal-form")).to_have_count(0)
    expect(page.get_by_role("link", name="Undo last deal…")).to_have_count(0)
    expect(page.locator("#sheet")).not_to_have_attribute("hx-get", re.compile(".*"))
    expect(page.locator("#sheet .deal-fix")).to_have_count(0)
    expect(result_row(page, "Anna")).to_have_text(["0", "7", "-80.67", "-80.66"])
    expect(page.locator("#sheet .payments")).to_contain_text("Anna → Boris: 65.33")

    viewer.reload()
    expect(viewer.locator("#table-body .table-head")).to_contain_text("finished")

    page.screenshot(path=SCREENSHOT, full_page=True)
    assert browser_problems.seen == []
