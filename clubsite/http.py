"""The request as the site's views receive it: ``HtmxMiddleware`` (django-htmx) has set
``request.htmx`` on every one, which Django's own ``HttpRequest`` does not declare. Views
take an ``HtmxHttpRequest`` so that mypy knows it, with no ``type: ignore`` at each use.
"""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request that has passed ``django_htmx.middleware.HtmxMiddleware``."""

    htmx: HtmxDetails
