"""clubsite/settings.py under different environments.

Each test executes the real settings file in a fresh namespace with a patched environment,
so the live ``django.conf.settings`` of the test run is left alone.
"""

import os
import runpy
from pathlib import Path
from typing import Any

import dj_database_url
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

SETTINGS_FILE = Path(__file__).resolve().parents[2] / "clubsite" / "settings.py"

PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "test-" + "k" * 60,
    "DJANGO_ALLOWED_HOSTS": "club.example, www.club.example",
}


def load_settings(monkeypatch: pytest.MonkeyPatch, **environ: str) -> dict[str, Any]:
    for name in list(os.environ):
        if name.startswith("DJANGO_") or name == "DATABASE_URL":
            monkeypatch.delenv(name)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS_FILE))


def test_database_url_selects_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgres://club:secret@db.example:5433/clubsite"

    database = load_settings(monkeypatch, DATABASE_URL=url)["DATABASES"]["default"]

    expected = dj_database_url.parse(url)
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert {k: database[k] for k in ("ENGINE", "NAME", "USER", "PASSWORD", "HOST", "PORT")} == {
        k: expected[k] for k in ("ENGINE", "NAME", "USER", "PASSWORD", "HOST", "PORT")
    }
    assert (database["NAME"], database["HOST"], database["PORT"]) == (
        "clubsite",
        "db.example",
        5433,
    )
    assert database["CONN_HEALTH_CHECKS"] is True


def test_no_database_url_means_sqlite_in_the_project(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = load_settings(monkeypatch)

    database = namespace["DATABASES"]["default"]
    assert database["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(database["NAME"]) == namespace["BASE_DIR"] / "db.sqlite3"
    # Persistent connections are useless under the dev server's thread per request.
    assert database["CONN_MAX_AGE"] == 0


def test_production_takes_connections_from_a_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """No query per request to check a connection: the pool checks its socket instead. A
    replacement that fails is given up after 2 s, and each attempt to connect tells the
    breaker whether the database can be reached (clubsite/db.py)."""
    from clubsite.db import WatchedConnection, unbroken

    database = load_settings(
        monkeypatch, **PRODUCTION, DATABASE_URL="postgres://club@db.example/clubsite"
    )["DATABASES"]["default"]

    assert (database["CONN_MAX_AGE"], database["CONN_HEALTH_CHECKS"]) == (0, False)
    assert database["OPTIONS"]["pool"] == {
        "min_size": 1,
        "max_size": 4,
        "timeout": 5,
        "check": unbroken,
        "reconnect_timeout": 2,
        "connection_class": WatchedConnection,
    }


def test_the_pool_can_be_sized_or_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgres://club@db.example/clubsite"
    sized = load_settings(monkeypatch, **PRODUCTION, DATABASE_URL=url, DJANGO_DB_POOL_SIZE="8")[
        "DATABASES"
    ]["default"]
    off = load_settings(monkeypatch, **PRODUCTION, DATABASE_URL=url, DJANGO_DB_POOL="0")[
        "DATABASES"
    ]["default"]
    debug = load_settings(monkeypatch, DATABASE_URL=url)["DATABASES"]["default"]

    assert sized["OPTIONS"]["pool"]["max_size"] == 8
    # Without the pool: one persistent connection per thread, checked at each request.
    assert (off["CONN_MAX_AGE"], off["CONN_HEALTH_CHECKS"]) == (60, True)
    assert "pool" not in off["OPTIONS"]
    assert "pool" not in debug["OPTIONS"]  # the dev server, and the tests, as before


def test_redis_url_makes_the_cache_one_redis_for_every_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shared = load_settings(monkeypatch, REDIS_URL="redis://cache.example:6379/2")["CACHES"]
    local = load_settings(monkeypatch, REDIS_URL="")["CACHES"]

    # Django's Redis backend, a failure taken as a miss (clubsite/cache.py).
    assert shared["default"]["BACKEND"] == "clubsite.cache.FailSoftRedisCache"
    assert shared["default"]["LOCATION"] == "redis://cache.example:6379/2"
    assert shared["default"]["KEY_PREFIX"] == "clubsite"
    assert local["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"


@pytest.mark.django_db
def test_this_run_uses_the_database_from_the_environment() -> None:
    url = os.environ.get("DATABASE_URL", "")
    expected_vendor = "postgresql" if url.startswith(("postgres:", "postgresql:")) else "sqlite"

    assert settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1] == (
        "postgresql" if expected_vendor == "postgresql" else "sqlite3"
    )
    # A real round trip through the migrated test database.
    assert connection.vendor == expected_vendor
    user_model = get_user_model()
    user_model.objects.create_user("vist", password="not-used-here")  # noqa: S106
    assert user_model.objects.filter(username="vist").count() == 1


def test_debug_off_refuses_to_start_without_a_secret_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ImproperlyConfigured, match="DJANGO_SECRET_KEY"):
        load_settings(monkeypatch, DJANGO_DEBUG="0")


def test_debug_on_by_default_with_a_dev_key_and_local_hosts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    namespace = load_settings(monkeypatch)

    assert namespace["DEBUG"] is True
    assert namespace["SECRET_KEY"].startswith("django-insecure-")
    assert namespace["ALLOWED_HOSTS"] == ["localhost", "127.0.0.1"]


def test_production_is_secure_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = load_settings(monkeypatch, **PRODUCTION)

    assert namespace["DEBUG"] is False
    assert namespace["ALLOWED_HOSTS"] == ["club.example", "www.club.example"]
    assert namespace["SECURE_SSL_REDIRECT"] is True
    assert namespace["SESSION_COOKIE_SECURE"] is True
    assert namespace["CSRF_COOKIE_SECURE"] is True
    assert namespace["SECURE_HSTS_SECONDS"] >= 60 * 60 * 24 * 365
    assert namespace["STORAGES"]["staticfiles"]["BACKEND"] == (
        "whitenoise.storage.CompressedManifestStaticFilesStorage"
    )


def test_ssl_redirect_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = load_settings(monkeypatch, **PRODUCTION, DJANGO_SECURE_SSL_REDIRECT="0")

    assert namespace["SECURE_SSL_REDIRECT"] is False


def test_a_malformed_boolean_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ImproperlyConfigured, match="DJANGO_DEBUG"):
        load_settings(monkeypatch, DJANGO_DEBUG="maybe")


# -- timeouts, logs ----------------------------------------------------------------------------

POSTGRES = "postgres://club@db.example/clubsite"


def test_postgresql_bounds_statements_and_connecting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Gunicorn's timeout does not stop a slow request with threaded workers: PostgreSQL
    cancels a statement that runs longer than DJANGO_DB_STATEMENT_TIMEOUT seconds."""
    options = load_settings(monkeypatch, DATABASE_URL=POSTGRES)["DATABASES"]["default"]["OPTIONS"]
    tuned = load_settings(
        monkeypatch,
        DATABASE_URL=POSTGRES,
        DJANGO_DB_STATEMENT_TIMEOUT="120",
        DJANGO_DB_CONNECT_TIMEOUT="2",
    )["DATABASES"]["default"]["OPTIONS"]
    off = load_settings(monkeypatch, DATABASE_URL=POSTGRES, DJANGO_DB_STATEMENT_TIMEOUT="0")[
        "DATABASES"
    ]["default"]["OPTIONS"]
    sqlite = load_settings(monkeypatch)["DATABASES"]["default"]

    serial = "-c max_parallel_workers_per_gather=0"
    assert options == {"connect_timeout": 5, "options": f"-c statement_timeout=30s {serial}"}
    assert tuned == {"connect_timeout": 2, "options": f"-c statement_timeout=120s {serial}"}
    assert "options" not in off  # behind PgBouncer, which refuses startup options
    assert sqlite["OPTIONS"] == {"transaction_mode": "IMMEDIATE", "timeout": 20}


def test_postgresql_applies_the_statement_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The options as the server reads them (the test server's maintenance database; nothing
    is created)."""
    psycopg = pytest.importorskip("psycopg")
    url = os.environ.get("DATABASE_URL", "")
    server = (
        url.rsplit("/", 1)[0] if url.startswith(("postgres:", "postgresql:")) else None
    ) or "postgres://postgres@127.0.0.1:5432"
    options = load_settings(
        monkeypatch, DATABASE_URL=f"{server}/postgres", DJANGO_DB_STATEMENT_TIMEOUT="7"
    )["DATABASES"]["default"]["OPTIONS"]
    try:
        connection = psycopg.connect(f"{server}/postgres", **options)
    except psycopg.OperationalError as error:
        pytest.skip(f"PostgreSQL is not reachable at {server}: {error}".strip())
    with connection:
        assert connection.execute("SHOW statement_timeout").fetchone() == ("7s",)
        assert connection.execute("SHOW max_parallel_workers_per_gather").fetchone() == ("0",)


def test_logs_are_plain_text_unless_json_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = load_settings(monkeypatch)["LOGGING"]["handlers"]["console"]
    json_logs = load_settings(monkeypatch, DJANGO_LOG_FORMAT="json")["LOGGING"]

    assert plain["formatter"] == "plain"
    assert plain["filters"] == ["request_id", "client_errors_on_one_line"]
    assert json_logs["handlers"]["console"]["formatter"] == "json"
    assert json_logs["formatters"]["json"] == {"()": "clubsite.logs.JsonFormatter"}
    with pytest.raises(ImproperlyConfigured, match="DJANGO_LOG_FORMAT"):
        load_settings(monkeypatch, DJANGO_LOG_FORMAT="xml")


def test_tasks_run_at_once_unless_the_database_queue_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quick_start = load_settings(monkeypatch)
    production = load_settings(monkeypatch, **PRODUCTION, DJANGO_TASKS="database")

    assert quick_start["TASKS"] == {
        "default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}
    }
    assert production["TASKS"] == {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    assert "django_tasks_db" in quick_start["INSTALLED_APPS"]  # its table exists either way
    with pytest.raises(
        ImproperlyConfigured, match="DJANGO_TASKS must be immediate or database, not 'celery'"
    ):
        load_settings(monkeypatch, DJANGO_TASKS="Celery")


def test_settings_import_without_sentry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SENTRY_DSN", raising=False)
    namespace = load_settings(monkeypatch, **PRODUCTION)

    assert namespace["SENTRY_DSN"] == ""
    assert "sentry_sdk" not in namespace


# -- e-mail and tasks ---------------------------------------------------------------------

CONSOLE = "clubsite.mail.ReadableConsoleBackend"  # Django's, printed readable
SMTP = "django.core.mail.backends.smtp.EmailBackend"


def test_without_a_mail_server_e_mail_goes_to_the_console(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = load_settings(monkeypatch)

    assert namespace["MAILERS"] == {"default": {"BACKEND": CONSOLE}}
    assert namespace["DEFAULT_FROM_EMAIL"] == "club@localhost"
    # Django 6.1 refuses the old EMAIL_* settings beside MAILERS.
    assert not {"EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT"} & set(namespace)


@pytest.mark.parametrize(
    ("security", "port", "use_tls", "use_ssl"),
    [
        ("", 587, True, False),
        ("starttls", 587, True, False),
        ("SSL", 465, False, True),
        ("none", 25, False, False),
    ],
)
def test_a_mail_server_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, security: str, port: int, use_tls: bool, use_ssl: bool
) -> None:
    environ = {
        "DJANGO_EMAIL_HOST": "smtp.club.example",
        "DJANGO_EMAIL_USER": "club",
        "DJANGO_EMAIL_PASSWORD": "s3cret",
        "DJANGO_DEFAULT_FROM_EMAIL": "Клуб <club@club.example>",
    }
    if security:
        environ["DJANGO_EMAIL_SECURITY"] = security

    namespace = load_settings(monkeypatch, **environ)

    assert namespace["MAILERS"]["default"] == {
        "BACKEND": SMTP,
        "OPTIONS": {
            "host": "smtp.club.example",
            "port": port,
            "username": "club",
            "password": "s3cret",
            "use_tls": use_tls,
            "use_ssl": use_ssl,
            "timeout": 10,
        },
    }
    assert namespace["DEFAULT_FROM_EMAIL"] == "Клуб <club@club.example>"


def test_the_mail_servers_port_and_timeout_can_be_given(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = load_settings(
        monkeypatch,
        DJANGO_EMAIL_HOST="smtp.club.example",
        DJANGO_EMAIL_PORT="2525",
        DJANGO_EMAIL_TIMEOUT="3",
    )

    options = namespace["MAILERS"]["default"]["OPTIONS"]
    assert (options["port"], options["timeout"]) == (2525, 3)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DJANGO_EMAIL_SECURITY", "tls", "DJANGO_EMAIL_SECURITY must be starttls, ssl or none"),
        ("DJANGO_EMAIL_PORT", "smtp", "DJANGO_EMAIL_PORT must be an integer"),
    ],
)
def test_a_wrong_mail_setting_is_refused_at_start(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    with pytest.raises(ImproperlyConfigured, match=message):
        load_settings(monkeypatch, DJANGO_EMAIL_HOST="smtp.club.example", **{name: value})


def test_tasks_run_immediately_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = load_settings(monkeypatch)

    assert namespace["TASKS"] == {
        "default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}
    }
    assert namespace["PASSWORD_RESET_TIMEOUT"] == 3 * 24 * 60 * 60
