"""HTTP only: each view gathers what its page needs and renders it."""

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from scoring.rules_doc import render_markdown_file


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "scoring/home.html")


def rules(request: HttpRequest) -> HttpResponse:
    try:
        document = render_markdown_file(settings.BASE_DIR / "docs" / "rules.md")
    except FileNotFoundError:
        raise Http404("The rules document is missing.") from None
    return render(request, "scoring/rules.html", {"document": document})
