"""HTTP only: each view gathers what its page needs and renders it."""

from typing import Any

from django.http import HttpResponse
from django.utils import timezone

from clubsite.http import HtmxHttpRequest, once_per_request, page_or_partial
from clubsite.pages import kept_page
from scoring.pages.home import home_context, home_own, in_play_context
from scoring.selectors.home import HomeVersion, home_version


def _version(request: HtmxHttpRequest) -> HomeVersion | None:
    """The home page's version today, read once per request: the page kept for everyone and
    the viewer's own parts both go by it."""
    return once_per_request(request, "home_version", lambda: home_version(timezone.localdate()))


def _home_version(request: HtmxHttpRequest) -> str | None:
    """What the home page shows, as of today (tonight's evening, the next one and the
    season are today's): one query (``selectors.home``)."""
    version = _version(request)
    return f"{version}:{timezone.localdate()}" if version is not None else None


def _home_own(request: HtmxHttpRequest) -> dict[str, Any]:
    return home_own(request, _version(request))


@kept_page(_home_version, _home_own)
def home(request: HtmxHttpRequest) -> HttpResponse:
    """The club's front page, its dashboard, kept for everyone and filled in with each
    viewer's own parts (``pages.home``); for htmx, the region of the tables in play, which
    polls itself (never kept: ``clubsite.pages``)."""
    return page_or_partial(
        request,
        "scoring/home.html#in-play",
        lambda: in_play_context(request),
        page=lambda: {**home_context(request), **_home_own(request)},
    )
