"""Root URL configuration."""

from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language

urlpatterns = [
    path("admin/", admin.site.urls),
    # The language switch in every page's header posts no CSRF token: the worst a forged
    # post could do is change the visitor's language, and without a token a visitor who is
    # not signed in gets a page with nothing of his own in it — the same page as everybody
    # else's, which can be kept whole in the cache (clubsite.pages).
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    path("members/", include("members.urls")),
    path("", include("scoring.urls")),
]

# The 500 page (and the 503 "try again" page for a database outage): clubsite/errors.py.
handler500 = "clubsite.errors.server_error"
