"""``make load``: 50 viewers polling a live pulka while a scorer enters deals, 60 s,
against gunicorn on PostgreSQL. Prints throughput, latency and errors; exits 1 on any
error.

Each viewer behaves like the page does: it polls the live sheet every two seconds with
the ETag of the last sheet it saw (a 304 while nothing changed). ``--stress`` drops the
pause, to find how many polls a second the server sustains.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import load, site

POLL_SECONDS = 2.0
DEAL_SECONDS = 3.0


@dataclass
class Tally:
    """What the threads saw; guarded by ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    deals: int = 0
    resent: int = 0

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
    while time.monotonic() < stop:
        headers = {"If-None-Match": etag} if etag else {}
        start = time.perf_counter()
        try:
            response, _ = connection.request("GET", path, headers=headers)
        except OSError as error:
            tally.error(f"viewer: {error!r}")
            connection.reopen()
            continue
        tally.add(response.status, time.perf_counter() - start)
        if response.status == 200:
            etag = response.getheader("ETag")
        elif response.status != 304:
            tally.error(f"viewer: HTTP {response.status}")
        time.sleep(pause)
    connection.close()


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
            {"username": username, "password": "bench", "csrfmiddlewaretoken": self.token(page)},
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
    def token(page: str) -> str:
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if not match:
            raise RuntimeError("no CSRF token on the page")
        return match.group(1)

    def enter_deals(self, stop: float, tally: Tally) -> None:
        path = f"/tables/{self.table}/"
        while time.monotonic() < stop:
            try:
                page = self.request("GET", path)
                form = {"kind": "passout", "csrfmiddlewaretoken": self.token(page)}
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.live_load")
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--stress", action="store_true", help="poll without pausing")
    args = parser.parse_args(argv)

    from bench.__main__ import DATABASE, DATABASE_URL

    render_log = Path(tempfile.mkdtemp()) / "renders.log"
    env = load.environment(DATABASE_URL) | {"BENCH_RENDER_LOG": str(render_log)}
    os.environ.update(env)
    site.recreate(DATABASE)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    from bench import data

    built = data.build(members=20, tables=200, live_deals=100, log=lambda m: None)
    live = built["live"]
    seats = list(live.seats.order_by("position"))
    names = [s.name for s in seats]
    tally = Tally()
    with load.gunicorn(env) as (base, _):
        host, port = "127.0.0.1", int(base.rsplit(":", 1)[1])
        stop = time.monotonic() + args.seconds
        scorer = Scorer(host, port, live.pk, seats[0].member.username, names, tally)
        threads = [threading.Thread(target=scorer.enter_deals, args=(stop, tally))]
        pause = 0.0 if args.stress else POLL_SECONDS
        threads += [
            threading.Thread(
                target=viewer, args=(host, port, f"/tables/{live.pk}/live/", stop, tally, pause)
            )
            for _ in range(args.viewers)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
    latencies = sorted(tally.latencies)
    polls = len(latencies)
    print(
        f"{args.viewers} viewers polling {'flat out' if args.stress else 'every 2 s'}, "
        f"a scorer entering a deal every {DEAL_SECONDS:.0f} s, {elapsed:.0f} s:"
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
    print(f"  {render_counts(render_log)}")
    for message in tally.errors[:10]:
        print(f"    {message}")
    return 1 if tally.errors else 0


def render_counts(render_log: Path) -> str:
    """How often the servers made the viewers' sheet region of each revision (the log has
    one line per fragment made; the key ends with the table revision)."""
    lines = render_log.read_text().splitlines() if render_log.exists() else []
    keys = [line.split("made ", 1)[1] for line in lines if "made sheet-html:" in line]
    made = Counter(key for key in keys if key.split(":")[2] == "0")  # not editable: viewers'
    if not made:
        return "viewers' sheet renders: none logged"
    return (
        f"viewers' sheet renders: {sum(made.values())} for {len(made)} revisions "
        f"(at most {max(made.values())} for one revision, "
        f"{sum(1 for n in made.values() if n > 1)} revisions made more than once)"
    )


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    sys.exit(main(sys.argv[1:]))
