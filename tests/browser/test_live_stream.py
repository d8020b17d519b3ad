"""A live page's stream refused at its opening is asked again (static/js/live.js), in
Chromium: a browser's ``EventSource`` gives up on any answer other than 200, and a push
server too busy to take a stream answers 502 (Pushpin, for a busy app server) or 500 (its
own accept service behind). The page asks again 5 s later; meanwhile it polls."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.db import connections

from tests import factories

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

OPENED = "event: stream-open\ndata: {}\n\n"


def test_a_stream_refused_at_its_opening_is_asked_again(new_page):
    table = factories.pulka()
    connections.close_all()  # the live server's threads read what the test wrote
    asked: list[float] = []

    def busy_then_open(route: Any) -> None:
        asked.append(time.monotonic())
        if len(asked) == 1:
            route.fulfill(status=502, body="Error while proxying to origin.\n")
        else:
            route.fulfill(status=200, content_type="text/event-stream", body=OPENED)

    page = new_page()
    page.route(f"**/events/tables/{table.pk}/", busy_then_open)
    page.goto(f"/tables/{table.pk}/")
    deadline = time.monotonic() + 15
    while len(asked) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(250)  # the route's handler runs while Playwright waits
    assert len(asked) >= 2
    # Asked again after the page's own pause, not at once (nor by the browser itself).
    assert asked[1] - asked[0] >= 4.5
