"""The production configuration, run the way a deployment runs it: ``check --deploy`` and
the settings under production variables, and gunicorn with its config file serving the
site from PostgreSQL with collected static files.

Each check runs in a subprocess with its own environment, since the settings are read once
per process. The gunicorn test needs a database another process can reach, which the
pytest-django test database is not (its data lives in this process's transaction): it uses
its own PostgreSQL database, ``clubsite_prodtest``, created afresh and dropped afterwards.
"""

from __future__ import annotations

import json
import os
import re
import runpy
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dj_database_url
import pytest

ROOT = Path(__file__).resolve().parents[2]
GUNICORN_CONF = ROOT / "clubsite" / "gunicorn.conf.py"
PROD_DATABASE = "clubsite_prodtest"
DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"

PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "prod-test-" + "s3cr3t-k3y-" * 6,  # 50+ characters, varied
    "DJANGO_ALLOWED_HOSTS": "club.example,127.0.0.1",
    "DJANGO_EMAIL_HOST": "smtp.club.example",
}
SHOW_SETTINGS = """
import json, django
django.setup()
from django.conf import settings as s
names = [
    "DEBUG", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SESSION_COOKIE_HTTPONLY",
    "SESSION_COOKIE_SAMESITE", "CSRF_COOKIE_SAMESITE", "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS", "AXES_FAILURE_LIMIT", "AXES_LOCKOUT_PARAMETERS",
    "AUTHENTICATION_BACKENDS", "MIDDLEWARE", "INSTALLED_APPS",
]
values = {name: getattr(s, name) for name in names}
values["AXES_COOLOFF_MINUTES"] = s.AXES_COOLOFF_TIME.total_seconds() / 60
values["SESSION_ENGINE"] = s.SESSION_ENGINE
values["AXES_HANDLER"] = s.AXES_HANDLER
print(json.dumps(values))
"""


def environment(**extra: str) -> dict[str, str]:
    """This process's environment without the site's variables, plus ``extra``."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "GUNICORN_"))
        and name not in {"DATABASE_URL", "PORT", "BIND", "WEB_CONCURRENCY"}
    }
    return env | {"DJANGO_SETTINGS_MODULE": "clubsite.settings"} | extra


def run(
    args: list[str], env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# -- settings ------------------------------------------------------------------------------


@pytest.mark.slow  # the site in processes of its own
def test_check_deploy_is_clean_with_production_variables() -> None:
    result = run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], environment(**PRODUCTION)
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


@pytest.mark.slow  # the site in processes of its own
def test_check_deploy_warns_when_e_mail_would_go_to_the_console() -> None:
    """Without a mail server the password links would be printed into the log."""
    env = environment(**PRODUCTION)
    del env["DJANGO_EMAIL_HOST"]

    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)

    assert result.returncode != 0
    assert "members.W001" in result.stderr
    assert "E-mail is written to the console" in result.stderr


@pytest.mark.slow  # the site in processes of its own
def test_production_settings_are_secure() -> None:
    result = run(["-c", SHOW_SETTINGS], environment(**PRODUCTION))
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout.strip().splitlines()[-1])

    assert values["DEBUG"] is False
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["SESSION_COOKIE_HTTPONLY"] is True
    assert values["SESSION_COOKIE_SAMESITE"] == "Lax"
    assert values["CSRF_COOKIE_SAMESITE"] == "Lax"
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_HSTS_SECONDS"] >= 365 * 24 * 3600
    # The sign-in rate limit.
    assert "axes" in values["INSTALLED_APPS"]
    assert values["AUTHENTICATION_BACKENDS"][0] == "axes.backends.AxesStandaloneBackend"
    assert values["MIDDLEWARE"][-1] == "axes.middleware.AxesMiddleware"
    assert values["AXES_FAILURE_LIMIT"] == 5
    assert values["AXES_COOLOFF_MINUTES"] == 15
    assert values["AXES_LOCKOUT_PARAMETERS"] == [["username", "ip_address"]]
    # Sessions and sign-in failures live in the database, so every app server behind a
    # load balancer sees the same ones.
    assert values["SESSION_ENGINE"] == "django.contrib.sessions.backends.db"
    assert values["AXES_HANDLER"] == "axes.handlers.database.AxesDatabaseHandler"


@pytest.mark.slow  # the site in processes of its own
def test_with_redis_a_session_is_read_from_it_and_kept_in_the_database() -> None:
    env = environment(**PRODUCTION, REDIS_URL="redis://127.0.0.1:6379/9")
    result = run(["-c", SHOW_SETTINGS], env)
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout.strip().splitlines()[-1])
    # Written to the database as well: every app server sees it, and a Redis emptied or
    # down loses no one's sign-in (tests/scoring/live/test_shared_cache.py).
    assert values["SESSION_ENGINE"] == "django.contrib.sessions.backends.cached_db"


@pytest.mark.slow  # the site in processes of its own
def test_insecure_cookies_are_for_local_http_only() -> None:
    env = environment(**PRODUCTION, DJANGO_SECURE_COOKIES="0", DJANGO_SECURE_SSL_REDIRECT="0")

    values = json.loads(run(["-c", SHOW_SETTINGS], env).stdout.strip().splitlines()[-1])
    check = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)

    assert values["SESSION_COOKIE_SECURE"] is False
    assert values["CSRF_COOKIE_SECURE"] is False
    assert values["SESSION_COOKIE_HTTPONLY"] is True
    # check --deploy says so, so it cannot slip into a real deployment unnoticed.
    assert check.returncode != 0
    for warning in ("security.W008", "security.W012", "security.W016"):
        assert warning in check.stderr


# -- gunicorn.conf.py ------------------------------------------------------------------------


def gunicorn_settings(monkeypatch: pytest.MonkeyPatch, **environ: str) -> dict[str, Any]:
    for name in (
        "BIND",
        "PORT",
        "WEB_CONCURRENCY",
        "GUNICORN_THREADS",
        "GUNICORN_TIMEOUT",
        "GUNICORN_CONTROL_SOCKET",
    ):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(GUNICORN_CONF))


def test_gunicorn_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    conf = gunicorn_settings(monkeypatch)

    cores = len(os.sched_getaffinity(0))
    assert conf["bind"] == ["127.0.0.1:8000"]
    assert conf["workers"] == min(2 * cores + 1, 8)
    assert conf["worker_class"] in {"sync", "gthread"}
    assert conf["timeout"] == 30
    assert conf["accesslog"] == "-"
    assert conf["max_requests"] > 0 and conf["max_requests_jitter"] > 0
    assert conf["preload_app"] is False


def test_gunicorn_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert gunicorn_settings(monkeypatch, PORT="9001")["bind"] == ["127.0.0.1:9001"]
    assert gunicorn_settings(monkeypatch, PORT="9001", BIND="0.0.0.0:80")["bind"] == ["0.0.0.0:80"]
    assert gunicorn_settings(monkeypatch, WEB_CONCURRENCY="3")["workers"] == 3
    with pytest.raises(SystemExit, match="PORT must be a whole number"):
        gunicorn_settings(monkeypatch, PORT="eighty")


def test_each_gunicorn_has_a_control_socket_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Gunicorn's default is one control socket per user, which a second instance took
    over; the site's is named after the address the instance listens on."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))

    default = gunicorn_settings(monkeypatch)
    other = gunicorn_settings(monkeypatch, PORT="8001")
    unix = gunicorn_settings(monkeypatch, BIND="unix:/run/clubsite.sock")
    chosen = gunicorn_settings(monkeypatch, GUNICORN_CONTROL_SOCKET="/run/club/ctl.sock")
    off = gunicorn_settings(monkeypatch, GUNICORN_CONTROL_SOCKET="off")

    assert default["control_socket"] == str(tmp_path / "clubsite-127.0.0.1_8000.ctl")
    assert other["control_socket"] == str(tmp_path / "clubsite-127.0.0.1_8001.ctl")
    assert unix["control_socket"] == str(tmp_path / "clubsite-unix__run_clubsite.sock.ctl")
    assert chosen["control_socket"] == "/run/club/ctl.sock"
    assert off["control_socket_disable"] is True and "control_socket" not in off
    assert "control_socket_disable" not in default


def test_the_gunicorn_timeout_is_documented_as_what_it_is() -> None:
    """With gthread workers GUNICORN_TIMEOUT kills a worker whose main loop stops, never a
    slow request (checked by hand: a 6 s request under timeout=2 completes): the docs say
    so, and name what does bound a slow request."""
    deploy = (ROOT / "docs" / "deploy.md").read_text()
    row = next(line for line in deploy.splitlines() if line.startswith("| `GUNICORN_TIMEOUT`"))

    assert "heartbeat" in row and "not a request timeout" in row
    assert "`DJANGO_DB_STATEMENT_TIMEOUT`" in deploy


# -- gunicorn serving the site ------------------------------------------------------------------


def server_url() -> str:
    """A PostgreSQL URL for the maintenance database of the server the tests use."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres:", "postgresql:")):
        return DEFAULT_SERVER
    return url.rsplit("/", 1)[0] + "/postgres"


@pytest.fixture
def prod_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for the server subprocess; its URL."""
    psycopg = pytest.importorskip("psycopg")
    maintenance = server_url()
    try:
        admin = psycopg.connect(maintenance, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as error:
        pytest.skip(f"PostgreSQL is not reachable at {maintenance}: {error}".strip())
    drop = f'DROP DATABASE IF EXISTS "{PROD_DATABASE}" WITH (FORCE)'
    with admin:
        admin.execute(drop)
        admin.execute(f'CREATE DATABASE "{PROD_DATABASE}"')
    url = maintenance.rsplit("/", 1)[0] + "/" + PROD_DATABASE
    assert dj_database_url.parse(url)["NAME"] == PROD_DATABASE
    try:
        yield url
    finally:
        with psycopg.connect(maintenance, autocommit=True, connect_timeout=3) as admin:
            admin.execute(drop)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - loopback
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@pytest.mark.slow  # the site in processes of its own
def test_gunicorn_serves_the_site_and_its_static_files(prod_database: str, tmp_path: Path) -> None:
    port = free_port()
    env = environment(
        **PRODUCTION,
        DATABASE_URL=prod_database,
        DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        DJANGO_SECURE_SSL_REDIRECT="0",  # plain http on the loopback
        BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="2",
    )
    for command in (["collectstatic", "--noinput"], ["migrate", "--noinput"]):
        result = run(["manage.py", *command], env, timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr

    log_path = tmp_path / "gunicorn.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", str(GUNICORN_CONF), "clubsite.wsgi"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the workers stop with it
        )
    try:
        check_the_server(f"http://127.0.0.1:{port}", server, log_path)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)


def check_the_server(base: str, server: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert server.poll() is None, "gunicorn exited:\n" + log_path.read_text()
        try:
            status, headers, body = get(base + "/")
            break
        except OSError:
            assert time.monotonic() < deadline, "gunicorn did not answer within 60 s"
            time.sleep(0.3)

    assert status == 200, body[:500]
    assert headers["Server"] == "gunicorn"
    policy = headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    # The page links the hashed, compressed copy collectstatic made …
    stylesheet = re.search(rb'href="(/static/css/site\.[0-9a-f]{12}\.css)"', body)
    assert stylesheet, body[:1000]
    status, headers, css = get(base + stylesheet.group(1).decode())
    assert status == 200
    assert "immutable" in headers["Cache-Control"]
    # … and the plain name is served too, as written; the hashed copy names the icons the
    # stylesheet draws by their hashed names, so that they are kept as long.
    status, headers, plain = get(base + "/static/css/site.css")
    assert status == 200
    assert headers["Content-Type"].startswith("text/css")
    assert plain == (ROOT / "static" / "css" / "site.css").read_bytes()
    assert re.search(rb'url\("\.\./img/icons/tables\.[0-9a-f]{12}\.svg"\)', css)
    assert get(base + "/tables/")[0] == 200
    # The access log goes to stdout (written just after the response: allow a moment).
    deadline = time.monotonic() + 5
    while '"GET /tables/ HTTP/1.1" 200' not in log_path.read_text():
        assert time.monotonic() < deadline, log_path.read_text()
        time.sleep(0.1)


# -- two gunicorns on one host ------------------------------------------------------------------


def start_gunicorn(env: dict[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    with log_path.open("w") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", str(GUNICORN_CONF), "clubsite.wsgi"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def stop_gunicorn(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)


def wait_until(condition: Any, what: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert server.poll() is None, f"gunicorn exited:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"{what} within 60 s:\n{log.read_text()}"
        time.sleep(0.1)


def healthy(port: int) -> bool:
    try:
        return get(f"http://127.0.0.1:{port}/healthz")[0] == 200
    except OSError:
        return False


def control_pid(path: Path) -> int | None:
    """The pid of the gunicorn that answers on the control socket at ``path``."""
    from gunicorn.ctl.client import ControlClient, ControlClientError

    try:
        with ControlClient(str(path), timeout=5) as client:
            return int(client.send_command("show stats")["pid"])
    except ControlClientError:
        return None


@pytest.mark.slow  # the site in processes of its own
def test_two_gunicorns_on_one_host_keep_their_own_control_sockets(tmp_path: Path) -> None:
    """The attack's repro: a second gunicorn on the host took over the first one's control
    socket. Now the second gets its own; a third told to use the first one's path starts
    without one; stopping them leaves the first one's socket answering. /healthz needs no
    migrated database, so an empty SQLite file serves."""
    runtime = tmp_path / "run"
    runtime.mkdir()
    ports = [free_port(), free_port(), free_port()]
    first_socket = runtime / f"clubsite-127.0.0.1_{ports[0]}.ctl"

    def env(port: int, **extra: str) -> dict[str, str]:
        return environment(
            **PRODUCTION,
            DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
            BIND=f"127.0.0.1:{port}",
            WEB_CONCURRENCY="1",
            XDG_RUNTIME_DIR=str(runtime),
            **extra,
        )

    logs = [tmp_path / f"gunicorn-{n}.log" for n in range(3)]
    first = start_gunicorn(env(ports[0]), logs[0])
    others: list[subprocess.Popen[bytes]] = []
    try:
        wait_until(lambda: control_pid(first_socket) == first.pid, "first's socket", first, logs[0])
        others = [
            start_gunicorn(env(ports[1]), logs[1]),
            start_gunicorn(env(ports[2], GUNICORN_CONTROL_SOCKET=str(first_socket)), logs[2]),
        ]
        second_socket = runtime / f"clubsite-127.0.0.1_{ports[1]}.ctl"
        wait_until(
            lambda: control_pid(second_socket) == others[0].pid,
            "second's socket",
            *others[:1],
            logs[1],
        )
        wait_until(lambda: healthy(ports[2]), "third answers", others[1], logs[2])
        wait_until(
            lambda: "is in use by another gunicorn" in logs[2].read_text(),
            "third's warning",
            others[1],
            logs[2],
        )

        assert all(healthy(port) for port in ports)
        assert control_pid(first_socket) == first.pid
        for server in others:
            stop_gunicorn(server)
        assert control_pid(first_socket) == first.pid
        assert not second_socket.exists()  # the second cleaned up only its own
        assert healthy(ports[0])
        # The access log ends with the request's id, the one the response carried.
        _status, headers, _body = get(f"http://127.0.0.1:{ports[0]}/healthz")
        request_id = headers["X-Request-ID"]
        wait_until(lambda: request_id in logs[0].read_text(), "access log line", first, logs[0])
        assert re.search(
            rf'"GET /healthz HTTP/1.1" 200 .* {request_id}$', logs[0].read_text(), re.M
        )
    finally:
        for server in [*others, first]:
            stop_gunicorn(server)


# -- the reverse proxy's one configuration --------------------------------------------------------

NGINX_TEMPLATE = ROOT / "deploy" / "nginx" / "nginx.conf.template"


def load_run_nginx(folder: Path) -> str:
    """deploy/nginx's configuration as the load runs render it (bench/live_load.py)."""
    from bench.live_load import nginx_conf

    servers = f"server 127.0.0.1:{free_port()} max_fails=0; server 127.0.0.1:{free_port()};"
    return nginx_conf(
        {
            "NGINX_USER": "nobody nogroup",
            "NGINX_WORKERS": "1",
            "NGINX_RUN": str(folder),
            "NGINX_LOGS": str(folder),
            "CLUBSITE_LISTEN": f"127.0.0.1:{free_port()}",
            "CLUBSITE_SCHEME": "$scheme",
            "CLUBSITE_SERVERS": servers,
            "CLUBSITE_PUSH_SERVERS": servers,
            "CLUBSITE_UPSTREAM_SHOWN": "$upstream_addr",
        }
    )


def test_nginx_passes_the_port_on() -> None:
    """``Host $host`` dropped the port: behind nginx on https://club.example:8443 Django saw
    club.example, the browser's Origin named the port, and every form post failed CSRF."""
    hosts = re.findall(r"proxy_set_header Host (\S+);", NGINX_TEMPLATE.read_text())

    assert len(hosts) == 3  # the pages, the sign-in pages, the event streams
    assert set(hosts) == {"$http_host"}


def test_the_docs_show_no_second_nginx_configuration() -> None:
    """One copy (deploy/nginx/nginx.conf.template): the docs' own copy and the load run's
    had drifted apart (the docs' had no keep-alive to the app servers, no max_fails=0)."""
    deploy = (ROOT / "docs" / "deploy.md").read_text()

    assert "```nginx" not in deploy
    assert "deploy/nginx/nginx.conf.template" in deploy


def test_nginx_limits_sign_in_and_holds_a_crowd(tmp_path: Path) -> None:
    """At 2,000 connections nginx with worker_connections 4096 dropped 228,661 socket reads
    (16,384 held), and nothing limited sign-in guesses, each a password hash."""
    from django.urls import reverse

    conf = load_run_nginx(tmp_path)
    connections = int(re.search(r"worker_connections (\d+);", conf)[1])  # type: ignore[index]
    files = int(re.search(r"worker_rlimit_nofile (\d+);", conf)[1])  # type: ignore[index]
    assert connections >= 16_384
    assert files >= 2 * connections  # a client's socket and gunicorn's per connection
    limited = re.search(r"location ~ (\S+) \{\s*limit_req zone=clubsite_sign_in", conf)
    assert limited is not None
    for page in ("members:login", "members:password_reset", "admin:login"):
        assert re.search(limited[1], reverse(page)), page
    assert not re.search(limited[1], reverse("scoring:home"))

    # And nginx itself takes it.
    if not (nginx := shutil.which("nginx") or shutil.which("/usr/sbin/nginx")):
        pytest.skip("nginx is not installed")
    config = tmp_path / "nginx.conf"
    config.write_text(conf)
    checked = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(config), "-e", str(tmp_path / "error.log")],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
