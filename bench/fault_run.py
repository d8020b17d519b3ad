"""``make faults``: the site's dependencies taken away under load and given back.

The layout of ``make load`` (nginx, two gunicorn instances, one task worker), but on a
PostgreSQL cluster and a Redis of the run's own, on free loopback ports, which the run
stops and starts: the machine's own servers are never touched. While viewers poll a live
pulka, a scorer enters deals and a prober asks each server's ``/healthz`` five times a
second:

1. PostgreSQL stopped (``pg_ctl stop -m fast``, as a service manager does) for 30 s,
   then started. While it is down every answer must be the site's 503 (or a 200/304
   answered before the stop took hold); each server must answer ``/healthz`` 200 within
   5 s of the database's return, and from then on every answer must be a success. The
   task worker must still run (the same process) and run a task enqueued afterwards.
2. Every connection of the site cut by the server (``pg_terminate_backend``), PostgreSQL
   running on: each server's ``/healthz`` must be ok within 5 s, every answer from then on
   a success.
3. Redis killed for 30 s, then started. Every answer must be a success throughout (pages
   are made from the database meanwhile: slower), ``/healthz`` 200 ("degraded"), and
   each server must use Redis again within 5 s of its return.

Every deal the scorer was told saved must be stored, and none it was told failed. Prints
the answers by phase and status and each server's time to recover; exits 1 on a failure.
Its wall time: the faults take about 100 s, building the club (migrate, a small club) the rest.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench import load
from bench.live_load import KeepAlive, Scorer, Tally, nginx

PG_BIN = Path(os.environ.get("FAULTS_PG_BIN") or "/usr/lib/postgresql/15/bin")
RECOVERY_SECONDS = 5.0
"""The promise: each server serves again within this long of a dependency's return."""
OK = frozenset({200, 302, 304})


@dataclass
class Answers:
    """Every answer the clients got, by phase; guarded by ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    phase: str = "before"
    by_phase: dict[str, Counter[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    first_success: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per phase, per server: when its first successful page of that phase came back."""

    def count(self, phase: str, what: str) -> None:
        with self.lock:
            self.by_phase.setdefault(phase, Counter())[what] += 1

    def page(self, phase: str, status: int, upstream: str) -> None:
        self.count(phase, str(status))
        if status in OK:
            with self.lock:
                self.first_success.setdefault(phase, {}).setdefault(upstream, time.monotonic())


def allowed(phase: str, status: int) -> bool:
    """Whether ``status`` is a right answer to a request sent or answered during ``phase``
    (one sent just before the stop may be answered during the outage: 503 is right)."""
    if phase in ("database down", "database back", "connections cut"):
        return status in OK or status == 503
    return status in OK


# -- the run's own servers ---------------------------------------------------------------------


def _as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL's programs refuse to run as root: as the postgres user then."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class Cluster:
    """A PostgreSQL cluster of the run's own in a temporary folder, trusting the loopback."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.folder = Path(tempfile.mkdtemp(prefix="clubsite-faults-pg-"))
        self.data = self.folder / "data"
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        initdb = [str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"]
        subprocess.run(_as_postgres(initdb), check=True, capture_output=True)

    def pg_ctl(self, *args: str) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        command = [str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log")]
        command += ["-o", options, "-w", *args]
        subprocess.run(_as_postgres(command), check=True, capture_output=True)

    def start(self) -> None:
        self.pg_ctl("start")

    def stop(self) -> None:
        self.pg_ctl("stop", "-m", "fast")

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # stopped already
            self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


class Redis:
    """A redis-server of the run's own, killed and started again on the same port."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port)]
        command += ["--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        for _ in range(100):
            if subprocess.run(
                ["redis-cli", "-p", str(self.port), "ping"], capture_output=True, check=False
            ).stdout.startswith(b"PONG"):
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@contextmanager
def task_worker(env: dict[str, str], log: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``manage.py task_worker`` started again whenever it ends, as ``make serve-prod`` and
    systemd do: the list holds every process started (one, if it never ended)."""
    started: list[subprocess.Popen[bytes]] = []
    stopping = threading.Event()
    output = log.open("ab")

    def supervise() -> None:
        while not stopping.is_set():
            process = subprocess.Popen(
                [str(load.ROOT / ".venv" / "bin" / "python"), "manage.py", "task_worker"],
                cwd=load.ROOT,
                env=env,
                stdout=output,
                stderr=output,
            )
            started.append(process)
            process.wait()
            if not stopping.is_set():
                time.sleep(1)

    thread = threading.Thread(target=supervise, daemon=True)
    thread.start()
    try:
        yield started
    finally:
        stopping.set()
        if started:
            load.stop(started[-1], signal.SIGTERM)
        thread.join(timeout=10)
        output.close()


# -- the clients -------------------------------------------------------------------------------


def viewer(port: int, path: str, stop: float, answers: Answers) -> None:
    connection = KeepAlive("127.0.0.1", port, 10, Tally())
    while time.monotonic() < stop:
        sent = answers.phase
        try:
            response, _ = connection.request("GET", path)
        except OSError as error:
            answers.count(answers.phase, type(error).__name__)
            answers.problems.append(f"viewer ({sent}): {error!r}")
            connection.reopen()
            time.sleep(0.5)
            continue
        phase = answers.phase
        answers.page(phase, response.status, response.getheader("X-Upstream") or "?")
        if not (allowed(sent, response.status) or allowed(phase, response.status)):
            answers.problems.append(f"viewer ({sent}–{phase}): HTTP {response.status}")
        time.sleep(1.0)
    connection.close()


@dataclass
class Probe:
    """One server's ``/healthz`` answers: (when, status, body)."""

    port: int
    answers: list[tuple[float, int, dict[str, str]]] = field(default_factory=list)

    def run(self, stop: float) -> None:
        while time.monotonic() < stop:
            sent = time.monotonic()
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{self.port}/healthz", timeout=10
                ) as response:
                    status, body = response.status, json.loads(response.read())
            except urllib.error.HTTPError as error:
                status, body = error.code, json.loads(error.read() or b"{}")
            except OSError as error:
                status, body = 0, {"error": repr(error)}
            self.answers.append((sent, status, body))
            time.sleep(0.2)

    def recovered(self, since: float, part: str, until: float = float("inf")) -> float | None:
        """Seconds from ``since`` to the first answer sent after it with ``part`` ok,
        after which it stayed ok until ``until`` (the next fault, whose own failures are
        its own to count); None if it did not."""
        first = None
        for sent, _status, body in self.answers:
            if not since <= sent < until:
                continue
            ok = body.get(part) == "ok"
            first = (first or sent) if ok else None
        return None if first is None else first - since


class Scoring:
    """The scorer of the load run, counting what he was told: deals saved and not."""

    def __init__(self, port: int, table: int, username: str, names: list[str]) -> None:
        self.port, self.table, self.username, self.names = port, table, username, names
        self.saved = 0
        self.scorer: Scorer | None = None

    def run(self, stop: float, answers: Answers) -> None:
        while time.monotonic() < stop:
            sent = answers.phase
            try:
                if self.scorer is None:
                    self.scorer = Scorer(
                        "127.0.0.1", self.port, self.table, self.username, self.names, Tally()
                    )
                self.enter_one()
                answers.count(answers.phase, "deal saved")
                self.saved += 1
            except (OSError, RuntimeError) as error:
                phase = answers.phase
                said = str(error).removeprefix("scorer: ").split(" on ")[0]
                answers.count(phase, f"deal not saved: {said}")
                if not (said == "HTTP 503" and (allowed(sent, 503) or allowed(phase, 503))):
                    answers.problems.append(f"scorer ({sent}–{phase}): {error!r}")
            time.sleep(1.5)

    def enter_one(self) -> None:
        if self.scorer is None:
            raise RuntimeError("not signed in")
        path = f"/tables/{self.table}/"
        page = self.scorer.request("GET", path)
        form = {
            "kind": "passout",
            "csrfmiddlewaretoken": self.scorer.hidden(page, "csrfmiddlewaretoken"),
            "revision": self.scorer.hidden(page, "revision"),
            "write_key": str(uuid.uuid4()),
        }
        form |= {f"tricks:{n}": str(t) for n, t in zip(self.names, (4, 3, 3), strict=True)}
        self.scorer.request("POST", f"{path}deals/", form)
        if not self.scorer.saved(""):
            raise RuntimeError("the deal was not saved")


# -- the run -----------------------------------------------------------------------------------


def warm_up(port: int, paths: list[str]) -> None:
    """Each path asked through nginx until both servers' workers answer it in under a second
    (a worker's first page loads the templates and opens its pool): the run measures the
    faults, not a cold start on a busy machine."""
    for path in paths:
        quick = 0
        for _ in range(200):
            started = time.monotonic()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
                answer.read()
            quick = quick + 1 if time.monotonic() - started < 1 else 0
            if quick >= 8:
                break


def wait(seconds: float) -> None:
    time.sleep(max(0.0, seconds))


free = load.free_port


@dataclass(frozen=True)
class Layout:
    """A run on servers of its own, each on a free loopback port: nginx in front of two
    gunicorn instances, a PostgreSQL cluster (database ``clubsite_<name>``) and a Redis;
    its logs in a temporary folder, and the servers' environment."""

    name: str
    pg_port: int = field(default_factory=free)
    redis_port: int = field(default_factory=free)
    nginx_port: int = field(default_factory=free)
    server_ports: tuple[int, int] = field(
        default_factory=lambda: (load.free_port(), load.free_port())
    )
    logs: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="clubsite-run-")))

    @property
    def database(self) -> str:
        return f"clubsite_{self.name}"

    def environment(self, **more: str) -> dict[str, str]:
        url = f"postgres://postgres@127.0.0.1:{self.pg_port}/{self.database}"
        return load.environment(url) | {
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "DJANGO_TRUSTED_PROXY_COUNT": "1",
            "GUNICORN_MAX_REQUESTS": "0",
            **more,
        }


def own_database_and_cache(
    stack: ExitStack, layout: Layout, env: dict[str, str]
) -> tuple[Cluster, Redis]:
    """The ``layout``'s own PostgreSQL cluster (with its database) and Redis, both taken
    down with ``stack``, and Django set up on them in this process (``env``): migrated,
    static files collected. The fault, kill and crowd runs start from this."""
    cluster = Cluster(layout.pg_port)
    stack.callback(cluster.remove)
    cluster.start()
    createdb = ["createdb", "-h", "127.0.0.1", "-p", str(layout.pg_port), "-U", "postgres"]
    subprocess.run([*createdb, layout.database], check=True)
    redis = Redis(layout.redis_port)
    redis.start()
    stack.callback(redis.kill)
    print(f"Logs: {layout.logs}; load average {os.getloadavg()[0]:.1f}")

    os.environ.update(env)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    return cluster, redis


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fault_run")
    parser.add_argument("--outage", type=float, default=30.0, help="seconds each is down")
    parser.add_argument("--viewers", type=int, default=10)
    args = parser.parse_args(argv)

    if not (PG_BIN / "initdb").exists() or shutil.which("redis-server") is None:
        print("make faults needs PostgreSQL 15's programs (FAULTS_PG_BIN) and redis-server")
        return 1
    layout = Layout("faults")
    pg_port, nginx_port = layout.pg_port, layout.nginx_port
    server_ports, logs = layout.server_ports, layout.logs
    env = layout.environment(DJANGO_TASKS="database")
    answers = Answers()
    with ExitStack() as stack:
        cluster, redis = own_database_and_cache(stack, layout, env)
        from bench import data

        built = data.build(members=12, tables=30, live_deals=20, log=lambda m: None)
        live = built["live"]
        seats = list(live.seats.order_by("position"))
        names = [seat.name for seat in seats]
        before = live.deal_records.filter(deleted=False).count()
        from bench.site import release_connections

        release_connections()  # the run's own pool would also be cut; it reads afresh

        for port in server_ports:
            stack.enter_context(load.gunicorn(env, port=port, log=logs / f"gunicorn-{port}.log"))
        stack.enter_context(nginx(nginx_port, server_ports))
        workers = stack.enter_context(task_worker(env, logs / "worker.log"))

        warm_up(nginx_port, [f"/tables/{live.pk}/live/", f"/tables/{live.pk}/", "/"])
        started = time.monotonic()
        settle, after = 5.0, 8.0
        stop = started + settle + 2 * (args.outage + RECOVERY_SECONDS + after) + 2
        stop += RECOVERY_SECONDS + after
        probes = [Probe(port) for port in server_ports]
        scoring = Scoring(nginx_port, live.pk, seats[0].member.username, names)
        threads = [threading.Thread(target=p.run, args=(stop,)) for p in probes]
        threads.append(threading.Thread(target=scoring.run, args=(stop - 1, answers)))
        threads += [
            threading.Thread(
                target=viewer, args=(nginx_port, f"/tables/{live.pk}/live/", stop, answers)
            )
            for _ in range(args.viewers)
        ]
        for thread in threads:
            thread.start()

        wait(started + settle - time.monotonic())
        answers.phase = "database down"
        down_at = time.monotonic()
        cluster.stop()
        wait(down_at + args.outage - time.monotonic())
        cluster.start()
        database_back = time.monotonic()
        answers.phase = "database back"
        wait(database_back + RECOVERY_SECONDS - time.monotonic())
        answers.phase = "after the database"
        worker_ran = ran_after(database_back)
        wait(database_back + RECOVERY_SECONDS + after - time.monotonic())

        # Every connection of the site cut by the server (an administrator's
        # pg_terminate_backend, an idle timeout), PostgreSQL itself running on.
        answers.phase = "connections cut"
        cut_at = time.monotonic()
        cut = terminate_connections(pg_port)
        wait(cut_at + RECOVERY_SECONDS - time.monotonic())
        answers.phase = "after the cut"
        wait(cut_at + RECOVERY_SECONDS + after - time.monotonic())

        answers.phase = "cache down"
        redis.kill()
        cache_down = time.monotonic()
        wait(cache_down + args.outage - time.monotonic())
        redis.start()
        cache_back = time.monotonic()
        answers.phase = "cache back"
        wait(cache_back + RECOVERY_SECONDS - time.monotonic())
        answers.phase = "after the cache"
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        from django.db import connections

        connections.close_all()
        stored = live.deal_records.filter(deleted=False).count() - before
        connections.close_all()

    return report(
        args,
        answers,
        probes,
        database_back=database_back,
        cache_back=cache_back,
        cache_down=cache_down,
        worker_ran=worker_ran,
        worker_processes=len(workers),
        cut=cut,
        cut_at=cut_at,
        told_saved=scoring.saved,
        stored=stored,
        elapsed=elapsed,
    )


def terminate_connections(port: int) -> int:
    """How many of the site's connections the server was told to close."""
    import psycopg

    with psycopg.connect(
        f"postgresql://postgres@127.0.0.1:{port}/postgres", autocommit=True
    ) as admin:
        cursor = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = 'clubsite_faults' AND pid <> pg_backend_pid()"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def ran_after(since: float) -> float | None:
    """A task enqueued now (an e-mail, written to the worker's console): seconds until the
    worker ran it, None if not within 20 s."""
    from django.db import DatabaseError, connections
    from django.tasks.base import TaskResultStatus

    from members.tasks import send_email

    queued = time.monotonic()
    for _ in range(200):
        try:
            result = send_email.enqueue(subject="fault run", body="-", to=["a@example.com"])
            break
        except DatabaseError:  # the database may still be starting
            connections.close_all()  # a broken connection is dropped, the next is new
            time.sleep(0.1)
    else:
        return None
    while time.monotonic() < queued + 20:
        result.refresh()
        if result.status == TaskResultStatus.SUCCESSFUL:
            return time.monotonic() - queued
        time.sleep(0.1)
    return None


def report(
    args: argparse.Namespace,
    answers: Answers,
    probes: list[Probe],
    *,
    database_back: float,
    cache_down: float,
    cache_back: float,
    worker_ran: float | None,
    worker_processes: int,
    cut: int,
    cut_at: float,
    told_saved: int,
    stored: int,
    elapsed: float,
) -> int:
    failed = False
    print(
        f"Fault run: {args.viewers} viewers polling every second and a scorer entering a deal "
        f"every 1.5 s, through nginx to two gunicorn instances; PostgreSQL stopped "
        f"{args.outage:.0f} s, every connection cut, then Redis killed {args.outage:.0f} s "
        f"({elapsed:.0f} s):"
    )
    for phase, counted in answers.by_phase.items():
        shown = ", ".join(f"{what}: {n}" for what, n in sorted(counted.items()))
        print(f"  {phase:<20} {shown}")
    for probe in probes:
        database = probe.recovered(database_back, "database", until=cut_at)
        cache = probe.recovered(cache_back, "cache")
        during = [
            (status, body.get("status"))
            for sent, status, body in probe.answers
            if cache_down + 1 < sent < cache_back
        ]
        shown_during = dict(Counter(f"{s} {w}" for s, w in during))
        print(
            f"  server :{probe.port}: /healthz ok again {_seconds(database)} after PostgreSQL "
            f"came back; cache in use again {_seconds(cache)} after Redis came back; "
            f"/healthz while Redis was down: {shown_during}"
        )
        after_cut = probe.recovered(cut_at, "database", until=cache_down)
        print(f"    /healthz ok {_seconds(after_cut)} after the {cut} connections were cut")
        if after_cut is None or after_cut > RECOVERY_SECONDS:
            failed = True
        if database is None or database > RECOVERY_SECONDS:
            failed = True
        if cache is None or cache > RECOVERY_SECONDS:
            failed = True
        if any(status != 200 for status, _ in during):
            failed = True
    for phase in ("database back", "after the database"):
        firsts = answers.first_success.get(phase, {})
        if firsts:
            shown = ", ".join(
                f"{upstream} {max(0.0, t - database_back):.1f} s"
                for upstream, t in sorted(firsts.items())
            )
            print(f"  first page served after PostgreSQL came back ({phase}): {shown}")
            break
    print(
        f"  task worker: {worker_processes} process(es) over the run; a task enqueued after "
        f"PostgreSQL came back ran {_seconds(worker_ran)} later"
    )
    if worker_ran is None or worker_processes != 1:
        failed = True
    print(f"  deals the scorer was told saved: {told_saved}; stored: {stored}")
    if told_saved != stored:
        failed = True
    for problem in answers.problems[:10]:
        print(f"    {problem}")
    if answers.problems:
        print(f"  {len(answers.problems)} wrong answer(s)")
        failed = True
    print("  FAILED" if failed else "  passed")
    return 1 if failed else 0


def _seconds(value: float | None) -> str:
    return "never" if value is None else f"{value:.1f} s"


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    sys.exit(main(sys.argv[1:]))
