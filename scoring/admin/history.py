"""The record book of the paper history's imports in the admin, read-only: for each file
brought in (``services.history``), who brought it, when, the file's name, its rows, the
tables it made and the new guests, each table a link to its page. Imports are written by
the upload page and ``manage.py import_history`` only: nobody adds, changes or deletes
one here, administrators included (an import's tables count in the standings; a wrong one
is put right on the tables, not by erasing its record).

``scoring/admin/__init__.py`` imports this module, which registers ``HistoryImportAdmin``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from clubsite.admin_lookups import SafeLookups
from scoring.admin.tariffs import OrganisersOnly
from scoring.models import HistoryImport


class HistoryImportAdmin(OrganisersOnly, SafeLookups, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("at", "file_name", "imported_by", "rows", "tables", "guests")
    list_display_links = ("at", "file_name")
    search_fields = ("file_name",)
    fields = (
        "at",
        "imported_by",
        "file_name",
        "rows",
        "tables",
        "guests",
        "tables_made",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> Any:
        return (
            super()
            .get_queryset(request)
            .select_related("by")
            .annotate(row_count=Count("tables_made__seats"))
        )

    @admin.display(description=_("imported by"), ordering="by__display_name")
    def imported_by(self, record: HistoryImport) -> str:
        return record.by.name if record.by is not None else "—"

    @admin.display(description=_("rows"), ordering="row_count")
    def rows(self, record: HistoryImport) -> int:
        """The file's rows: one a player at a table (a file with a refused row is never
        imported, so every row made a seat)."""
        return int(getattr(record, "row_count", 0))

    @admin.display(description=_("tables made"))
    def tables_made(self, record: HistoryImport) -> str:
        """Each table the file made: its date, game and players, a link to its page."""
        tables = (
            record.tables_made.only("game", "played_on")
            .order_by("played_on", "pk")
            .prefetch_related("seats")
        )
        if not tables:
            return "—"
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                '<li><a href="{}">{}</a> · {}</li>',
                (
                    (
                        reverse("scoring:table_detail", args=[table.pk]),
                        table,
                        ", ".join(seat.name for seat in table.seats.all()),
                    )
                    for table in tables
                ),
            ),
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


admin.site.register(HistoryImport, HistoryImportAdmin)
