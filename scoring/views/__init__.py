"""HTTP only: each view gathers what its page needs and renders it."""

from django.http import HttpResponse
from django.shortcuts import render

from clubsite.http import HtmxHttpRequest


def home(request: HtmxHttpRequest) -> HttpResponse:
    """The club's front page: tables in play, the latest finished tables and the top of
    the current season's boards (all time between seasons), in a constant number of
    queries: the two lists of tables, their seats, the season, and the boards."""
    # Imported here so that this change stays inside ``home`` (they may move to the top).
    from django.db.models import prefetch_related_objects
    from django.utils import timezone

    from scoring.models import Season, Table
    from scoring.pages import standings
    from scoring.pages.tables import listed_tables
    from scoring.permissions import can_see_standings

    tables = listed_tables()
    in_play = list(tables.filter(status=Table.OPEN))
    latest = list(tables.filter(status=Table.FINISHED)[:5])
    prefetch_related_objects([*in_play, *latest], "seats")
    context: dict[str, object] = {"in_play": in_play, "latest": latest}
    if can_see_standings(request):
        season = Season.of_date(timezone.localdate())
        context["leaders_section"] = standings.leaders_section(season)
    return render(request, "scoring/home.html", context)
