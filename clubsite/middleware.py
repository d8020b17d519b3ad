"""The site's own middleware: the health check, the request id, "try again" (503) during a
database outage, and htmx kept from swapping error pages. Their places in ``MIDDLEWARE``
are explained in settings.py."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable

import sentry_sdk
from django.core.signals import request_finished
from django.db import connection
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse

from clubsite import db, errors, health, writes
from clubsite.logs import REQUEST_ID

logger = logging.getLogger(__name__)

Handler = Callable[[HttpRequest], HttpResponse]

REQUEST_ID_HEADER = "X-Request-ID"
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
"""An id a proxy or load balancer may pass on (a UUID, a hex string, nginx's
``$request_id``): taken as it is; anything else (too long, spaces, quotes, control
characters — a way into the logs) is replaced by a fresh one."""


class HealthCheckMiddleware:
    """Answers ``/healthz`` (``clubsite.health``) before any other middleware runs."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info in health.PATHS:
            return health.healthz(request)
        return self.get_response(request)


class RequestIdMiddleware:
    """Gives each request an id — the ``X-Request-ID`` it came with if that is sane, else a
    new one — that every log record of the request carries (``clubsite.logs``), that the
    response returns in ``X-Request-ID`` (and gunicorn's access log shows), and that
    Sentry tags the request's errors with."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get(REQUEST_ID_HEADER, "")
        request_id = given if SANE_REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        request.request_id = request_id  # type: ignore[attr-defined]
        if sentry_sdk.get_client().is_active():
            sentry_sdk.get_isolation_scope().set_tag("request_id", request_id)
        # Left set when the middleware returns: Django logs a 4xx ("Not Found: /x") after
        # the whole middleware stack has answered. ``request_finished`` clears it.
        REQUEST_ID.set(request_id)
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request_id
        return response


@receiver(request_finished)
def _forget_request_id(**kwargs: object) -> None:
    REQUEST_ID.set(None)


class DatabaseUnavailableMiddleware:
    """Turns a database outage met by a view (``OperationalError``, ``InterfaceError``)
    into the "try again" page: 503 with ``Retry-After``, rather than a bare 500. Django
    closes the broken connection when the request ends; the next request opens a new one.
    While the pool cannot reach the database, it answers that page at once, before the
    view (``clubsite.db.Outage``)."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not db.OUTAGE.failing:  # the pool's last attempt to connect succeeded
            return self.get_response(request)
        pool = getattr(connection, "pool", None)
        if pool is None or pool.get_stats()["pool_available"]:
            return self.get_response(request)
        # The pool's last attempt to connect failed and it holds no connection: the
        # database is down. One request at a time goes on (it keeps the pool trying); the
        # others are answered at once rather than each waiting the pool's timeout
        # (clubsite.db.Outage).
        if db.OUTAGE.refuse():
            return errors.database_unavailable()
        try:
            return self.get_response(request)
        finally:
            db.OUTAGE.tried()

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, errors.DATABASE_ERRORS):
            return None
        # ERROR, one line: Sentry's logging integration reports it (it ignores
        # django.request, and no exception reaches Django's handler to report).
        logger.error(
            "Database unavailable, answered 503: %s: %s",
            type(exception).__name__,
            str(exception).strip().replace("\n", " "),
        )
        return errors.database_unavailable()


class HtmxErrorPageMiddleware:
    """htmx swaps every answer with a refused write's status (base.html's
    ``responseHandling``: 400, 403, 409), which the site's own refusals need; an answer to
    htmx with such a status that is not a refusal — Django's 403 page for a
    ``PermissionDenied``, its 400 page — would put a whole page in place of a region. It
    says ``HX-Reswap: none``: htmx shows nothing, as it does with any other error."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code in writes.SWAPPED_STATUSES
            and request.headers.get("HX-Request") == "true"
            and not response.has_header(writes.REFUSED_HEADER)
        ):
            response["HX-Reswap"] = "none"
        return response
