"""A phone the club shares (issue 35, item 6), in Chromium: whatever way a member's session
ends, the next person offline is never shown the table pages the service worker kept for
him (they carry his name, his forms and their CSRF token).

The worker keeps each page under the viewer who fetched it (``clubsite.viewer``): signing
out through the site or the admin drops the copies, and so does another member signing in
after a session that ended by itself.
"""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from playwright.sync_api import Page, expect

from scoring.models import Table
from tests import factories
from tests.browser.test_offline import APP, BORIS_6S, controlled, only_script_problems
from tests.browser.test_pulka_flow import sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,  # a real browser
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def kept_by(page: Page, table: Table, name: str) -> None:
    """``name`` has seen ``table`` signed in, through the worker, which kept the page."""
    page.goto(f"/tables/{table.pk}/")
    controlled(page)
    expect(page.locator("header.site-header")).to_contain_text(name)


def offline_shows_no_copy(page: Page, table: Table, name: str) -> None:
    page.context.set_offline(True)
    page.goto(f"/tables/{table.pk}/")
    expect(page.locator("h1")).to_have_text("No connection")
    expect(page.locator(".kept-tables a")).to_have_count(0)
    assert name not in page.content()


def test_signing_out_through_the_admin_forgets_the_member_s_pages(new_page, browser_problems):
    factories.member("Olga", organiser=True, is_staff=True, username="olga")
    table = factories.pulka(deals=[BORIS_6S])
    page = new_page(**APP)
    sign_in(page, "olga")
    kept_by(page, table, "Olga")

    page.goto("/admin/")
    page.locator("#logout-form button").click()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()  # LOGOUT_REDIRECT_URL

    offline_shows_no_copy(page, table, "Olga")
    assert only_script_problems(browser_problems) == []


def test_a_member_signing_in_after_a_session_that_ended_sees_none_of_its_pages(
    new_page, browser_problems
):
    anna = factories.member("Anna", username="anna")
    factories.member("Boris", username="boris")
    table = factories.pulka([anna, factories.member("Gleb"), factories.member("Vera")])
    page = new_page(**APP)
    sign_in(page, "anna")
    kept_by(page, table, "Anna")

    Session.objects.all().delete()  # Anna's session ends on the server (it expired)
    sign_in(page, "boris")

    offline_shows_no_copy(page, table, "Anna")
    assert only_script_problems(browser_problems) == []


def test_signing_out_through_the_site_forgets_the_member_s_pages(new_page, browser_problems):
    anna = factories.member("Anna", username="anna")
    table = factories.pulka([anna, factories.member("Gleb"), factories.member("Vera")])
    page = new_page(**APP)
    sign_in(page, "anna")
    kept_by(page, table, "Anna")

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()

    offline_shows_no_copy(page, table, "Anna")
    assert only_script_problems(browser_problems) == []
