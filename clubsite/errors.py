"""The site's own error pages where Django's default handlers will not do.

403.html and 404.html are found by Django's own handlers (they extend base.html, with the
request's context). The 500 and 503 pages are plain templates that need neither the
database nor the request's context (no signed-in member, no session): they are shown
exactly when those may be what failed. Should even that rendering fail, a fixed page is
answered.
"""

from __future__ import annotations

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.views.decorators.csrf import requires_csrf_token

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError)
"""What the database driver raises when the database cannot be reached or has gone away
(Django wraps psycopg's and sqlite3's errors in these)."""

RETRY_AFTER_SECONDS = 30

FALLBACK_500 = (
    '<!doctype html><html lang="ru"><meta charset="utf-8"><title>Ошибка сервера</title>'
    "<h1>Ошибка на сервере (500)</h1><p>Server error (500).</p></html>"
)
FALLBACK_503 = (
    '<!doctype html><html lang="ru"><meta charset="utf-8"><title>Попробуйте позже</title>'
    "<h1>Сайт временно недоступен (503)</h1><p>Попробуйте ещё раз через минуту.</p>"
    "<p>The site is briefly unavailable: try again in a minute.</p></html>"
)


def _plain_page(template: str, fallback: str) -> str:
    try:
        return loader.render_to_string(template)
    except Exception:
        logger.exception("The %s page could not be rendered; answered the fixed one", template)
        return fallback


def database_unavailable() -> HttpResponse:
    """The "try again" page (503) with ``Retry-After``, for a database outage."""
    response = HttpResponse(_plain_page("503.html", FALLBACK_503), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


@requires_csrf_token
def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: the 500 page, or the 503 page when what failed was the database —
    also when it failed outside a view (in a middleware, or while the 403/404 page asked
    for the signed-in member), where ``DatabaseUnavailableMiddleware`` does not see it."""
    if isinstance(sys.exc_info()[1], DATABASE_ERRORS):
        return database_unavailable()
    return HttpResponse(_plain_page("500.html", FALLBACK_500), status=500)
