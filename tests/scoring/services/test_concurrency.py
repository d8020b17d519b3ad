"""Two members saving the same deal at the same moment store it once (PostgreSQL).

Real HTTP requests from several threads against the live server; the table row lock and
the revision the form was drawn at decide which one wins.
"""

from __future__ import annotations

import re
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from http.cookiejar import CookieJar

import pytest
from django.conf import settings
from django.db import connection

from scoring import selectors, services
from scoring.models import AuditEntry, DealRecord, Table
from tests import factories

pytestmark = [
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
    pytest.mark.slow,  # a live server raced by threads
    pytest.mark.skipif(
        "postgresql" not in settings.DATABASES["default"]["ENGINE"],
        reason="row locks need PostgreSQL (DATABASE_URL=postgres://…); SQLite has none",
    ),
]

PASSOUT = {"kind": "passout", "tricks:Anna": "5", "tricks:Boris": "5", "tricks:Vera": "0"}


class Browser:
    """A signed-in member's cookie jar and CSRF token, as a real browser would hold; it
    asks for English pages (without Accept-Language the site answers in Russian)."""

    def __init__(self, base: str, username: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.opener.addheaders.append(("Accept-Language", "en"))
        page = self.get("/members/sign-in/")
        self.post("/members/sign-in/", {"username": username, "password": "pw"}, page)

    def get(self, path: str, headers: dict[str, str] | None = None) -> str:
        request = urllib.request.Request(self.base + path, headers=headers or {})  # noqa: S310
        with self.opener.open(request) as response:
            return response.read().decode()

    def post(
        self, path: str, data: dict[str, str], page: str, headers: dict[str, str] | None = None
    ) -> tuple[int, str]:
        """POST ``data`` with the CSRF token of ``page``; the status and the body, errors
        (a 409, a 403) included."""
        status, _, body = self.send(path, data, page, headers)
        return status, body

    def send(
        self, path: str, data: dict[str, str], page: str, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        """As ``post``, with the answer's headers."""
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, "the page carries a CSRF token"
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token.group(1)})
        request = urllib.request.Request(  # noqa: S310 - the live server's http URL
            self.base + path, body.encode(), headers={"Referer": self.base + path} | (headers or {})
        )
        try:
            with self.opener.open(request) as response:
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()


def test_the_same_deal_saved_twice_at_once_is_stored_once(live_server):
    table = factories.pulka(pool_target=10)
    members = [seat.member for seat in table.seats.order_by("position")]
    browsers = [Browser(live_server.url, m.username) for m in members[:2]]
    path = f"/tables/{table.pk}/"
    pages = [b.get(path) for b in browsers]  # both forms drawn for 0 deals
    start = threading.Barrier(len(browsers))
    answers: list[str] = []

    def save(browser: Browser, page: str) -> None:
        start.wait()
        _, html = browser.post(f"{path}deals/", {**PASSOUT, "revision": "0"}, page)
        answers.append(html)

    threads = [
        threading.Thread(target=save, args=(b, p)) for b, p in zip(browsers, pages, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert DealRecord.objects.filter(table=table).count() == 1
    assert AuditEntry.objects.filter(table=table, action="add").count() == 1
    refused = [html for html in answers if "the table changed: deal 1 saved" in html]
    assert len(refused) == 1
    # The refusal answers with the table as it now stands: the other member's pass-out is
    # in the deal log and on the sheet. ("Anna:" alone proves nothing: the sheet's
    # description names every player even with no deal yet.)
    assert "Anna: mountain 5" in refused[0]  # the deal log, in English
    assert "Anna: pool 0, mountain 5" in refused[0]  # the sheet, in the page's English
    connection.close()


def at_once(count: int, work: Callable[[], None]) -> None:
    """``work`` in ``count`` threads released together, each closing its own connection."""
    start = threading.Barrier(count)

    def run() -> None:
        start.wait()
        try:
            work()
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)


def test_many_members_racing_for_the_next_deal_number(live_server):
    """Without the form's revision (the services called directly), concurrent saves never share
    a sequence number: each waits for the row lock and takes the next one."""
    table = factories.pulka(pool_target=10_000)
    member = table.seats.first().member
    errors: list[Exception] = []

    def save() -> None:
        try:
            services.deal_create(
                table, {"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}}, by=member
            )
        except Exception as error:  # reported by the assertion below
            errors.append(error)

    at_once(6, save)
    assert errors == []
    sequences = sorted(DealRecord.objects.filter(table=table).values_list("sequence", flat=True))
    assert sequences == [1, 2, 3, 4, 5, 6]


def test_scorers_racing_from_the_same_page_store_one_deal():
    """With the revision their pages showed (and its replay, as the view hands it on):
    one deal is stored under the row lock, every other scorer is told the table moved
    on."""
    table = factories.pulka(pool_target=10_000)
    member = table.seats.first().member
    page = selectors.current(Table.objects.prefetch_related("seats").get(pk=table.pk), latest=10)
    outcomes: list[str] = []

    def save() -> None:
        try:
            services.deal_create(
                table,
                {"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}},
                by=member,
                drawn=services.Drawn(page.table.revision, uuid.uuid4()),
                seen=page,
            )
            outcomes.append("stored")
        except services.StaleWrite:
            outcomes.append("stale")

    at_once(6, save)
    assert sorted(outcomes) == ["stale"] * 5 + ["stored"]
    assert DealRecord.objects.filter(table=table).count() == 1
    assert Table.objects.get(pk=table.pk).revision == page.table.revision + 1
