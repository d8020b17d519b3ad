"""The organisers' editor for tournaments, in the order of a rule book: the event, the
format (chosen from a preset and then edited), how results become points, the cut and
the discipline, the judges, and the field.

Choosing a preset copies its format into the fields (``services.tournaments.
tournament_preset``); the organiser edits them afterwards. Once the tournament has
started, its game, tariff and format are read-only: the tours already seated were drawn
and scored by them. Only organisers reach these pages (``can_use_admin``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from clubsite.admin_lookups import SafeLookups
from scoring.engine.errors import RuleError
from scoring.models import Entry, Penalty, Tournament
from scoring.models.tournaments import FORMAT_FIELDS, tournament_format
from scoring.pages.labels import rule_error_text
from scoring.permissions import can_use_admin
from scoring.services import tournaments as services

FROZEN = ("game", "preferans_tariff", "boston_tariff", "preset", *FORMAT_FIELDS)
"""What a started tournament keeps as it was."""


class TournamentForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Tournament
        fields = (
            "name",
            "played_on",
            "place",
            "game",
            "preferans_tariff",
            "boston_tariff",
            "organiser",
            "judges",
            "seed",
            "preset",
            *FORMAT_FIELDS,
            "correction_minutes",
        )
        # The judges ticked in a list: a club's few dozen members fit, and Django's
        # two-box filter widget labels its search box with attributes axe refuses.
        widgets = {"judges": forms.CheckboxSelectMultiple}

    def clean(self) -> dict[str, Any]:
        """A new preset fills in the format; otherwise the fields as typed must make a
        format the engine can play (its refusal in words, on the form)."""
        data = super().clean() or {}
        if "game" in data:
            self.instance.game = data["game"]
        preset = data.get("preset", "custom")
        if "preset" in self.changed_data and preset != "custom" and self.instance.is_draft:
            try:
                services.tournament_preset(tournament=self.instance, preset=preset)
            except RuleError as error:
                raise ValidationError(rule_error_text(error)) from None
            for name in FORMAT_FIELDS:
                data[name] = getattr(self.instance, name)
        else:
            for name in FORMAT_FIELDS:
                if name in data:
                    setattr(self.instance, name, data[name])
        if self.instance.is_draft:
            try:
                tournament_format(self.instance)
            except RuleError as error:
                raise ValidationError(rule_error_text(error)) from None
        return data


class EntryInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Entry
    extra = 0
    fields = ("member", "guest", "checked_in", "status")
    raw_id_fields = ("guest",)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """An entry leaves the field only before the tournament starts: after, he has tours
        (he withdraws instead)."""
        return obj is None or obj.is_draft


class PenaltyInline(admin.TabularInline):  # type: ignore[type-arg]
    """The judges' penalties, for reading: judges add and reverse them on the site, where
    each keeps who and why."""

    model = Penalty
    extra = 0
    fields = ("entry", "category", "reason", "points", "by", "at", "reversed_by", "reversed_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class TournamentAdmin(SafeLookups, admin.ModelAdmin):  # type: ignore[type-arg]
    form = TournamentForm
    list_display = ("name", "played_on", "preset", "status", "field_size", "page")
    list_filter = ("status", "preset")
    search_fields = ("name",)
    inlines = (EntryInline, PenaltyInline)
    fieldsets = (
        (
            _("The event"),
            {
                "fields": (
                    "name",
                    ("played_on", "place"),
                    "game",
                    "preferans_tariff",
                    "boston_tariff",
                )
            },
        ),
        (
            _("The format"),
            {
                "description": _(
                    "Choosing a format copies its rules into the fields below; change any of "
                    "them after saving. Tour 1 is drawn at random (or from the schedule); the "
                    "seating chosen here seats the tours after it."
                ),
                "fields": (
                    "preset",
                    "tours",
                    "seating",
                    "interval",
                    "table_size",
                    "length",
                    ("pool_target", "deals", "minutes"),
                ),
            },
        ),
        (
            _("Points"),
            {
                "description": _(
                    "How a player's result at his table becomes his tournament points, and "
                    "which tours count."
                ),
                "fields": (
                    "points",
                    "bands",
                    "place_points",
                    ("sole_positive", "second_negative"),
                    "best_of",
                    "bye_points",
                    "timeout_scores_zero",
                ),
            },
        ),
        (
            _("The cut and the final"),
            {
                "description": _("Leave empty for a tournament without a cut."),
                "fields": (("cut_after", "cut_to"), "final_deals", "cut_carry"),
            },
        ),
        (
            _("Discipline"),
            {"fields": ("yellow_below", "cards_to_disqualify", "correction_minutes")},
        ),
        (_("Judges and the draw"), {"fields": ("organiser", "judges", "seed")}),
    )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None and not obj.is_draft:
            return FROZEN
        return ()

    @admin.display(description=_("field"))
    def field_size(self, obj: Tournament) -> int:
        return obj.entries.count()

    @admin.display(description=_("page"))
    def page(self, obj: Tournament) -> str:
        url = reverse("scoring:tournament_detail", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, gettext("open"))

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can_use_admin(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_use_admin(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return can_use_admin(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_use_admin(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_use_admin(request) and (obj is None or obj.is_draft)


admin.site.register(Tournament, TournamentAdmin)
