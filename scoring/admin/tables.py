"""The organisers' list of tables in the admin, read-only: each table's state and whether
it counts in the standings (``Table.standing``: an import awaiting acceptance, rejected, a
table closed early and left out), to find the ones waiting for a decision. Decisions are
made on the table's page (``POST /tables/<id>/decide/``), where they are recorded; tables
are written by the site only.

``scoring/admin/__init__.py`` imports this module, which registers ``TableAdmin``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from clubsite.admin_lookups import SafeLookups
from scoring.admin.tariffs import OrganisersOnly
from scoring.models import Table


class TableAdmin(OrganisersOnly, SafeLookups, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("__str__", "played_on", "status", "standing", "page")
    list_filter = ("standing", "status", "game", "totals_only")
    date_hierarchy = "played_on"
    fields = ("game", "played_on", "status", "standing", "page")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).defer("result")

    @admin.display(description=_("page"))
    def page(self, table: Table) -> str:
        """The table's own page, where it is accepted or rejected."""
        return format_html(
            '<a href="{}">{}</a>', reverse("scoring:table_detail", args=[table.pk]), _("open")
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


admin.site.register(Table, TableAdmin)
