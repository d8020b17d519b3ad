"""The site's URLs plus ``/bench/bare/``: Django's floor for a request on this machine."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from clubsite.urls import urlpatterns as site


def bare(request: HttpRequest) -> HttpResponse:
    """A fixed short response through the same middleware as every page."""
    return HttpResponse(b"ok", content_type="text/plain")


urlpatterns = [path("bench/bare/", bare, name="bench_bare"), *site]
