"""``/healthz``: whether this app server can answer, for load balancers and monitors.

It checks the database (one trivial query), which every page needs, and the cache (a key
set and read back), which makes them fast, and nothing else: it never renders a page or computes a
leaderboard, so a probe every second costs next to nothing. It is answered by
``clubsite.middleware.HealthCheckMiddleware`` at the top of the middleware stack, before
sessions, CSRF, sign-in, the host check and the https redirect (a load balancer probes
the app server's own address over plain http).
"""

from __future__ import annotations

import logging
import uuid

from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse

logger = logging.getLogger(__name__)

PATHS = frozenset(("/healthz", "/healthz/"))


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        if cursor.fetchone() != (1,):
            raise RuntimeError("SELECT 1 did not answer 1")


def _cache() -> None:
    # A key of its own per probe: app servers sharing one cache must not read each
    # other's value.
    key, value = f"healthz:{uuid.uuid4().hex}", uuid.uuid4().hex
    cache.set(key, value, timeout=30)
    try:
        if cache.get(key) != value:
            raise RuntimeError("a value set was not read back")
    finally:
        cache.delete(key)


CHECKS = {"database": _database, "cache": _cache}


def healthz(request: HttpRequest) -> JsonResponse:
    """``{"status": "ok", "database": "ok", "cache": "ok"}`` with 200; the failing part(s)
    ``"error"`` otherwise (the reason goes to the log, not to the prober).

    Without the database nothing can be served: 503, and a load balancer takes the server
    out. Without the cache every page is still served, made from the database
    (clubsite/cache.py): 200 with ``"status": "degraded"``, so that a monitor sees it but
    no load balancer takes every server out because the one Redis they share is down."""
    if request.method not in ("GET", "HEAD"):
        response = JsonResponse({"status": "method not allowed"}, status=405)
        response["Allow"] = "GET, HEAD"
        return response
    parts = {}
    for name, check in CHECKS.items():
        try:
            check()
        except Exception as error:  # any failure means "not healthy"
            logger.warning("Health check: the %s failed: %s: %s", name, type(error).__name__, error)
            parts[name] = "error"
        else:
            parts[name] = "ok"
    if parts["database"] != "ok":
        status, code = "error", 503
    elif parts["cache"] != "ok":
        status, code = "degraded", 200
    else:
        status, code = "ok", 200
    response = JsonResponse({"status": status, **parts}, status=code)
    response["Cache-Control"] = "no-store"
    return response
