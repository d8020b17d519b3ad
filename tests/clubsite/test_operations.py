"""Operations: /healthz, the site's own 403/404/500/503 pages (DEBUG off, as every test
runs), a database outage answered "try again", the logs (403s on one line, JSON with a
request id) and Sentry only when configured.

A real database outage and Sentry's start-up happen in a subprocess (settings are read once
per process): the site pointed at a PostgreSQL port where nothing listens."""

from __future__ import annotations

import io
import json
import logging
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.db import OperationalError
from django.test import Client, RequestFactory
from django.urls import reverse

from clubsite import errors, writes
from clubsite.logs import JsonFormatter
from tests import factories

ROOT = Path(__file__).resolve().parents[2]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_python(script: str, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {
        name: value
        for name, value in __import__("os").environ.items()
        if not name.startswith(("DJANGO_", "SENTRY_")) and name != "DATABASE_URL"
    }
    env |= {"DJANGO_SETTINGS_MODULE": "clubsite.settings", **environ}
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@contextmanager
def console_output(*, as_json: bool = False) -> Iterator[io.StringIO]:
    """What the site's console log handler (settings.LOGGING, its filters included)
    writes meanwhile; ``as_json`` with the formatter of ``DJANGO_LOG_FORMAT=json``."""
    handler = next(h for h in logging.getLogger("django").handlers if h.name == "console")
    stream = io.StringIO()
    formatter = handler.formatter
    previous = handler.setStream(stream)  # type: ignore[attr-defined]
    if as_json:
        handler.setFormatter(JsonFormatter())
    try:
        yield stream
    finally:
        handler.setStream(previous)  # type: ignore[attr-defined]
        handler.setFormatter(formatter)


# -- /healthz ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_healthz_checks_the_database_and_the_cache(client: Client, django_assert_num_queries):
    with django_assert_num_queries(1):  # SELECT 1: no page, no leaderboard, no session
        response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok"}
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    assert not response.cookies  # no session, no CSRF cookie
    assert client.get("/healthz/").status_code == 200
    assert client.head("/healthz").status_code == 200
    # A POST needs no CSRF token: it is simply not a probe.
    refused = Client(enforce_csrf_checks=True).post("/healthz")
    assert (refused.status_code, refused["Allow"]) == (405, "GET, HEAD")


@pytest.mark.django_db
def test_healthz_answers_a_load_balancer_on_the_servers_own_address(client: Client, settings):
    """A load balancer probes the app server's address over plain http: neither the host
    check nor the https redirect stands in the way (they still do for the pages)."""
    settings.ALLOWED_HOSTS = ["club.example"]
    settings.SECURE_SSL_REDIRECT = True

    assert client.get("/healthz", HTTP_HOST="10.0.3.7:8000").status_code == 200
    assert client.get("/", HTTP_HOST="10.0.3.7:8000").status_code == 400
    assert client.get("/", HTTP_HOST="club.example").status_code == 301


@pytest.mark.django_db
def test_healthz_names_a_failing_cache(client: Client, settings, tmp_path: Path):
    """A cache that cannot store anything: a file cache whose folder would have to be made
    inside a plain file."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(blocker / "cache"),
        }
    }

    with console_output() as log:
        response = client.get("/healthz")

    # The site still serves without its cache (clubsite/cache.py): a monitor sees it, a
    # load balancer keeps the server.
    assert response.status_code == 200
    assert response.json() == {"status": "degraded", "database": "ok", "cache": "error"}
    assert "Health check: the cache failed:" in log.getvalue()


@pytest.mark.django_db
def test_healthz_names_a_cache_that_forgets(client: Client, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}

    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["cache"] == "error"


OUTAGE = """
import json, django
django.setup()
from django.conf import settings
settings.DEBUG = False  # as under pytest; the static files then need no collectstatic
from django.test import Client
russian, english = Client(), Client(headers={"accept-language": "en"})
answers = {}
for name, client, url in [
    ("healthz", russian, "/healthz"),
    ("home", russian, "/"),
    ("tables", english, "/tables/"),
    ("table", english, "/tables/7/"),
]:
    response = client.get(url)
    answers[name] = {
        "status": response.status_code,
        "retry_after": response.get("Retry-After"),
        "body": response.content.decode(),
    }
print(json.dumps(answers))
"""


@pytest.mark.slow  # the site in a process of its own
def test_a_database_outage_answers_503_try_again_and_healthz_says_database():
    """The attack's repro: the database gone (here: nothing listens on its port)."""
    result = run_python(
        OUTAGE,
        DATABASE_URL=f"postgres://club@127.0.0.1:{closed_port()}/clubsite",
        DJANGO_ALLOWED_HOSTS="testserver",
    )
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])

    assert answers["healthz"]["status"] == 503
    assert json.loads(answers["healthz"]["body"]) == {
        "status": "error",
        "database": "error",
        "cache": "ok",
    }
    home = answers["home"]
    assert (home["status"], home["retry_after"]) == (503, "30")
    assert '<html lang="ru">' in home["body"]
    assert "Сайт ненадолго недоступен" in home["body"]
    assert "Попробуйте ещё раз через минуту" in home["body"]
    for name in ("tables", "table"):
        page = answers[name]
        assert (page["status"], page["retry_after"]) == (503, "30"), name
        assert '<html lang="en">' in page["body"]
        assert "The site is briefly unavailable" in page["body"]
    # One line per refused request, no traceback; the health check names the database.
    assert "Database unavailable, answered 503: OperationalError" in result.stderr
    assert "Health check: the database failed: OperationalError" in result.stderr
    assert "Traceback" not in result.stderr


# -- the error pages -------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_404_page_is_the_sites_own_in_russian_and_english(client: Client):
    russian = Client().get("/no-such-page/")
    english = client.get("/tables/999999/")

    assert russian.status_code == 404
    html = russian.content.decode()
    assert '<html lang="ru">' in html
    assert "<h1>Страница не найдена</h1>" in html
    assert 'class="site-header"' in html and "Столы" in html  # the site's own header
    assert english.status_code == 404
    assert "<h1>Page not found</h1>" in english.content.decode()


@pytest.mark.django_db
def test_the_403_page_is_the_sites_own(client: Client):
    member = factories.member("Anna", username="anna")
    client.force_login(member)
    pulka = factories.pulka()
    deals = reverse("scoring:deal_create", args=[pulka.pk])

    signed_in = client.get("/tables/new/poker/")
    russian = Client()
    russian.force_login(member)
    russian_page = russian.get("/tables/new/poker/").content.decode()
    visitor = Client(headers={"accept-language": "en"}).post(deals)

    assert signed_in.status_code == 403
    html = signed_in.content.decode()
    assert "<h1>Not allowed</h1>" in html
    assert "ask an organiser" in html
    assert "<h1>Нет доступа</h1>" in russian_page
    # A write from a visitor not signed in (his session expired) says so, and leads back
    # to the table after signing in (scoring/views/tables.py, clubsite/writes.py).
    assert visitor.status_code == 403
    assert "You are not signed in (perhaps your session has expired)" in visitor.content.decode()
    back = quote(reverse("scoring:table_detail", args=[pulka.pk]), safe="")
    sign_in = f'href="{reverse("members:login")}?next={back}"'
    assert sign_in in visitor.content.decode()


@pytest.mark.django_db
def test_a_form_without_its_csrf_token_gets_the_sites_own_page():
    russian = Client(enforce_csrf_checks=True)
    english = Client(enforce_csrf_checks=True, headers={"accept-language": "en"})

    refused = russian.post(reverse("members:login"), {"username": "anna", "password": "x"})
    refused_en = english.post(reverse("members:login"), {"username": "anna", "password": "x"})

    assert refused.status_code == 403
    assert "<h1>Ничего не сохранено</h1>" in refused.content.decode()
    assert 'class="site-header"' in refused.content.decode()
    assert refused_en.status_code == 403
    assert "sign in again if you are asked to, and send it again" in refused_en.content.decode()
    # The password typed is not written back into the page (clubsite.writes.NOT_ECHOED).
    assert 'name="password"' not in refused_en.content.decode()
    assert 'name="username" value="anna"' in refused_en.content.decode()


@pytest.mark.django_db  # the page names the club (scoring.models.Club)
def test_a_bad_request_gets_the_sites_own_page(settings):
    settings.ALLOWED_HOSTS = ["club.example"]

    response = Client().get("/", HTTP_HOST="evil.example")

    assert response.status_code == 400
    assert "<h1>Неверный запрос</h1>" in response.content.decode()


def swapped(handling: list[dict[str, Any]], status: int) -> bool:
    """Whether htmx 2 swaps an answer with ``status`` under ``handling``: the first entry
    whose ``code`` (a regular expression, unanchored) finds the status decides."""
    for entry in handling:
        if re.search(entry["code"], str(status)):
            return bool(entry.get("swap"))
    return False


@pytest.mark.django_db
def test_htmx_swaps_refused_writes_but_no_other_error(client: Client):
    page = client.get("/").content.decode()
    (config,) = re.findall(r"<meta name=\"htmx-config\" content='([^']*)'>", page)
    handling = json.loads(config)["responseHandling"]

    assert {status for status in range(400, 600) if swapped(handling, status)} == (
        writes.SWAPPED_STATUSES
    )
    assert all(swapped(handling, status) for status in (200, 201, 286, 302))
    assert not swapped(handling, 204)


@pytest.mark.django_db
def test_htmx_is_kept_from_swapping_an_error_page_in_place_of_a_region(client: Client):
    member = factories.member("Anna", username="anna")
    client.force_login(member)
    pulka = factories.pulka()
    htmx = {"HX-Request": "true"}

    forbidden = client.get("/tables/new/poker/", headers=htmx)  # PermissionDenied: 403.html
    plain = client.get("/tables/new/poker/")
    refused = Client().post(reverse("scoring:deal_create", args=[pulka.pk]), headers=htmx)

    assert (forbidden.status_code, forbidden["HX-Reswap"]) == (403, "none")
    assert (plain.status_code, plain.has_header("HX-Reswap")) == (403, False)
    # A refused write is swapped where it says: the message in the page's region.
    assert refused.status_code == 403
    assert refused[writes.REFUSED_HEADER] == "1"
    assert (refused["HX-Retarget"], refused["HX-Reswap"]) == ("#write-problem", "innerHTML")


@pytest.mark.urls("tests.clubsite.error_urls")
@pytest.mark.django_db
def test_the_500_page_needs_neither_the_database_nor_the_session(
    django_assert_num_queries,
):
    client = Client(raise_request_exception=False)
    client.force_login(factories.member("Anna"))

    with django_assert_num_queries(0):
        response = client.get("/boom/")

    assert response.status_code == 500
    html = response.content.decode()
    assert '<html lang="ru">' in html
    assert "На сервере что-то пошло не так" in html
    assert "Anna" not in html and "Войти" not in html  # no signed-in member, no navigation
    assert "<script" not in html
    english = Client(raise_request_exception=False, headers={"accept-language": "en"})
    assert "Something went wrong on the server" in english.get("/boom/").content.decode()


@pytest.mark.urls("tests.clubsite.error_urls")
def test_database_errors_in_a_view_answer_the_503_page():
    client = Client(raise_request_exception=False, headers={"accept-language": "en"})

    for url in ("/database-down/", "/connection-gone/"):
        response = client.get(url)

        assert response.status_code == 503, url
        assert response["Retry-After"] == "30"
        assert "The site is briefly unavailable" in response.content.decode()


def test_a_database_error_outside_a_view_still_answers_503():
    """One raised in a middleware or while the 403/404 page read the signed-in member
    reaches handler500, which answers the 503 page too."""
    request = RequestFactory().get("/")
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError:
        response = errors.server_error(request)
    try:
        raise RuntimeError("a bug")
    except RuntimeError:
        bug = errors.server_error(request)

    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert bug.status_code == 500


@pytest.mark.urls("tests.clubsite.error_urls")
def test_the_500_page_falls_back_to_a_fixed_page_when_it_cannot_render(settings, tmp_path):
    """Even the plain page links the stylesheet; with the static files missing from the
    manifest (collectstatic not run) it cannot render, and a fixed page is answered."""
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
    }
    client = Client(raise_request_exception=False)

    with console_output() as log:
        response = client.get("/boom/")
        unavailable = client.get("/database-down/")

    assert response.status_code == 500
    assert response.content.decode() == errors.FALLBACK_500
    assert unavailable.status_code == 503
    assert unavailable.content.decode() == errors.FALLBACK_503
    assert "The 500.html page could not be rendered" in log.getvalue()


# -- logs -------------------------------------------------------------------------------------


@pytest.mark.urls("tests.clubsite.error_urls")
@pytest.mark.django_db
def test_a_403_is_logged_on_one_line_and_a_500_with_its_traceback(client: Client, caplog):
    client.force_login(factories.member("Anna"))
    failing = Client(raise_request_exception=False)

    with console_output() as forbidden:
        assert client.get("/tables/new/poker/").status_code == 403
    with console_output() as error:
        assert failing.get("/boom/").status_code == 500

    # The record itself keeps its exception for other handlers (caplog's here, Sentry's
    # breadcrumbs): the console prints a shortened copy.
    (record,) = [r for r in caplog.records if getattr(r, "status_code", None) == 403]
    assert (record.name, record.levelname, record.exc_info is not None) == (
        "django.request",
        "WARNING",
        True,
    )
    lines = forbidden.getvalue().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].endswith(
        "WARNING django.request: Forbidden (Permission denied): /tables/new/poker/"
    )
    assert "Traceback" not in forbidden.getvalue()
    assert "ERROR django.request: Internal Server Error: /boom/" in error.getvalue()
    assert "Traceback (most recent call last)" in error.getvalue()
    assert "RuntimeError: a bug" in error.getvalue()


@pytest.mark.django_db
def test_json_logs_carry_the_request_id_given_or_made(client: Client):
    with console_output(as_json=True) as out:
        given = client.get("/no-such-page/", headers={"x-request-id": "lb-4f2a9c01"})
        hostile = client.get("/no-such-page/", headers={"x-request-id": 'x" level=ERROR\tinjected'})
        logging.getLogger("scoring").warning("outside any request")

    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert given["X-Request-ID"] == "lb-4f2a9c01"
    made = hostile["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert [(r["level"], r["logger"], r["message"], r["request_id"]) for r in records] == [
        ("WARNING", "django.request", "Not Found: /no-such-page/", "lb-4f2a9c01"),
        ("WARNING", "django.request", "Not Found: /no-such-page/", made),
        ("WARNING", "scoring", "outside any request", "-"),
    ]
    assert records[0]["status_code"] == 404
    assert "request" not in records[0]  # Django's request object is not serialised
    assert re.match(r"\d{4}-\d\d-\d\dT", records[0]["time"])


@pytest.mark.urls("tests.clubsite.error_urls")
def test_a_json_error_line_holds_its_traceback():
    failing = Client(raise_request_exception=False)

    with console_output(as_json=True) as out:
        response = failing.get("/boom/")

    (record,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert record["level"] == "ERROR"
    assert record["request_id"] == response["X-Request-ID"]
    assert "RuntimeError: a bug" in record["exc_info"]


# -- Sentry -------------------------------------------------------------------------------------

SENTRY = """
import json, django, sentry_sdk
django.setup()
client = sentry_sdk.get_client()
print(json.dumps({
    "active": client.is_active(),
    "pii": client.options.get("send_default_pii"),
    "django": "django" in getattr(client, "integrations", {}),
}))
"""


def sentry_state(**environ: str) -> dict[str, Any]:
    result = run_python(SENTRY, **environ)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.slow  # the site in a process of its own
def test_sentry_reports_only_when_a_dsn_is_set():
    # A DSN to a loopback port nothing listens on: nothing could leave the machine.
    dsn = f"http://public@127.0.0.1:{closed_port()}/1"

    assert sentry_state(SENTRY_DSN=dsn) == {"active": True, "pii": False, "django": True}
    assert sentry_state()["active"] is False
    assert sentry_state(SENTRY_DSN="")["active"] is False


@pytest.mark.django_db
def test_a_request_for_another_host_is_one_warning_not_an_error(client: Client, caplog):
    """Bots probe the server's address with every Host there is: each was an ERROR with a
    traceback, in the log and in Sentry, for a request the site answers 400 as it should."""
    with console_output() as out:
        assert client.get("/", headers={"host": "evil.example"}).status_code == 400

    records = [r for r in caplog.records if r.name == "django.security.DisallowedHost"]
    assert [r.levelname for r in records] == ["WARNING"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert "ERROR" not in out.getvalue()
    assert "Traceback" not in out.getvalue()
    assert "WARNING django.security.DisallowedHost: Invalid HTTP_HOST header: 'evil.example'" in (
        out.getvalue()
    )
