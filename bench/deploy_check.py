"""``make deploy-check``: the image built from the ``Dockerfile`` by podman, and started.

This machine runs no Docker daemon and reaches no container registry. So:

1. **The base image**: the Dockerfile's ``PYTHON_IMAGE`` (python:3.12-slim-bookworm) if
   podman can pull it; otherwise a stand-in made here and kept (``STAND_IN``, made again
   when what it is made of changes): Debian bookworm from Debian's archive
   (``debootstrap``, with the runtime libraries the slim image carries), this host's
   CPython 3.12 in ``/usr/local`` where that image has its own, and the certificates this
   host trusts (its network's proxy signs with them).
2. **The build**: ``podman build`` of the Dockerfile as it is, on that base, with buildah's
   chroot isolation (no OCI runtime needed).
3. **The start**: ``podman run`` of the image on this host's network (``podman_run``):
   ``release`` (migrate, ``digest_tables``, the demo club) on a scratch PostgreSQL
   database, ``send_reminders``, then its own command, gunicorn, on a free loopback port;
   ``/healthz`` must answer ok and the home page, a table's page and a static file 200.

Fails (exit 1) at the first step that fails, naming it. The scratch database is
``DEPLOY_CHECK_DATABASE_URL`` (by default ``clubsite_deploy_check`` on the local server),
dropped and created again at the start and dropped at the end. Needs root, ``podman``,
``runc`` and ``debootstrap`` (Debian's packages; ``.ci/run`` installs them).
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.load import ROOT, free_port, scratch_log, wait_until_answering

DATABASE_URL = os.environ.get(
    "DEPLOY_CHECK_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/clubsite_deploy_check"
)
IMAGE = "localhost/clubsite:deploy-check"
STAND_IN = "localhost/clubsite-python:3.12-bookworm"
LABEL = "clubsite.made_of"
CERTIFICATES = Path("/usr/local/share/ca-certificates")
"""Where Debian keeps the certificates a host adds to those it trusts."""
DEBIAN = "http://deb.debian.org/debian"
RUNTIME_LIBRARIES = (
    "ca-certificates,netbase,tzdata,libssl3,libsqlite3-0,libffi8,libbz2-1.0,liblzma5,"
    "libreadline8,libncursesw6,libexpat1,libuuid1"
)
"""What python:3.12-slim-bookworm installs beside its CPython, which links them."""
NOT_IN_THE_IMAGE = ("__pycache__", "test", "idlelib", "tkinter", "turtledemo", "site-packages")
"""Parts of this host's CPython the slim image does not need (``python -m venv`` brings pip
from ensurepip)."""


def podman(*args: str, timeout: float = 900) -> str:
    done = subprocess.run(
        ["podman", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode:
        raise SystemExit(f"deploy check: podman {args[0]} failed: {done.stderr.strip()[-2000:]}")
    return done.stdout.strip()


def base_image() -> str:
    """The image the Dockerfile builds on: the registry's where one answers, else the
    stand-in, made the first time."""
    named = dockerfile_arg("PYTHON_IMAGE")
    pulled = subprocess.run(["podman", "pull", "-q", named], capture_output=True, timeout=300)
    if pulled.returncode == 0:
        print(f"  base: {named}, pulled", flush=True)
        return named
    made = subprocess.run(
        [
            "podman",
            "image",
            "inspect",
            STAND_IN,
            "--format={{index .Labels " + json.dumps(LABEL) + "}}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if made.stdout.strip() == stand_in_fingerprint():
        print(f"  base: {STAND_IN}, made by an earlier run", flush=True)
    else:
        started = time.monotonic()
        make_stand_in()
        print(f"  base: {STAND_IN} made: {time.monotonic() - started:.1f} s", flush=True)
    return STAND_IN


def stand_in_fingerprint() -> str:
    """What the stand-in is made of: made again when this host's Python, the certificates it
    trusts or the recipe (``make_stand_in`` and what it reads) change."""
    recipe = inspect.getsource(make_stand_in)
    made_of = hashlib.sha256(
        f"{recipe}{sys.version}{RUNTIME_LIBRARIES}{NOT_IN_THE_IMAGE}{DEBIAN}".encode()
    )
    for certificate in sorted(CERTIFICATES.glob("*.crt")):
        made_of.update(certificate.read_bytes())
    return made_of.hexdigest()[:16]


def dockerfile_arg(name: str) -> str:
    found = re.search(rf"^ARG {name}=(\S+)", (ROOT / "Dockerfile").read_text(), re.MULTILINE)
    if found is None:
        raise SystemExit(f"deploy check: the Dockerfile has no ARG {name}=…")
    return found[1]


def make_stand_in() -> None:
    """``STAND_IN``: bookworm with this host's CPython 3.12 and its certificates."""
    if sys.version_info[:2] != (3, 12):
        raise SystemExit("deploy check: run it with Python 3.12, the image's")
    root = Path(tempfile.mkdtemp(prefix="clubsite-base-"))
    try:
        variant = ["--variant=minbase", f"--include={RUNTIME_LIBRARIES}"]
        debootstrap = ["debootstrap", *variant, "bookworm", str(root), DEBIAN]
        done = subprocess.run(debootstrap, capture_output=True, text=True, check=False)
        if done.returncode:
            raise SystemExit(f"deploy check: debootstrap failed: {done.stdout[-2000:]}")
        python = Path(sys.base_prefix)
        shutil.copytree(
            python,
            root / "usr" / "local",
            symlinks=True,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(*NOT_IN_THE_IMAGE),
        )
        for script in ("pip*", "idle*", "2to3*"):  # whose first lines name the host's path
            for path in (root / "usr/local/bin").glob(script):
                path.unlink()
        for certificate in CERTIFICATES.glob("*.crt"):
            shutil.copy2(certificate, root / "usr/local/share/ca-certificates")
        for command in (["ldconfig"], ["update-ca-certificates"]):
            subprocess.run(["chroot", str(root), *command], capture_output=True, check=True)
        for package in (root / "var/cache/apt/archives").glob("*.deb"):
            package.unlink()
        bundle = "/etc/ssl/certs/ca-certificates.crt"
        changes = [
            "ENV LANG=C.UTF-8",
            # pip trusts its own bundle unless told: the host's proxy's would be refused.
            f"ENV SSL_CERT_FILE={bundle}",
            f"ENV PIP_CERT={bundle}",
            'CMD ["python3"]',
            f"LABEL {LABEL}={stand_in_fingerprint()}",
        ]
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run(
            ["podman", "import", *(f"--change={c}" for c in changes), "-", STAND_IN],
            stdin=tar.stdout,
            capture_output=True,
            check=False,
        )
        tar.stdout.close()  # type: ignore[union-attr]
        tar.wait()
        if imported.returncode or tar.returncode:
            raise SystemExit(f"deploy check: podman import failed: {imported.stderr.decode()}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def build(base: str) -> None:
    started = time.monotonic()
    done = subprocess.run(
        [
            "podman",
            "build",
            "--isolation=chroot",
            "--network=host",
            "--format=docker",
            f"--build-arg=PYTHON_IMAGE={base}",
            f"--tag={IMAGE}",
            str(ROOT),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"deploy check: podman build failed: {done.stdout[-3000:]}")
    print(f"  podman build: {time.monotonic() - started:.1f} s", flush=True)


def podman_run(name: str, env: dict[str, str], *command: str) -> list[str]:
    """``podman run`` of the image on this host's network, as ``name``. With runc: crun
    cannot start a container on this VM's cgroups ("cgroups in hybrid mode not supported").
    With this host's open-file limit and a process limit gunicorn is far within: podman's
    defaults are above what this host lets a container's first process be given."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return [
        "podman",
        "--runtime=runc",
        "run",
        "--rm",
        f"--name={name}",
        "--network=host",
        f"--ulimit=nofile={soft}:{hard}",
        "--ulimit=nproc=4096:4096",
        *(f"--env={key}={value}" for key, value in env.items()),
        IMAGE,
        *command,
    ]


def psql(url: str, sql: str) -> None:
    maintenance = url.rsplit("/", 1)[0] + "/postgres"
    subprocess.run(["psql", maintenance, "-Atqc", sql], check=True, capture_output=True)


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def start() -> None:
    """The image run as compose runs it: the release, the scheduler's command, the web
    server."""
    name = DATABASE_URL.rsplit("/", 1)[1]
    port = free_port()
    env = {
        "DATABASE_URL": DATABASE_URL,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_SECURE_COOKIES": "0",
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "2",
        "CLUB": "demo",
    }
    container = f"clubsite-deploy-check-{os.getpid()}"
    psql(DATABASE_URL, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    psql(DATABASE_URL, f'CREATE DATABASE "{name}"')
    try:
        started = time.monotonic()
        done = subprocess.run(podman_run(container, env, "release"), capture_output=True)
        if done.returncode:
            raise SystemExit(f"deploy check: the release failed: {done.stderr.decode()[-2000:]}")
        took = time.monotonic() - started
        print(f"  release (migrate, digest_tables, load_demo): {took:.1f} s")
        # The scheduled command (compose's `scheduler`, docs/operations.md "Reminders").
        reminders = podman_run(container, env, "python", "manage.py", "send_reminders")
        done = subprocess.run(reminders, capture_output=True)
        if done.returncode or b"reminder(s)" not in done.stdout:
            raise SystemExit(f"deploy check: send_reminders failed: {done.stderr.decode()}")
        print(f"  send_reminders: {done.stdout.decode().strip()}")
        log = scratch_log("clubsite-deploy-check-")
        with log.open("ab") as out:
            server = subprocess.Popen(podman_run(container, env), stdout=out, stderr=out)
        try:
            check_serving(f"http://127.0.0.1:{port}", server, log)
        finally:
            subprocess.run(["podman", "stop", container], capture_output=True, check=False)
            server.wait(timeout=30)
            log.unlink()
    finally:
        subprocess.run(["podman", "rm", "--force", container], capture_output=True, check=False)
        psql(DATABASE_URL, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def check_serving(base: str, server: subprocess.Popen[bytes], log: Path) -> None:
    started = time.monotonic()
    try:
        wait_until_answering(base, server, "gunicorn", log, path="/healthz", seconds=30)
    except RuntimeError as error:
        raise SystemExit(f"deploy check: {error}") from None
    status, body = get(base + "/healthz")
    health = json.loads(body)
    print(f"  gunicorn answering: {time.monotonic() - started:.1f} s; /healthz {status} {health}")
    if status != 200 or health.get("database") != "ok":
        raise SystemExit("deploy check: /healthz is not ok")
    status, home = get(base + "/")
    table = re.search(rb'href="(/tables/\d+/)"', home)
    static = re.search(rb'href="(/static/[^"]+\.css)"', home)
    checks = {"/": status}
    for found in (table, static):
        if found is None:
            raise SystemExit("deploy check: the home page links no table or no stylesheet")
        checks[found[1].decode()] = get(base + found[1].decode())[0]
    print("  " + ", ".join(f"{path} {code}" for path, code in checks.items()))
    if set(checks.values()) != {200}:
        raise SystemExit("deploy check: a page did not answer 200")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.parse_args(argv)
    for tool in ("podman", "runc", "debootstrap"):
        if shutil.which(tool) is None:
            raise SystemExit(f"deploy check: needs {tool} (apt-get install {tool})")
    began = time.monotonic()
    print("deploy check: the base image", flush=True)
    base = base_image()
    print(f"deploy check: the image, {IMAGE}", flush=True)
    build(base)
    print("deploy check: its start", flush=True)
    start()
    podman("image", "prune", "--force")  # the layers of the image built before
    print(f"deploy check: the image built and serving in {time.monotonic() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
