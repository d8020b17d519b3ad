"""The connection pool (``OPTIONS["pool"]``, clubsite/settings.py) in a process of its own,
as gunicorn runs it: a database outage still answers "try again" (503), and a pooled
connection the server closed is replaced before a request gets it."""

from __future__ import annotations

import json
import os

import pytest

from tests.clubsite.test_operations import OUTAGE, closed_port, run_python

pytestmark = pytest.mark.slow  # the site in a process of its own

POOLED = {"DJANGO_DB_POOL": "1", "DJANGO_DB_CONNECT_TIMEOUT": "1"}


def test_a_database_outage_with_the_pool_still_answers_503_try_again():
    result = run_python(
        OUTAGE,
        DATABASE_URL=f"postgres://club@127.0.0.1:{closed_port()}/clubsite",
        DJANGO_ALLOWED_HOSTS="testserver",
        **POOLED,
    )
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    assert answers["healthz"]["status"] == 503
    for name in ("home", "tables", "table"):
        assert (answers[name]["status"], answers[name]["retry_after"]) == (503, "30"), name
    assert "Database unavailable, answered 503: OperationalError" in result.stderr
    assert "Traceback" not in result.stderr


TERMINATED = """
import json, time, django, psycopg
django.setup()
from django.conf import settings
from django.db import connection
from django.test import Client
client = Client()
statuses = [client.get("/healthz").status_code]
with connection.cursor() as cursor:  # the pool's one connection, taken and given back
    cursor.execute("SELECT pg_backend_pid()")
    pid = cursor.fetchone()[0]
connection.close()
pool = connection.pool
with psycopg.connect(%(admin)r, autocommit=True) as admin:
    admin.execute("SELECT pg_terminate_backend(%%s)", [pid])
time.sleep(0.5)  # the server's goodbye reaches the pooled connection's socket
statuses += [client.get("/healthz").status_code for _ in range(3)]
with connection.cursor() as cursor:
    cursor.execute("SELECT pg_backend_pid()")
    replaced = cursor.fetchone()[0] != pid
print(json.dumps({"statuses": statuses, "replaced": replaced, "pooled": pool is not None}))
"""


def test_a_pooled_connection_the_server_closed_is_replaced_without_an_error():
    """An administrator's pg_terminate_backend (or a restart) closes the pooled connection:
    the next requests all answer 200 on a new one, with no query to check it first."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        pytest.skip("needs PostgreSQL: DATABASE_URL=postgres://… (the pool is PostgreSQL's)")
    admin = url.rsplit("/", 1)[0] + "/postgres"
    result = run_python(
        TERMINATED % {"admin": admin},
        DATABASE_URL=admin,
        DJANGO_ALLOWED_HOSTS="testserver",
        **POOLED,
    )
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    assert answers == {"statuses": [200, 200, 200, 200], "replaced": True, "pooled": True}
    assert "Database unavailable" not in result.stderr


EVERY_ONE_TERMINATED = """
import json, threading, time, django, psycopg
django.setup()
from django.db import connection
from django.test import Client
pids, barrier = [], threading.Barrier(4)
def hold():  # four requests at once: the pool grows to its four connections
    from django.db import connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pids.append(cursor.fetchone()[0])
        barrier.wait()
    connection.close()
threads = [threading.Thread(target=hold) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
pooled = connection.pool.get_stats()["pool_available"]
with psycopg.connect(%(admin)r, autocommit=True) as admin:
    admin.execute("SELECT pg_terminate_backend(pid) FROM unnest(%%s::int[]) AS pid", [pids])
time.sleep(0.5)
client, answers = Client(), []
for _ in range(5):
    started = time.monotonic()
    status = client.get("/healthz").status_code
    answers.append((status, time.monotonic() - started))
print(json.dumps({"pooled": pooled, "answers": answers}))
"""


def test_every_pooled_connection_terminated_costs_the_next_request_a_second_at_most():
    """A restart (or pg_terminate_backend on all of them) kills every idle connection of
    the pool at once. psycopg_pool 3.3 put a connection that failed the check back in the
    pool, and every request then failed on the same dead ones until its timeout: 503 for
    as long as the process lived. Now the first request finds them all replaced."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        pytest.skip("needs PostgreSQL: DATABASE_URL=postgres://… (the pool is PostgreSQL's)")
    admin = url.rsplit("/", 1)[0] + "/postgres"
    result = run_python(
        EVERY_ONE_TERMINATED % {"admin": admin},
        DATABASE_URL=admin,
        DJANGO_ALLOWED_HOSTS="testserver",
        DJANGO_DB_POOL="1",
    )
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    assert answers["pooled"] == 4
    assert [status for status, _ in answers["answers"]] == [200] * 5
    first, *then = (seconds for _, seconds in answers["answers"])
    assert first < 2.5  # the pool's pause before its next try (1 s), and new connections
    assert max(then) < 0.5
    assert "Database unavailable" not in result.stderr


REFUSED_AT_ONCE = """
import json, threading, time, django
django.setup()
from django.conf import settings
settings.DEBUG = False
from django.test import Client
def timed(path):
    started = time.monotonic()
    status = Client().get(path).status_code
    return status, time.monotonic() - started
first = timed("/")  # waits the pool's timeout: the pool learns the database is down
trying = threading.Thread(target=timed, args=("/tables/",))  # the one let through
trying.start()
time.sleep(0.2)
meanwhile = [timed("/") for _ in range(5)]
trying.join()
print(json.dumps({"first": first, "meanwhile": meanwhile, "healthz": timed("/healthz")}))
"""


def test_while_the_pool_cannot_connect_requests_are_answered_503_at_once():
    """Each request of an outage waited the pool's whole timeout for its 503, holding a
    gunicorn thread. Once the pool's attempt to connect has failed, one request at a time
    goes on to the pool; the others are answered at once."""
    result = run_python(
        REFUSED_AT_ONCE,
        DATABASE_URL=f"postgres://club@127.0.0.1:{closed_port()}/clubsite",
        DJANGO_ALLOWED_HOSTS="testserver",
        **POOLED,
    )
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    assert answers["first"][0] == 503 and answers["first"][1] >= 0.9  # the timeout: 1 s
    assert [status for status, _ in answers["meanwhile"]] == [503] * 5
    assert max(seconds for _, seconds in answers["meanwhile"]) < 0.3
    assert answers["healthz"][0] == 503  # the health check asks the pool itself
