"""The connection pool's check of a connection it is about to hand out (``check`` in
``DATABASES["default"]["OPTIONS"]["pool"]``, clubsite/settings.py)."""

from __future__ import annotations

import select
from typing import Any

import psycopg


def unbroken(connection: Any) -> None:
    """Raise (the pool then drops the connection and hands out another, or opens one) when
    the server has closed ``connection`` while it waited in the pool, without a round
    trip to the server: an idle connection in autocommit receives nothing, so anything
    readable on its socket is the server saying goodbye (a restart, an administrator's
    ``pg_terminate_backend``, an idle timeout) or its end-of-file.

    A query per request (psycopg_pool's own ``check_connection``, Django's
    ``CONN_HEALTH_CHECKS``) would find the same, at the cost of a round trip on every
    request: the idle live poll is otherwise one indexed lookup."""
    if connection.closed or connection.broken:
        raise psycopg.OperationalError("the connection was closed")
    readable, _, _ = select.select([connection.fileno()], [], [], 0)
    if readable:
        raise psycopg.OperationalError("the server closed the connection")
