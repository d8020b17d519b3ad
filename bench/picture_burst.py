"""``python -m bench.picture_burst``: a burst of anonymous requests for the biggest sheet's
picture, against the production layout, while ``/healthz`` is probed (issue #35 item 3).

The biggest sheet the site holds is a record of ``MAX_DEALS`` deals, which any member may
import. First its picture is drawn here, in a child process each (peak memory is the
child's): whole, as the site drew it before pages, and as one page. Then nginx in front
of two gunicorn instances of two workers each (the production config) on loopback ports,
with one Redis shared by both (``--redis``) or each process's own memory; ``--burst``
anonymous clients ask at one instant for the sheet's picture (``?page=1``: a site from
before pages ignores it and draws the whole sheet), then as many for its pages spread
over all of them, while a prober asks each server's ``/healthz`` ten times a second.

Prints the renders' cost, the answers by status, the picture renders the servers made,
``/healthz``'s slowest answer, and whether every worker is the one it started with (a
worker killed by gunicorn's timeout comes back with another pid, after 502s). Exits 1 if
``/healthz`` took ``HEALTHZ_TARGET`` seconds or more, or a worker was replaced, or nginx
answered 502/504. Bounded: the burst's requests time out at 60 s."""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import load, site
from bench.live_load import forget, nginx, ports

HEALTHZ_TARGET = 1.0
PROBE_SECONDS = 0.1


def peak_mb(work: Callable[[], object]) -> tuple[float, float]:
    """``work()`` in a forked child: its wall seconds and its peak memory above an idle
    child's, in MB."""

    def child(run: Callable[[], object]) -> tuple[float, float]:
        pid = os.fork()
        if pid == 0:  # the child: run, then leave without Django's or pytest's cleanup
            started = time.perf_counter()
            run()
            os._exit(min(int((time.perf_counter() - started) * 10), 255))
        _, status, usage = os.wait4(pid, 0)
        return os.waitstatus_to_exitcode(status) / 10, usage.ru_maxrss / 1024

    _, idle = child(lambda: None)
    seconds, peak = child(work)
    return seconds, peak - idle


@dataclass
class Probe:
    """One server's ``/healthz``: each answer's status and seconds."""

    port: int
    answers: list[tuple[int, float]] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            sent = time.perf_counter()
            status = get(f"http://127.0.0.1:{self.port}/healthz", timeout=30)
            self.answers.append((status, time.perf_counter() - sent))
            self.sent.append(sent)
            time.sleep(PROBE_SECONDS)


def get(url: str, timeout: float) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except OSError:
        return 0


def burst(urls: list[str]) -> tuple[Counter[int], float]:
    """``urls`` asked at one instant, one client each: the answers by status, and the
    slowest answer's seconds."""
    start = threading.Barrier(len(urls))
    statuses: Counter[int] = Counter()
    slowest = [0.0]

    def client(url: str) -> None:
        start.wait()
        sent = time.perf_counter()
        status = get(url, timeout=60)
        statuses[status] += 1
        slowest[0] = max(slowest[0], time.perf_counter() - sent)

    threads = [threading.Thread(target=client, args=(url,)) for url in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses, slowest[0]


def workers(masters: list[Any]) -> set[int]:
    """The pids of every gunicorn worker (the masters' children)."""
    found = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        for master in masters:
            if f"\nPPid:\t{master.pid}\n" in text:
                found.add(int(status.parent.name))
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.picture_burst")
    parser.add_argument("--burst", type=int, default=20, help="clients at one instant")
    parser.add_argument("--redis", default="", help="a Redis URL the servers share")
    parser.add_argument(
        "--database", default="clubsite_picture_burst", help="scratch PostgreSQL (dropped)"
    )
    args = parser.parse_args(argv)

    from bench.__main__ import DATABASE, DATABASE_URL

    render_log = Path(tempfile.mkdtemp()) / "renders.log"
    prefix = f"burst-{uuid.uuid4().hex[:12]}"
    env = load.environment(DATABASE_URL.replace(DATABASE, args.database)) | {
        "BENCH_RENDER_LOG": str(render_log),
        "REDIS_URL": args.redis,
        "DJANGO_CACHE_KEY_PREFIX": prefix,
        "DJANGO_TRUSTED_PROXY_COUNT": "1",
        "GUNICORN_MAX_REQUESTS": "0",
    }
    os.environ.update(env)
    site.recreate(args.database)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)

    from bench.engine import thousand_deal_record
    from scoring import selectors, services
    from scoring.engine.record import MAX_DEALS
    from scoring.live.fragments import RevisionCache
    from scoring.pages import games as game_pages
    from scoring.pages import raster, share
    from scoring.services.imports import version_for
    from tests import factories

    players = [factories.member(name) for name in ("Anna", "Boris", "Vera", "Gleb")]
    record = thousand_deal_record(deals=MAX_DEALS)
    started = time.perf_counter()
    table = services.table_import(
        record, version=version_for(record), members=players, by=players[0]
    )
    imported = time.perf_counter() - started
    game = game_pages.of_table(table)
    svg = game.sheet_svg(table, selectors.current(table, latest=0).game, RevisionCache(table))
    pages = share.picture_pages(svg)
    site.release_connections()
    css, fonts = share._sheet_css(), [str(path) for path in share.font_paths()]
    page_svg = share._page_of(svg, 1, pages)

    def draw(text: str) -> bytes:
        """resvg here, not in the site's child (``pages.raster``): forked, it is measured."""
        return raster._render(text, share.PNG_WIDTH, css, fonts)

    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"A {MAX_DEALS:,}-deal record imported in {imported:.1f} s; its sheet, {pages} pages")
    cost_whole = peak_mb(lambda: draw(svg))
    cost_page = peak_mb(lambda: draw(page_svg))
    whole, page = draw(svg), draw(page_svg)
    print(f"  whole: {len(whole) / 1e6:.1f} MB, {cost_whole[0]:.1f} s, {cost_whole[1]:.0f} MB")
    print(f"  a page: {len(page) / 1e6:.2f} MB, {cost_page[0]:.1f} s, {cost_page[1]:.0f} MB")

    nginx_port, server_ports = ports(0, 2)
    probes = [Probe(port) for port in server_ports]
    stop = threading.Event()
    try:
        with ExitStack() as servers:
            masters = []
            for port in server_ports:
                _, master = servers.enter_context(load.gunicorn(env, port=port))
                masters.append(master)
            base = servers.enter_context(nginx(nginx_port, server_ports))
            before = workers(masters)
            for port in server_ports:  # a fresh worker's first answers are slow: not counted
                for _ in range(8):
                    get(f"http://127.0.0.1:{port}/healthz", timeout=30)
            threads = [threading.Thread(target=p.run, args=(stop,)) for p in probes]
            for thread in threads:
                thread.start()
            time.sleep(1)
            picture = f"{base}/tables/{table.pk}/sheet.png"
            burst_at = time.perf_counter()
            one = burst([f"{picture}?page=1"] * args.burst)
            spread = burst([f"{picture}?page={1 + i % pages}" for i in range(args.burst)])
            time.sleep(2)
            stop.set()
            for thread in threads:
                thread.join()
            after = workers(masters)
    finally:
        stop.set()
        if args.redis:
            forget(args.redis, prefix)
    for probe in probes:  # when the slow answers were asked, from the first burst
        slow = [
            f"{sent - burst_at:+.1f}s: {seconds:.2f}"
            for sent, (_, seconds) in zip(probe.sent, probe.answers, strict=True)
            if seconds > HEALTHZ_TARGET / 2
        ]
        print(f"  server {probe.port}, /healthz over {HEALTHZ_TARGET / 2} s: {slow}")
    return report(one, spread, probes, before, after, render_log, args.burst)


def report(
    one: tuple[Counter[int], float],
    spread: tuple[Counter[int], float],
    probes: list[Probe],
    before: set[int],
    after: set[int],
    render_log: Path,
    clients: int,
) -> int:
    renders = sum("sheet-png" in line for line in render_log.read_text().splitlines())
    for name, (statuses, slowest) in (("one page", one), ("all pages", spread)):
        answers = ", ".join(f"{status}: {n}" for status, n in sorted(statuses.items()))
        print(f"{clients} clients, {name}: {answers}; slowest {slowest:.1f} s")
    print(f"pictures rendered by the servers: {renders}")
    healthz = [seconds for probe in probes for _, seconds in probe.answers]
    statuses = Counter(status for probe in probes for status, _ in probe.answers)
    print(
        f"/healthz: {len(healthz)} probes, {dict(statuses)}, "
        f"max {max(healthz):.2f} s, median {sorted(healthz)[len(healthz) // 2]:.3f} s"
    )
    kept = before == after
    print(f"workers: {len(before)} before, {'the same' if kept else 'replaced: ' + str(after)}")
    bad_gateway = one[0][502] + one[0][504] + spread[0][502] + spread[0][504]
    failed = max(healthz) >= HEALTHZ_TARGET or not kept or bad_gateway or set(statuses) != {200}
    print("FAILED" if failed else f"ok: /healthz under {HEALTHZ_TARGET} s, every worker alive")
    return 1 if failed else 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
