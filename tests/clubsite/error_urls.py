"""The site's URLs plus views that fail on purpose, for the error page tests
(``@pytest.mark.urls("tests.clubsite.error_urls")``); handler500 is the site's."""

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.urls import path

from clubsite.urls import handler500, urlpatterns

__all__ = ["handler500", "urlpatterns"]


def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


def database_down(request: HttpRequest) -> HttpResponse:
    raise OperationalError("connection to server at 127.0.0.1, port 5432 failed")


def connection_gone(request: HttpRequest) -> HttpResponse:
    raise InterfaceError("connection already closed")


urlpatterns = [
    path("boom/", boom),
    path("database-down/", database_down),
    path("connection-gone/", connection_gone),
    *urlpatterns,
]
