"""Pushed updates in Chromium through a real Pushpin (issue 33): a viewer's page holds its
table's event stream at Pushpin, in front of the test's live server, and the site publishes
to Pushpin (``GRIP_URL``) when a deal is saved. The viewer's sheet must change by the push:
while its stream is open the page skips its 2 s poll (static/js/live.js), and the fetch an
event asks for names the revision the event told (``X-Live-Revision``), a poll the one the
sheet shows. Without the push (``GRIP_URL`` unset, or the stream blocked) the sheet either
never changes or changes by a poll, and the test fails."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import APIResponse, Page, Request, Response, Route, expect

from bench.pushpin import Pushpin
from scoring.models import Table
from tests import factories
from tests.browser.conftest import missing
from tests.browser.test_pulka_flow import button, choose, pick, save_deal, sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

WAIT = 30_000
"""Milliseconds to wait for what a page should do: generous, on a loaded machine."""


@pytest.fixture(autouse=True)
def pushpin_installed() -> None:
    """Before ``push_server`` (tests/conftest.py) starts one: autouse fixtures come first."""
    if shutil.which("pushpin") is None:
        missing("needs Debian's pushpin on the PATH (apt-get install pushpin)")


def is_sheet_fetch(request: Request) -> bool:
    return request.method == "GET" and "/live/" in request.url


@dataclass
class Viewer:
    """A visitor's page of a table, opened through Pushpin, and what it saw."""

    page: Page
    told: list[str | None] = field(default_factory=list)
    """``X-Live-Revision`` of each fetch of the sheet, in order."""
    heard: list[tuple[str, str]] = field(default_factory=list)
    """Each message of its event stream as Chromium received it: (event, data)."""

    def revisions_heard(self) -> list[int]:
        return [json.loads(data)["revision"] for event, data in self.heard if event == "revision"]


def open_viewer(push_server: Pushpin, new_page: Callable[..., Page], table: Table) -> Viewer:
    """The table's page through Pushpin's port, back once its stream is open and the one
    fetch its opening asks for is answered."""
    viewer = Viewer(new_page(base_url=push_server.base))
    viewer.page.on(
        "request",
        lambda r: (
            viewer.told.append(r.headers.get("x-live-revision")) if is_sheet_fetch(r) else None
        ),
    )
    # Chromium's own account of the stream (DevTools), beside the page's scripts.
    devtools = viewer.page.context.new_cdp_session(viewer.page)
    devtools.send("Network.enable")
    devtools.on(
        "Network.eventSourceMessageReceived",
        lambda message: viewer.heard.append((message["eventName"], message["data"])),
    )

    def opening_fetch(response: Response) -> bool:
        # The stream's first message ("stream-open") fetches the sheet once, naming one
        # past the revision it shows (a poll names the one it shows).
        return is_sheet_fetch(response.request) and (
            response.request.headers.get("x-live-revision") == str(table.revision + 1)
        )

    stream_url = f"{push_server.base}/events/tables/{table.pk}/"
    with (
        viewer.page.expect_response(stream_url, timeout=WAIT) as stream,
        viewer.page.expect_response(opening_fetch, timeout=WAIT) as opened,
    ):
        viewer.page.goto(f"/tables/{table.pk}/")
    # Pushpin holds the stream: 200, an event stream (the app server alone answers 204).
    assert stream.value.status == 200
    assert stream.value.headers["content-type"].startswith("text/event-stream")
    opened.value.finished()
    wait_until(viewer.page, lambda: bool(viewer.heard), "DevTools to tell of the stream")
    assert viewer.heard[0] == ("stream-open", "")
    expect(viewer.page.locator("#sheet")).to_have_attribute("data-revision", str(table.revision))
    return viewer


def scorer_at(new_page: Callable[..., Page], table: Table) -> Page:
    """Anna, the first player, at the table's page on the app server itself."""
    scorer = new_page()
    sign_in(scorer, "anna")
    scorer.goto(f"/tables/{table.pk}/")
    scorer.wait_for_function("() => typeof window.htmx === 'object'")
    return scorer


def save_passout(scorer: Page) -> None:
    """A pass-out, 4 / 3 / 3 (the form gives Vera the rest)."""
    choose(scorer, "kind", "passout")
    form = scorer.locator("#deal-form")
    pick(form, "tricks:Anna", "4")
    pick(form, "tricks:Boris", "3")
    expect(button(form, "tricks:Vera", "3")).to_be_checked()
    save_deal(scorer)


def wait_until(page: Page, condition: Callable[[], bool], what: str) -> None:
    """Back once ``condition()`` holds, Playwright's events (a route's handler, DevTools'
    messages) handled meanwhile; 30 s at most."""
    deadline = time.monotonic() + WAIT / 1000
    while not condition():
        assert time.monotonic() < deadline, f"waited {WAIT // 1000} s for {what}"
        page.wait_for_timeout(100)


def new_table() -> Table:
    players = [factories.member(name, username=name.lower()) for name in ("Anna", "Boris", "Vera")]
    return factories.pulka(players, pool_target=20)


def test_a_viewer_s_sheet_changes_by_the_push_when_the_scorer_saves(
    push_server, new_page, browser_problems
):
    table = new_table()
    shown = table.revision
    viewer = open_viewer(push_server, new_page, table)
    before_save = len(viewer.told)

    save_passout(scorer_at(new_page, table))

    sheet = viewer.page.locator("#sheet")
    expect(sheet).to_have_attribute("data-revision", str(shown + 1), timeout=WAIT)
    expect(sheet.locator(".deal-log > li")).to_have_count(1)
    # The stream told the new revision, and the sheet was fetched for it: never polled
    # while the stream was open (a poll names the revision the sheet showed, ``shown``).
    assert viewer.revisions_heard() == [shown + 1]
    assert viewer.told[before_save:]
    assert set(viewer.told[before_save:]) == {str(shown + 1)}
    assert browser_problems.seen == []


def test_a_change_told_while_the_sheet_is_fetched_is_fetched_after(
    push_server, new_page, browser_problems
):
    # Two deals saved one after the other: the first one's fetch is still on its way to the
    # viewer when the stream tells of the second. htmx queues the second fetch on the old
    # sheet, which the first answer swaps out, and used to drop it: the sheet stayed a deal
    # behind, its poll skipped while the stream was open.
    table = new_table()
    shown = table.revision
    viewer = open_viewer(push_server, new_page, table)
    held: list[tuple[Route, APIResponse]] = []
    holding = True

    def hold_answer(route: Route) -> None:
        # Asked of the server now, given to the page when the test says.
        if holding:
            held.append((route, route.fetch()))
        else:
            route.continue_()

    viewer.page.route(f"**/tables/{table.pk}/live/", hold_answer)
    scorer = scorer_at(new_page, table)
    save_passout(scorer)
    wait_until(viewer.page, lambda: bool(held), "the sheet's fetch for the first deal")
    save_passout(scorer)
    wait_until(
        viewer.page,
        lambda: shown + 2 in viewer.revisions_heard(),
        "the stream to tell of the second deal",
    )
    holding = False
    for route, answer in held:
        route.fulfill(response=answer)  # the sheet after the first deal

    sheet = viewer.page.locator("#sheet")
    expect(sheet).to_have_attribute("data-revision", str(shown + 2), timeout=WAIT)
    expect(sheet.locator(".deal-log > li")).to_have_count(2)
    assert viewer.revisions_heard() == [shown + 1, shown + 2]
    assert browser_problems.seen == []
