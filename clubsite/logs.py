"""Logging: the request id on every record of a request, client errors (4xx) on one line
each, and the JSON lines of ``DJANGO_LOG_FORMAT=json``.

``LOGGING`` in settings.py attaches the filters to the console handler.
"""

from __future__ import annotations

import copy
import logging
from contextvars import ContextVar
from typing import Any

import pythonjsonlogger.core
import pythonjsonlogger.json

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)
"""The id of the request this thread (or task) is answering; set by
``clubsite.middleware.RequestIdMiddleware``."""


class RequestIdFilter(logging.Filter):
    """Puts ``request_id`` on every record: the current request's id, or ``-`` outside a
    request (commands, start-up)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get() or "-"
        return True


class ClientErrorsOnOneLine(logging.Filter):
    """Drops the traceback from a record about a 4xx response.

    Django logs every ``PermissionDenied`` (403) and ``BadRequest`` (400) under
    ``django.request`` with the exception attached, so each refused request printed a
    full traceback of a decision the site made on purpose. The line itself stays
    ("Forbidden (Permission denied): /path"); 5xx records keep their tracebacks."""

    def filter(self, record: logging.LogRecord) -> logging.LogRecord | bool:
        status = getattr(record, "status_code", None)
        if not (isinstance(status, int) and 400 <= status < 500) or not record.exc_info:
            return True
        # A copy: other handlers (Sentry's breadcrumbs, a test's) see the record as logged.
        shortened = copy.copy(record)
        shortened.exc_info = None
        shortened.exc_text = None
        return shortened


class AsWarning(logging.Filter):
    """Logs a logger's ERROR records as warnings: put on ``django.security.DisallowedHost``.

    Django logs every request whose ``Host`` is not in ``ALLOWED_HOSTS`` at ERROR, with a
    traceback — bots probing the server's address send them by the hundred a day — so the
    log and Sentry, which reports ERROR records, filled with what is an answered 400, not
    a fault of the site. A filter on the logger itself runs before any handler (Sentry's
    included) sees the record."""

    def filter(self, record: logging.LogRecord) -> logging.LogRecord | bool:
        if record.levelno <= logging.WARNING:
            return True
        lowered = copy.copy(record)
        lowered.levelno, lowered.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        return lowered


class JsonFormatter(pythonjsonlogger.json.JsonFormatter):
    """One JSON object per line: ``time``, ``level``, ``logger``, ``message``,
    ``request_id``, any ``extra`` the code logged (e.g. Django's ``status_code``), and
    ``exc_info`` (the traceback) for errors. Django's ``request`` extra, an object, is left
    out: the message names the path and the request id finds the access log line."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("fmt", ["levelname", "name", "message", "request_id"])
        options.setdefault("rename_fields", {"levelname": "level", "name": "logger"})
        options.setdefault("timestamp", "time")
        options.setdefault("reserved_attrs", [*pythonjsonlogger.core.RESERVED_ATTRS, "request"])
        super().__init__(**options)
