"""``make deploy-check``: the image's steps run on this host, where no Docker builder runs.

CI has no Docker daemon, so the ``Dockerfile`` is not built there. This reads it and does
what a build and a start would, in a temporary folder standing for the image's root:

1. **The build stage**: its ``ENV``, ``WORKDIR`` and ``COPY`` lines (the build context is
   the repository's files less ``.dockerignore``'s), and every ``RUN`` as written, with the
   image's paths (``/srv/clubsite``, ``/opt/uv``, ``/tmp/…``) moved into the folder: uv of
   ``tools/uv-requirements.txt`` installed with its hashes, ``uv sync --locked --no-dev``
   into a fresh venv, ``collectstatic``.
2. **The image**: its ``ENV``; its ``RUN`` lines install Debian's fonts and add the user,
   which this host is not asked to do (the fonts must be here: they are checked).
3. **The start**: the ``ENTRYPOINT`` with ``release`` (migrate, ``digest_tables``, the demo
   club) on a scratch PostgreSQL database, then with the ``CMD`` (gunicorn with
   ``clubsite/gunicorn.conf.py``) on a free loopback port; ``/healthz`` must answer ok and
   the home page, a table's page and a static file 200.

Fails (exit 1) at the first step that fails, naming it. The scratch database is
``DEPLOY_CHECK_DATABASE_URL`` (by default ``clubsite_deploy_check`` on the local server),
dropped and created again at the start and dropped at the end.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bench.load import ROOT, free_port

DATABASE_URL = os.environ.get(
    "DEPLOY_CHECK_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/clubsite_deploy_check"
)
IMAGE_PATHS = ("/srv/clubsite", "/opt/uv", "/var/lib/clubsite", "/tmp/")  # noqa: S108
"""The image's own folders, moved into the run's folder; everything else is the host's."""
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")


@dataclass
class Stage:
    name: str
    lines: list[tuple[str, str]] = field(default_factory=list)
    """Each instruction and its arguments, continuation lines joined."""


def stages(dockerfile: Path) -> list[Stage]:
    """The Dockerfile's stages in order, each with its instructions."""
    text = re.sub(r"\\\n", " ", dockerfile.read_text())
    found: list[Stage] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, rest = line.partition(" ")
        instruction = instruction.upper()
        if instruction == "FROM":
            name = rest.split(" AS ")[-1].strip() if " AS " in rest else f"stage{len(found)}"
            found.append(Stage(name))
        elif instruction != "ARG" and found:
            found[-1].lines.append((instruction, rest.strip()))
    return found


def context_files() -> list[str]:
    """The build context: the repository's files (tracked or new, not ignored by git) less
    what ``.dockerignore`` leaves out."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    patterns = [
        line.strip().lstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]

    def ignored(path: str) -> bool:
        parts = path.split("/")
        prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        for pattern in patterns:
            bare = pattern.removeprefix("**/")
            if any(fnmatch.fnmatch(p, pattern) for p in prefixes):
                return True
            if pattern.startswith("**/") and any(fnmatch.fnmatch(p, bare) for p in parts):
                return True
        return False

    return [path for path in listed if (ROOT / path).is_file() and not ignored(path)]


NETWORK_SETTINGS = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "PIP_CERT",
    "REQUESTS_CA_BUNDLE",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
)
"""The host's variables for reaching the package index, passed to the build's steps."""


class Image:
    """The run's folder standing for the image's file system, and its environment."""

    def __init__(self, root: Path, python: str) -> None:
        self.root = root
        self.workdir = "/"
        bin_dir = root / "host-bin"
        bin_dir.mkdir()
        # `python` in the Dockerfile is the image's Python 3.12: this host's.
        (bin_dir / "python").symlink_to(python)
        self.env: dict[str, str] = {
            "PATH": f"{self.moved('/usr/local/bin')}:{bin_dir}:/usr/bin:/bin",
            "HOME": str(root / "home"),
            "LANG": "C.UTF-8",
        }
        # How this host reaches the package index (its proxy and the certificates it
        # trusts), as a builder's network would: without them uv refuses the index's
        # certificate here and no source package (django-grip) can be built.
        for name in NETWORK_SETTINGS:
            if name in os.environ:
                self.env[name] = os.environ[name]
        # pip's and uv's downloads, shared with the host's: the check runs the steps, it
        # does not measure PyPI (every file's hash is checked all the same).
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        self.env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR") or str(cache / "pip")
        self.env["UV_CACHE_DIR"] = os.environ.get("UV_CACHE_DIR") or str(cache / "uv")
        (root / "home").mkdir()
        (root / "usr" / "local" / "bin").mkdir(parents=True)
        (root / "usr" / "local" / "bin" / "python").symlink_to(python)

    def moved(self, text: str) -> str:
        """``text`` with the image's absolute paths moved into the run's folder (in one
        pass: the folder is itself under /tmp/)."""
        paths = "|".join(re.escape(path) for path in (*IMAGE_PATHS, "/usr/local/bin"))
        return re.sub(rf"(?<![\w./-])({paths})", lambda m: f"{self.root}{m[1]}", text)

    def here(self, path: str) -> Path:
        absolute = path if path.startswith("/") else f"{self.workdir.rstrip('/')}/{path}"
        return Path(self.moved(absolute)) if absolute.startswith(IMAGE_PATHS) else Path(absolute)

    def set_env(self, rest: str) -> None:
        for pair in shlex.split(rest):
            name, _, value = pair.partition("=")
            value = self.moved(value)
            self.env[name] = re.sub(r"\$\{?(\w+)\}?", lambda m: self.env.get(m[1], ""), value)

    def copy(self, rest: str) -> None:
        words = rest.split()
        if any(word.startswith("--from=") for word in words):
            return  # from the build stage: the same folder here
        words = [w for w in words if not w.startswith("--")]
        *sources, target = words
        destination = self.here(target)
        for source in sources:
            if source == ".":
                for path in context_files():
                    (destination / path).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / path, destination / path)
            elif target.endswith("/"):
                destination.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / source, destination / Path(source).name)
            else:
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / source, destination)

    def run(self, command: str, *, step: str) -> None:
        cwd = self.here(self.workdir)
        cwd.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        done = subprocess.run(["sh", "-c", self.moved(command)], cwd=cwd, env=self.env, check=False)
        if done.returncode:
            raise SystemExit(f"deploy check: {step} failed ({done.returncode}): {command}")
        print(f"  {step}: {time.monotonic() - started:.1f} s", flush=True)


def build(image: Image, stage: Stage, *, final: bool) -> None:
    for instruction, rest in stage.lines:
        if instruction == "ENV":
            image.set_env(rest)
        elif instruction == "WORKDIR":
            image.workdir = rest
        elif instruction == "COPY":
            image.copy(rest)
        elif instruction == "RUN" and not final:
            image.run(rest, step=f"{stage.name}: RUN {rest.split()[0]} …")
        elif instruction == "RUN":
            # Debian's fonts and the user: the host's business; the fonts must be here.
            missing = [
                name
                for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf")
                if not (FONT_DIR / name).exists()
            ]
            if missing:
                raise SystemExit(f"deploy check: the image's fonts are missing: {missing}")


def exec_form(rest: str) -> list[str]:
    words = json.loads(rest)
    if not isinstance(words, list):
        raise SystemExit(f"deploy check: write ENTRYPOINT and CMD as JSON lists, not {rest}")
    return [str(word) for word in words]


def psql(url: str, sql: str) -> None:
    maintenance = url.rsplit("/", 1)[0] + "/postgres"
    subprocess.run(["psql", maintenance, "-Atqc", sql], check=True, capture_output=True)


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def start(image: Image, stage: Stage) -> None:
    entrypoint = [
        exec_form(rest) for instruction, rest in stage.lines if instruction == "ENTRYPOINT"
    ]
    command = [exec_form(rest) for instruction, rest in stage.lines if instruction == "CMD"]
    run = [image.moved(word) for word in entrypoint[-1]]
    cwd = image.here(image.workdir)
    name = DATABASE_URL.rsplit("/", 1)[1]
    psql(DATABASE_URL, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    psql(DATABASE_URL, f'CREATE DATABASE "{name}"')
    (image.root / "var" / "lib" / "clubsite").mkdir(parents=True)
    port = free_port()
    env = {
        **image.env,
        "DATABASE_URL": DATABASE_URL,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_SECURE_COOKIES": "0",
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "2",
        "CLUB": "demo",
        # The image's volume for the secrets made on the first start (deploy/entrypoint.sh).
        "CLUBSITE_STATE": str(image.root / "var" / "lib" / "clubsite"),
    }
    try:
        started = time.monotonic()
        done = subprocess.run([*run, "release"], cwd=cwd, env=env, capture_output=True, check=False)
        if done.returncode:
            raise SystemExit(f"deploy check: the release failed: {done.stderr.decode()[-2000:]}")
        print(f"  release (migrate, digest_tables, load_demo): {time.monotonic() - started:.1f} s")
        # The scheduled command (compose's `scheduler`, docs/operations.md "Reminders") on the
        # demo club, as the image runs it.
        reminders = [*run, "python", "manage.py", "send_reminders"]
        done = subprocess.run(reminders, cwd=cwd, env=env, capture_output=True, check=False)
        if done.returncode or b"reminder(s)" not in done.stdout:
            raise SystemExit(f"deploy check: send_reminders failed: {done.stderr.decode()[-2000:]}")
        print(f"  send_reminders: {done.stdout.decode().strip()}")
        log = image.root / "gunicorn.log"
        with log.open("wb") as out:
            server = subprocess.Popen(
                [*run, *command[-1]], cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        try:
            check_serving(f"http://127.0.0.1:{port}", server, log)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
    finally:
        psql(DATABASE_URL, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def check_serving(base: str, server: subprocess.Popen[bytes], log: Path) -> None:
    started = time.monotonic()
    while True:
        try:
            status, body = get(base + "/healthz")
            break
        except OSError:
            if server.poll() is not None or time.monotonic() - started > 30:
                raise SystemExit(
                    f"deploy check: gunicorn did not answer: {log.read_text()}"
                ) from None
            time.sleep(0.2)
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
    parser.add_argument(
        "--python",
        # The interpreter this venv was made from, not the venv's: it would bring its packages.
        default=getattr(sys, "_base_executable", sys.executable),
        help="the image's Python (3.12)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the run's folder")
    args = parser.parse_args(argv)
    python = os.path.realpath(args.python)
    *build_stages, final = stages(ROOT / "Dockerfile")
    root = Path(tempfile.mkdtemp(prefix="clubsite-deploy-check-"))
    began = time.monotonic()
    try:
        image = Image(root, python)
        for stage in build_stages:
            print(f"deploy check: stage {stage.name} in {root}", flush=True)
            build(image, stage, final=False)
        print("deploy check: the image, then its start", flush=True)
        image.workdir = "/"
        build(image, final, final=True)
        start(image, final)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(f"deploy check: the Dockerfile's steps passed in {time.monotonic() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
