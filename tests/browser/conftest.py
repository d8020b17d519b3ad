"""Real-browser fixtures: Playwright driving Debian's Chromium against pytest-django's
``live_server``.

Playwright cannot download a browser of its own here, so it launches the system one
(``apt-get install chromium``; ``.ci/run`` installs it). Without it the browser tests skip,
except when ``REQUIRE_BROWSER=1`` (set by ``.ci/run``): then a missing browser fails them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

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


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    message = f"needs Debian's chromium at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("REQUIRE_BROWSER", "").strip().lower() in {"1", "true", "yes", "on"}:
        pytest.fail(f"REQUIRE_BROWSER is set but the browser is missing: {message}")
    pytest.skip(message)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    _require_chromium()
    # Playwright's sync API keeps an asyncio loop running on this thread, so Django would
    # refuse ORM calls from the test body; the live server's own thread is unaffected.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as driver:
            yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    chromium = playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    yield chromium
    chromium.close()


class BrowserProblems:
    """What went wrong inside the pages that no assertion looks at: script errors, CSP
    violations, failed requests and 4xx/5xx answers (a missing htmx script, say)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def watch(self, page: Page) -> Page:
        page.on("pageerror", lambda error: self.seen.append(f"page error: {error}"))
        page.on(
            "console",
            lambda msg: (
                self.seen.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None
            ),
        )
        page.on(
            "requestfailed",
            lambda request: self.seen.append(f"failed: {request.method} {request.url}"),
        )
        page.on(
            "response",
            lambda response: (
                self.seen.append(f"{response.status}: {response.url}")
                if response.status >= 400
                else None
            ),
        )
        return page


@pytest.fixture
def browser_problems() -> BrowserProblems:
    return BrowserProblems()


@pytest.fixture
def new_page(browser: Browser, live_server, browser_problems: BrowserProblems):
    """``new_page()`` opens a page in a fresh browser context (its own cookies: a separate
    visitor) that speaks English to the live server."""
    contexts: list[BrowserContext] = []

    def open_page() -> Page:
        context = browser.new_context(
            base_url=live_server.url,
            locale="en-US",
            viewport={"width": 1280, "height": 900},
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        return browser_problems.watch(context.new_page())

    yield open_page
    for context in contexts:
        context.close()
