"""The CSRF failure view (``CSRF_FAILURE_VIEW``): a form sent from a page too old (the
member signed in or out in another tab since, which changes the token) or without the
site's cookie. Nothing is stored; the answer says so in the member's language and keeps
what was typed (``clubsite.writes``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from clubsite.writes import came_from, write_refused


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Django calls it with the ``reason`` it refused the request for (for the logs, not
    the member: Django logs it already)."""
    problem = _(
        "Nothing was saved: the page the form came from is too old (you may have signed "
        "in or out since, perhaps in another tab), or the browser did not send this "
        "site's cookie. What you typed is kept: sign in again if you are asked to, and "
        "send it again."
    )
    return write_refused(request, problem, come_back=came_from(request, "/"))
