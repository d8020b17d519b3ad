"""The live sheet's fetches name the least revision they may be answered at
(``X-Live-Revision``, static/js/live.js): an app server answers a plain poll from what it
read up to a second ago unless the page names a later revision than that
(``selectors.polled_table_version``). Without Pushpin the page's stream fails at once
(``/events/`` answers 204) and the page polls, as here."""

from __future__ import annotations

import pytest

from tests import factories

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PASSOUT = {"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}}


def is_live_fetch(request) -> bool:
    return request.method == "GET" and "/live/" in request.url


def test_the_sheet_names_the_revision_it_shows_and_one_past_it_when_told(
    new_page, browser_problems
):
    players = [factories.member(name, username=name.lower()) for name in ("Anna", "Boris", "Vera")]
    table = factories.pulka(players, pool_target=20, deals=[PASSOUT, PASSOUT])
    page = new_page()
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_function("() => typeof window.htmx === 'object'")
    table.refresh_from_db()
    assert page.locator("#sheet").get_attribute("data-revision") == str(table.revision)
    # The plain poll (every two seconds): the revision the sheet shows.
    with page.expect_request(is_live_fetch, timeout=10_000) as polled:
        pass
    assert polled.value.headers.get("x-live-revision") == str(table.revision)
    # A fetch because something changed (the stream opened again, or events held back
    # for the pause): one past the shown revision, so no server answers it from memory.
    # Read as htmx is told it; asked again each half second, as htmx drops a fetch asked
    # while the region's poll is in flight.
    named = page.evaluate(
        """() => new Promise((resolve) => {
            // Found again each time: a poll's answer swaps the region for a new one.
            const ask = () => window.htmx.trigger(document.getElementById("sheet"), "live-changed");
            const again = window.setInterval(ask, 500);
            window.setTimeout(() => resolve("no fetch in 8 s"), 8000);
            document.addEventListener("htmx:configRequest", (event) => {
                if (event.detail.triggeringEvent?.type === "live-changed") {
                    window.clearInterval(again);
                    resolve(event.detail.headers["X-Live-Revision"]);
                }
            });
            ask();
        })"""
    )
    assert named == str(table.revision + 1)
    assert browser_problems.seen == []
