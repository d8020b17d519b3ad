import re

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "words"),
    [("ru", ("преферанс", "пулька", "бостон")), ("en", ("Preferans", "pulka", "Boston"))],
)
def test_home_page_says_what_the_site_is(language: str, words: tuple[str, ...]) -> None:
    response = Client(headers={"accept-language": language}).get(reverse("scoring:home"))

    assert response.status_code == 200
    html = response.content.decode()
    for word in words:
        assert word in html
    assert f'href="{reverse("scoring:rules")}"' in html
    assert reverse("scoring:rules") == "/rules/"


def test_home_page_is_russian_by_default() -> None:
    response = Client().get("/")  # no Accept-Language: the site's default language

    assert '<html lang="ru">' in response.content.decode()


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


def test_htmx_comes_from_the_site_without_a_nonce(client: Client) -> None:
    response = client.get("/")

    html = response.content.decode()
    assert re.search(r'<script src="/static/[^"]*/htmx-2\.min\.js" defer>', html), html[:2000]
    assert "script-src 'self';" in response.headers["Content-Security-Policy"]


@pytest.mark.parametrize("url", ["/", "/rules/"])
def test_pages_have_no_inline_script_or_style(client: Client, url: str) -> None:
    html = client.get(url).content.decode()

    assert "<style" not in html
    assert " style=" not in html
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag, f"inline script: {tag}"
