"""The request as the site's views receive it, and the answer as a page or its partial.

``HtmxMiddleware`` (django-htmx) sets ``request.htmx`` on every request, which Django's
own ``HttpRequest`` does not declare: views take an ``HtmxHttpRequest`` so that mypy knows
it, with no ``type: ignore`` at each use.

Whether an answer is a whole page or the region htmx swaps is decided here, not in each
view: ``page_or_partial`` for a page and its partial (``page.html#partial``),
``partial_or_redirect`` for a write that htmx sees redrawn and a plain POST follows back
to a page (post/redirect/get).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django_htmx.http import retarget
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request that has passed ``django_htmx.middleware.HtmxMiddleware``."""

    htmx: HtmxDetails


Context = Mapping[str, Any]


def once_per_request[T](request: HttpRequest, name: str, make: Callable[[], T]) -> T:
    """``make()``, worked out once for ``request`` and kept on it under ``name``: what a
    page kept for everyone and the viewer's own parts both go by, or what the admin asks
    many times per page."""
    kept: dict[str, Any] = request.__dict__.setdefault("_once_per_request", {})
    if name not in kept:
        kept[name] = make()
    return kept[name]  # type: ignore[no-any-return]


def page_or_partial(
    request: HtmxHttpRequest,
    template: str,
    context: Context | Callable[[], Context],
    *,
    page: Callable[[], Context] | None = None,
    retarget_to: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """The one place a view's answer becomes a whole page or the region htmx swaps.

    ``template`` names the page and its partial, ``"<page>.html#<partial>"``: htmx gets
    the partial (retargeted to ``retarget_to`` when it is not where htmx was sent), any
    other request the whole page, so that every page works without JavaScript.
    ``context`` is what the partial needs (a callable: built only for it), and the page's
    too unless ``page`` builds the page's own: a region polled or swapped after a write
    then costs only its own queries."""
    page_template, _hash, partial = template.partition("#")
    if not partial:
        raise ValueError(f"{template!r} names no partial: say 'page.html#partial'")
    if request.htmx:
        chosen, build = template, context
    else:
        chosen, build = page_template, page or context
    response = render(request, chosen, build() if callable(build) else build, status=status)
    if request.htmx and retarget_to is not None:
        return retarget(response, retarget_to)
    return response


def partial_or_redirect(
    request: HtmxHttpRequest,
    partial: Callable[[], HttpResponse],
    to: str,
    *,
    message: str,
    level: int = messages.SUCCESS,
) -> HttpResponse:
    """The answer to a write that went through (or was refused by the rules): htmx gets
    the ``partial`` the write changed, which shows ``message`` itself; a plain POST has
    ``message`` flashed and is redirected ``to`` the page (post/redirect/get)."""
    if request.htmx:
        return partial()
    messages.add_message(request, level, message)
    return redirect(to)
