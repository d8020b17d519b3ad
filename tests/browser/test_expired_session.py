"""The expired-session page on a phone (issue 30, finding 7): a save after the session
expired is told so where the form is, on the site's own page, also under DEBUG (``make
run``), where django-htmx's helper used to put the message in place of the whole page,
bare; and a stale form sent without JavaScript gets the site's page, styled, with its
header."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from scoring.models import DealRecord
from tests import factories
from tests.browser.conftest import PHONE
from tests.browser.test_pulka_flow import expect_same_document, mark_document, sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

STYLED = """() => ({
    sheets: Array.from(document.styleSheets, (s) => s.href && new URL(s.href).pathname),
    header: getComputedStyle(document.querySelector('header.site-header')).display,
})"""


def styled(page: Page) -> None:
    # A stylesheet is in ``document.styleSheets`` only once it has arrived, which may be
    # after the heading the test waited for: wait for the page's load event first.
    page.wait_for_load_state("load")
    seen = page.evaluate(STYLED)
    for name in ("tokens", "components", "site"):
        assert f"/static/css/{name}.css" in seen["sheets"], seen
    assert seen["header"] != "none", seen


def test_a_save_after_the_session_expired_is_told_on_the_table_page(new_page, settings):
    settings.DEBUG = True  # as `make run` serves it
    table = factories.pulka(
        [factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera")]
    )
    page = new_page(**PHONE)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_function("() => typeof window.htmx === 'object'")
    page.context.clear_cookies(name="sessionid")
    mark_document(page)
    page.locator("#deal-form").get_by_role("button", name="Save deal").tap()
    problem = page.locator("#write-problem .write-refused")
    expect(problem).to_contain_text("You are not signed in")
    expect_same_document(page)
    styled(page)
    expect(page.locator("#deal-form")).to_be_visible()
    assert not DealRecord.objects.filter(table=table).exists()


def test_a_stale_form_without_javascript_gets_the_site_s_page(new_page):
    factories.member("Olga", organiser=True, username="olga")
    page = new_page(**PHONE, java_script_enabled=False)
    sign_in(page, "olga")
    page.goto("/evenings/")
    # Signed out and in again in another tab: the session's token is a new one.
    other = page.context.new_page()
    other.goto("/")
    other.get_by_role("button", name="Sign out").click()
    sign_in(other, "olga")
    other.close()
    page.get_by_label("Place").fill("Hall")
    page.get_by_role("button", name="Create the evening").tap()
    expect(page.locator("h1")).to_have_text("Nothing was saved")
    styled(page)
    expect(page.locator(".write-refused")).to_contain_text("What you typed is kept")
    expect(page.locator("dl.typed")).to_contain_text("Hall")
