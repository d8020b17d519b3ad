"""The site's URLs plus three floors to measure against (benchmarks only): ``/bench/bare/``,
Django's floor for a request on this machine, ``/bench/bare/member/``, its floor for a
signed-in member's request, and ``/bench/write/<table>/``, its floor for a write at a
table."""

import uuid

from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.template import engines
from django.urls import path
from django.views.decorators.http import require_POST

from clubsite.urls import urlpatterns as site
from scoring.models import Table, WriteKey


def bare(request: HttpRequest) -> HttpResponse:
    """A fixed short response through the same middleware as every page."""
    return HttpResponse(b"ok", content_type="text/plain")


def bare_member(request: HttpRequest) -> HttpResponse:
    """The bare view for a signed-in member: his session and his member read, which every
    page he opens pays before it shows anything (the bare view reads neither)."""
    return HttpResponse(request.user.get_username().encode(), content_type="text/plain")


_WRITTEN = engines["django"].from_string(
    '<div id="written" data-revision="{{ revision }}">'
    "<p>{{ user.get_username }}: stored at {{ revision }}</p>"
    '<form method="post">{% csrf_token %}'
    '<input type="hidden" name="write_key" value="{{ key }}"></form></div>'
)


@require_POST
def bare_write(request: HttpRequest, table: int) -> HttpResponse:
    """What any write at a table costs, whatever it writes: the member of the session, the
    table's row read under its lock, one INSERT (a write key, the smallest row a write
    stores), the commit, and a small template. The save of a deal is measured beside it."""
    if not request.user.is_authenticated:
        return HttpResponseForbidden()
    with transaction.atomic():
        revision = (
            Table.objects.select_for_update().values_list("revision", flat=True).get(pk=table)
        )
        WriteKey.objects.create(table_id=table, key=uuid.uuid4(), revision=revision)
    context = {"revision": revision, "key": uuid.uuid4()}
    return HttpResponse(_WRITTEN.render(context, request))


urlpatterns = [
    path("bench/bare/", bare, name="bench_bare"),
    path("bench/bare/member/", bare_member, name="bench_bare_member"),
    path("bench/write/<int:table>/", bare_write, name="bench_write"),
    *site,
]
