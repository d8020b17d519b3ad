"""HTTP only: each view gathers what its page needs and renders it."""

from django.http import HttpResponse
from django.shortcuts import render

from clubsite.http import HtmxHttpRequest
from scoring.pages.home import home_context


def home(request: HtmxHttpRequest) -> HttpResponse:
    """The club's front page, its dashboard: what it shows is ``pages.home``'s."""
    return render(request, "scoring/home.html", home_context(request))
