"""Whom a browser's pages were made for, so that a phone the club shares never shows one
member's pages to the next person (docs/architecture.md, Offline and the outbox).

The service worker keeps the last copy of each table page for use offline; a signed-in
member's copy holds his name, his forms and their CSRF token. ``ViewerMiddleware`` tells
the browser whose pages it is being given:

* **the viewer's marker**: an opaque value derived from the session (``salted_hmac`` of its
  key: it names nobody and a new sign-in is a new one), empty for a visitor who is not
  signed in. Every HTML answer made from the session carries it as ``X-Viewer`` (one
  that never read the session, such as a 304, holds nothing of anyone's and is left
  alone); the worker keeps each copy under it and drops the copies kept under any other
  as soon as an answer names another viewer (another member signed in, or nobody after a
  session that ended by itself). The ``viewer`` cookie holds it too, readable by
  scripts: offline the worker reads it (``cookieStore``) to show only the copies of
  whoever is signed in now. It expires no later than the session's cookie, and goes with
  the session.
* **``Clear-Site-Data: "cache"``** on the answer that ends a viewer's pages: the browser's
  ``viewer`` cookie names someone the answer does not (a session that expired, another
  member signing in), or the request signed its member out (``logout``: through the site
  or the admin). The browser then drops what its HTTP cache holds of the site.
* **``Cache-Control: private, no-store``** on a signed-in answer that sets no policy of its
  own: it holds the member's name and forms; no shared cache keeps it, nor the browser's
  (the back button after signing out asks the server again). An answer that sets its own
  policy keeps it, made ``private`` unless it says ``public`` (the live sheet's
  ``no-cache`` keeps its 304s; the sheet's picture is the same for everyone). The service
  worker's copies are its own (the Cache API ignores these headers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control
from django.utils.crypto import salted_hmac

from clubsite import errors

COOKIE = "viewer"
HEADER = "X-Viewer"


def viewer(request: HttpRequest) -> str:
    """The marker of whoever is signed in on ``request`` ("" for nobody)."""
    if not request.session.session_key or not request.user.is_authenticated:
        return ""
    key = request.session.session_key  # read again: loading the session may have changed it
    return salted_hmac("clubsite.viewer", key, algorithm="sha256").hexdigest()[:20] if key else ""


def _signed_out(sender: Any, request: HttpRequest | None, **kwargs: Any) -> None:
    # Every sign-out is django.contrib.auth's logout(): the site's, the admin's.
    if request is not None:
        request._signed_out = True  # type: ignore[attr-defined]


user_logged_out.connect(_signed_out, dispatch_uid="clubsite.viewer")


class ViewerMiddleware:
    """Marks each answer with its viewer (inside the session and sign-in middleware)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        signed_out = getattr(request, "_signed_out", False)
        if not request.session.accessed and not signed_out:
            # Made without reading the session (a 304 of the live sheet, the worker's
            # script, the sheet's picture): it holds nothing of anyone's, and an idle
            # member's poll costs no query more.
            return response
        try:
            now = viewer(request)
        except errors.DATABASE_ERRORS:
            return response  # the outage's own page (503) goes out as it is
        before = request.COOKIES.get(COOKIE, "")
        if signed_out or (before and before != now):
            response["Clear-Site-Data"] = '"cache"'
        if now and (before != now or request.session.modified):
            self._set_cookie(request, response, now)
        elif not now and COOKIE in request.COOKIES:
            response.delete_cookie(COOKIE, samesite="Lax")
        if response.get("Content-Type", "").startswith("text/html"):
            response[HEADER] = now
        if now or signed_out:
            _private(response)
        return response

    @staticmethod
    def _set_cookie(request: HttpRequest, response: HttpResponse, marker: str) -> None:
        # The session's own age, set at the same moments as its cookie: never outlives it.
        session = request.session
        response.set_cookie(
            COOKIE,
            marker,
            max_age=None if session.get_expire_at_browser_close() else session.get_expiry_age(),
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=False,  # the service worker reads it
            samesite="Lax",
        )


def _private(response: HttpResponse) -> None:
    policy = response.get("Cache-Control", "")
    if not policy:
        response["Cache-Control"] = "private, no-store"
    elif "public" not in policy and "private" not in policy:
        patch_cache_control(response, private=True)
