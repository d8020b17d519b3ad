"""Sharing a table in a real browser: the share button copies the table's link (the
clipboard fallback, as on a desktop without a share sheet) or hands it to the phone's share
sheet (the Web Share API), and the page with its QR code breaks no rule of the site's
Content Security Policy.

What the test client cannot check: that static/js/share.js loads under the CSP, shows the
button, and that the inline QR code carries nothing the policy blocks.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from scoring.models import Table
from tests import factories

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SCREENSHOT = "/tmp/share_flow.png"  # noqa: S108 - outside the repository, for a human to look at

WATCH_CSP = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolations.push(`${event.violatedDirective}: ${event.blockedURI} ${event.sample}`);
});
"""
"""Run before the page's own scripts: every CSP violation the page causes, as the browser
reports it to the page (the console gets the same as an error)."""

NO_SHARE_SHEET = "delete Navigator.prototype.share;"
"""A browser without the Web Share API (desktop Chromium on Linux has none; removed anyway
so that the test does not depend on the build)."""

SHARE_SHEET = """
Object.defineProperty(Navigator.prototype, "share", {
  configurable: true,
  value(data) { window.sharedWith = data; return Promise.resolve(); },
});
"""
"""A phone's share sheet, standing in for the real one: it records what it was given."""


def open_table(
    new_page: Callable[[], Page], live_server: LiveServer, script: str
) -> tuple[Page, Table]:
    """A new pulka's page, opened with ``script`` run first in every document."""
    table = factories.pulka()
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.add_init_script(WATCH_CSP + script)
    page.goto(f"/tables/{table.pk}/")
    return page, table


def test_the_share_button_copies_the_link(new_page, live_server, browser_problems):
    page, table = open_table(new_page, live_server, NO_SHARE_SHEET)
    url = f"{live_server.url}/tables/{table.pk}/"
    button = page.get_by_role("button", name="Share")
    expect(button).to_be_visible()
    button.click()
    expect(page.get_by_role("status").filter(has_text="Link copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == url

    page.get_by_text("Link and QR code").click()  # the link and QR code, as without script
    expect(page.locator("a.share-link")).to_have_text(url)
    qr = page.locator(".share-qr svg.qr")
    expect(qr).to_be_visible()
    box = qr.bounding_box()
    assert box is not None
    assert box["width"] == box["height"] == 192  # 12rem: a square the page's CSS sized
    page.screenshot(path=SCREENSHOT, full_page=True)

    assert page.evaluate("window.cspViolations") == []
    assert browser_problems.seen == []


def test_where_there_is_a_share_sheet_the_button_hands_it_the_link(
    new_page, live_server, browser_problems
):
    page, table = open_table(new_page, live_server, SHARE_SHEET)
    page.get_by_role("button", name="Share").click()
    page.wait_for_function("() => window.sharedWith !== undefined")
    assert page.evaluate("window.sharedWith") == {
        "title": f"Preferans #{table.pk}",
        "url": f"{live_server.url}/tables/{table.pk}/",
    }
    expect(page.locator(".share-status")).to_be_empty()  # nothing copied, nothing to say
    assert page.evaluate("window.cspViolations") == []
    assert browser_problems.seen == []
