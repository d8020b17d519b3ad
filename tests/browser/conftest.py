"""Real-browser fixtures: Playwright driving Debian's Chromium against a live server.

Playwright cannot download a browser of its own here, so it launches the system one
(``apt-get install chromium``; ``.ci/run`` installs it). Without it the browser tests skip,
except when ``REQUIRE_BROWSER=1`` (set by ``.ci/run``): then a missing browser (or
Pushpin, for the tests through it) fails them.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.servers.basehttp import ThreadedWSGIServer
from django.db import connections
from django.test.testcases import LiveServerThread
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    Request,
    Response,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError
from pytest_django.live_server_helper import LiveServer

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


PC: dict[str, Any] = {"viewport": {"width": 1280, "height": 900}}
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
}
"""A phone of issue 14's measurements (390×844 CSS px, touch)."""

WAIT_MS = 10_000
"""How long a page's waits last, in milliseconds: Playwright's (each context's default)
and the tests' own in the page's script."""


def _require_chromium() -> None:
    if not CHROMIUM.exists():
        missing(f"needs Debian's chromium at {CHROMIUM} (apt-get install chromium)")


def missing(message: str) -> None:
    """Skip the test for what ``message`` names, or fail it when ``REQUIRE_BROWSER`` is set:
    CI installs everything the browser tests need (``.ci/run``)."""
    if os.environ.get("REQUIRE_BROWSER", "").strip().lower() in {"1", "true", "yes", "on"}:
        pytest.fail(f"REQUIRE_BROWSER is set but something is missing: {message}")
    pytest.skip(message)


# -- the live server -------------------------------------------------------------------------


class _OneRequestAtATime(StaticFilesHandler):
    """Serves static files like pytest-django's live server, and handles one request at a
    time: on SQLite the test database lives in memory and every server thread shares the
    test's one connection, so a sheet poll arriving during a save would fail with "database
    table is locked". PostgreSQL gets the usual threaded server."""

    lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        with self.lock:
            return super().__call__(environ, start_response)


class SharedConnectionServer(ThreadedWSGIServer):
    """Django's threaded server, leaving the connections it shares with the test open when a
    request ends: closing one does nothing anyway (Django never closes an in-memory SQLite
    database), but Django first checks that it is still shared with the request's thread.
    A request the browser left in flight (a poll of a page the test had closed) could end
    after its module's server had stopped sharing the connection, and the check then raised
    in the request's thread: three times in one CI run on SQLite (2026-12-08)."""

    def _close_connections(self) -> None:
        shared = self.connections_override or {}
        for connection in connections.all(initialized_only=True):
            if connection.alias not in shared:
                connection.close()


class _SharedConnectionThread(LiveServerThread):
    server_class = SharedConnectionServer


@pytest.fixture(scope="module")
def live_server(request: pytest.FixtureRequest, django_db_setup: None) -> Iterator[LiveServer]:
    """pytest-django's ``live_server`` (static files served; ``transactional_db`` implied),
    serialised on in-memory SQLite. Started after the test database exists: the server's
    threads must share the test's connection to it rather than each open their own."""
    host = request.config.getvalue("liveserver") or "localhost"
    server = LiveServer(host, start=False)
    shared = server.thread.connections_override
    if shared:
        server.thread = _SharedConnectionThread(
            server.thread.host,
            static_handler=_OneRequestAtATime,
            connections_override=shared,
            port=server.thread.port,
        )
        server.thread.daemon = True
    server.start()
    yield server
    server.stop()


# -- the browser -----------------------------------------------------------------------------


class _Chromium:
    """Playwright and Chromium, started by a worker's first ``new_page()`` and kept until its
    run ends: each test opens contexts of its own (its own cookies and storage) in the one
    browser, instead of starting a driver and a browser of its own (about 1.3 s a test).

    Playwright's sync API marks its asyncio loop as running on this thread, and while it is
    marked Django takes the thread for async code: it hands out other connection objects
    than the test database's own (so a ``serialized_rollback`` or the flush after the test
    would reach another connection) and, without ``DJANGO_ALLOW_ASYNC_UNSAFE``, refuses the
    ORM. So the browser is lent to one test at a time, once the test has set up its data:
    ``lend()`` marks the loop (Playwright's calls switch into it and need the mark), and
    ``take_back()``, before the database is flushed, closes the connections handed out
    meanwhile and clears the mark. They are closed while the loop is still marked, since
    only then can Django find them: left open, one held the test database until the run
    ended, and dropping it failed.
    """

    def __init__(self) -> None:
        self.running = ExitStack()
        self.browser: Browser | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loan: pytest.MonkeyPatch | None = None

    def lend(self) -> Browser:
        if self.loan is None:
            self.loan = pytest.MonkeyPatch()
            self.loan.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
            if self.browser is not None and self.loop is not None:
                asyncio._set_running_loop(self.loop)
                if not self.browser.is_connected():  # Chromium died under an earlier test
                    self._stop()
        if self.browser is None:
            self._start()
        assert self.browser is not None
        return self.browser

    def take_back(self) -> None:
        if self.loan is not None:
            connections.close_all()
            asyncio._set_running_loop(None)
            self.loan.undo()
            self.loan = None

    def stop(self) -> None:
        """At the end of the run: the browser and the driver closed, the loop ended."""
        if self.loop is not None:
            asyncio._set_running_loop(self.loop)
            self._stop()

    def _start(self) -> None:
        driver: Playwright = self.running.enter_context(sync_playwright())
        self.loop = asyncio.get_running_loop()  # Playwright's, marked from here on
        self.browser = driver.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        self.running.callback(self.browser.close)

    def _stop(self) -> None:
        try:
            self.running.close()
        finally:
            self.browser = self.loop = None
            asyncio._set_running_loop(None)


class BrowserProblems:
    """What went wrong inside the pages that no assertion looks at: script errors, CSP
    violations, failed requests and 4xx/5xx answers (a missing htmx script, say)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def watch(self, page: Page) -> Page:
        page.on("pageerror", lambda error: self.seen.append(f"page error: {error}"))
        page.on("console", self._console)
        page.on("requestfailed", self._failed)
        page.on("response", self._response)
        return page

    def _console(self, message: ConsoleMessage) -> None:
        if message.type not in {"error", "warning"}:
            return
        url = message.location.get("url", "")
        if url.endswith("/favicon.ico"):  # the browser asks for it by itself; the site has none
            return
        self.seen.append(f"console {message.type}: {message.text} ({url})")

    def _failed(self, request: Request) -> None:
        if request.failure == "net::ERR_ABORTED":  # a poll cut short by leaving the page
            return
        self.seen.append(f"failed: {request.method} {request.url}: {request.failure}")

    def _response(self, response: Response) -> None:
        if response.status >= 400:
            self.seen.append(f"{response.status}: {response.request.method} {response.url}")


@pytest.fixture
def browser_problems() -> BrowserProblems:
    return BrowserProblems()


@pytest.fixture(scope="session")
def chromium() -> Iterator[_Chromium]:
    chromium = _Chromium()
    yield chromium
    chromium.stop()


@pytest.fixture
def new_page(
    request: pytest.FixtureRequest,
    live_server: LiveServer,
    browser_problems: BrowserProblems,
    chromium: _Chromium,
) -> Iterator[Callable[..., Page]]:
    """``new_page()`` opens a page in a fresh browser context (its own cookies: a separate
    visitor) that asks the live server for English pages; ``new_page(**PHONE)`` on a phone.
    Create the test's data first: the first call lends the test the browser (see
    ``_Chromium``)."""
    _require_chromium()
    contexts: list[BrowserContext] = []

    def open_page(**options: Any) -> Page:
        # ``options`` go to Playwright's ``new_context``: a phone's viewport and touch, say.
        context = chromium.lend().new_context(
            **({"base_url": live_server.url, "locale": "en-US"} | PC | options)
        )
        context.set_default_timeout(WAIT_MS)
        contexts.append(context)
        return browser_problems.watch(context.new_page())

    yield open_page
    try:
        report = getattr(request.node, "call_report", None)
        if report is not None and report.failed:
            _keep_screenshots(request.node.name, contexts)
        for context in contexts:
            context.close()
    finally:
        chromium.take_back()


def _keep_screenshots(test: str, contexts: list[BrowserContext]) -> None:
    """Each open page as it was when the test failed, outside the repository."""
    for n, page in enumerate(p for context in contexts for p in context.pages):
        path = Path(tempfile.gettempdir()) / f"{test}-page{n}.png"
        try:
            page.screenshot(path=path, full_page=True)
        except PlaywrightError:
            continue
        print(f"screenshot of page {n} ({page.url}): {path}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.call_report = report  # type: ignore[attr-defined]
    return report
