"""Pages kept whole in the cache for visitors who are not signed in.

Such a visitor's page has nothing of his own in it (no CSRF token, as the language switch
needs none; no CSP nonce; no name; no message): it is the same for every such visitor,
so it is made once and then read from the cache, under the version of what it shows (a
table's revision, the standings stamp: a new one is a new key, so a kept page never
outlives what it was made from), the language, and the address it answers (its header's
links carry it). A signed-in member's page is made for him every time (from the fragments
the cache keeps: the sheet, the board, the profile).

The spectators of a table and the readers of the standings are the many; this is what
makes each of their requests cost about what an idle live poll does (docs/performance.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.translation import get_language

PAGE_SECONDS = 60
"""How long a kept page lives at most. Its key names the version of its content; the
header's club name is not in it (an organiser may rename the club in the admin), and shows
on kept pages within this time."""

type Version = Callable[..., str | None]
"""What a page shows, as a version string, from the view's arguments (a query at most);
None when there is no such thing to show (the view answers, a 404 say)."""


def kept_for_visitors(version: Version) -> Callable[[Callable[..., HttpResponse]], Any]:
    """The view's page for visitors who are not signed in, kept under ``version`` of what it
    shows. Only a complete HTML page (200) that sets no cookie is kept; a visitor with a
    message waiting (shown once) gets the page made afresh."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not _for_everyone(request):
                return view(request, *args, **kwargs)
            made_from = version(request, *args, **kwargs)
            if made_from is None:
                return view(request, *args, **kwargs)
            key = page_key(request.build_absolute_uri(), made_from, get_language())
            kept = cache.get(key)
            if kept is not None:
                return HttpResponse(kept)
            response = view(request, *args, **kwargs)
            if _keepable(response):
                cache.set(key, response.content, PAGE_SECONDS)
            return response

        return wrapped

    return decorator


def _for_everyone(request: HttpRequest) -> bool:
    return (
        request.method in ("GET", "HEAD")
        and not request.user.is_authenticated
        and not len(get_messages(request))
    )


def page_key(address: str, made_from: str, language: str) -> str:
    """The key of the page at ``address`` (absolute: the page's share link is) made from
    ``made_from`` in ``language``."""
    return f"page:{made_from}:{language}:{hashlib.sha256(address.encode()).hexdigest()}"


def _keepable(response: HttpResponse) -> bool:
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and response.get("Content-Type", "").startswith("text/html")
    )
