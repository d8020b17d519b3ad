"""Root URL configuration."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("members/", include("members.urls")),
    path("", include("scoring.urls")),
]

# The 500 page (and the 503 "try again" page for a database outage): clubsite/errors.py.
handler500 = "clubsite.errors.server_error"
