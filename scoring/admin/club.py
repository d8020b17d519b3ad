"""The organisers' editor for the club's identity: its name and the home page's
introduction, in Russian and English (``scoring.models.Club``), and its settings (who
accepts an imported record for the standings).

There is exactly one club, so the admin has no list, no "add" and no "delete": the
club's entry in the admin index opens its one page. Only organisers reach it (other staff
get 403, as on the tariff pages). A save shows on every page at once: each page reads the
row (``scoring.context_processors.club``).

``scoring/admin/__init__.py`` imports this module, which registers ``ClubAdmin``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from clubsite.admin_lookups import SafeLookups
from scoring.admin.tariffs import OrganisersOnly
from scoring.models import Club
from scoring.services import home_changed


class ClubAdmin(OrganisersOnly, SafeLookups, admin.ModelAdmin):  # type: ignore[type-arg]
    fieldsets = (
        (_("Russian"), {"fields": ("name", "intro")}),
        (
            _("English"),
            {
                "description": _("Shown on the English pages; an empty field shows the Russian."),
                "fields": ("name_en", "intro_en"),
            },
        ),
        (_("Standings"), {"fields": ("import_acceptance", "confirm_tables", "confirm_minutes")}),
        (_("Accounts"), {"fields": ("account_table_money",)}),
    )

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """The one club's page instead of a list of one (or the form that creates it,
        should the row be missing)."""
        if not self.has_view_or_change_permission(request):
            return super().changelist_view(request, extra_context)  # Django's own 403
        if Club.objects.filter(pk=Club.ONLY_PK).exists():
            return HttpResponseRedirect(reverse("admin:scoring_club_change", args=[Club.ONLY_PK]))
        return HttpResponseRedirect(reverse("admin:scoring_club_add"))

    def save_model(self, request: HttpRequest, obj: Club, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        home_changed()  # its name and introduction head the home page, kept under the stamp

    def has_add_permission(self, request: HttpRequest) -> bool:
        if Club.objects.filter(pk=Club.ONLY_PK).exists():
            return False
        return super().has_add_permission(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


admin.site.register(Club, ClubAdmin)
