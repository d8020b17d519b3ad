"""What every page's template gets besides the view's own context."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language

from scoring.models import Club
from scoring.permissions import can_use_admin


def club(request: HttpRequest) -> dict[str, object]:
    """``club``: the club's name and introduction in the page's language (``Club``).

    Read when a template first uses it (from the cache, or one query), so the responses that
    show no page — a partial the live sheet polls, a CSV, a 304 — never ask for it.
    """
    return {"club": SimpleLazyObject(lambda: Club.shown(get_language()))}


def admin_link(request: HttpRequest) -> dict[str, object]:
    """``can_use_admin``: whether the menu offers the organisers' admin (the permission's
    answer, asked only when a page's menu is drawn; no query: the member's organiser flag
    comes with him, ``members.backends``)."""
    # A page drawn before the authentication middleware ran (a 400 for a bad host) has no
    # user: it offers no admin.
    return {
        "can_use_admin": SimpleLazyObject(
            lambda: hasattr(request, "user") and can_use_admin(request)
        )
    }
