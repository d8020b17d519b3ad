"""Two scorers saving at once on the quick start's SQLite (issue 19): the attack got a 500
("database is locked") in 19 rounds of 20. With ``transaction_mode = "IMMEDIATE"``
(clubsite/settings.py) each save waits for the write lock: no 5xx, and each deal is stored
once — the second post of a round is either stored after the first or refused with the
"another deal was saved meanwhile" message.

Real HTTP: the site under ``manage.py runserver`` (a thread per request) on a file SQLite
database of its own, two threads posting at the same moment. Not the test database: this
runs alike whichever database the rest of the run uses.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

pytestmark = pytest.mark.slow  # runserver on a database of its own

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 20
SETUP = """
import json
from django.test import Client
from tests import factories
players = [factories.member(n, username=n.lower()) for n in ("Anna", "Boris", "Vera")]
table = factories.pulka(players, pool_target=10_000)
cookies = []
for member in players[:2]:
    client = Client()
    client.force_login(member)
    cookies.append(client.cookies["sessionid"].value)
print(json.dumps({"table": table.pk, "sessions": cookies}))
"""
PASSOUT = {"kind": "passout", "tricks:Anna": "4", "tricks:Boris": "3", "tricks:Vera": "3"}
STALE = "While you were entering it, the table changed"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[int, Path, dict[str, object]]]:
    """A migrated file database with a pulka for Anna, Boris and Vera; the site serving it
    on a free port; (port, database file, {table, sessions})."""
    database = tmp_path / "club.sqlite3"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DATABASE_URL": f"sqlite:///{database}",
        "DJANGO_DEBUG": "1",
        "DJANGO_LOG_LEVEL": "WARNING",
    }

    def manage(*args: str) -> str:
        run = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr
        return run.stdout

    manage("migrate", "--noinput")
    world = json.loads(manage("shell", "-c", SETUP).strip().splitlines()[-1])
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert server.poll() is None, server.communicate()[1]
                assert time.monotonic() < deadline, "the site did not start"
                time.sleep(0.2)
        yield port, database, world
    finally:
        server.terminate()
        server.wait(timeout=30)


def live_deals(database: Path, table: int) -> int:
    with sqlite3.connect(database) as db:
        (count,) = db.execute(
            "SELECT count(*) FROM scoring_dealrecord WHERE table_id = ? AND NOT deleted",
            (table,),
        ).fetchone()
    return int(count)


def test_two_scorers_saving_at_once_get_no_5xx(site: tuple[int, Path, dict[str, object]]) -> None:
    port, database, world = site
    table = world["table"]
    sessions = world["sessions"]
    assert isinstance(sessions, list)
    path = f"/tables/{table}/deals/"
    csrf = "a" * 32  # the CSRF check compares the cookie with the header
    statuses: list[int] = []
    stale = 0
    lock = threading.Lock()

    def post(session: str, count: int, barrier: threading.Barrier) -> None:
        nonlocal stale
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        body = urlencode({**PASSOUT, "revision": count})  # only deals: revision = deals
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"sessionid={session}; csrftoken={csrf}",
            "X-CSRFToken": csrf,
            "Accept-Language": "en",
        }
        barrier.wait()
        connection.request("POST", path, body, headers)
        response = connection.getresponse()
        page = response.read().decode("utf-8", "replace")
        connection.close()
        with lock:
            statuses.append(response.status)
            if response.status == 409:
                assert STALE in page, page[:2000]
                stale += 1

    for _round in range(ROUNDS):
        before = live_deals(database, int(str(table)))
        barrier = threading.Barrier(2)
        threads = [
            threading.Thread(target=post, args=(session, before, barrier)) for session in sessions
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=90)
        added = live_deals(database, int(str(table))) - before
        assert added in (1, 2), f"round {_round}: {added} deals stored"

    server_errors = [status for status in statuses if status >= 500]
    assert not server_errors, f"{len(server_errors)} of {len(statuses)} posts answered 5xx"
    assert len(statuses) == 2 * ROUNDS
    assert set(statuses) <= {302, 409}
    saved = statuses.count(302)
    assert live_deals(database, int(str(table))) == saved
    assert saved + stale == 2 * ROUNDS
