"""The installable app's resources (scoring/views/app.py): the manifest, the service worker
and the offline page, over HTTP. The browser's side: tests/browser/test_offline.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from scoring.models import Club
from scoring.views import app

pytestmark = pytest.mark.django_db


def test_the_manifest_names_the_club_in_the_pages_language(client):
    Club.objects.update(name="Пулька на Садовой", name_en="Pulka")

    russian = client.get("/manifest.webmanifest?lang=ru")
    english = client.get("/manifest.webmanifest?lang=en")

    assert russian["Content-Type"] == "application/manifest+json"
    data = json.loads(russian.content)
    assert data["name"] == "Пулька на Садовой"
    # With «Садовой» it would be 17 characters, and a name does not end on «на».
    assert data["short_name"] == "Пулька"
    assert data["lang"] == "ru"
    assert json.loads(english.content)["name"] == "Pulka"
    assert json.loads(english.content)["short_name"] == "Pulka"
    assert data["start_url"] == "/"
    assert data["display"] == "standalone"
    assert data["theme_color"] == "#1f5f8b"
    assert data["background_color"] == "#fbfaf7"
    assert [(i["sizes"], i["purpose"]) for i in data["icons"]] == [
        ("192x192", "any"),
        ("512x512", "any"),
        ("512x512", "maskable"),
    ]


def test_an_unknown_language_gets_the_requests_own(client):
    data = json.loads(
        client.get("/manifest.webmanifest?lang=xx", HTTP_ACCEPT_LANGUAGE="en").content
    )
    assert data["lang"] == "en"


@pytest.mark.parametrize(
    ("name", "short"),
    [
        ("Клуб", "Клуб"),
        ("Клуб преферанса и бостона", "Клуб"),  # «Клуб преферанса» is 15
        ("Preferans and Boston club", "Preferans"),
        ("Преферансисты", "Преферансист"),  # one word of 13: cut to 12
        # Issue 30, finding 10: the demo club's was «Клуб «Семь», a quote left open.
        ("Клуб «Семь пик» (демо)", "Семь пик"),  # its own name, in quotes
        ("Клуб «Семь пик»", "Семь пик"),
        ("Клуб (демо)", "Клуб (демо)"),  # short enough as it is
        ("Клуб на Неве (демо)", "Клуб на Неве"),  # the note in brackets left out
        ("Seven of Spades club (demo)", "Seven"),  # never ends on «of»
        ("Клуб «Преферансисты Невы»", "Клуб"),  # the quoted name is too long itself
    ],
)
def test_the_short_name(name, short):
    assert app.short_name(name) == short


def test_the_design_tokens_colours_are_the_manifests():
    css = Path(finders.find("css/tokens.css")).read_text(encoding="utf-8")
    light = css.split("@media", 1)[0]  # the light scheme, the default
    assert f"--accent: {app.THEME_COLOUR};" in light
    assert f"--paper: {app.BACKGROUND_COLOUR};" in light


def test_the_service_worker_is_served_from_the_root_and_checked_every_visit(client):
    response = client.get("/sw.js")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Cache-Control"] == "no-cache"
    text = response.content.decode()
    config = json.loads(re.search(r"const CONFIG = (\{.*\});", text).group(1))
    assert config["version"] == app.shell_version()
    assert re.fullmatch(r"[0-9a-f]{12}", config["version"])
    assert "/static/js/outbox.js" in config["shell"]
    assert "/static/django_htmx/htmx-2.min.js" in config["shell"]
    assert config["offline"] == {"ru": "/offline/ru/", "en": "/offline/en/"}
    assert "&quot;" not in text  # not HTML-escaped: it is a script


def test_every_shell_file_exists():
    missing = [path for path in app.SHELL_FILES if finders.find(path) is None]
    assert missing == []


def test_the_version_follows_the_shell_files(settings, tmp_path):
    """A deploy that changes a shell file changes the version, and so the worker."""
    settings.DEBUG = True
    before = app.shell_version()
    copy = tmp_path / "css"
    copy.mkdir()
    (copy / "site.css").write_text("body { color: red; }")
    settings.STATICFILES_DIRS = [tmp_path, *settings.STATICFILES_DIRS]
    finders.get_finder.cache_clear()
    try:
        assert app.shell_version() != before
    finally:
        finders.get_finder.cache_clear()


@pytest.mark.parametrize(("language", "title"), [("ru", "Нет связи"), ("en", "No connection")])
def test_the_offline_page_in_each_language(client, language, title):
    response = client.get(f"/offline/{language}/")

    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    assert f"<h1>{title}</h1>" in html
    assert "<script" not in html


def test_the_offline_page_of_no_language_is_not_found(client):
    assert client.get("/offline/xx/").status_code == 404
