"""The members' rules page: the club's rules as players read them, in the request's
language, with the numbers of the tariffs the club plays by now
(``scoring.pages.rules``). Each language has its own template; docs/rules.md is the
developers' document and is not served."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language

from clubsite.http import HtmxHttpRequest
from scoring.pages.rules import rules_context

TEMPLATES = {"ru": "scoring/rules/ru.html", "en": "scoring/rules/en.html"}
"""The page in each of the site's languages (``settings.LANGUAGES``)."""


def rules(request: HtmxHttpRequest) -> HttpResponse:
    """The rules page in the request's language (Russian, the site's own, for any other)."""
    language = get_language()
    template = TEMPLATES.get(language or "", TEMPLATES[settings.LANGUAGE_CODE])
    return render(request, template, rules_context(language))
