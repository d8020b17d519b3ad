"""A write that cannot be taken because the member is not signed in any more (the session
expired) or because the form's CSRF token no longer matches (he signed in or out in
another tab since the page was drawn): nothing is stored, and nothing typed is lost.

The answer says so, offers to sign in again and come back to the page, and keeps what was
typed twice over: in the sign-in link's ``next`` (a table page draws its deal form from
those values) and in a form that sends the very same request again (its revision and key
included, so a write that meanwhile went through is not stored twice). htmx gets the
message as a fragment for the page's ``#write-problem`` region (htmx swaps it although the
status is 403: ``SWAPPED_STATUSES``) and keeps the form on the page as typed.

Used by the CSRF failure view (``clubsite.csrf``) and by the table views; it names the
pages it links to by URL name only, so clubsite imports nothing of the apps.
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve, reverse
from django.utils.http import url_has_allowed_host_and_scheme

REFUSED_HEADER = "X-Write-Refused"
"""Marks an answer to a write that stored nothing: htmx swaps it in although its status is
an error, where an unmarked answer with that status (Django's 403 page, say) is kept out
(``clubsite.middleware.HtmxErrorPageMiddleware``)."""

SWAPPED_STATUSES = frozenset({400, 403, 409})
"""The statuses of refused writes: the form says nothing of the table's revision (400), the
member is signed out or the form's token is stale (403), the table changed since the page
was drawn (409). base.html's ``responseHandling`` has htmx swap answers with them."""

PROBLEM_REGION = "#write-problem"
"""The region of a page that shows why a write was refused (a table page, a deal's page)."""

NOT_ECHOED = ("csrfmiddlewaretoken", "password", "token")
"""Fields never written back into a page or a link: the stale token, and secrets."""

PREFILLED_PAGES = frozenset({"scoring:table_detail"})
"""Pages that draw their form from the values in their address (the table's deal form)."""


def typed(request: HttpRequest) -> list[tuple[str, str]]:
    """What the refused form carried, field by field, secrets left out."""
    return [
        (name, value)
        for name, values in request.POST.lists()
        if not any(word in name for word in NOT_ECHOED)
        for value in values
    ]


def came_from(request: HttpRequest, fallback: str) -> str:
    """The page the write was sent from (htmx says it; a browser's form sends a Referer),
    when it is a page of this site other than the write's own address (which takes only
    a POST); else ``fallback``."""
    for url in (request.headers.get("HX-Current-URL"), request.headers.get("Referer")):
        if url and url_has_allowed_host_and_scheme(
            url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            parts = urlsplit(url)
            if parts.path != request.path:
                return parts.path + (f"?{parts.query}" if parts.query else "")
    return fallback


def _with_values(page: str, values: list[tuple[str, str]]) -> str:
    """``page`` with the typed values in its address when it draws its form from them."""
    path = urlsplit(page).path
    try:
        name = resolve(path).view_name
    except Resolver404:
        return page
    if name not in PREFILLED_PAGES or not values:
        return page
    kept = [(k, v) for k, v in values if k not in ("revision", "write_key")]
    return f"{path}?{urlencode(kept)}"


def write_refused(
    request: HttpRequest, problem: str, *, come_back: str, status: int = 403
) -> HttpResponse:
    """The answer to a write refused for ``problem`` (a sentence for the member): the
    message with a sign-in link back to ``come_back``, and (a page) the form to send
    again."""
    values = typed(request)
    back = _with_values(come_back, values)
    context = {
        "problem": problem,
        "sign_in_url": f"{reverse('members:login')}?{urlencode({'next': back})}",
        "come_back": back,
        "typed": values,
        "resend_url": request.path,
    }
    if request.headers.get("HX-Request") == "true":
        response = render(request, "_write_refused.html", context, status=status)
        response["HX-Retarget"] = PROBLEM_REGION
        response["HX-Reswap"] = "innerHTML"
        response["HX-Reselect"] = "unset"  # a redraw selects #deal-form from its answer
    else:
        response = render(request, "write_refused.html", context, status=status)
    response[REFUSED_HEADER] = "1"
    return response
