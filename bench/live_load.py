"""``make load``: 50 viewers polling a live pulka while a scorer enters deals, 60 s,
through nginx to two gunicorn instances that share PostgreSQL and Redis (the layout of
docs/deploy.md). Prints throughput, latency, errors and how often each revision's sheet
was rendered across the servers; exits 1 on any error, on a viewer that missed a deal, or
on a revision's sheet rendered more than once.

Each viewer behaves like the page does: it polls the live sheet every two seconds with
the ETag of the last sheet it saw (a 304 while nothing changed). ``--stress`` drops the
pause, to find how many polls a second the servers sustain. ``--servers 1`` puts one
gunicorn behind nginx; ``--redis ''`` leaves each process its own cache (then each
process renders each revision once, and the run says so without failing).
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import load, site

POLL_SECONDS = 2.0
DEAL_SECONDS = 3.0
LOG_SHOWN = 10  # deals in the sheet's log (scoring.pages.tables.LOG_SHOWN)
REDIS_URL = os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/5")
NEWEST_DEAL = re.compile(r'<li value="(\d+)">')

NGINX_TEMPLATE = Path(__file__).resolve().parent.parent / "deploy" / "nginx" / "nginx.conf.template"
"""The reverse proxy's one configuration, compose's and the load runs' (docs/deploy.md)."""
PLACEHOLDER = re.compile(r"\$\{([A-Z][A-Z0-9_]*)\}")


def nginx_conf(values: dict[str, str]) -> str:
    """``NGINX_TEMPLATE`` with every ``${NAME}`` filled in from ``values``, as the nginx
    image's envsubst fills it from compose's environment; nginx's own ``$variables`` are
    left alone. A name without a value is an error, not an empty string."""
    missing = sorted(set(PLACEHOLDER.findall(NGINX_TEMPLATE.read_text())) - set(values))
    if missing:
        raise KeyError(f"{NGINX_TEMPLATE.name} needs a value for {', '.join(missing)}")
    return PLACEHOLDER.sub(lambda name: values[name[1]], NGINX_TEMPLATE.read_text())


@dataclass
class Tally:
    """What the threads saw; guarded by ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    deals: int = 0
    resent: int = 0
    upstreams: Counter[str] = field(default_factory=Counter)
    seen: list[set[int]] = field(default_factory=list)
    """The deals each viewer's sheets showed."""

    def add(self, status: int, seconds: float) -> None:
        with self.lock:
            self.latencies.append(seconds)
            self.statuses[status] = self.statuses.get(status, 0) + 1

    def error(self, message: str) -> None:
        with self.lock:
            self.errors.append(message)

    def count_resent(self) -> None:
        with self.lock:
            self.resent += 1


CLOSED_UNANSWERED = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


class KeepAlive:
    """One keep-alive connection, used as a browser uses it. Gunicorn replaces a worker
    after ``max_requests`` and closes that worker's idle connections; a request sent just
    then finds its connection closed without an answer. Browsers send such a request again
    on a new connection, if the connection had answered before (a fresh connection that
    fails is a real error); so does this, and counts it."""

    def __init__(self, host: str, port: int, timeout: float, tally: Tally):
        self.address = (host, port, timeout)
        self.tally = tally
        self.connection = http.client.HTTPConnection(host, port, timeout=timeout)
        self.reused = False

    def request(
        self, method: str, path: str, body: str | None = None, headers: dict[str, str] | None = None
    ) -> tuple[http.client.HTTPResponse, bytes]:
        try:
            return self._exchange(method, path, body, headers or {})
        except CLOSED_UNANSWERED:
            if not self.reused:
                raise
            self.tally.count_resent()
            self.reopen()
            return self._exchange(method, path, body, headers or {})

    def _exchange(
        self, method: str, path: str, body: str | None, headers: dict[str, str]
    ) -> tuple[http.client.HTTPResponse, bytes]:
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        content = response.read()
        self.reused = True
        return response, content

    def reopen(self) -> None:
        self.connection.close()
        host, port, timeout = self.address
        self.connection = http.client.HTTPConnection(host, port, timeout=timeout)
        self.reused = False

    def close(self) -> None:
        self.connection.close()


def viewer(host: str, port: int, path: str, stop: float, tally: Tally, pause: float) -> None:
    connection = KeepAlive(host, port, 10, tally)
    etag = None
    seen: set[int] = set()
    with tally.lock:
        tally.seen.append(seen)
    while time.monotonic() < stop:
        headers = {"If-None-Match": etag} if etag else {}
        start = time.perf_counter()
        try:
            response, body = connection.request("GET", path, headers=headers)
        except OSError as error:
            tally.error(f"viewer: {error!r}")
            connection.reopen()
            continue
        tally.add(response.status, time.perf_counter() - start)
        if response.status == 200:
            etag = response.getheader("ETag")
            seen.update(shown_deals(body.decode()))
            with tally.lock:
                tally.upstreams[response.getheader("X-Upstream") or "?"] += 1
        elif response.status != 304:
            tally.error(f"viewer: HTTP {response.status}")
        time.sleep(pause)
    connection.close()


def shown_deals(sheet: str) -> range:
    """The deals a sheet's log shows: the newest and the ``LOG_SHOWN - 1`` before it."""
    newest = NEWEST_DEAL.search(sheet)
    if newest is None:
        return range(0)
    last = int(newest.group(1))
    return range(max(1, last - LOG_SHOWN + 1), last + 1)


class Scorer:
    """A signed-in member entering pass-outs through the real form (session + CSRF)."""

    def __init__(
        self, host: str, port: int, table: int, username: str, names: list[str], tally: Tally
    ):
        self.connection = KeepAlive(host, port, 30, tally)
        self.cookies: dict[str, str] = {}
        self.table = table
        self.names = names
        self.last_headers: Any = {}
        page = self.request("GET", "/members/sign-in/")
        self.request(
            "POST",
            "/members/sign-in/",
            {
                "username": username,
                "password": "bench",
                "csrfmiddlewaretoken": self.hidden(page, "csrfmiddlewaretoken"),
            },
        )

    def saved(self, answer: str) -> bool:
        """A saved deal answers with the new sheet (htmx retargets to it) and an empty form."""
        return self.last_headers.get("HX-Retarget") == "#sheet"

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> str:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers |= {
                "Content-Type": "application/x-www-form-urlencoded",
                "Referer": f"http://127.0.0.1{path}",
                "HX-Request": "true",
            }
        response, content = self.connection.request(method, path, body=body, headers=headers)
        text = content.decode()
        self.last_headers = response.headers
        for cookie in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        if response.status >= 400:
            raise RuntimeError(f"scorer: HTTP {response.status} on {path}")
        return text

    @staticmethod
    def hidden(page: str, name: str) -> str:
        """The value of the page's first hidden field ``name`` (the CSRF token, the revision)."""
        match = re.search(rf'name="{name}" value="([^"]+)"', page)
        if not match:
            raise RuntimeError(f"no {name} on the page")
        return match.group(1)

    def enter_deals(self, stop: float, tally: Tally) -> None:
        path = f"/tables/{self.table}/"
        while time.monotonic() < stop:
            try:
                page = self.request("GET", path)
                # Every write carries the revision its page showed and a key of its own
                # (docs/architecture.md): a scorer drawing each deal on a fresh page.
                form = {
                    "kind": "passout",
                    "csrfmiddlewaretoken": self.hidden(page, "csrfmiddlewaretoken"),
                    "revision": self.hidden(page, "revision"),
                    "write_key": str(uuid.uuid4()),
                }
                form |= {
                    f"tricks:{name}": str(t) for name, t in zip(self.names, (4, 3, 3), strict=True)
                }
                if not self.saved(self.request("POST", f"{path}deals/", form)):
                    tally.error("scorer: the deal was not saved")
                with tally.lock:
                    tally.deals += 1
            except (OSError, RuntimeError) as error:
                tally.error(repr(error))
            time.sleep(DEAL_SECONDS)


@contextmanager
def nginx(port: int, upstreams: list[int], pushpin: int | None = None) -> Iterator[str]:
    """nginx from Debian in front of ``upstreams`` (and of Pushpin on port ``pushpin`` for
    ``/events/``, if given), listening on ``port`` of the loopback: a child process (not a
    daemon) with its configuration, pid file, logs and buffers in a temporary folder of its
    own, stopped when the block ends."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).exists():
        raise RuntimeError("nginx is not installed (apt-get install nginx)")
    folder = Path(tempfile.mkdtemp(prefix="clubsite-nginx-"))
    folder.chmod(0o755)  # its worker runs as nobody when the run is root's
    for buffers in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / buffers).mkdir(mode=0o777)
        (folder / buffers).chmod(0o777)
    servers = " ".join(f"server 127.0.0.1:{p} max_fails=0;" for p in upstreams)
    config = folder / "nginx.conf"
    config.write_text(
        nginx_conf(
            {
                "NGINX_USER": "nobody nogroup",  # its workers', when the run is root's
                "NGINX_WORKERS": "1",
                "NGINX_RUN": str(folder),
                "NGINX_LOGS": str(folder),
                "CLUBSITE_LISTEN": f"127.0.0.1:{port}",
                "CLUBSITE_SCHEME": "$scheme",
                "CLUBSITE_SERVERS": servers,
                # Pushpin when the run has one; else the app servers answer /events/ 204
                # (keep polling).
                "CLUBSITE_PUSH_SERVERS": servers
                if pushpin is None
                else f"server 127.0.0.1:{pushpin};",
                # Which server answered: the run counts each one's sheets.
                "CLUBSITE_UPSTREAM_SHOWN": "$upstream_addr",
            }
        )
    )
    command = [binary, "-p", str(folder), "-c", str(config), "-e", str(folder / "error.log")]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        load.wait_until_answering(base, process, "nginx", folder / "error.log")
        yield base
    finally:
        load.stop(process, signal.SIGQUIT)  # finish what is in flight, then stop
        shutil.rmtree(folder, ignore_errors=True)


def ports(first: int, servers: int) -> tuple[int, list[int]]:
    """nginx's port and the app servers' (``first`` and the ones after it; free ones if 0)."""
    if first:
        return first, [first + n for n in range(1, servers + 1)]
    return load.free_port(), [load.free_port() for _ in range(servers)]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.live_load")
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--stress", action="store_true", help="poll without pausing")
    parser.add_argument("--servers", type=int, default=2, help="gunicorn instances")
    parser.add_argument(
        "--port", type=int, default=0, help="nginx's port; the servers take the next ones"
    )
    parser.add_argument(
        "--redis", default=REDIS_URL, help="the shared cache ('' for each process's own)"
    )
    parser.add_argument(
        "--database", default=None, help="the scratch PostgreSQL database (dropped first)"
    )
    args = parser.parse_args(argv)

    from bench.__main__ import DATABASE, DATABASE_URL

    database = args.database or DATABASE
    database_url = DATABASE_URL.replace(DATABASE, database)

    render_log = Path(tempfile.mkdtemp()) / "renders.log"
    prefix = f"load-{uuid.uuid4().hex[:12]}"
    env = load.environment(database_url) | {
        "BENCH_RENDER_LOG": str(render_log),
        "REDIS_URL": args.redis,
        "DJANGO_CACHE_KEY_PREFIX": prefix,
        "DJANGO_TRUSTED_PROXY_COUNT": "1",
    }
    os.environ.update(env)
    site.recreate(database)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    from bench import data
    from scoring.live.revisions import POLL_MEMO_SECONDS

    built = data.build(members=20, tables=200, live_deals=100, log=lambda m: None)
    live = built["live"]
    seats = list(live.seats.order_by("position"))
    names = [s.name for s in seats]
    before = live.deal_records.filter(deleted=False).count()
    tally = Tally()
    nginx_port, server_ports = ports(args.port, args.servers)
    live_path = f"/tables/{live.pk}/live/"
    try:
        with ExitStack() as servers:
            for port in server_ports:
                servers.enter_context(load.gunicorn(env, port=port))
            base = servers.enter_context(nginx(nginx_port, server_ports))
            host, port = "127.0.0.1", nginx_port
            stop = time.monotonic() + args.seconds
            # The last deal lands a poll, the second an app server may answer a plain poll
            # from what it read before the deal (revisions.POLL_MEMO_SECONDS) and a second
            # before the viewers stop.
            scoring_stops = stop - POLL_SECONDS - POLL_MEMO_SECONDS - 1
            scorer = Scorer(host, port, live.pk, seats[0].member.username, names, tally)
            threads = [threading.Thread(target=scorer.enter_deals, args=(scoring_stops, tally))]
            pause = 0.0 if args.stress else POLL_SECONDS
            threads += [
                threading.Thread(target=viewer, args=(host, port, live_path, stop, tally, pause))
                for _ in range(args.viewers)
            ]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - started
            final = urllib.request.urlopen(base + live_path, timeout=10).read().decode()
    finally:
        if args.redis:
            forget(args.redis, prefix)
    entered = range(before + 1, before + tally.deals + 1)
    return report(args, tally, elapsed, entered, final, render_log)


def report(
    args: argparse.Namespace,
    tally: Tally,
    elapsed: float,
    entered: range,
    final: str,
    render_log: Path,
) -> int:
    """Print what the run saw; 1 if anything failed."""
    latencies = sorted(tally.latencies)
    polls = len(latencies)
    print(
        f"{args.viewers} viewers polling {'flat out' if args.stress else 'every 2 s'} through "
        f"nginx to {args.servers} gunicorn instance(s) "
        f"({'one Redis cache' if args.redis else 'a cache per process'}), a scorer entering "
        f"a deal every {DEAL_SECONDS:.0f} s, {elapsed:.0f} s:"
    )
    statuses = dict(sorted(tally.statuses.items()))
    print(f"  polls: {polls} ({polls / elapsed:.1f}/s), statuses {statuses}")
    if latencies:
        print(
            f"  latency: median {statistics.median(latencies) * 1000:.1f} ms, "
            f"p95 {latencies[int(0.95 * (polls - 1))] * 1000:.1f} ms, "
            f"max {latencies[-1] * 1000:.1f} ms"
        )
    print(
        f"  deals entered: {tally.deals}; errors: {len(tally.errors)}; requests sent again "
        f"after a recycled worker closed their connection: {tally.resent}"
    )
    served = ", ".join(f"{server} {n}" for server, n in sorted(tally.upstreams.items()))
    print(f"  new sheets served by: {served}")
    failed = bool(tally.errors)
    missed = [set(entered) - seen for seen in tally.seen]
    blind = sum(1 for deals in missed if deals)
    last_shown = max(shown_deals(final), default=0)
    print(
        f"  viewers who saw every deal entered: {len(missed) - blind} of {len(missed)}; "
        f"the final sheet's newest deal: {last_shown} (entered up to {entered.stop - 1})"
    )
    if blind or last_shown != entered.stop - 1 or not entered:
        failed = True
    renders, most = render_counts(render_log)
    print(f"  {renders}")
    if args.redis and most > 1:
        print("  FAILED: with one shared cache each revision's sheet is rendered once")
        failed = True
    for message in tally.errors[:10]:
        print(f"    {message}")
    return 1 if failed else 0


def forget(redis_url: str, prefix: str) -> None:
    """Delete the run's keys (the Redis database may be shared)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match=f"{prefix}:*"):
        client.delete(key)


def render_counts(render_log: Path) -> tuple[str, int]:
    """How often the servers made the viewers' sheet region of each revision (the log has
    one line per fragment made, with the process's id; the key ends with the table
    revision), and the most times one revision's was made."""
    lines = render_log.read_text().splitlines() if render_log.exists() else []
    made: Counter[str] = Counter()
    processes: set[str] = set()
    for line in lines:
        process, _, key = line.partition(" made ")
        if key.startswith("sheet-html:") and key.split(":")[2] == "0":  # not editable: viewers'
            made[key] += 1
            processes.add(process)
    if not made:
        return "viewers' sheet renders: none logged", 0
    most = max(made.values())
    return (
        f"viewers' sheet renders: {sum(made.values())} for {len(made)} revisions, in "
        f"{len(processes)} processes (at most {most} for one revision, "
        f"{sum(1 for n in made.values() if n > 1)} revisions made more than once)",
        most,
    )


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    sys.exit(main(sys.argv[1:]))
