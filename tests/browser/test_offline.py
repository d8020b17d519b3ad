"""The site as an app, and without a connection (issue 14, items 4 and 6), in Chromium: the
manifest and its icons, the service worker, a table page opened offline from the phone's
copy, deals entered offline waiting in the outbox and sent in order when the connection
returns, and «нет связи» when an htmx request gets no answer.

Offline is Playwright's ``context.set_offline``: Chromium then reports
``navigator.onLine === false`` and fails every request, the service worker's own included
(Playwright applies it to service workers since 1.4x; ``service_workers="allow"``).
"""

from __future__ import annotations

import re
import struct
from typing import Any

import pytest
from django.db import connections
from playwright.sync_api import Page, expect

from scoring.models import DealRecord, Table
from tests import factories
from tests.browser.conftest import PHONE, WAIT_MS, BrowserProblems
from tests.browser.test_pulka_flow import sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

APP: dict[str, Any] = PHONE | {"service_workers": "allow"}

BORIS_6S = {
    "kind": "game",
    "declarer": "Boris",
    "contract": "6S",
    "answers": {"Vera": "pass", "Anna": "pass"},
}

QUEUED = "No connection — the deal is saved on this phone and will be sent ({n} in the queue)."


ACTIVATED = """(ms) => Promise.race([
  navigator.serviceWorker.ready.then(({ active }) => active.state === "activated" ||
    new Promise((done) =>
      active.addEventListener("statechange", () => active.state === "activated" && done()))),
  new Promise((_, fail) =>
    setTimeout(() => fail(new Error(`the service worker was not activated in ${ms} ms`)), ms)),
])"""
"""Resolves once the site's worker has finished activating (its caches swept, its clients
claimed): ``ready`` resolves as activation begins. Given ``WAIT_MS``, it fails after as
long as Playwright's waits do (``evaluate`` itself waits for ever)."""


def controlled(page: Page) -> None:
    """Wait until the service worker is activated, then load ``page`` again through it: the
    first visit's own answer did not pass the worker. Waiting for the worker's claim to
    reach the page is not enough: a page still loading when the worker claims its clients
    is passed over by the claim (the Service Workers spec skips a client not yet execution
    ready), and stayed uncontrolled in CI once in a while, on SQLite, where the live server
    answers one request at a time and the worker's install competes with the page."""
    page.evaluate(ACTIVATED, WAIT_MS)
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def only_script_problems(problems: BrowserProblems) -> list[str]:
    """Script errors and CSP violations; offline, failed requests are expected."""
    return [
        seen
        for seen in problems.seen
        if seen.startswith("page error") or "Content Security Policy" in seen
    ]


def stored(table: Table) -> list[tuple[str, str]]:
    """The table's deals in the database, in order: (declarer, contract).

    Asked from the test while Playwright's loop runs, Django hands out a connection of
    its own (tests/browser/conftest.py, ``_Chromium``): closed here, or PostgreSQL's test
    database could not be dropped at the end of the run."""
    try:
        records = DealRecord.objects.filter(table=table, deleted=False).order_by("sequence")
        return [(r.data["declarer"], r.data["contract"]) for r in records]
    finally:
        connections.close_all()


def png_size(body: bytes) -> tuple[int, int]:
    assert body[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", body[16:24])
    return width, height


def test_the_manifest_and_its_icons(new_page, browser_problems):
    table = factories.pulka()
    page = new_page(**APP)
    page.goto(f"/tables/{table.pk}/")

    href = page.locator('link[rel="manifest"]').get_attribute("href")
    assert href == "/manifest.webmanifest?lang=en"
    answer = page.request.get(href)
    assert answer.headers["content-type"] == "application/manifest+json"
    manifest = answer.json()
    assert manifest["name"] == "Preferans and Boston club"
    assert manifest["short_name"] == "Preferans"
    assert manifest["start_url"] == "/"
    assert manifest["display"] == "standalone"
    # Chromium's own reading of it: what it would install, and what it finds wrong.
    cdp = page.context.new_cdp_session(page)
    read = cdp.send("Page.getAppManifest")
    assert read["errors"] == []
    assert read["url"].endswith(href)
    assert read["manifest"]["display"] == "kStandalone"
    assert read["manifest"]["themeColor"] == "rgba(31,95,139,1)"
    # Installable, but for one thing: Playwright's contexts are off the record.
    page.evaluate("navigator.serviceWorker.ready")
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [error["errorId"] for error in errors] == ["in-incognito"]
    sizes = {}
    for icon in manifest["icons"]:
        picture = page.request.get(icon["src"])
        assert picture.ok, icon
        assert picture.headers["content-type"] == "image/png"
        sizes[icon["src"].rsplit("/", 1)[1], icon["purpose"]] = png_size(picture.body())
    assert sizes == {
        ("icon-192.png", "any"): (192, 192),
        ("icon-512.png", "any"): (512, 512),
        ("icon-maskable-512.png", "maskable"): (512, 512),
    }
    assert only_script_problems(browser_problems) == []


def test_a_table_page_seen_before_opens_offline_marked_as_a_copy(new_page, browser_problems):
    table = factories.pulka(deals=[BORIS_6S])
    page = new_page(**APP)
    page.goto(f"/tables/{table.pk}/")
    scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
    assert scope == page.url.split("/tables/")[0] + "/"
    controlled(page)
    expect(page.locator(".offline-banner")).to_have_count(0)  # a fresh page says nothing

    page.context.set_offline(True)
    page.reload()

    expect(page.locator("h1")).to_have_text(str(table))
    expect(page.locator("#sheet .deal-log > li")).to_have_count(1)
    expect(page.locator(".offline-banner")).to_have_text(
        re.compile(r"No connection — this is the sheet as of \d\d:\d\d\.")
    )
    # A page never kept shows the offline page instead: the worker keeps table pages only.
    page.context.set_offline(False)
    page.goto("/seasons/")
    page.goto(f"/tables/{table.pk}/?log=all")
    page.context.set_offline(True)
    page.goto("/seasons/")
    expect(page.locator("h1")).to_have_text("No connection")
    kept = page.evaluate(_KEPT)
    shell = [url for name, urls in kept.items() if name.startswith("shell-") for url in urls]
    assert "/static/js/outbox.js" in shell and "/offline/en/" in shell
    tables = [url for name, urls in kept.items() if name.startswith("tables-") for url in urls]
    assert tables == [f"/tables/{table.pk}/"]

    # The app opens on its start page: offline, the offline page lists the tables kept.
    page.goto("/")
    kept_links = page.locator(".kept-tables a")
    expect(kept_links).to_have_text([str(table)])
    kept_links.click()
    expect(page.locator(".offline-banner")).to_be_visible()
    expect(page.locator("#sheet .deal-log > li")).to_have_count(1)
    assert only_script_problems(browser_problems) == []


def test_deals_entered_offline_are_sent_in_order_when_the_connection_returns(
    new_page, browser_problems
):
    anna, boris, vera = (factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera"))
    table = factories.pulka([anna, boris, vera])  # Anna deals; Boris is the first hand
    page = new_page(**APP)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    controlled(page)
    form = page.locator("#deal-form form")
    outbox = page.locator("#outbox")

    page.context.set_offline(True)
    page.reload()  # the phone's copy: the Wi-Fi dropped and the page was opened again
    expect(page.locator(".offline-banner")).to_be_visible()

    # Boris plays 6♠, both pass; then 7♠, both pass (the form keeps Boris declaring).
    for n, level in enumerate(("6", "7"), start=1):
        form.locator(f'label.segment:has(input[name="level"][value="{level}"])').click()
        form.get_by_role("button", name="Save deal").click()
        expect(outbox).to_contain_text(QUEUED.format(n=n))
        expect(form.locator('input[name="level"]:checked')).to_have_count(0)  # cleared
    keys = page.evaluate(_QUEUED_KEYS)
    assert len(set(keys)) == 2 and all(len(key) == 36 for key in keys)
    assert stored(table) == []

    page.context.set_offline(False)

    expect(outbox).to_contain_text("Deals sent from this phone: 2.")
    assert stored(table) == [("Boris", "6S"), ("Boris", "7S")]
    assert page.evaluate(_QUEUED_KEYS) == []
    log = page.locator("#sheet .deal-log > li")
    expect(log).to_have_count(2)
    expect(log.nth(0)).to_contain_text("7♠")
    expect(log.nth(1)).to_contain_text("6♠")

    # Signing out forgets the kept table pages (a phone the club shares).
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
    page.wait_for_function(
        "() => caches.keys().then(names => !names.some(n => n.startsWith('tables-')))"
    )
    assert only_script_problems(browser_problems) == []


def test_a_request_without_an_answer_says_so_and_keeps_the_form(new_page, browser_problems):
    anna, boris, vera = (factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera"))
    table = factories.pulka([anna, boris, vera])
    page = new_page(**APP)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    form = page.locator("#deal-form form")
    form.locator('label.segment:has(input[name="level"][value="8"])').click()

    # The club's Wi-Fi is up, but nothing gets through to the server.
    page.route("**/deals/", lambda route: route.abort("internetdisconnected"))
    form.get_by_role("button", name="Why these numbers?").click()

    expect(page.locator("#deal-form .no-connection")).to_have_text(
        "No connection. Nothing is lost."
    )
    expect(form.locator('input[name="level"][value="8"]')).to_be_checked()
    assert page.evaluate(_QUEUED_KEYS) == []  # a preview is no deal: nothing queued

    # A save that gets no answer waits in the outbox, and goes once the server answers.
    form.get_by_role("button", name="Save deal").click()
    expect(page.locator("#outbox")).to_contain_text(QUEUED.format(n=1))
    page.unroute("**/deals/")
    expect(page.locator("#outbox")).to_contain_text("Deals sent from this phone: 1.")
    assert stored(table) == [("Boris", "8S")]
    expect(page.locator("#sheet .deal-log > li")).to_contain_text("8♠")
    assert only_script_problems(browser_problems) == []


_KEPT = """
caches.keys().then(names => Promise.all(names.map(name => caches.open(name)
  .then(cache => cache.keys())
  .then(requests => [name, requests.map(r => new URL(r.url).pathname + new URL(r.url).search)])
))).then(Object.fromEntries)
"""
"""What the service worker keeps: each cache's paths."""

_QUEUED_KEYS = """
new Promise((resolve, reject) => {
  const open = indexedDB.open("clubsite-outbox", 1);
  open.onsuccess = () => {
    const request = open.result.transaction("deals").objectStore("deals").getAll();
    request.onsuccess = () => resolve(
      request.result.map(item => item.fields.find(pair => pair[0] === "write_key")[1]));
    request.onerror = () => reject(request.error);
  };
  open.onerror = () => reject(open.error);
})
"""
"""The write_key of each deal waiting in the outbox, in order."""


def test_a_deal_refused_when_sent_waits_for_the_member_never_dropped(new_page, browser_problems):
    """Anna enters two deals offline; meanwhile Boris saves one online. Back online,
    Anna's first deal is refused (the sheet moved on): the queue stops and shows it, and
    the second waits behind it. Anna removes the first and sends the second again, on top
    of the sheet as it now stands."""
    anna, boris, vera = (factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera"))
    table = factories.pulka([anna, boris, vera])
    page = new_page(**APP)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    controlled(page)
    form = page.locator("#deal-form form")
    outbox = page.locator("#outbox")
    page.context.set_offline(True)
    for n, level in enumerate(("8", "9"), start=1):
        form.locator(f'label.segment:has(input[name="level"][value="{level}"])').click()
        form.get_by_role("button", name="Save deal").click()
        expect(outbox).to_contain_text(QUEUED.format(n=n))

    other = new_page(**APP)
    sign_in(other, "boris")
    other.goto(f"/tables/{table.pk}/")
    other_form = other.locator("#deal-form form")
    other_form.locator('label.segment:has(input[name="level"][value="6"])').click()
    other_form.get_by_role("button", name="Save deal").click()
    expect(other.locator("#deal-form .deal-saved")).to_have_text("Deal 1 saved.")
    assert stored(table) == [("Boris", "6S")]

    page.context.set_offline(False)

    refused = outbox.locator(".outbox-refused")
    expect(refused).to_have_count(1)
    expect(refused).to_contain_text("A deal saved on this phone was not accepted: ")
    expect(refused.locator(".outbox-deal")).to_contain_text(
        "declarer: Boris · contract: 8 · suit: ♠"
    )
    assert stored(table) == [("Boris", "6S")]
    assert len(page.evaluate(_QUEUED_KEYS)) == 2  # nothing dropped; the second waits

    page.once("dialog", lambda dialog: dialog.accept())
    refused.get_by_role("button", name="Remove it from the queue").click()
    # The second was drawn before Boris's deal too: refused in its turn.
    expect(refused.locator(".outbox-deal")).to_contain_text("contract: 9")
    assert len(page.evaluate(_QUEUED_KEYS)) == 1
    expect(page.locator("#sheet .deal-log > li")).to_have_count(1)  # Boris's, polled in

    refused.get_by_role("button", name="Send it again").click()

    expect(outbox).to_contain_text("Deals sent from this phone: 1.")
    assert stored(table) == [("Boris", "6S"), ("Boris", "9S")]
    assert page.evaluate(_QUEUED_KEYS) == []
    assert only_script_problems(browser_problems) == []


def test_a_save_whose_answer_was_lost_is_stored_once(new_page, browser_problems):
    """The save reaches the server and is stored, but its answer never comes back: the
    outbox keeps the deal and sends it again with the same write_key, which the server
    answers as done without storing it twice."""
    anna, boris, vera = (factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera"))
    table = factories.pulka([anna, boris, vera])
    page = new_page(**APP)
    sign_in(page, "anna")
    page.goto(f"/tables/{table.pk}/")
    form = page.locator("#deal-form form")
    if form.locator('input[name="write_key"]').count() == 0:
        pytest.skip("needs the server's write keys (issue 14 item 3, branch `writes`)")
    key = form.locator('input[name="write_key"]').input_value()

    def stored_then_lost(route: Any) -> None:
        route.fetch()  # the server stores the deal...
        route.abort("internetdisconnected")  # ...and the answer is lost on the way back

    page.route("**/deals/", stored_then_lost)
    form.locator('label.segment:has(input[name="level"][value="7"])').click()
    form.get_by_role("button", name="Save deal").click()
    expect(page.locator("#outbox")).to_contain_text(QUEUED.format(n=1))
    assert page.evaluate(_QUEUED_KEYS) == [key]
    assert stored(table) == [("Boris", "7S")]

    page.unroute("**/deals/")

    expect(page.locator("#outbox")).to_contain_text("Deals sent from this phone: 1.")
    assert stored(table) == [("Boris", "7S")]
    assert only_script_problems(browser_problems) == []
