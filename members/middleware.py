"""Sign-ins refused before the site does any work for them."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse

from members import backends


class SignInPauseMiddleware:
    """A sign-in posted from an address paused for guessing at usernames
    (``members.backends``) is refused here with a small page of its own: before CSRF, the
    session's member, the form, django-axes and the site's page, which cost a paused sign-in
    30 ms (it drew the sign-in page and then the lockout page), so 16 clients looping at one
    server kept both its workers busy. Any username is refused alike, so the answer tells
    nothing of who is a member. After ``LocaleMiddleware``: the page speaks the visitor's
    language."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.paths = {reverse("members:login"), reverse("admin:login")}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.path in self.paths and backends.paused(request):
            minutes = int(settings.AXES_COOLOFF_TIME.total_seconds()) // 60
            page = render_to_string("members/sign_in_paused.html", {"minutes": minutes})
            return HttpResponse(page, status=429, headers={"Retry-After": str(minutes * 60)})
        return self.get_response(request)
