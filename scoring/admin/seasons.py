"""The organisers' editor for seasons: name and dates, the default tariffs, and how the
season's leaderboards qualify and rank members.

Only organisers (the Organisers group, and superusers) reach these pages; other staff get
403. A season that has ended is read-only: its table is final, so nobody changes its dates
or rules after the fact (the admin shows it without a save button and refuses a POST).

``scoring/admin/__init__.py`` imports this module, which registers ``SeasonAdmin``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from clubsite.admin_lookups import SafeLookups
from scoring import services
from scoring.engine.standings import RANKING_KEYS
from scoring.models import Season, Table
from scoring.models.seasons import RANKING_WORDS, ranking_keys
from scoring.permissions import can_use_admin


def ranking_help() -> str:
    """The ranking field's help: how the order works, and every key with its meaning."""
    return format_html(
        "{}<br>{}",
        _(
            "Comma-separated keys: the first ranks, each next one breaks the ties left "
            "(higher values rank first), e.g. money, average, wins. The keys:"
        ),
        format_html_join(
            ", ", "<code>{}</code> ({})", ((key, RANKING_WORDS[key]) for key in RANKING_KEYS)
        ),
    )


class SeasonAdmin(SafeLookups, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "starts_on", "ends_on", "min_games", "ranking_order", "state", "boards")
    list_select_related = ("preferans_tariff", "boston_tariff")
    search_fields = ("name",)
    date_hierarchy = "starts_on"
    fieldsets = (
        (None, {"fields": ("name", ("starts_on", "ends_on"))}),
        (
            _("Default tariffs"),
            {
                "description": _("The tariffs a new table in this season starts with."),
                "fields": ("preferans_tariff", "boston_tariff"),
            },
        ),
        (
            _("Qualification and ranking"),
            {
                "description": _(
                    "Members with fewer finished tables than the minimum are listed apart, "
                    "unranked. The ranking order is shown on the season's page in words."
                ),
                "fields": ("min_games", "ranking"),
            },
        ),
        (
            _("Ranked as a league"),
            {
                "description": _(
                    "Instead of the ranking order, a season may rank as a league: each "
                    "table of a league night gives points by the rule chosen here (place "
                    "points, results counted in bands, or the result as it is) and the "
                    "nights add up — all of them, or a member's best N — or members rank "
                    "by their average place. Equal points go to the larger total result. "
                    "Serbian league: place points [3, 2, 0], 4 when the winner alone is "
                    "positive, 1 for a negative 2nd. Guests play but never rank."
                ),
                "fields": (
                    "league_rule",
                    "league_nights",
                    "place_points",
                    ("sole_positive", "second_negative"),
                    "bands",
                    "best_of",
                ),
            },
        ),
        (
            _("Club evenings"),
            {
                "description": _(
                    "What each player of a club evening pays the club; the evening's list "
                    "of who pays whom includes it."
                ),
                "fields": ("table_money",),
            },
        ),
    )

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        if "ranking" in form.base_fields:
            form.base_fields["ranking"].help_text = ranking_help()
        # A form sent without the league's choices (a page drawn before seasons could be
        # leagues, a script) saves the season as it always ranked: by its ranking order,
        # its nights the evenings.
        for name, default in (("league_rule", Season.KEYS), ("league_nights", Season.EVENINGS)):
            field = form.base_fields.get(name)
            if isinstance(field, forms.TypedChoiceField):
                field.required = False
                field.empty_value = default
        return form

    @admin.display(description=_("ranking order"), ordering="ranking")
    def ranking_order(self, obj: Season) -> str:
        if obj.is_league:
            return str(obj.get_league_rule_display())
        return ", ".join(str(RANKING_WORDS.get(k, k)) for k in ranking_keys(obj.ranking))

    @admin.display(description=_("state"))
    def state(self, obj: Season) -> str:
        if obj.is_past:
            return str(_("finished (read-only)"))
        return str(_("current or upcoming"))

    @admin.display(description=_("leaderboards"))
    def boards(self, obj: Season) -> str:
        return format_html_join(
            " · ",
            '<a href="{}">{}</a>',
            (
                (reverse("scoring:season_standings", kwargs={"pk": obj.pk, "game": game}), label)
                for game, label in Table.GAMES
            ),
        )

    # -- writes: through the services, which keep the standings in step

    def save_model(self, request: HttpRequest, obj: Season, form: Any, change: bool) -> None:
        services.season_save(season=obj)

    def delete_model(self, request: HttpRequest, obj: Season) -> None:
        services.season_delete(season=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Season]) -> None:
        services.seasons_delete(seasons=queryset)

    # -- who may do what ------------------------------------------------------------------

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can_use_admin(request) and super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_use_admin(request) and super().has_view_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return can_use_admin(request) and super().has_add_permission(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.is_past:
            return False
        return can_use_admin(request) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.is_past:
            return False
        return can_use_admin(request) and super().has_delete_permission(request, obj)


admin.site.register(Season, SeasonAdmin)
