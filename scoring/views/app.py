"""The site as an installable app: its manifest, its service worker and the page shown
offline (docs/architecture.md, Offline and the outbox).

The service worker is served from the site's root, not from ``/static/``, because a worker
controls only the paths under its own URL: ``/sw.js`` may control every page. It is a
template so that it can name the shell's static files by their deployed (hashed) URLs and
carry a version derived from their contents: a deploy that changes any of them changes
the worker's bytes, the browser installs the new worker, and it fills a new cache.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.views.decorators.http import require_GET

from clubsite import viewer
from clubsite.http import HtmxHttpRequest
from scoring.models import Club

THEME_COLOUR = "#1f5f8b"
"""tokens.css's ``--accent`` (the links, the buttons)."""
BACKGROUND_COLOUR = "#fbfaf7"
"""tokens.css's ``--paper`` (the page)."""
SHORT_NAME_LENGTH = 12
"""Longer short names are cut under the icon on a home screen."""

SHELL_FILES = (
    "css/tokens.css",
    "css/components.css",
    "css/site.css",
    "css/sheet.css",
    "js/deal-form.js",
    "js/share.js",
    "js/sheet-zoom.js",
    "js/live.js",
    "js/offline.js",
    "js/outbox.js",
    "js/sw-register.js",
    "django_htmx/htmx-2.min.js",
    "img/favicon.svg",
    "img/icons/tables.svg",
    "img/icons/evening.svg",
    "img/icons/standings.svg",
    "img/icons/me.svg",
    "img/icons/menu.svg",
    "img/icon-192.png",
    "img/icon-512.png",
    "img/icon-maskable-512.png",
)
"""The static files every page needs, kept by the service worker from its installation."""

ICONS = (
    ("img/icon-192.png", "192x192", "any"),
    ("img/icon-512.png", "512x512", "any"),
    ("img/icon-maskable-512.png", "512x512", "maskable"),
)


@require_GET
def manifest(request: HtmxHttpRequest) -> HttpResponse:
    """The web app manifest, in the page's language (the link in base.html asks for it
    with the language's code, so a switch of language is a new manifest)."""
    languages = dict(settings.LANGUAGES)
    asked = request.GET.get("lang", "")
    language = asked if asked in languages else translation.get_language()
    name = Club.shown(language).name
    data = {
        "id": "/",
        "name": name,
        "short_name": short_name(name),
        "lang": language,
        "dir": "ltr",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": [
            {"src": static(path), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for path, sizes, purpose in ICONS
        ],
    }
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    response["Cache-Control"] = "no-cache"
    return response


def short_name(name: str) -> str:
    """The name under the app's icon: the club's name if it is short; else its own name
    in quotes, when it has one that fits («Клуб «Семь пик» (демо)» → «Семь пик»); else
    as many of its first words as fit, without a note in brackets, a quote left open or
    a dangling «of», «и» (at least the first word, cut to fit)."""
    if len(name) <= SHORT_NAME_LENGTH:
        return name
    plain = " ".join(BRACKETED.sub(" ", name).split()) or name
    if len(plain) <= SHORT_NAME_LENGTH:
        return plain
    for match in QUOTED.finditer(plain):
        quoted = match.group(1).strip()
        if 0 < len(quoted) <= SHORT_NAME_LENGTH:
            return quoted
    words = QUOTES.sub("", plain).split()
    kept = [words[0][:SHORT_NAME_LENGTH]]
    for word in words[1:]:
        if len(" ".join([*kept, word])) > SHORT_NAME_LENGTH:
            break
        kept.append(word)
    while len(kept) > 1 and kept[-1].lower() in JOINING_WORDS:
        kept.pop()
    return " ".join(kept)


BRACKETED = re.compile(r"\([^)]*\)")
"""A note in brackets, «(демо)»: no part of the name on a home screen."""
QUOTED = re.compile(r"[«“„\"]([^«»“”„\"]+)[»”“\"]")
QUOTES = re.compile(r"[«»“”„\"]")
JOINING_WORDS = frozenset({"of", "and", "the", "for", "и", "в", "на", "для"})
"""Words that do not end a name: «Seven of» is cut to «Seven»."""


@require_GET
def service_worker(request: HtmxHttpRequest) -> HttpResponse:
    """``/sw.js``: the worker, with what it keeps named for this deploy. ``no-cache``: the
    browser checks it on every visit, so a deploy reaches the phones at once."""
    config = {
        "version": shell_version(),
        "shell": [static(path) for path in SHELL_FILES],
        "offline": {
            code: reverse("scoring:offline", args=[code]) for code, _ in settings.LANGUAGES
        },
        "signOut": [reverse("members:logout"), reverse("admin:logout")],
        "viewerCookie": viewer.COOKIE,
    }
    response = render(
        request,
        "scoring/sw.js",
        {"config": json.dumps(config, ensure_ascii=False, sort_keys=True)},
        content_type="text/javascript; charset=utf-8",
    )
    response["Cache-Control"] = "no-cache"
    return response


def shell_version() -> str:
    """A digest of the shell's files and the offline page's template: it changes when a
    deploy changes any of them. Worked out once per process (a deploy restarts it) unless
    static files are served from the source (DEBUG)."""
    if settings.DEBUG:
        return _digest()
    return _digest_once()


@functools.cache
def _digest_once() -> str:
    return _digest()


def _digest() -> str:
    digest = hashlib.sha256()
    for path in SHELL_FILES:
        found = finders.find(path)
        digest.update(path.encode())
        if isinstance(found, str):
            digest.update(Path(found).read_bytes())
    template = Path(settings.BASE_DIR) / "templates" / "scoring" / "offline.html"
    digest.update(template.read_bytes())
    return digest.hexdigest()[:12]


@require_GET
def offline(request: HtmxHttpRequest, language: str) -> HttpResponse:
    """The page the service worker shows for a page it has not kept, with no connection.
    One per language, both kept at installation; it names nobody, so it suits any visitor."""
    if language not in dict(settings.LANGUAGES):
        raise Http404
    with translation.override(language):
        response = render(request, "scoring/offline.html", {"language": language})
    response["Cache-Control"] = "no-cache"
    return response
