"""compose.yaml, the Dockerfile, the Procfile and the image's entrypoint, checked against what
the site needs, on a machine with no Docker daemon (docs/deploy.md, "With Docker Compose").

compose.yaml is read with PyYAML and its ``${NAME:-default}`` filled in as compose does with
nothing set, so each test sees what a fresh host's ``docker compose up`` runs. The
image itself is built and started by ``make deploy-check`` (bench/deploy_check.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.live_load import NGINX_TEMPLATE, PLACEHOLDER, nginx_conf

ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "deploy" / "entrypoint.sh"
APP_SERVICES = ("release", "web1", "web2", "worker", "scheduler")
WEB_SERVICES = ("web1", "web2")
DEFAULT = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)(?::?-([^{}]*))?\}")


def interpolated(value: Any, env: dict[str, str]) -> Any:
    """``value`` with compose's ``${NAME}`` and ``${NAME:-default}`` filled in from ``env``
    (innermost first, as compose nests them)."""
    if isinstance(value, dict):
        return {key: interpolated(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolated(item, env) for item in value]
    if not isinstance(value, str):
        return value
    while DEFAULT.search(value):
        value = DEFAULT.sub(lambda m: env.get(m[1]) or (m[2] or ""), value)
    return value


def compose(env: dict[str, str] | None = None) -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "compose.yaml").read_text())
    assert isinstance(loaded, dict)
    return dict(interpolated(loaded, env or {}))


@pytest.fixture(scope="module")
def services() -> dict[str, dict[str, Any]]:
    return dict(compose()["services"])


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    assert isinstance(env, dict), "environment as a mapping"
    return {name: str(value) for name, value in env.items()}


def test_compose_runs_every_part_of_the_layout(services: dict[str, dict[str, Any]]) -> None:
    assert set(services) == {*APP_SERVICES, "db", "redis", "pushpin", "nginx"}
    assert services["db"]["image"] == "postgres:15"
    assert services["redis"]["image"] == "redis:7"
    assert services["nginx"]["image"].startswith("nginx:1.")
    for name in APP_SERVICES:  # one image, built from the repository's Dockerfile
        assert services[name]["build"] == ".", name
        assert services[name]["image"] == "clubsite:latest", name
    pushpin = services["pushpin"]["build"]
    dockerfile = (ROOT / pushpin["dockerfile"]).read_text()
    assert "FROM debian:" in dockerfile and "apt-get install" in dockerfile
    assert re.search(r"install -y --no-install-recommends pushpin\b", dockerfile)
    assert services["worker"]["command"][:3] == ["python", "manage.py", "task_worker"]
    # The reminders every 15 minutes, in a loop that a stop lets finish its run.
    scheduler = services["scheduler"]["command"]
    assert scheduler[:2] == ["sh", "-c"]
    assert "python manage.py send_reminders; sleep 900" in scheduler[2]
    assert "trap 'exit 0' TERM" in scheduler[2]
    for name in WEB_SERVICES:
        assert services[name]["command"] == [
            "gunicorn",
            "--config",
            "clubsite/gunicorn.conf.py",
            "clubsite.wsgi",
        ]
    # Only nginx is published on the host.
    assert [name for name, service in services.items() if "ports" in service] == ["nginx"]
    assert services["nginx"]["ports"] == ["8080:80"]
    assert compose({"CLUBSITE_PORT": "80"})["services"]["nginx"]["ports"] == ["80:80"]


# The keys of a service the file uses, each one of the compose specification's: a misspelt
# one (`healtcheck:`) is an error to `docker compose`, which does not run here.
SERVICE_KEYS = {
    "build",
    "image",
    "command",
    "environment",
    "env_file",
    "volumes",
    "ports",
    "depends_on",
    "healthcheck",
    "restart",
    "stop_signal",
    "stop_grace_period",
}
HEALTHCHECK_KEYS = {"test", "interval", "timeout", "start_period", "retries", "disable"}


def test_every_key_is_one_compose_knows(services: dict[str, dict[str, Any]]) -> None:
    loaded = compose()
    assert set(loaded) == {"x-app", "x-web", "services", "volumes"}
    for name, service in services.items():
        assert set(service) <= SERVICE_KEYS, name
        assert set(service.get("healthcheck", {})) <= HEALTHCHECK_KEYS, name
        for condition in service.get("depends_on", {}).values():
            assert condition["condition"] in {
                "service_healthy",
                "service_completed_successfully",
                "service_started",
            }
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            assert source in loaded["volumes"] or (ROOT / source).exists(), volume


def test_the_app_servers_share_the_database_and_the_cache(
    services: dict[str, dict[str, Any]],
) -> None:
    db = environment(services["db"])
    for name in APP_SERVICES:
        env = environment(services[name])
        database = urllib.parse.urlsplit(env["DATABASE_URL"])
        assert database.hostname == "db", name
        assert database.port == 5432
        assert database.username == db["POSTGRES_USER"]
        assert database.password == db["POSTGRES_PASSWORD"]
        assert database.path == "/" + db["POSTGRES_DB"]
        redis = urllib.parse.urlsplit(env["REDIS_URL"])
        assert (redis.scheme, redis.hostname, redis.port) == ("redis", "redis", 6379)
        assert env["DJANGO_TASKS"] == "database"
        assert env["PUSHPIN_HOST"] in services
        assert env["DJANGO_TRUSTED_PROXY_COUNT"] == "1"  # nginx
    # One password, said once: the database's and the app's move together.
    chosen = "s3cret"
    secret = compose({"POSTGRES_PASSWORD": chosen})["services"]
    assert secret["db"]["environment"]["POSTGRES_PASSWORD"] == chosen
    assert f":{chosen}@db:" in secret["web2"]["environment"]["DATABASE_URL"]


def test_every_variable_compose_sets_is_one_the_site_reads(
    services: dict[str, dict[str, Any]],
) -> None:
    """A misspelt name would be ignored without a word."""
    readers = "".join(
        (ROOT / path).read_text()
        for path in ("clubsite/settings.py", "clubsite/gunicorn.conf.py", "deploy/entrypoint.sh")
    )
    names = {name for service in APP_SERVICES for name in environment(services[service])}

    assert names
    assert {name for name in names if not re.search(rf"\b{name}\b", readers)} == set()
    assert "CLUB" in environment(services["release"])
    assert environment(services["release"])["CLUB"] == "demo"
    assert compose({"CLUB": "empty"})["services"]["release"]["environment"]["CLUB"] == "empty"


def test_migrations_run_once_before_any_server_starts(services: dict[str, dict[str, Any]]) -> None:
    release = services["release"]
    assert release["command"] == ["release"]
    assert release["restart"] == "no"
    assert release["depends_on"] == {"db": {"condition": "service_healthy"}}
    for name in (*WEB_SERVICES, "worker", "scheduler", "pushpin"):
        assert services[name]["depends_on"]["release"] == {
            "condition": "service_completed_successfully"
        }, name
    for name in (*WEB_SERVICES, "worker", "scheduler"):
        assert services[name]["depends_on"]["db"] == {"condition": "service_healthy"}
    for name in WEB_SERVICES:
        assert services["nginx"]["depends_on"][name] == {"condition": "service_healthy"}
        assert services[name]["depends_on"]["redis"] == {"condition": "service_healthy"}
    assert "migrate" not in " ".join(str(services[name]["command"]) for name in WEB_SERVICES)
    entrypoint = ENTRYPOINT.read_text()
    assert "python manage.py migrate --noinput" in entrypoint


def test_every_server_has_a_health_check(services: dict[str, dict[str, Any]]) -> None:
    for name in (*WEB_SERVICES, "nginx"):
        test = " ".join(services[name]["healthcheck"]["test"])
        assert "http://127.0.0.1" in test and "/healthz" in test, name
    for name in WEB_SERVICES:  # gunicorn's port in the image
        assert "127.0.0.1:8000/healthz" in " ".join(services[name]["healthcheck"]["test"])
    assert services["db"]["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    assert "5561" in " ".join(services["pushpin"]["healthcheck"]["test"])
    assert services["worker"]["healthcheck"] == {"disable": True}  # it serves no HTTP
    assert services["scheduler"]["healthcheck"] == {"disable": True}
    long_running = [name for name in services if name != "release"]
    assert all(services[name]["restart"] == "unless-stopped" for name in long_running)


def test_nginx_is_the_one_configuration_rendered_with_composes_values(
    services: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    nginx = services["nginx"]
    env = environment(nginx)
    needed = set(PLACEHOLDER.findall(NGINX_TEMPLATE.read_text()))
    # The image renders /etc/nginx/templates/X.template into NGINX_ENVSUBST_OUTPUT_DIR/X.
    assert nginx["volumes"] == [
        "./deploy/nginx/nginx.conf.template:/etc/nginx/templates/nginx.conf.template:ro"
    ]
    assert env.pop("NGINX_ENVSUBST_OUTPUT_DIR") == "/etc/nginx"
    assert nginx["command"] == ["nginx"]  # the template says `daemon off;` itself
    assert set(env) == needed
    servers = re.findall(r"server (\S+):(\d+) max_fails=0;", env["CLUBSITE_SERVERS"])
    assert servers == [(name, "8000") for name in WEB_SERVICES]
    assert re.findall(r"server (\S+):(\d+);", env["CLUBSITE_PUSH_SERVERS"]) == [("pushpin", "7999")]
    assert env["CLUBSITE_LISTEN"] == "80"
    assert env["CLUBSITE_SCHEME"] == "http"  # what nginx listens on
    # An empty header is not sent: visitors never see the app servers' addresses.
    assert env["CLUBSITE_UPSTREAM_SHOWN"] == '""'
    behind_tls = compose({"CLUBSITE_SCHEME": "https"})["services"]["nginx"]["environment"]
    assert behind_tls["CLUBSITE_SCHEME"] == "https"

    if not (binary := shutil.which("nginx") or shutil.which("/usr/sbin/nginx")):
        pytest.skip("nginx is not installed")
    # nginx -t on this host: the compose network's names on the loopback, the image's
    # folders in a temporary one.
    local = {
        **env,
        "NGINX_USER": "nobody nogroup",
        "NGINX_RUN": str(tmp_path),
        "NGINX_LOGS": str(tmp_path),
        "CLUBSITE_LISTEN": "127.0.0.1:80",
    }
    for name in (*WEB_SERVICES, "pushpin"):
        for key in ("CLUBSITE_SERVERS", "CLUBSITE_PUSH_SERVERS"):
            local[key] = local[key].replace(f"server {name}:", "server 127.0.0.1:")
    config = tmp_path / "nginx.conf"
    config.write_text(nginx_conf(local))
    checked = subprocess.run(
        [binary, "-t", "-p", str(tmp_path), "-c", str(config), "-e", str(tmp_path / "error.log")],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr


def test_the_template_names_nothing_else_to_fill_in() -> None:
    with pytest.raises(KeyError, match="CLUBSITE_LISTEN"):
        nginx_conf({"NGINX_USER": "nobody"})
    text = NGINX_TEMPLATE.read_text()
    assert "$http_host" in text and "$request_id" in text  # nginx's own, left alone


def test_pushpin_routes_to_the_app_servers_and_takes_their_publishes(
    services: dict[str, dict[str, Any]],
) -> None:
    conf = (ROOT / "deploy" / "pushpin" / "pushpin.conf").read_text()
    route = environment(services["pushpin"])["PUSHPIN_ROUTE"]
    assert route.split() == ["*", *(f"{name}:8000" for name in WEB_SERVICES)]
    assert "http_port=0.0.0.0:7999" in conf  # nginx's CLUBSITE_PUSH_SERVERS
    assert "push_in_http_addr=0.0.0.0" in conf  # the app servers publish from their own
    assert "push_in_http_port=5561" in conf  # GRIP_URL's port (deploy/entrypoint.sh)
    assert "${PUSHPIN_HOST}:5561?key=" in ENTRYPOINT.read_text()
    assert services["pushpin"]["volumes"] == ["secrets:/var/lib/clubsite:ro"]


# -- the Dockerfile and the Procfile -------------------------------------------------------------


def dockerfile_stages() -> list[str]:
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    return re.split(r"^FROM ", text, flags=re.M)[1:]


def test_the_image_runs_gunicorn_as_a_user_of_its_own_from_the_lock() -> None:
    build, final = dockerfile_stages()
    assert "COPY tools/uv-requirements.txt" in build
    assert "--require-hashes --no-deps -r /tmp/uv-requirements.txt" in build
    assert re.search(r"uv sync --locked --no-dev\b", build)
    assert "manage.py collectstatic --noinput" in build
    users = re.findall(r"^USER (\S+)", final, flags=re.M)
    assert users and users[-1] not in ("root", "0")
    assert 'CMD ["gunicorn", "--config", "clubsite/gunicorn.conf.py", "clubsite.wsgi"]' in final
    assert "BIND=0.0.0.0:8000" in final
    assert "fonts-dejavu-core" in final
    assert "COPY --from=build" in final and "uv sync" not in final  # no uv in the image


def test_the_dockerignore_keeps_local_state_out_of_the_image() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", ".uv", "node_modules", "db.sqlite3", ".env", "staticfiles"} <= set(
        ignored
    )


def test_the_procfile_names_web_worker_scheduler_and_release() -> None:
    lines = dict(
        line.split(": ", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line
    )
    assert set(lines) == {"web", "worker", "scheduler", "release"}
    assert "--config clubsite/gunicorn.conf.py" in lines["web"]
    assert "--bind 0.0.0.0:$PORT" in lines["web"]  # the config alone binds the loopback
    assert lines["worker"].startswith("python manage.py task_worker")
    assert lines["release"].startswith("python manage.py migrate --noinput")
    assert "python manage.py send_reminders; sleep 900" in lines["scheduler"]


# -- the image's entrypoint ----------------------------------------------------------------------


def entrypoint(state: Path, *command: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", str(ENTRYPOINT), *command],
        env={
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            "CLUBSITE_STATE": str(state),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


PRINT = (
    "python3",
    "-c",
    "import os; print(os.environ.get('DJANGO_SECRET_KEY'), os.environ.get('GRIP_URL'))",
)


def test_the_first_start_makes_the_secrets_and_later_ones_keep_them(tmp_path: Path) -> None:
    first = entrypoint(tmp_path, *PRINT, PUSHPIN_HOST="pushpin")
    again = entrypoint(tmp_path, *PRINT, PUSHPIN_HOST="pushpin")

    assert first.returncode == 0, first.stderr
    key, grip = first.stdout.split()
    assert len(key) >= 50
    assert key == (tmp_path / "django_secret_key").read_text().strip()
    grip_key = (tmp_path / "grip_key").read_text().strip()
    assert grip == f"http://pushpin:5561?key={grip_key}&verify-iss=pushpin"
    assert grip_key != key
    assert again.stdout == first.stdout
    assert oct((tmp_path / "grip_key").stat().st_mode & 0o777) == "0o640"


def test_secrets_given_win_and_nothing_is_written(tmp_path: Path) -> None:
    secrets = {"DJANGO_SECRET_KEY": "given"}
    given = entrypoint(tmp_path, *PRINT, **secrets, GRIP_URL="http://push")
    without_pushpin = entrypoint(tmp_path, *PRINT, **secrets)

    assert given.stdout.split() == ["given", "http://push"]
    assert without_pushpin.stdout.split() == ["given", "None"]
    assert list(tmp_path.iterdir()) == []


def test_a_release_for_an_unknown_club_does_nothing(tmp_path: Path) -> None:
    refused = entrypoint(tmp_path, "release", CLUB="demos")

    assert refused.returncode == 2
    assert "CLUB must be demo or empty, not 'demos': nothing was done" in refused.stderr
    assert list(tmp_path.iterdir()) == []  # no secret made, no manage.py run


@pytest.mark.slow
def test_pushpin_starts_with_composes_configuration_and_fails_over(tmp_path: Path) -> None:
    """Debian's Pushpin with deploy/pushpin/pushpin.conf as its entrypoint writes it (the
    folders and ports moved to free ones here): the publish port answers, and a request is
    proxied to the second app server when the first does not answer."""
    if not (binary := shutil.which("pushpin")):
        pytest.skip("pushpin is not installed")
    from bench.load import free_port

    ports = {port: free_port() for port in ("7999", "5560", "5561", "5562", "5563")}
    conf = (ROOT / "deploy" / "pushpin" / "pushpin.conf").read_text()
    for old, new in ports.items():
        conf = re.sub(rf"(?<=[:=]){old}\b", str(new), conf)
    for folder in ("run", "log"):
        (tmp_path / folder).mkdir()
    conf = conf.replace("=/run/pushpin", f"={tmp_path}/run").replace(
        "=/var/log/pushpin", f"={tmp_path}/log"
    )
    conf = re.sub(r"(?m)^sig_key=.*$", "sig_key=test", conf)
    (tmp_path / "pushpin.conf").write_text(conf)
    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text("app server two")
    alive, dead = free_port(), free_port()
    (tmp_path / "run" / "routes").write_text(f"* 127.0.0.1:{dead} 127.0.0.1:{alive}\n")
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(alive), "--bind", "127.0.0.1"],
        cwd=app,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pushpin = subprocess.Popen(
        [binary, "--config", str(tmp_path / "pushpin.conf"), "--merge-output"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        published = proxied = None
        for _ in range(100):
            try:
                published = urllib.request.urlopen(f"http://127.0.0.1:{ports['5561']}/", timeout=2)
                proxied = urllib.request.urlopen(f"http://127.0.0.1:{ports['7999']}/", timeout=5)
                break
            except OSError:
                time.sleep(0.2)
        assert published is not None and published.status == 200
        assert proxied is not None and proxied.read() == b"app server two"
    finally:
        pushpin.terminate()
        server.terminate()
        pushpin.wait(timeout=15)
        server.wait(timeout=15)
