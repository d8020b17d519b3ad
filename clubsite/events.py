"""The event streams of live pages (Server-Sent Events), held by Pushpin.

A page's ``EventSource`` connects through nginx to Pushpin, which asks an app server what
to do with it: django-eventstream answers at once with GRIP instructions (hold the
stream open on the channels the URL names), and Pushpin holds it, sending what the app
servers publish on those channels (``scoring.live.push``). So a gunicorn worker spends a
moment per viewer connecting, and none while he watches.

A request that did not come through Pushpin (no push server in front, as under ``make
run``, or a proxy that let a client reach the app servers directly) is answered 204 No
Content: a browser's ``EventSource`` then stops trying, and the page goes on polling
(static/js/live.js). django-eventstream would otherwise stream from the app server
itself, holding a worker thread per viewer."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django_eventstream.views import events as grip_events


def events(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    """The stream of the channels ``kwargs`` names (django-eventstream's ``channels`` or
    ``format-channels``), for Pushpin to hold; 204 for anyone else."""
    grip = getattr(request, "grip", None)
    if grip is None or not grip.proxied:
        response = HttpResponse(status=204)
        response["Cache-Control"] = "no-store"
        return response
    answer: HttpResponse = grip_events(request, **kwargs)
    return answer
