"""The connection pool's check of a connection it is about to hand out (``check`` in
``DATABASES["default"]["OPTIONS"]["pool"]``, clubsite/settings.py), and the breaker that
answers requests at once while the pool cannot reach the database."""

from __future__ import annotations

import select
import threading
from typing import Any, Self

import psycopg


def unbroken(connection: Any) -> None:
    """Close ``connection`` and raise when the server has closed it while it waited in the
    pool, without a round trip to the server: an idle connection in autocommit receives
    nothing, so anything readable on its socket is the server saying goodbye (a restart,
    an administrator's ``pg_terminate_backend``, an idle timeout) or its end-of-file.

    Raising alone is not enough: psycopg_pool (3.3) puts a connection that failed its
    check back in the pool unless its status says it is closed, and hands it out again at
    the next try — every request then failed the check on the same dead connections until
    the pool's timeout (503 for as long as the processes lived). Closed here, the pool
    drops it and opens a new one in its place.

    A query per request (psycopg_pool's own ``check_connection``, Django's
    ``CONN_HEALTH_CHECKS``) would find the same, at the cost of a round trip on every
    request: the idle live poll is otherwise one indexed lookup.

    One dead connection means the others waiting beside it are most likely dead too (a
    restart closes them all): they are checked at once, each with an empty query
    (psycopg_pool's ``check()``), and the dead ones replaced. Left to this check one by
    one, each would cost the request a pause (psycopg_pool waits 1, 2, 4… s between two
    tries): four dead connections outlasted the request's 5 s and it answered 503 with
    the database up."""
    if connection.closed or connection.broken:
        _drop(connection)
        raise psycopg.OperationalError("the connection was closed")
    readable, _, _ = select.select([connection.fileno()], [], [], 0)
    if readable:
        _drop(connection)
        raise psycopg.OperationalError("the server closed the connection")
    if OUTAGE.failing:  # a connection that works: the database is back
        OUTAGE.connected()


def _drop(connection: Any) -> None:
    connection.close()
    pool = getattr(connection, "_pool", None)  # set while the pool hands it out
    if pool is not None:
        pool.check()


class Outage:
    """Whether this process's pool can reach the database, from its attempts to connect:
    the breaker in front of the pool (``DatabaseUnavailableMiddleware``).

    While the database is down, a request that asks the pool for a connection waits its
    whole timeout (``DJANGO_DB_CONNECT_TIMEOUT``, 5 s) before the 503, holding a gunicorn
    thread: ten viewers got 37 answers in 30 s, and a busier site would queue at nginx.
    Once an attempt to connect has failed, and none has succeeded since, with no idle
    connection in the pool, a request is answered 503 at once — all but one at a time,
    which goes on to the pool and so keeps it trying: its success closes the breaker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failing = False
        self._trying = False

    def connected(self) -> None:
        with self._lock:
            self._failing = False

    def failed(self) -> None:
        with self._lock:
            self._failing = True

    def refuse(self) -> bool:
        """True: answer 503 now. False: go on; ``tried()`` must follow when this request
        ends if it was the one let through."""
        with self._lock:
            if not self._failing:
                return False
            if self._trying:
                return True
            self._trying = True
            return False

    def tried(self) -> None:
        with self._lock:
            self._trying = False

    @property
    def failing(self) -> bool:
        return self._failing


OUTAGE = Outage()


class WatchedConnection(psycopg.Connection[Any]):
    """The pool's connections (``connection_class``), telling ``OUTAGE`` whether each
    attempt to connect succeeded."""

    @classmethod
    def connect(cls, *args: Any, **kwargs: Any) -> Self:
        try:
            connection = super().connect(*args, **kwargs)
        except psycopg.OperationalError:
            OUTAGE.failed()
            raise
        OUTAGE.connected()
        return connection
