"""axe-core on every page the language crawl visits (issue 30, Deliver 10): every page a
member and an organiser use, not only the pictured ones (tests/browser/test_screens.py),
each checked for axe's serious and critical findings.

The crawl is about 1,200 addresses (550 of them HTML pages; axe's colour-contrast rule is
most of each page's cost, in Chromium) and ran as one test of four and a half minutes, which
pytest-xdist could only hand to one worker. It is cut into shards here, each role's
addresses dealt out in turn, so that the workers share them; what every shard needs is
made once per module on each worker, not once per shard: the demo club (10 s of CPU) and
the live server.

The module's fixture builds the club and commits it (the server's threads have connections
of their own on PostgreSQL), and when the module ends empties the database and writes back
the rows the migrations made (the preset tariffs), as a ``serialized_rollback`` test does:
the tests are not transactional, so they run with the first of the suite
(tests/conftest.py), before the tests that expect those rows. Each test starts Chromium
itself, after its own transaction has begun, and stops it before that ends (see
tests/browser/conftest.py's ``_Chromium``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.test import Client
from django.utils import translation
from pytest_django.live_server_helper import LiveServer

from members.models import Member
from tests.browser.conftest import _Chromium, _require_chromium, serving
from tests.browser.test_phone import serious
from tests.browser.test_screens import VIEWPORTS
from tests.clubsite.test_language_crawl import PATTERNS, build_demo_club, urls

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    # Not transactional (the club is the module's, committed by its fixture); the rows the
    # migrations made are serialized, for the fixture to write them back.
    pytest.mark.django_db(serialized_rollback=True),
]

SHARDS = {"organiser": 4, "member": 2}
"""How many shards each role's addresses are dealt into (the organiser has twice the
member's: the admin's pages too)."""
MIN_CHECKED = 40
"""Each shard checks at least this many HTML pages (about 90 each on the demo club): a
crawl that passed over every page (its session refused, say) would find nothing wrong."""


@dataclass(frozen=True)
class Crawl:
    server: LiveServer
    pages: dict[str, list[str]]
    """Each role's addresses, in the language crawl's order."""
    cookies: dict[str, dict[str, Any]]
    """Each role's session cookie, for the live server."""


def crawled_pages() -> dict[str, list[str]]:
    """The addresses tests/clubsite/test_language_crawl.py visits, by the role it visits
    them as: every URL pattern of the site filled with the demo club's rows."""
    found = [url for name, pieces in PATTERNS for url in urls(name, pieces, "ru")]
    return {
        "organiser": found,
        # The admin's pages are the organiser's alone; the member's others differ from his
        # in what the member may do there (his own profile, the forms he is offered).
        "member": [url for url in found if not url.startswith("/admin/")],
    }


def session_cookie(server: LiveServer, member: Member) -> dict[str, Any]:
    client = Client()
    client.force_login(member)
    value = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": value, "url": server.url}


@pytest.fixture(scope="module")
def crawl(
    request: pytest.FixtureRequest, django_db_setup: None, django_db_blocker: Any
) -> Iterator[Crawl]:
    """The demo club committed, the live server and each role's addresses and session, for
    the module's tests on this worker; then the database as the migrations left it."""
    _require_chromium()
    with django_db_blocker.unblock():
        try:
            with translation.override("en"):  # as the tests' own fixtures build
                demo = build_demo_club()
            with serving(request.config.getvalue("liveserver") or "localhost") as server:
                server._live_server_modified_settings.enable()
                try:
                    yield Crawl(
                        server=server,
                        pages=crawled_pages(),
                        cookies={
                            role: session_cookie(server, getattr(demo, role)) for role in SHARDS
                        },
                    )
                finally:
                    server._live_server_modified_settings.disable()
        finally:
            for connection in connections.all():
                contents = getattr(connection, "_test_serialized_contents", None)
                call_command(
                    "flush",
                    verbosity=0,
                    interactive=False,
                    database=connection.alias,
                    inhibit_post_migrate=contents is not None,
                )
                if contents is not None:
                    connection.creation.deserialize_db_from_string(contents)


def shard(role: str, n: int) -> str:
    return f"{role}-{n + 1}-of-{SHARDS[role]}"


@pytest.mark.parametrize(
    ("role", "n"),
    [(role, n) for role, count in SHARDS.items() for n in range(count)],
    ids=[shard(role, n) for role, count in SHARDS.items() for n in range(count)],
)
def test_axe_finds_nothing_serious_on_any_page_the_crawl_visits(crawl: Crawl, role: str, n: int):
    """Every ``SHARDS[role]``-th address the role visits, from the ``n``-th, in one browser
    page (a page costs a navigation and a run of axe). A page that is not an HTML page of
    its own (a CSV, the live sheet's fragment, a redirect's end elsewhere) is passed over,
    as the crawl does."""
    chromium = _Chromium()
    found: dict[str, list[str]] = {}
    checked = 0
    try:
        context = chromium.start().new_context(
            base_url=crawl.server.url,
            **(VIEWPORTS["phone"] | {"locale": "ru-RU", "reduced_motion": "reduce"}),
        )
        context.set_default_timeout(10_000)
        context.add_cookies([crawl.cookies[role]])
        page = context.new_page()
        for url in crawl.pages[role][n :: SHARDS[role]]:
            # Asked first, without navigating: a CSV or a PNG would start a download.
            head = page.request.get(url, max_redirects=0)
            html = head.text() if head.headers.get("content-type", "").startswith("text/") else ""
            if head.status != 200 or "<html" not in html[:500]:
                continue  # not an HTML page of its own (a file, a fragment, a redirect)
            page.goto(url, wait_until="load")
            checked += 1
            if problems := serious(page):
                found[url] = problems
    finally:
        chromium.stop()

    assert checked >= MIN_CHECKED, f"only {checked} pages checked"
    assert found == {}
