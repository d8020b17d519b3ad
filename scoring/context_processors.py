"""What every page's template gets besides the view's own context."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language

from scoring.models import Club


def club(request: HttpRequest) -> dict[str, object]:
    """``club``: the club's name and introduction in the page's language (``Club``).

    Read when a template first uses it (from the cache, or one query), so the responses that
    show no page — a partial the live sheet polls, a CSV, a 304 — never ask for it.
    """
    return {"club": SimpleLazyObject(lambda: Club.shown(get_language()))}
