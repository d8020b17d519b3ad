"""The expired-session page (clubsite/csrf.py, clubsite/writes.py; issue 30, finding 7):
the site's own page, with its stylesheets and header, saying one thing in Russian —
nothing was stored, and what was typed is not lost — never both «ничего не сохранено»
and «сохранено»."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests import factories

pytestmark = pytest.mark.django_db

STYLESHEETS = ("css/tokens.css", "css/components.css", "css/site.css")


def problem(html: str) -> str:
    """The refusal's sentence: the first paragraph of its message box."""
    found = re.search(
        r'<div class="message error write-refused" role="alert">\s*<p>(.*?)</p>', html
    )
    assert found is not None, html
    return found.group(1)


def assert_the_sites_own_page(html: str) -> None:
    for sheet in STYLESHEETS:
        assert f'<link rel="stylesheet" href="/static/{sheet}">' in html
    assert '<header class="site-header">' in html
    assert "<h1>Ничего не сохранено</h1>" in html


def test_a_stale_form_s_page_is_the_site_s_and_says_one_thing():
    russian = Client(enforce_csrf_checks=True)
    refused = russian.post(reverse("scoring:evening_create"), {"place": "Зал"})
    assert refused.status_code == 403
    html = refused.content.decode()
    assert_the_sites_own_page(html)
    said = problem(html)
    assert said.startswith("Ничего не сохранено: страница, с которой отправлена форма, устарела")
    assert "Введённое вами не потеряно" in said
    assert said.count("сохранено") == 1, said


def test_an_expired_session_s_write_says_one_thing():
    pulka = factories.pulka()
    refused = Client().post(reverse("scoring:deal_create", args=[pulka.pk]), {"kind": "passout"})
    assert refused.status_code == 403
    html = refused.content.decode()
    assert_the_sites_own_page(html)
    said = problem(html)
    assert said.startswith(
        "Вы не вошли на сайт (возможно, сеанс истёк), поэтому ничего не сохранено."
    )
    assert said.count("сохранено") == 1, said


def test_no_page_loads_django_htmx_s_debug_helper(client: Client, settings):
    """Under DEBUG (``make run``) django-htmx's helper put any 400/403/404 answer to htmx
    in place of the whole page: a refused write's message, meant for #write-problem, came
    out as a bare page without the site's stylesheets or header."""
    settings.DEBUG = True
    html = client.get(reverse("scoring:evening_list")).content.decode()
    assert '<script src="/static/django_htmx/htmx-2.min.js" defer></script>' in html
    assert "django-htmx.js" not in html
