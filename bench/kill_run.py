"""``make kills``: gunicorn workers killed (``kill -9``) while scorers save deals.

The layout of ``make faults`` (nginx, two gunicorn instances of two workers, a PostgreSQL
cluster and a Redis of the run's own on free loopback ports): for 45 s four scorers, each
at a pulka of his own, save pass-outs through the real form while twelve viewers poll the
live sheets, and every 4.5 s one worker is killed with SIGKILL (ten kills; its master
starts another). A save whose answer is lost (the worker died: nginx answers 502, or the
connection drops) is sent again with the same key, as the outbox does (``static/js/
outbox.js``), at the revision the table shows now, or every other time at the one it was
drawn at, until it is answered.

Issue 35 item 2: a deal stored whose answer was lost, resent at the table's current
revision, was answered 500. The run fails unless: no answer is a 500; every save told
saved is stored once (0 lost, 0 doubled: the tables hold exactly the deals answered); and
every resend is answered as the first (200, and ``X-Table-Revision`` the revision the
deal made: the one after the revision it was drawn at, the scorer being alone at his
table). Prints the answers by status, the kills and the resends; exits 1 on a failure.
Wall time: about 50 s of kills, the setup (a cluster, migrate, a small club) the rest.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from bench import load
from bench.fault_run import PG_BIN, Layout, own_database_and_cache, warm_up
from bench.live_load import KeepAlive, Tally, nginx

KILLS, KILL_EVERY = 10, 4.5
SCORERS, VIEWERS = 4, 12
RESENDS = 40
"""The most times one save is sent again (a bound: each waits 0.3 s)."""


@dataclass
class Outcome:
    """What every client was answered; guarded by ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    statuses: Counter[tuple[str, str]] = field(default_factory=Counter)
    sent: set[str] = field(default_factory=set)  # every save's key
    answered: dict[str, int] = field(default_factory=dict)  # key: X-Table-Revision
    resent: int = 0  # saves answered after at least one resend
    resends: int = 0  # requests sent again
    stored_first: int = 0  # saves stored though their answer was lost, then sent again
    problems: list[str] = field(default_factory=list)
    posting: dict[str, float] = field(default_factory=dict)  # key: when its POST was sent

    def count(self, who: str, what: str) -> None:
        with self.lock:
            self.statuses[who, what] += 1

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)


def workers(masters: list[subprocess.Popen[bytes]], logs: list[Path]) -> list[int]:
    """The worker processes the run's gunicorn masters have now: their children that the
    logs say booted as workers (a master has other children: its control socket's)."""
    booted = set()
    for log in logs:
        booted |= {
            int(pid) for pid in re.findall(r"Booting worker with pid: (\d+)", log.read_text())
        }
    found = []
    for master in masters:
        children = Path(f"/proc/{master.pid}/task/{master.pid}/children")
        try:
            found += [int(pid) for pid in children.read_text().split() if int(pid) in booted]
        except OSError:
            continue
    return found


def cpu(pid: int) -> int:
    """The process's CPU time so far, in clock ticks (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime, stime


def killer(
    masters: list[subprocess.Popen[bytes]],
    logs: list[Path],
    start: float,
    kills: list[int],
    outcome: Outcome,
) -> None:
    """One worker of the run's own killed with SIGKILL every ``KILL_EVERY`` seconds: while
    a save has been in flight for a random 20–300 ms (waiting up to a second for one),
    the busiest worker, which is likely saving it or drawing its answer, so that some
    deals are stored and their answers lost."""
    rng = random.Random(35)
    for n in range(KILLS):
        time.sleep(max(0.0, start + (n + 1) * KILL_EVERY - time.monotonic()))
        give_up, into = time.monotonic() + 1.0, rng.uniform(0.02, 0.3)
        while time.monotonic() < give_up:
            with outcome.lock:
                oldest = min(outcome.posting.values(), default=None)
            if oldest is not None and time.monotonic() - oldest > into:
                break
            time.sleep(0.005)
        alive = workers(masters, logs)
        if alive:
            before = {pid: cpu(pid) for pid in alive}
            time.sleep(0.02)
            busiest = max(cpu(pid) - before[pid] for pid in alive)
            pid = rng.choice([p for p in alive if cpu(p) - before[p] >= busiest])
            try:
                os.kill(pid, signal.SIGKILL)
                kills.append(pid)
            except ProcessLookupError:
                continue


class Client:
    """A member signed in through the real form, sending htmx requests as the page does."""

    def __init__(self, port: int, username: str) -> None:
        self.connection = KeepAlive("127.0.0.1", port, 30, Tally())
        self.cookies: dict[str, str] = {}
        for _ in range(20):  # a worker killed under the sign-in: sign in again
            page = self.page("/members/sign-in/")
            form = {"username": username, "password": "bench"}
            form["csrfmiddlewaretoken"] = hidden(page, "csrfmiddlewaretoken")
            with contextlib.suppress(OSError):
                if self.send("POST", "/members/sign-in/", form)[0] in (200, 302):
                    return
            time.sleep(0.2)
        raise RuntimeError("could not sign in")

    def send(
        self, method: str, path: str, form: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        """The status, headers and text of the answer; ``OSError`` when none came."""
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers |= {
                "Content-Type": "application/x-www-form-urlencoded",
                "Referer": f"http://127.0.0.1{path}",
                "HX-Request": "true",
            }
        try:
            response, content = self.connection.request(method, path, body=body, headers=headers)
        except (OSError, http.client.HTTPException) as error:  # no (whole) answer came
            self.connection.reopen()
            raise OSError(repr(error)) from error
        for cookie in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        return response.status, dict(response.headers.items()), content.decode()

    def page(self, path: str) -> str:
        """A page, asked again (a bounded number of times) while no answer comes."""
        for _ in range(150):  # nginx rests a server that failed for 10 s
            try:
                status, _headers, text = self.send("GET", path)
            except OSError:
                time.sleep(0.2)
                continue
            if status == 200:
                return text
            time.sleep(0.2)
        raise RuntimeError(f"no page at {path}")


def hidden(page: str, name: str) -> str:
    match = re.search(rf'name="{name}" value="([^"]+)"', page)
    if not match:
        raise RuntimeError(f"no {name} on the page")
    return match.group(1)


def scorer(
    port: int, table: int, username: str, names: list[str], stop: float, outcome: Outcome
) -> None:
    """Pass-outs saved at ``table`` until ``stop``; a save whose answer is lost is sent
    again with its key until it is answered."""
    try:
        save_deals(Client(port, username), table, names, stop, outcome)
    except (OSError, RuntimeError) as error:  # the run fails, saying why
        outcome.problem(f"scorer at {table} stopped: {error!r}")


def save_deals(client: Client, table: int, names: list[str], stop: float, outcome: Outcome) -> None:
    path = f"/tables/{table}/"
    tricks = {f"tricks:{n}": str(t) for n, t in zip(names, (4, 3, 3), strict=True)}
    while time.monotonic() < stop:
        page = client.page(path)
        drawn = int(hidden(page, "revision"))
        key = str(uuid.uuid4())
        with outcome.lock:
            outcome.sent.add(key)
        form = {"kind": "passout", "write_key": key, "revision": str(drawn), **tricks}
        form["csrfmiddlewaretoken"] = hidden(page, "csrfmiddlewaretoken")
        for attempt in range(RESENDS + 1):
            with outcome.lock:
                outcome.posting[key] = time.monotonic()
            try:
                status, headers, _text = client.send("POST", f"{path}deals/", form)
            except OSError:
                status, headers = 0, {}
                outcome.count("scorer", "no answer")
            else:
                outcome.count("scorer", f"HTTP {status}")
            finally:
                with outcome.lock:
                    del outcome.posting[key]
            if status == 200 and "X-Table-Revision" in headers:
                made = int(headers["X-Table-Revision"])
                with outcome.lock:
                    outcome.answered[key] = made
                    outcome.resent += attempt > 0
                if made != drawn + 1:
                    outcome.problem(f"{key}: answered revision {made}, drawn at {drawn}")
                break
            if status not in (0, 502, 504):  # not an answer lost on the way
                outcome.problem(f"scorer at {table}: HTTP {status} for {key}")
                break
            with outcome.lock:
                outcome.resends += 1
            time.sleep(0.3)
            # As the outbox: sent again at the revision the table shows now (the deal's own
            # if it was stored), every other time at the one it was drawn at.
            now = hidden(client.page(path), "revision") if attempt % 2 == 0 else str(drawn)
            if now == str(drawn + 1) and form["revision"] != now:  # stored, answer lost
                with outcome.lock:
                    outcome.stored_first += 1
            form["revision"] = now
        else:
            outcome.problem(f"scorer at {table}: {key} never answered")


def viewer(port: int, path: str, stop: float, outcome: Outcome) -> None:
    connection = KeepAlive("127.0.0.1", port, 10, Tally())
    while time.monotonic() < stop:
        try:
            response, _ = connection.request("GET", path)
        except (OSError, http.client.HTTPException) as error:
            outcome.count("viewer", type(error).__name__)
            connection.reopen()
        else:
            upstream = "" if response.status == 200 else response.getheader("X-Upstream") or "?"
            outcome.count("viewer", f"HTTP {response.status} {upstream}".strip())
            if response.status == 500:
                outcome.problem(f"viewer: HTTP 500 on {path}")
        time.sleep(1.0)
    connection.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.kill_run")
    parser.parse_args(argv)
    if not (PG_BIN / "initdb").exists() or shutil.which("redis-server") is None:
        print("make kills needs PostgreSQL 15's programs (FAULTS_PG_BIN) and redis-server")
        return 1
    layout = Layout("kills")
    nginx_port, server_ports, logs = layout.nginx_port, layout.server_ports, layout.logs
    env = layout.environment()
    outcome = Outcome()
    kills: list[int] = []
    with ExitStack() as stack:
        own_database_and_cache(stack, layout, env)
        from bench import data
        from scoring import services
        from scoring.models import DealRecord, Table, WriteKey

        built = data.build(members=12, tables=10, live_deals=20, log=lambda m: None)
        club, live = built["members"], built["live"]
        tables = [live]
        for n in range(1, SCORERS):
            seated = club[3 * n : 3 * n + 3]
            tables.append(
                services.table_open(
                    game=Table.PREFERANS,
                    version=live.preferans_version,
                    members=seated,
                    by=seated[0],
                    pool_target=10_000,
                )
            )
        seats = [list(t.seats.order_by("position").select_related("member")) for t in tables]
        last_before = DealRecord.objects.order_by("-pk").values_list("pk", flat=True).first()
        from bench.site import release_connections

        release_connections()

        server_logs = [logs / f"gunicorn-{port}.log" for port in server_ports]
        masters = [
            stack.enter_context(load.gunicorn(env, port=port, log=log))[1]
            for port, log in zip(server_ports, server_logs, strict=True)
        ]
        stack.enter_context(nginx(nginx_port, server_ports))
        warm_up(nginx_port, [f"/tables/{live.pk}/live/", f"/tables/{live.pk}/", "/"])

        started = time.monotonic()
        stop = started + (KILLS + 1) * KILL_EVERY
        threads = [
            threading.Thread(target=killer, args=(masters, server_logs, started, kills, outcome))
        ]
        threads += [
            threading.Thread(
                target=scorer,
                args=(
                    nginx_port,
                    table.pk,
                    seated[0].member.username,
                    [seat.name for seat in seated],
                    stop,
                    outcome,
                ),
            )
            for table, seated in zip(tables, seats, strict=True)
        ]
        threads += [
            threading.Thread(
                target=viewer,
                args=(nginx_port, f"/tables/{tables[n % SCORERS].pk}/live/", stop, outcome),
            )
            for n in range(VIEWERS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started

        from django.db import connections

        connections.close_all()
        new = DealRecord.objects.filter(table__in=tables, pk__gt=last_before or 0)
        stored = new.count()
        keys = {str(k.key): k for k in WriteKey.objects.filter(table__in=tables)}
        lost = [
            key
            for key, made in outcome.answered.items()
            if key not in keys or keys[key].revision != made or keys[key].deal_id is None
        ]
        kept_deals = {k.deal_id for k in keys.values() if k.deal_id is not None}
        # A deal under no key sent, or under none at all, is one stored twice.
        unkeyed = new.exclude(pk__in=kept_deals).count()
        unkeyed += sum(1 for key, kept in keys.items() if key not in outcome.sent and kept.deal_id)
        unanswered = len(outcome.sent) - len(outcome.answered)
        connections.close_all()

    doubled = unkeyed
    print(f"{len(kills)} workers killed (kill -9) in {elapsed:.0f} s")
    for (who, what), n in sorted(outcome.statuses.items()):
        print(f"  {who:7} {what:24} {n:6}")
    print(
        f"deals answered saved {len(outcome.answered)}, stored {stored}; lost {len(lost)}, "
        f"doubled {doubled}; {outcome.resends} resends, {outcome.resent} saves answered "
        f"after a resend ({outcome.stored_first} stored the first time, sent again at the "
        "revision they made), each as the first"
    )
    failures = list(outcome.problems)
    errors = sum(n for (_who, what), n in outcome.statuses.items() if what == "HTTP 500")
    if errors:
        failures.append(f"{errors} answers 500")
    if lost or doubled:
        failures.append(f"{len(lost)} lost, {doubled} doubled ({stored} stored)")
    if unanswered:
        failures.append(f"{unanswered} saves never answered")
    if len(kills) < KILLS:
        failures.append(f"only {len(kills)} kills")
    for failure in failures[:20]:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
