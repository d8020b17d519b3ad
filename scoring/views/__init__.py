"""HTTP only: each view gathers what its page needs and renders it."""

from django.http import HttpResponse

from clubsite.http import HtmxHttpRequest, page_or_partial
from scoring.pages.home import home_context, in_play_context


def home(request: HtmxHttpRequest) -> HttpResponse:
    """The club's front page, its dashboard: what it shows is ``pages.home``'s; for htmx,
    the region of the tables in play, which polls itself."""
    return page_or_partial(
        request,
        "scoring/home.html#in-play",
        lambda: in_play_context(request),
        page=lambda: home_context(request),
    )
