"""The organisers' editor: house tariffs in the admin (seasons join them once they exist).

Only organisers (members of the Organisers group, and superusers) reach these pages; any
other staff member gets 403, and members who are not staff never get past the admin's
sign-in. Every save goes through ``services.tariff_publish``, so a tariff that tables have
used is never changed under them: the edit becomes a new version. When tables are in play
under the tariff, the organiser first sees how each would change and chooses which move.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import ActionLocation
from django.contrib.admin.utils import flatten_fieldsets, unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import router, transaction
from django.db.models import Count, Max, QuerySet
from django.forms.formsets import all_valid
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.functional import Promise
from django.utils.html import format_html, format_html_join
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from clubsite.admin_lookups import SafeLookups
from members.models import Member
from scoring import services
from scoring.engine.boston.rules import TRICK_ROWS, BostonRules
from scoring.engine.errors import RuleError
from scoring.games import GAMES
from scoring.models import (
    BostonCardRow,
    BostonPaymentRow,
    BostonTariff,
    BostonTariffVersion,
    PreferansTariff,
    PreferansTariffVersion,
    tariff_settings,
)
from scoring.models.tariff_settings import (
    BOSTON_SECTIONS,
    BOSTON_SETTINGS,
    PREFERANS_SECTIONS,
    PREFERANS_SETTINGS,
)
from scoring.models.tariffs import SPECIAL_ROW_LABELS, Tariff
from scoring.pages.labels import rule_error_text
from scoring.permissions import can_use_admin
from scoring.templatetags.amounts import number

CONFIRM = "_tariff_confirmed"
"""POSTed by the preview page: the organiser has seen the tables in play."""
MOVE = "move_tables"
"""POSTed by the preview page: the ids of the tables in play to move to the new version."""
MAX_IMPORT_BYTES = 1_000_000


# -- who may edit -------------------------------------------------------------------------


def _organiser(request: HttpRequest) -> Member:
    """The organiser making an admin change (only members sign in to the admin)."""
    assert isinstance(request.user, Member)  # noqa: S101 - OrganisersOnly let them in
    return request.user


class OrganisersOnly:
    """Admin pages for organisers: the model permissions are needed as well (the
    Organisers group has them), and no other staff member gets in."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can_use_admin(request) and super().has_module_permission(request)  # type: ignore[misc]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_use_admin(request) and super().has_view_permission(request, obj)  # type: ignore[misc]

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return can_use_admin(request) and super().has_add_permission(request, *args)  # type: ignore[misc]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_use_admin(request) and super().has_change_permission(request, obj)  # type: ignore[misc]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_use_admin(request) and super().has_delete_permission(request, obj)  # type: ignore[misc]


# -- forms --------------------------------------------------------------------------------

TARIFF_HELP = {
    "name": _("The name members see, e.g. «Сочи (Sochi)»; each name once."),
    "description": _(
        "What the club plays by and where it differs from its preset; shown on the tariff page."
    ),
    "changed_by": _("The organiser who saved this tariff last."),
    "changed_at": _("When this tariff was saved last."),
    "version_history": _(
        "The versions tables are played under. A version a table has used never changes: "
        "saving an edit then publishes a new one."
    ),
}


# The admin builds the form from its fieldsets; these Metas add only labels and help.
class PreferansTariffForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        labels = tariff_settings.labels(PREFERANS_SETTINGS)
        help_texts = TARIFF_HELP


class BostonTariffForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        labels = tariff_settings.labels(BOSTON_SETTINGS)
        help_texts = TARIFF_HELP


class NewRowForm(forms.ModelForm):  # type: ignore[type-arg]
    """An inline row; a new one arrives with the preset's numbers as initial data and is
    saved even when the organiser leaves it as it is."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A tabular inline's inputs stand under its column heads, with no label of their
        # own: each is named for assistive technology (axe: «label», «select-name»).
        for field in self.fields.values():
            field.widget.attrs.setdefault("aria-label", str(field.label))

    def has_changed(self) -> bool:
        return (self.instance.pk is None and bool(self.initial)) or super().has_changed()


PAYMENT_TERMS = ("required", "base", "rate", "no_trick_count")
CARD_TERMS = ("unit", "three_honours", "four_honours", "overtrick")
CARD_ENGINE_FIELDS = {
    "contract_units": "unit",
    "three_honours_units": "three_honours",
    "four_honours_units": "four_honours",
    "overtrick_units": "overtrick",
}


def _engine_message(error: RuleError) -> str:
    # A list setting's message names the item ("item 3 must be …"); on a row it is the row.
    if "item" in error.params:
        params = {name: value for name, value in error.params.items() if name != "item"}
        error = RuleError(error.template.removeprefix("item %(item)s "), **params)
    return rule_error_text(error)


class PaymentRowForm(NewRowForm):
    class Meta:
        model = BostonPaymentRow
        fields = ("contract", *PAYMENT_TERMS)
        help_texts = {"contract": _("The contract this row prices.")}

    def clean(self) -> dict[str, Any]:
        """Check the row with the engine, so an impossible number is marked on its field."""
        cleaned = super().clean() or {}
        contract = cleaned.get("contract") or self.instance.contract
        terms = {name: cleaned.get(name) for name in PAYMENT_TERMS}
        if contract and None not in terms.values():
            try:
                BostonRules().with_overrides({f"{contract}_{k}": v for k, v in terms.items()})
            except RuleError as error:
                name = (error.field or "").removeprefix("rules.").removeprefix(f"{contract}_")
                field = name if name in PAYMENT_TERMS else None
                raise ValidationError({field or "__all__": _engine_message(error)}) from None
        return cleaned


class CardRowForm(NewRowForm):
    class Meta:
        model = BostonCardRow
        fields = ("row", *CARD_TERMS)
        help_texts = {"row": _("The row of the value card.")}

    def clean(self) -> dict[str, Any]:
        """Check the row with the engine, so an impossible number is marked on its field."""
        cleaned = super().clean() or {}
        row = cleaned.get("row") or self.instance.row
        values = {name: cleaned.get(name) for name in CARD_TERMS}
        if row and values["unit"] is not None:
            card = BostonRules().to_dict()
            BostonCardRow(row=row, **values).apply(card)
            names = (
                list(CARD_ENGINE_FIELDS) if row in TRICK_ROWS else [f"{row.replace('-', '_')}_unit"]
            )
            try:
                BostonRules().with_overrides({name: card[name] for name in names})
            except RuleError as error:
                name = (error.field or "").removeprefix("rules.")
                field = CARD_ENGINE_FIELDS.get(name, "unit" if name.endswith("_unit") else None)
                raise ValidationError({field or "__all__": _engine_message(error)}) from None
        return cleaned


@contextmanager
def rows_as_edited(tariff: Tariff, formsets: Sequence[Any]) -> Iterator[None]:
    """Let ``tariff.to_rules()`` read its rows as the inline forms hold them, unsaved
    (through the related managers' prefetch cache, which ``.all()`` answers from)."""
    cache = tariff.__dict__.setdefault("_prefetched_objects_cache", {})
    saved = dict(cache)
    for formset in formsets:
        accessor = formset.fk.remote_field.get_accessor_name()
        cache[accessor] = [
            form.instance for form in formset.forms if form.instance.pk or form.has_changed()
        ]
    try:
        yield
    finally:
        cache.clear()
        cache.update(saved)


class TariffRowsFormSet(forms.BaseInlineFormSet):  # type: ignore[type-arg]
    """The last of a tariff's row formsets checks the whole tariff as edited, so rules the
    rows make impossible together are refused before anything is saved."""

    tariff_formsets: Sequence[Any] = ()

    def clean(self) -> None:
        super().clean()
        if self.instance.pk and self.extra_forms:
            # A tariff's rows are fixed once it exists; only a forged management form
            # (INITIAL_FORMS lowered) can offer new ones, and they would clash or be keyless.
            raise ValidationError(gettext("A tariff's rows can be edited, not added."))
        siblings = self.tariff_formsets
        if not siblings or siblings[-1] is not self:
            return
        if not all(form.is_valid() for formset in siblings for form in formset.forms):
            return
        with rows_as_edited(self.instance, siblings):
            try:
                self.instance.to_rules()
            except RuleError as error:
                raise ValidationError(rule_error_text(error, located=True)) from None


# -- inlines ------------------------------------------------------------------------------


class FixedRowsInline(OrganisersOnly, admin.TabularInline):  # type: ignore[type-arg]
    """Rows that exist once per contract: no deleting; a new tariff starts with the
    preset's rows, an existing one keeps its rows (each titled by its contract)."""

    formset = TariffRowsFormSet
    extra = 0
    can_delete = False
    key = ""

    def preset_rows(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # An existing row is titled by its contract already; only a new tariff chooses.
        fields = super().get_fields(request, obj)
        return [f for f in fields if f != self.key] if obj is not None and obj.pk else fields

    def get_extra(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> int:
        return 0 if obj is not None and obj.pk else len(self.preset_rows())

    def get_max_num(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> int:
        return len(self.preset_rows())


class PaymentRowInline(FixedRowsInline):
    model = BostonPaymentRow
    form = PaymentRowForm
    key = "contract"
    fields = ("contract", *PAYMENT_TERMS)
    verbose_name = _("payment tariff row")
    verbose_name_plural = _("Payment tariff: minor suit, simple tour")

    def preset_rows(self) -> list[dict[str, Any]]:
        return BostonTariff.rows_from_rules(BostonRules())[0]


class CardRowInline(FixedRowsInline):
    model = BostonCardRow
    form = CardRowForm
    key = "row"
    fields = ("row", *CARD_TERMS)
    verbose_name = _("value card row")
    verbose_name_plural = _("Value card: units of the ×1 column")

    def preset_rows(self) -> list[dict[str, Any]]:
        return BostonTariff.rows_from_rules(BostonRules())[1]


# -- JSON import --------------------------------------------------------------------------


class ImportForm(forms.Form):
    file = forms.FileField(
        label=_("JSON file"),
        help_text=_("A tariff exported from this site: one tariff, or a list of them."),
    )
    name = forms.CharField(
        label=_("Name"),
        required=False,
        max_length=100,
        help_text=_("Optional: import under this name instead of the file's (one tariff only)."),
    )


# -- the tariff admins --------------------------------------------------------------------


class TariffAdmin(SafeLookups, OrganisersOnly, admin.ModelAdmin):  # type: ignore[type-arg]
    """What both tariff admins share: the list, versions, publishing, the preview of
    tables in play, copy, export and import."""

    game = ""
    list_display = ("name", "current_version", "changed_at", "changed_by")
    list_select_related = ("changed_by",)
    search_fields = ("name", "description")
    # Named here as well as in the model's Meta: the annotation in get_queryset groups the
    # rows, and a grouped query drops Meta's ordering (the autocomplete's pages were unordered).
    ordering = ("name",)
    readonly_fields = ("changed_by", "changed_at", "version_history")
    actions = ("copy_tariff", "export_json")
    preview_template = "admin/scoring/tariff_change_preview.html"
    import_template = "admin/scoring/tariff_import.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        tariffs: QuerySet[Any] = super().get_queryset(request)
        annotated: QuerySet[Any] = tariffs.annotate(current_number=Max("versions__number"))
        return annotated

    @admin.display(description=_("version"), ordering="current_number")
    def current_version(self, obj: Tariff) -> str:
        number = getattr(obj, "current_number", None)
        return str(number) if number else "—"

    @admin.display(description=_("versions"))
    def version_history(self, obj: Tariff) -> str:
        if obj.pk is None:
            return gettext("Version 1 is published when you save.")
        versions = (
            obj.versions.select_related("created_by")
            .annotate(table_count=Count("tables"))
            .order_by("-number")
        )
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "\n",
                "<li>{} · {} · {} · {}</li>",
                (
                    (
                        gettext("version %(number)s") % {"number": v.number},
                        date_format(timezone.localtime(v.created_at), "DATETIME_FORMAT"),
                        v.created_by or "—",
                        ngettext("%(n)d table", "%(n)d tables", v.table_count)
                        % {"n": v.table_count},
                    )
                    for v in versions
                ),
            ),
        )

    # -- saving: always through tariff_publish, after the rows are saved

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        obj.changed_by = request.user
        super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        tariff = form.instance
        before = tariff.current_version
        move = self._tables_to_move(request, tariff) if change else []
        version = services.tariff_publish(tariff, by=_organiser(request), move_tables=move)
        if before is not None and version.number != before.number:
            self.message_user(
                request,
                gettext(
                    "Tables have played version %(old)s, so the edit is published as version "
                    "%(new)s; finished games keep their numbers."
                )
                % {"old": before.number, "new": version.number},
                messages.INFO,
            )
        if move:
            self.message_user(
                request,
                ngettext(
                    "%(n)d table in play moved to version %(v)s.",
                    "%(n)d tables in play moved to version %(v)s.",
                    len(move),
                )
                % {"n": len(move), "v": version.number},
                messages.INFO,
            )

    def _tables_to_move(self, request: HttpRequest, tariff: Tariff) -> list[int]:
        """The tables the organiser ticked on the preview page that the new rules accept
        (checked again now: a deal may have been entered since)."""
        if CONFIRM not in request.POST:
            return []
        chosen = {int(v) for v in request.POST.getlist(MOVE) if v.isdigit()}
        if not chosen:
            return []
        return [
            change.table.pk
            for change in services.tariff_change_preview(tariff)
            if change.error is None and change.table.pk in chosen
        ]

    def _create_formsets(self, request: HttpRequest, obj: Any, change: bool) -> Any:
        # Private ModelAdmin API (absent from the stubs): the one place the formsets exist.
        formsets, inline_instances = super()._create_formsets(request, obj, change)  # type: ignore[misc]
        if formsets:
            formsets[-1].tariff_formsets = formsets
        return formsets, inline_instances

    # -- deleting: a tariff goes with its versions, unless a table has played one

    def get_deleted_objects(
        self, objs: Any, request: HttpRequest
    ) -> tuple[list[Any], dict[str, int], set[str], list[str]]:
        """Versions PROTECT their tariff so that no code path drops a used one by accident;
        here a tariff no table has played is deleted with its versions and rows, and one
        that a table has played is refused (the table's version must stay forever)."""
        tariffs = list(objs)
        version_model = self.model._meta.get_field("versions").related_model
        versions = version_model.objects.filter(tariff__in=tariffs).annotate(
            table_count=Count("tables")
        )
        protected = [
            ngettext(
                "%(version)s: played at %(n)d table",
                "%(version)s: played at %(n)d tables",
                version.table_count,
            )
            % {"version": version, "n": version.table_count}
            for version in versions.select_related("tariff")
            if version.table_count
        ]
        if protected:
            return [], {}, set(), protected
        deleted: list[Any] = []
        for tariff in tariffs:
            url = reverse(
                f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[tariff.pk]
            )
            deleted.append(
                format_html('{}: <a href="{}">{}</a>', self.opts.verbose_name, url, tariff)
            )
            deleted.append([str(version) for version in tariff.versions.all()])
        counts = {
            str(self.opts.verbose_name_plural): len(tariffs),
            str(version_model._meta.verbose_name_plural): len(versions),
        }
        return deleted, counts, set(), []

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.tariff_delete(tariff=obj)  # ProtectedError if a table has just used one

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        with transaction.atomic(using=router.db_for_write(self.model)):
            for obj in queryset:
                services.tariff_delete(tariff=obj)

    # -- the preview of tables in play

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        if (
            request.method == "POST"
            and object_id is not None
            and CONFIRM not in request.POST
            and not self._is_action(request)
        ):
            with transaction.atomic(using=router.db_for_write(self.model)):
                preview = self._change_preview(request, object_id)
            if preview is not None:
                return preview
        return super().changeform_view(request, object_id, form_url, extra_context)

    @staticmethod
    def _is_action(request: HttpRequest) -> bool:
        """A change-form action, not a save (the same test Django's change view makes)."""
        return f"{ActionLocation.CHANGE_FORM.value}-action" in request.POST and not any(
            button in request.POST for button in ("_save", "_continue", "_addanother")
        )

    def _change_preview(self, request: HttpRequest, object_id: str) -> HttpResponse | None:
        """The page that shows how an edit would change each table in play, or ``None``
        when the edit goes straight to the change view (nothing in play, the rules do not
        change, the form has errors, or no permission: the change view answers those)."""
        obj = self.get_object(request, unquote(object_id))
        if obj is None or not self.has_change_permission(request, obj):
            return None
        if not services.tables_in_play(obj).exists():
            return None
        saved_rules = obj.to_rules().to_dict()
        fieldsets = self.get_fieldsets(request, obj)
        model_form = self.get_form(request, obj, change=True, fields=flatten_fieldsets(fieldsets))
        form = model_form(request.POST, request.FILES, instance=obj)
        formsets, _inlines = self._create_formsets(request, form.instance, change=True)
        if not form.is_valid() or not all_valid(formsets):
            return None
        tariff = form.instance
        with rows_as_edited(tariff, formsets):
            new_rules = tariff.to_rules().to_dict()
            if new_rules == saved_rules:
                return None
            changes = services.tariff_change_preview(tariff)
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Tables in play under %(tariff)s") % {"tariff": obj},
            "opts": self.opts,
            "original": obj,
            "has_view_permission": True,
            "settings_changed": [
                setting_words(name, saved_rules.get(name), value)
                for name, value in new_rules.items()
                if saved_rules.get(name) != value
            ],
            "tables": [
                {
                    "change": change,
                    "rows": [
                        (player, before, after, delta)
                        for player, before, after, delta in zip(
                            change.players,
                            change.before,
                            change.after or (None,) * len(change.players),
                            change.deltas or (None,) * len(change.players),
                            strict=True,
                        )
                    ],
                }
                for change in changes
            ],
            "hidden_fields": [
                (key, value)
                for key in request.POST
                if key not in ("csrfmiddlewaretoken", MOVE)
                for value in request.POST.getlist(key)
            ],
            "confirm_name": CONFIRM,
            # The save button the organiser pressed decides where the change view goes next.
            "save_button": None
            if any(b in request.POST for b in ("_save", "_continue", "_addanother"))
            else "_save",
            "move_name": MOVE,
        }
        return TemplateResponse(request, self.preview_template, context)

    # -- actions

    @admin.action(
        description=_("Copy as new tariff"),
        permissions=["add"],
        location=[ActionLocation.CHANGE_LIST, ActionLocation.CHANGE_FORM],
    )
    def copy_tariff(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        copies = []
        for tariff in queryset.order_by("name"):
            name = copy_name(self.model, tariff.name)
            try:
                copy = services.tariff_copy(tariff, name=name, by=_organiser(request))
            except (RuleError, ValidationError) as error:
                self.message_user(
                    request,
                    gettext("«%(name)s» was not copied: %(error)s")
                    % {"name": tariff, "error": error},
                    messages.ERROR,
                )
                continue
            copies.append(copy)
            self.message_user(
                request,
                format_html(
                    gettext('Copied «{}» as <a href="{}">{}</a>.'),
                    tariff,
                    reverse(
                        f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[copy.pk]
                    ),
                    copy,
                ),
                messages.SUCCESS,
            )
        if len(copies) == 1:
            return HttpResponseRedirect(
                reverse(
                    f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
                    args=[copies[0].pk],
                )
            )
        return None

    @admin.action(
        description=_("Export as JSON"),
        permissions=["view"],
        location=[ActionLocation.CHANGE_LIST, ActionLocation.CHANGE_FORM],
    )
    def export_json(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse:
        tariffs = list(queryset.order_by("name"))
        documents = [services.tariff_export(tariff) for tariff in tariffs]
        if len(documents) == 1:
            data: Any = documents[0]
            filename = f"{slugify(tariffs[0].name, allow_unicode=True) or 'tariff'}.json"
        else:
            data = documents
            filename = f"{self.game}-tariffs.json"
        response = HttpResponse(
            json.dumps(data, ensure_ascii=False, indent=2) + "\n",
            content_type="application/json; charset=utf-8",
        )
        response["Content-Disposition"] = content_disposition_header(True, filename)
        return response

    # -- import

    def get_urls(self) -> list[URLPattern]:
        name = f"{self.opts.app_label}_{self.opts.model_name}_import"
        return [
            path("import/", self.admin_site.admin_view(self.import_view), name=name),
            *super().get_urls(),
        ]

    def import_view(self, request: HttpRequest) -> HttpResponse:
        """Upload a JSON export: every tariff in it is created, or none (errors shown)."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        posted = request.method == "POST"
        form = ImportForm(request.POST, request.FILES) if posted else ImportForm()
        if posted and form.is_valid():
            try:
                with transaction.atomic(using=router.db_for_write(self.model)):
                    tariffs = self._import(request, form)
            except ValidationError as error:
                form.add_error(None, error)
            except RuleError as error:
                field = "name" if error.field == "name" and form.cleaned_data["name"] else "file"
                form.add_error(field, rule_error_text(error, located=True))
            else:
                for tariff in tariffs:
                    self.message_user(
                        request,
                        gettext("Imported «%(name)s» (version 1).") % {"name": tariff},
                        messages.SUCCESS,
                    )
                changelist = f"admin:{self.opts.app_label}_{self.opts.model_name}_changelist"
                if len(tariffs) == 1:
                    return HttpResponseRedirect(
                        reverse(
                            f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
                            args=[tariffs[0].pk],
                        )
                    )
                return HttpResponseRedirect(reverse(changelist))
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Import %(name)s from JSON") % {"name": self.opts.verbose_name_plural},
            "opts": self.opts,
            "form": form,
            "has_view_permission": self.has_view_permission(request),
        }
        return TemplateResponse(request, self.import_template, context)

    def _import(self, request: HttpRequest, form: ImportForm) -> list[Tariff]:
        upload = form.cleaned_data["file"]
        if upload.size > MAX_IMPORT_BYTES:
            raise ValidationError(gettext("The file is too large for a tariff (at most 1 MB)."))
        try:
            data = json.loads(upload.read().decode("utf-8"))
        except UnicodeDecodeError:
            raise ValidationError(gettext("The file is not UTF-8 text.")) from None
        except (ValueError, RecursionError) as error:  # bad JSON, huge numbers, deep nesting
            raise ValidationError(
                gettext("The file is not valid JSON: %(error)s") % {"error": error}
            ) from None
        documents = data if isinstance(data, list) else [data]
        if not documents:
            raise ValidationError(gettext("The file holds an empty list."))
        if form.cleaned_data["name"]:
            if len(documents) != 1 or not isinstance(documents[0], dict):
                raise ValidationError(gettext("A new name can be given for one tariff only."))
            documents = [documents[0] | {"name": form.cleaned_data["name"]}]
        tariffs = []
        for n, document in enumerate(documents, start=1):
            where = f"tariff {n}: " if len(documents) > 1 else ""
            # Only a game the site has is named back: any other value (a list, a lone
            # surrogate …) is the service's to refuse, without quoting it.
            game = document.get("game") if isinstance(document, dict) else None
            if isinstance(game, str) and game in GAMES and game != self.game:
                raise ValidationError(
                    gettext("%(where)sthis is a %(game)s tariff; import it on that game's page.")
                    % {"where": where, "game": game}
                )
            try:
                tariffs.append(services.tariff_import(document, by=_organiser(request)))
            except RuleError as error:
                if where:
                    raise ValidationError(f"{where}{error}") from None
                raise
            except ValidationError as error:
                raise ValidationError(f"{where}{'; '.join(error.messages)}") from None
        return tariffs


def copy_name(model: type[Tariff], name: str) -> str:
    """``"<name> (copy)"``, or ``(copy 2)``, ``(copy 3)`` … when taken (at most 100
    characters: a long name is shortened before the suffix)."""
    taken = set(model.objects.values_list("name", flat=True))  # type: ignore[attr-defined]
    n = 1
    while True:
        suffix = " (copy)" if n == 1 else f" (copy {n})"
        candidate = name[: 100 - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        n += 1


VERSIONS_FIELDSET = (_("Versions"), {"fields": ("version_history",)})


def _setting_text(value: Any, choices: Any = ()) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, Decimal):
        return number(value.normalize())
    if value is None:
        return "—"
    if isinstance(value, str) and re.fullmatch(r"\d+/\d+", value):
        return number(tariff_settings.decimal(Fraction(value)))  # a rate such as "3/2"
    return str(dict(choices).get(value, number(value)))


# The engine's list rules and rows, which no single declaration names, in words.
LIST_RULE_LABELS = {
    "contract_values": _("Values of the contracts"),
    "whist_obligations": _("Defence obligations"),
    "column_multipliers": _("Suit column multipliers"),
    "suit_order": _("Order of the suit columns"),
    "contract_units": _("Value card: values of the trick contracts"),
    "three_honours_units": _("Value card: three honours"),
    "four_honours_units": _("Value card: four honours"),
    "overtrick_units": _("Value card: each trick over or short"),
}


def setting_words(name: str, before: Any, after: Any) -> tuple[str, str, str]:
    """One changed engine setting of the preview as the organiser reads it: its label
    and both values in words (the engine's keys are not for organisers)."""
    for setting in (*PREFERANS_SETTINGS, *BOSTON_SETTINGS):
        if setting.engine_name == name and setting.index is None:
            label = str(setting.label)
            return (
                label,
                _setting_text(before, setting.choices),
                _setting_text(after, setting.choices),
            )
    contract, _sep, term = name.partition("_")
    contracts = dict(BostonPaymentRow.CONTRACTS)
    if contract in contracts and term in PAYMENT_TERMS:
        field = BostonPaymentRow._meta.get_field(term)
        label = f"{contracts[contract]}: {getattr(field, 'verbose_name', term)}"
    elif name.endswith("_unit") and (row := name[: -len("_unit")].replace("_", "-")) in (
        SPECIAL_ROW_LABELS
    ):
        label = gettext("Value card: %(row)s") % {"row": SPECIAL_ROW_LABELS[row][0]}
    else:
        label = str(LIST_RULE_LABELS.get(name, name))
    return label, _setting_text(before), _setting_text(after)


@admin.register(PreferansTariff)
class PreferansTariffAdmin(TariffAdmin):
    """preferans.md §11, grouped as the rule book reads."""

    game = "preferans"
    form = PreferansTariffForm
    fieldsets = tariff_settings.fieldsets(
        PREFERANS_SETTINGS,
        PREFERANS_SECTIONS,
        head=("name", "description", ("changed_by", "changed_at")),
        tail=VERSIONS_FIELDSET,
    )


@admin.register(BostonTariff)
class BostonTariffAdmin(TariffAdmin):
    """boston.md §1–§2: the settings here, the payment table and value card as rows."""

    game = "boston"
    form = BostonTariffForm
    inlines = (PaymentRowInline, CardRowInline)
    fieldsets = tariff_settings.fieldsets(
        BOSTON_SETTINGS,
        BOSTON_SECTIONS,
        head=("name", "description", ("changed_by", "changed_at")),
        tail=VERSIONS_FIELDSET,
    )

    def get_formset_kwargs(
        self, request: HttpRequest, obj: Any, inline: Any, prefix: str
    ) -> dict[str, Any]:
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        if obj.pk is None:
            kwargs["initial"] = inline.preset_rows()
        return kwargs


# -- versions: read-only ------------------------------------------------------------------


class TariffVersionAdmin(SafeLookups, OrganisersOnly, admin.ModelAdmin):  # type: ignore[type-arg]
    """A version is a frozen snapshot: organisers may look, nobody edits."""

    list_display = ("tariff", "number", "created_at", "created_by", "table_count")
    list_filter = ("tariff",)
    list_select_related = ("tariff", "created_by")
    fields = ("tariff", "number", "created_at", "created_by", "table_count", "rules_text")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        versions: QuerySet[Any] = super().get_queryset(request)
        annotated: QuerySet[Any] = versions.annotate(tables_count=Count("tables"))
        return annotated

    @admin.display(description=_("tables"), ordering="tables_count")
    def table_count(self, obj: Any) -> int:
        return int(getattr(obj, "tables_count", 0))

    @admin.display(description=_("rules"))
    def rules_text(self, obj: Any) -> str:
        """The version's settings in words, as the tariff page lists them (the stored JSON
        is the engine's, with its keys: not for organisers)."""
        preferans = isinstance(obj, PreferansTariffVersion)
        rows = tariff_settings.page_rows(
            obj.to_rules(),
            PREFERANS_SETTINGS if preferans else BOSTON_SETTINGS,
            PREFERANS_SECTIONS if preferans else BOSTON_SECTIONS,
            (),
        )
        return format_html(
            "<dl>{}</dl>",
            format_html_join(
                "", "<dt>{}</dt><dd>{}</dd>", ((r.term, r.value) for s in rows.values() for r in s)
            ),
        )

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    # Django's titles put the model's name into one sentence for every model, «Выберите
    # %s для просмотра», which takes a feminine name in the wrong case («Выберите версия
    # тарифа»): the versions' pages are titled in sentences of their own.
    TITLES: ClassVar[dict[str, tuple[Promise, Promise]]] = {
        "preferanstariffversion": (
            _("Select a Preferans tariff version to view"),
            _("A Preferans tariff version"),
        ),
        "bostontariffversion": (
            _("Select a Boston tariff version to view"),
            _("A Boston tariff version"),
        ),
    }

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        title = self.TITLES[str(self.opts.model_name)][0]
        return super().changelist_view(request, {"title": title, **(extra_context or {})})

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        title = self.TITLES[str(self.opts.model_name)][1]
        context = {"title": title, **(extra_context or {})}
        return super().change_view(request, object_id, form_url, context)


admin.site.register(PreferansTariffVersion, TariffVersionAdmin)
admin.site.register(BostonTariffVersion, TariffVersionAdmin)
