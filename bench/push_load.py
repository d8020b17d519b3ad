"""The pushed-updates load run (issue 33): ``--viewers`` viewers (2,000) hold the event
streams of ``--tables`` tables in play (100) through nginx and Pushpin, in front of two
gunicorn instances sharing PostgreSQL and Redis (docs/deploy.md's layout), while scorers
save a deal at each table every ``--deal-seconds``. Then nothing changes for
``--idle-seconds`` with every stream held; then wrk drives one app server's bare view and
its idle poll (the fallback: a 304 from the version the process read less than a
second ago) in turns.

Each viewer behaves as static/js/live.js does: on each event of its table's stream (and
when the stream opens) it fetches the live sheet with the ETag of the last one it saw and
the least revision it may be answered at (``X-Live-Revision``).
What is measured, each figure printed beside its target:

- from a save's answer (the scorer's POST answered) to the changed sheet in a viewer's
  hands: median ≤ 300 ms, p95 ≤ 1 s (a sheet that arrives before the save's answer counts
  0);
- errors: none (an answer other than 200/304, a stream that ends, a refused connection);
- every viewer sees every deal saved at its table;
- the app servers' CPU (every gunicorn process) while nothing changes: under 5% of one
  core;
- the idle poll's requests a second beside the bare view's, in the same run: ≥ 90%.

Exits 1 when a deal is missed, on an error, or when the latency or the CPU is over its
target (the poll's share is marked only: on a shared machine it moves with the minute;
``--mark-targets``, as CI runs it on a machine other work shares, marks the latency and
the CPU too, and fails on errors and missed deals only).
The viewers run in this process on asyncio (aiohttp): if the machine cannot hold
``--viewers``, the run prints how many were connected and why.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import load, site
from bench.live_load import REDIS_URL, forget, nginx, shown_deals
from bench.pushpin import free_run, pushpin

LATENCY_MEDIAN_TARGET = 0.300
LATENCY_P95_TARGET = 1.0
IDLE_CPU_TARGET = 0.05
POLL_SHARE_TARGET = 0.90
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Tally:
    saved: dict[tuple[int, int], float] = field(default_factory=dict)
    """(table, deal) → when the scorer had the save's answer."""
    shown: list[tuple[int, int, float]] = field(default_factory=list)
    """(table, deal, when) each viewer first had a sheet showing it."""
    errors: list[str] = field(default_factory=list)
    fetches: int = 0
    in_flight: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    """What refused a stream's opening (an answer other than 200), and how often: each was
    asked again, as static/js/live.js does."""
    lags: list[float] = field(default_factory=list)
    """How late the client's own event loop woke (its timestamps are that late)."""
    fetch_seconds: list[float] = field(default_factory=list)
    heard: list[tuple[int, float]] = field(default_factory=list)
    """(table, when) of each event a viewer heard."""
    statuses: dict[int, int] = field(default_factory=dict)
    connected: int = 0
    seen: dict[int, list[set[int]]] = field(default_factory=dict)
    """table → the deals each of its viewers saw."""

    def error(self, message: str) -> None:
        self.errors.append(message)


CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
REVISION = re.compile(r'name="revision" value="([^"]+)"')


async def sign_in(session: Any, base: str, username: str) -> None:
    async with session.get(f"{base}/members/sign-in/") as answer:
        page = await answer.text()
    token = CSRF.search(page)
    if token is None:
        raise RuntimeError("no CSRF token on the sign-in page")
    form = {"username": username, "password": "bench", "csrfmiddlewaretoken": token.group(1)}
    async with session.post(f"{base}/members/sign-in/", data=form) as answer:
        await answer.read()
        if answer.status >= 400:
            raise RuntimeError(f"sign-in: HTTP {answer.status}")


async def save_deal(session: Any, base: str, table: int, names: list[str], tally: Tally) -> None:
    """One pass-out at ``table`` through the real form, as a scorer's phone sends it."""
    path = f"/tables/{table}/"
    async with session.get(base + path) as answer:
        page = await answer.text()
    token, revision = CSRF.search(page), REVISION.search(page)
    if token is None or revision is None:
        tally.error(f"scorer: no form at table {table}")
        return
    form = {
        "kind": "passout",
        "csrfmiddlewaretoken": token.group(1),
        "revision": revision.group(1),
        "write_key": str(uuid.uuid4()),
    } | {f"tricks:{name}": str(t) for name, t in zip(names, (4, 3, 3), strict=True)}
    headers = {"HX-Request": "true", "Referer": base + path}
    async with session.post(f"{base}{path}deals/", data=form, headers=headers) as answer:
        sheet = await answer.text()
        answered = time.monotonic()
        if answer.status != 200 or answer.headers.get("HX-Retarget") != "#sheet":
            tally.error(f"scorer: table {table}: the deal was not saved ({answer.status})")
            return
    newest = max(shown_deals(sheet), default=0)
    tally.saved[(table, newest)] = answered


async def scorer(
    session: Any,
    base: str,
    tables: list[tuple[int, list[str]]],
    start: float,
    stop: float,
    every: float,
    tally: Tally,
) -> None:
    """Each of this scorer's tables gets a deal every ``every`` seconds, spread out."""
    import aiohttp

    step = every / len(tables)
    next_at = start
    while next_at < stop:
        for table, names in tables:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            if time.monotonic() >= stop:
                return
            try:
                await save_deal(session, base, table, names, tally)
            except (aiohttp.ClientError, RuntimeError, TimeoutError) as error:
                tally.error(f"scorer: {error!r}")
            next_at += step


async def viewer(
    streams: Any,
    fetches: Any,
    base: str,
    table: int,
    drawn: tuple[str, range],
    tally: Tally,
    opened: asyncio.Event,
) -> None:
    """A page watching ``table``: its stream held, its sheet fetched on each event. It
    starts as a page just drawn does: with the sheet as it stood (its ETag and deals)."""
    import aiohttp

    etag: str | None = drawn[0]
    seen: set[int] = set(drawn[1])
    tally.seen.setdefault(table, []).append(seen)
    live = f"{base}/tables/{table}/live/"

    async def fetch(told: int | None) -> None:
        nonlocal etag
        # As live.js does: the least revision the answer may be at, the one an event told
        # or one past the one shown (the stream opened: something may have changed).
        headers = {"If-None-Match": etag} if etag else {}
        shown = shown_revision(etag)
        if shown is not None:
            least = told if told is not None and told > shown else shown + 1
            headers["X-Live-Revision"] = str(least)
        asked = time.monotonic()
        tally.in_flight += 1
        try:
            async with fetches.get(live, headers=headers) as answer:
                body = await answer.text()
                at = time.monotonic()
                tally.fetches += 1
                tally.fetch_seconds.append(at - asked)
                tally.statuses[answer.status] = tally.statuses.get(answer.status, 0) + 1
                if answer.status == 200:
                    etag = answer.headers.get("ETag")
                    for deal in shown_deals(body):
                        if deal not in seen:
                            seen.add(deal)
                            tally.shown.append((table, deal, at))
                elif answer.status != 304:
                    tally.error(f"viewer: HTTP {answer.status}")
        except (aiohttp.ClientError, TimeoutError) as error:
            tally.error(f"viewer fetch: {error!r}")
        finally:
            tally.in_flight -= 1

    for attempt in range(1, RECONNECTS + 2):
        refused = await hold(streams, base, table, tally, opened, fetch)
        if refused is None:
            return
        if attempt > RECONNECTS:
            tally.error(f"viewer stream: {refused}, {RECONNECTS} reconnections refused too")
            return
        # As static/js/live.js does: a stream that could not open (Pushpin answered 502 for
        # a busy app server, or 500 while its own accept service was behind) is asked again
        # 5 s later, then 10, then 15; the page polls meanwhile. Counted, as the poll run
        # counts its requests sent again.
        tally.refused[refused] = tally.refused.get(refused, 0) + 1
        await asyncio.sleep(RECONNECT_SECONDS * attempt)


RECONNECTS = 3
RECONNECT_SECONDS = 5.0


async def hold(
    streams: Any, base: str, table: int, tally: Tally, opened: asyncio.Event, fetch: Any
) -> str | None:
    """Hold ``table``'s stream, fetching on its events; what refused it, if it could not
    open."""
    import aiohttp

    try:
        async with streams.get(
            f"{base}/events/tables/{table}/", headers={"Accept": "text/event-stream"}
        ) as stream:
            if stream.status != 200:
                return f"HTTP {stream.status}"
            kind, data = "", ""
            async for raw in stream.content:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    kind = line.removeprefix("event:").strip()
                elif line.startswith("data:"):
                    data = line.removeprefix("data:").strip()
                elif not line:
                    if kind == "stream-open":
                        tally.connected += 1
                        opened.set()
                        await fetch(None)
                    elif kind == "revision":
                        tally.heard.append((table, time.monotonic()))
                        await fetch(told_revision(data))
                    kind, data = "", ""
            tally.error("viewer stream: ended")
    except asyncio.CancelledError:
        raise
    except (aiohttp.ClientError, TimeoutError, OSError) as error:
        tally.error(f"viewer stream: {error!r}")
    return None


def shown_revision(etag: str | None) -> int | None:
    """The revision of the sheet whose ETag is ``etag``
    (``"<table>-<epoch>.<revision>-<language>"``)."""
    match = re.search(r"\.(\d+)-[^-]*\"$", etag or "")
    return int(match.group(1)) if match else None


def told_revision(data: str) -> int | None:
    """The revision a ``revision`` event carries (``{"revision": 7}``), as live.js reads it."""
    try:
        revision = json.loads(data).get("revision")
    except (ValueError, AttributeError):
        return None
    return revision if isinstance(revision, int) else None


async def watch_lag(tally: Tally) -> None:
    """Wake every 100 ms and note how late: a client short of CPU stamps every event and
    every sheet that much late, and the run says so."""
    while True:
        asked = time.monotonic()
        await asyncio.sleep(0.1)
        tally.lags.append(time.monotonic() - asked - 0.1)


def unseen(tally: Tally) -> int:
    """How many viewers have not yet seen every deal saved at their table."""
    saved: dict[int, set[int]] = {}
    for table, deal in tally.saved:
        saved.setdefault(table, set()).add(deal)
    return sum(
        1 for table, seen in tally.seen.items() for mine in seen if saved.get(table, set()) - mine
    )


def cpu_seconds(pids: list[int]) -> float:
    """The CPU time (user and system) the processes ``pids`` and their children used."""
    total = 0
    wanted = set(pids)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, parent = int(stat.parent.name), int(fields[1])
        if pid in wanted or parent in wanted:
            total += int(fields[11]) + int(fields[12])
    return total / CLOCK_TICKS


def open_tables(count: int) -> list[tuple[int, str, list[str]]]:
    """``count`` pulkas in play, each scored by the member in its first seat: (table,
    scorer's username, the players' names)."""
    from members.models import Member
    from scoring import services
    from scoring.models import PreferansTariff

    club = list(Member.objects.order_by("pk")[:20])
    sochi = PreferansTariff.objects.get(name="Сочи (Sochi)").current_version
    opened = []
    for n in range(count):
        players = [club[(n + k) % len(club)] for k in (0, 7, 13)]
        table = services.table_open(
            game="preferans", version=sochi, members=players, by=players[0], pool_target=500
        )
        names = [seat.name for seat in table.seats.order_by("position")]
        opened.append((table.pk, players[0].username, names))
    return opened


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.push_load")
    parser.add_argument("--viewers", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=40, help="how long deals are saved")
    parser.add_argument("--deal-seconds", type=float, default=15.0, help="a table's deal rate")
    parser.add_argument("--idle-seconds", type=int, default=10)
    parser.add_argument("--wrk-seconds", type=int, default=5)
    parser.add_argument(
        "--mark-targets",
        action="store_true",
        help="mark a latency or idle CPU over its target rather than fail (a shared machine)",
    )
    parser.add_argument(
        "--port", type=int, default=0, help="nginx's port; the servers take the next seven"
    )
    parser.add_argument("--redis", default=REDIS_URL, help="the shared cache")
    parser.add_argument(
        "--database", default="clubsite_push_load", help="the scratch database (dropped first)"
    )
    args = parser.parse_args(argv)
    # nginx holds two descriptors a stream (the viewer's and Pushpin's) and two a fetch.
    load.more_open_files(needed=2 * args.viewers + 1024)

    from bench.__main__ import DATABASE, DATABASE_URL

    database_url = DATABASE_URL.replace(DATABASE, args.database)
    prefix = f"push-{uuid.uuid4().hex[:12]}"
    env = load.environment(database_url) | {
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
    call_command("collectstatic", interactive=False, verbosity=0)
    from bench import data

    data.build(members=20, tables=50, live_deals=5, log=lambda m: None)
    tables = open_tables(args.tables)
    from django.db import connections

    connections.close_all()
    port_list = list(_ports(args.port))
    nginx_port, app_ports = port_list[0], port_list[1:3]
    pushpin_port, publish_port, internal = port_list[3], port_list[4], port_list[5]
    try:
        with ExitStack() as stack:
            server = stack.enter_context(
                pushpin(pushpin_port, publish_port, app_ports, other=internal)
            )
            masters = []
            for port in app_ports:
                _, master = stack.enter_context(
                    load.gunicorn(env | {"GRIP_URL": server.grip_url}, port=port)
                )
                masters.append(master.pid)
            base = stack.enter_context(nginx(nginx_port, app_ports, pushpin=pushpin_port))
            tally = Tally()
            figures = asyncio.run(run(args, base, tables, masters, tally))
            app = f"http://127.0.0.1:{app_ports[0]}"
            etag = _etag(app, tables[0][0])
            polls = []
            for _ in range(2):
                bare = load.wrk("bare Django view", f"{app}/bench/bare/", seconds=args.wrk_seconds)
                poll = load.wrk(
                    "idle poll (304)",
                    f"{app}/tables/{tables[0][0]}/live/",
                    headers={"If-None-Match": etag},
                    seconds=args.wrk_seconds,
                )
                polls.append((bare, poll))
    finally:
        forget(args.redis, prefix)
    return report(args, tally, figures, polls)


def _ports(first: int) -> Iterator[int]:
    """nginx's, the two app servers', Pushpin's and its publishing port, then the first of
    Pushpin's three internal ones in a row: from ``first`` on, or each free."""
    if first:
        yield from range(first, first + 6)
        return
    chosen: set[int] = set()
    while len(chosen) < 5:
        chosen.add(load.free_port())
    yield from chosen
    yield free_run(chosen)


def _etag(app: str, table: int) -> str:
    import urllib.request

    with urllib.request.urlopen(f"{app}/tables/{table}/live/", timeout=10) as answer:
        return str(answer.headers["ETag"])


async def run(
    args: argparse.Namespace,
    base: str,
    tables: list[tuple[int, str, list[str]]],
    masters: list[int],
    tally: Tally,
) -> dict[str, float]:
    import aiohttp

    unlimited = aiohttp.TCPConnector(limit=0)
    pooled = aiohttp.TCPConnector(limit=256)
    no_timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with (
        aiohttp.ClientSession(connector=unlimited, timeout=no_timeout) as streams,
        aiohttp.ClientSession(connector=pooled, timeout=aiohttp.ClientTimeout(total=30)) as fetches,
    ):
        drawn = {}
        for table, _, _ in tables:  # the sheet each page was drawn with
            async with fetches.get(f"{base}/tables/{table}/live/") as answer:
                drawn[table] = (answer.headers["ETag"], shown_deals(await answer.text()))
        lag = asyncio.create_task(watch_lag(tally))
        started = time.monotonic()
        viewers = []
        for n in range(args.viewers):
            table = tables[n % len(tables)][0]
            opened = asyncio.Event()
            viewers.append(
                asyncio.create_task(
                    viewer(streams, fetches, base, table, drawn[table], tally, opened)
                )
            )
            if n % 100 == 99:
                await asyncio.sleep(0.05)  # connecting in a ramp, as a room fills
        deadline = time.monotonic() + 30
        while tally.connected < args.viewers and time.monotonic() < deadline and not tally.errors:
            await asyncio.sleep(0.2)
        connect_seconds = time.monotonic() - started
        await asyncio.sleep(1)
        # The deals: each scorer the tables whose first seat is his, signed in first.
        by_scorer: dict[str, list[tuple[int, list[str]]]] = {}
        for table, username, names in tables:
            by_scorer.setdefault(username, []).append((table, names))
        async with AsyncExitStack() as sessions:
            signed_in = {}
            for username in by_scorer:
                session = await sessions.enter_async_context(
                    aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
                )
                await sign_in(session, base, username)
                signed_in[username] = session
            start = time.monotonic()
            stop = start + args.seconds
            await asyncio.gather(
                *(
                    scorer(signed_in[username], base, mine, start, stop, args.deal_seconds, tally)
                    for username, mine in by_scorer.items()
                )
            )
        # The last deals' sheets reach their viewers: until every viewer has seen every
        # deal saved at its table and no fetch is under way (90 s at most).
        settle_started = time.monotonic()
        while time.monotonic() - settle_started < 90 and (tally.in_flight or unseen(tally)):
            await asyncio.sleep(0.2)
        settle_seconds = time.monotonic() - settle_started
        await asyncio.sleep(1)
        fetched_before = tally.fetches
        # Nothing changes: every stream held, no deal.
        cpu_before, idle_started = cpu_seconds(masters), time.monotonic()
        await asyncio.sleep(args.idle_seconds)
        idle_cpu = (cpu_seconds(masters) - cpu_before) / (time.monotonic() - idle_started)
        idle_fetches = tally.fetches - fetched_before
        lag.cancel()
        for task in viewers:
            task.cancel()
        await asyncio.gather(*viewers, return_exceptions=True)
    return {
        "settle_seconds": settle_seconds,
        "load_average": os.getloadavg()[0],
        "connect_seconds": connect_seconds,
        "idle_cpu": idle_cpu,
        "idle_fetches": idle_fetches,
    }


def report(
    args: argparse.Namespace,
    tally: Tally,
    figures: dict[str, float],
    polls: list[tuple[load.Throughput, load.Throughput]],
) -> int:
    failed = False
    print(
        f"{args.viewers} viewers holding the event streams of {args.tables} tables in play "
        f"through nginx and Pushpin to 2 gunicorn instances (one PostgreSQL, one Redis), a "
        f"deal at each table every {args.deal_seconds:.0f} s for {args.seconds} s:"
    )
    print(
        f"  the machine's load average at the end: {figures['load_average']:.1f} on "
        f"{os.cpu_count()} cores (the latency is CPU time shared with whatever else runs); "
        f"the last sheets reached their viewers {figures['settle_seconds']:.1f} s after the "
        f"last deal"
    )
    if tally.lags:
        lags = sorted(tally.lags)
        print(
            f"  this client's own lateness (its event loop, which stamps every event and "
            f"sheet): median {statistics.median(lags) * 1000:.0f} ms, p95 "
            f"{lags[int(0.95 * (len(lags) - 1))] * 1000:.0f} ms, max {lags[-1] * 1000:.0f} ms"
        )
    print(
        f"  streams open: {tally.connected} of {args.viewers} "
        f"(in {figures['connect_seconds']:.1f} s)"
    )
    if tally.connected < args.viewers:
        print("  FAILED: not every viewer's stream opened (see the errors below)")
        failed = True
    latencies = sorted(
        max(0.0, at - tally.saved[(table, deal)])
        for table, deal, at in tally.shown
        if (table, deal) in tally.saved
    )
    print(
        f"  deals saved: {len(tally.saved)}; sheets fetched: {tally.fetches} "
        f"(statuses {dict(sorted(tally.statuses.items()))})"
    )
    if latencies:
        median = statistics.median(latencies)
        p95 = latencies[int(0.95 * (len(latencies) - 1))]
        print(
            f"  from a save's answer to the changed sheet in a viewer's hands "
            f"({len(latencies)} sheets): median {median * 1000:.0f} ms (target ≤ "
            f"{LATENCY_MEDIAN_TARGET * 1000:.0f} ms), p95 {p95 * 1000:.0f} ms (target ≤ "
            f"{LATENCY_P95_TARGET * 1000:.0f} ms), max {latencies[-1] * 1000:.0f} ms"
        )
        if median > LATENCY_MEDIAN_TARGET or p95 > LATENCY_P95_TARGET:
            if args.mark_targets:
                print("  MARKED: the latency is over its target (see the load average above)")
            else:
                print("  FAILED: the latency is over its target")
                failed = True
    else:
        print("  FAILED: no viewer saw a saved deal")
        failed = True
    if tally.fetch_seconds:
        fetched = sorted(tally.fetch_seconds)
        print(
            f"  a sheet's fetch: median {statistics.median(fetched) * 1000:.0f} ms, p95 "
            f"{fetched[int(0.95 * (len(fetched) - 1))] * 1000:.0f} ms"
        )
    answers = sorted(at for (_, _), at in tally.saved.items())
    if answers and tally.heard:
        # Each event heard beside the save answered last before it at its table.
        gaps = []
        for table, heard_at in tally.heard:
            before = [a for (t, _), a in tally.saved.items() if t == table and a <= heard_at + 5]
            if before:
                gaps.append(heard_at - max(a for a in before if a <= heard_at + 5))
        if gaps:
            gaps.sort()
            print(
                f"  an event heard, beside its save's answer: median "
                f"{statistics.median(gaps) * 1000:+.0f} ms, p95 "
                f"{gaps[int(0.95 * (len(gaps) - 1))] * 1000:+.0f} ms"
            )
    saved_by_table: dict[int, set[int]] = {}
    for table, deal in tally.saved:
        saved_by_table.setdefault(table, set()).add(deal)
    viewers = [(t, s) for t, seen in tally.seen.items() for s in seen]
    blind = sum(1 for table, seen in viewers if saved_by_table.get(table, set()) - seen)
    print(
        f"  viewers who saw every deal saved at their table: {len(viewers) - blind} of "
        f"{len(viewers)} (target: all)"
    )
    if blind or not tally.saved:
        failed = True
    refusals = ", ".join(f"{why} × {n}" for why, n in sorted(tally.refused.items())) or "none"
    print(
        f"  errors: {len(tally.errors)} (target 0); stream openings refused and asked again, "
        f"as static/js/live.js does: {sum(tally.refused.values())} ({refusals})"
    )
    for message in tally.errors[:10]:
        print(f"    {message}")
    if tally.errors:
        failed = True
    cpu = figures["idle_cpu"]
    print(
        f"  the app servers' CPU while nothing changed ({args.idle_seconds} s, every stream "
        f"held): {cpu:.1%} of one core (target < {IDLE_CPU_TARGET:.0%}); sheets fetched "
        f"meanwhile: {figures['idle_fetches']:.0f}"
    )
    if cpu >= IDLE_CPU_TARGET:
        if args.mark_targets:
            print("  MARKED: idle viewers cost the app servers")
        else:
            print("  FAILED: idle viewers cost the app servers")
            failed = True
    bare = sum(b.requests_per_second for b, _ in polls)
    poll = sum(p.requests_per_second for _, p in polls)
    share = poll / bare if bare else 0.0
    mark = "" if share >= POLL_SHARE_TARGET else "  (below its target)"
    print(
        f"  the fallback poll (304, the version from the process's memory) under gunicorn, wrk 16 "
        f"connections, in turns with the bare view: {poll / len(polls):.0f} against "
        f"{bare / len(polls):.0f} requests/s, {share:.0%} of it (target ≥ "
        f"{POLL_SHARE_TARGET:.0%}){mark}; errors "
        f"{sum(b.errors + p.errors for b, p in polls)}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    sys.exit(main(sys.argv[1:]))
