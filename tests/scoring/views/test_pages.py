import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from scoring.rules_doc import render_markdown_file

pytestmark = pytest.mark.django_db


class _Headings(HTMLParser):
    """Collects the text of every h1-h6 element."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self._depth += 1
            self.headings.append("")

    def handle_endtag(self, tag: str) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth:
            self.headings[-1] += data


def headings(html: str) -> list[str]:
    parser = _Headings()
    parser.feed(html)
    return [" ".join(text.split()) for text in parser.headings]


def first_markdown_heading(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if match := re.match(r"#{1,6}\s+(.+?)\s*#*\s*$", line):
            return match.group(1)
    raise AssertionError(f"{path} has no ATX heading")


def test_home_page_says_what_the_site_is(client: Client) -> None:
    response = client.get(reverse("scoring:home"))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Преферанс" in html or "преферанс" in html
    assert "пулька" in html
    assert "бостон" in html.lower()
    assert f'href="{reverse("scoring:rules")}"' in html
    assert reverse("scoring:rules") == "/rules/"


def test_home_page_is_russian_by_default() -> None:
    response = Client().get("/")  # no Accept-Language: the site's default language

    assert '<html lang="ru">' in response.content.decode()


def test_rules_page_renders_docs_rules_md(client: Client, rules_path: Path) -> None:
    response = client.get("/rules/")

    assert response.status_code == 200
    assert first_markdown_heading(rules_path) in headings(response.content.decode())


def test_rules_document_is_rendered_once_per_file_version(tmp_path: Path) -> None:
    path = tmp_path / "rules.md"
    path.write_text("# Первая\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", encoding="utf-8")

    first = render_markdown_file(path)
    again = render_markdown_file(path)
    path.write_text("# Вторая\n\n```\ncode\n```\n", encoding="utf-8")
    stat = path.stat()
    # Force a different mtime even on filesystems with coarse timestamps.
    new_mtime = stat.st_mtime_ns + 2_000_000_000
    os.utime(path, ns=(new_mtime, new_mtime))
    changed = render_markdown_file(path)

    assert again is first
    assert first.title == "Первая"
    assert "<table>" in first.html
    assert 'id="первая"' in first.html
    assert changed.title == "Вторая"
    assert "<pre><code>code" in changed.html


def test_rules_page_is_404_without_the_document(
    client: Client, settings: Settings, tmp_path: Path
) -> None:
    settings.BASE_DIR = tmp_path

    assert client.get("/rules/").status_code == 404


@pytest.mark.parametrize("url", ["/", "/rules/", "/admin/login/"])
def test_pages_carry_a_strict_content_security_policy(client: Client, url: str) -> None:
    response = client.get(url)

    assert response.status_code == 200
    policy = response.headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in policy
    assert "unsafe-eval" not in policy


def test_htmx_script_carries_the_csp_nonce(client: Client) -> None:
    response = client.get("/")

    html = response.content.decode()
    match = re.search(r'<script src="[^"]*/htmx-2\.min\.js" defer nonce="([^"]+)">', html)
    assert match, "htmx script tag with a nonce not found"
    nonce = match.group(1)
    assert f"'nonce-{nonce}'" in response.headers["Content-Security-Policy"]


@pytest.mark.parametrize("url", ["/", "/rules/"])
def test_pages_have_no_inline_script_or_style(client: Client, url: str) -> None:
    html = client.get(url).content.decode()

    assert "<style" not in html
    assert " style=" not in html
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag, f"inline script: {tag}"
