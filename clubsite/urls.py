"""Root URL configuration."""

from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language

from clubsite.events import events

urlpatterns = [
    path("admin/", admin.site.urls),
    # The language switch in every page's header posts no CSRF token: the worst a forged
    # post could do is change the visitor's language, and without a token a visitor who is
    # not signed in gets a page with nothing of his own in it — the same page as everybody
    # else's, which can be kept whole in the cache (clubsite.pages).
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    path("members/", include("members.urls")),
    # The pages' event streams, held by Pushpin (clubsite.events). The channels are named as
    # scoring.live.push publishes them: a table's, the tables in play (the home page) and
    # an evening's (its tables) and a tournament's (its standings, tours and big screen).
    path(
        "events/tables/<int:pk>/", events, {"format-channels": ["table-{pk}"]}, name="events_table"
    ),
    path("events/in-play/", events, {"channels": ["in-play"]}, name="events_in_play"),
    path(
        "events/evenings/<int:pk>/",
        events,
        {"format-channels": ["evening-{pk}"]},
        name="events_evening",
    ),
    path(
        "events/tournaments/<int:pk>/",
        events,
        {"format-channels": ["tournament-{pk}"]},
        name="events_tournament",
    ),
    path("", include("scoring.urls")),
]

# The 500 page (and the 503 "try again" page for a database outage): clubsite/errors.py.
handler500 = "clubsite.errors.server_error"
