"""House tariffs: the rules a club plays by, edited by organisers, versioned for games.

A tariff is the editable row an organiser changes in the admin; a *version* is a frozen
snapshot of its rules (the engine's ``to_dict()``) that tables point at. Editing a tariff
that tables have used publishes a new version (``services.tariff_publish``), so a finished
game is always scored by the exact rules it was played under.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.engine.boston.rules import ASK_CONTRACTS, CARD_ROWS, SUITS, TRICK_ROWS, BostonRules
from scoring.engine.errors import RuleError
from scoring.engine.preferans.rules import PreferansRules
from scoring.models.vocabulary import CARD_CONTRACT_NAMES

if TYPE_CHECKING:
    from django.db.models.fields.related_descriptors import RelatedManager

from scoring.models.tariff_settings import (
    BOSTON_DEFAULTS,
    BOSTON_SETTINGS,
    PREFERANS_DEFAULTS,
    PREFERANS_SETTINGS,
    Setting,
    add_columns,
    current_values,
    field_message,
    model_values,
    rules_values,
)


def positive(**kwargs: Any) -> models.PositiveIntegerField[int, int]:
    """A whole number that must be at least 1 (the Boston rows' terms)."""
    return models.PositiveIntegerField(validators=[MinValueValidator(1)], **kwargs)


class Tariff(models.Model):
    """What every house tariff has: a name, a description and who changed it when."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    description = models.TextField(_("description"), blank=True)
    changed_at = models.DateTimeField(_("changed at"), auto_now=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("changed by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )

    # The engine field each model field's errors belong to, where the names differ.
    ENGINE_FIELDS: ClassVar[dict[str, str]] = {}
    # The declared settings whose columns the game's tariff gets (tariff_settings.py).
    SETTINGS: ClassVar[tuple[Setting, ...]] = ()

    if TYPE_CHECKING:  # each game's version model gives its tariff this reverse relation
        versions: RelatedManager[Any]

    class Meta:
        abstract = True
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name

    def to_rules(self) -> Any:  # overridden with the game's rules type
        raise NotImplementedError

    def clean(self) -> None:
        """Reject an impossible tariff with the engine's message on the field."""
        super().clean()
        try:
            self.to_rules()
        except RuleError as error:
            name = (error.field or "").removeprefix("rules.")
            field = self.ENGINE_FIELDS.get(name, name)
            known = {f.name for f in self._meta.get_fields()}
            # The template through the catalogue (labels.rule_error_text is a room above;
            # a setting's parameters are numbers and keys, written as they are).
            message = ValidationError(gettext(error.template), params=error.params or None)
            raise ValidationError({field if field in known else "__all__": message}) from None
        except (TypeError, ValueError):
            raise ValidationError(self._unreadable()) from None

    def _unreadable(self) -> dict[str, list[str]]:
        """The settings the engine cannot read («1, x», «6 7» for a list) that their
        field's validator let through, each with its field's message; those it refused
        have that message from ``clean_fields`` already. Never Python's «invalid literal
        for int()»."""
        errors: dict[str, list[str]] = {}
        for setting in self.SETTINGS:
            value = getattr(self, setting.name)
            try:
                setting.to_engine(value)
            except (TypeError, ValueError):
                field = self._meta.get_field(setting.name)
                try:
                    if isinstance(field, models.Field):
                        field.clean(value, self)
                except ValidationError:
                    continue  # its validator's message is on the field already
                errors[setting.name] = [str(field_message(setting))]
        return errors

    @classmethod
    def stored_values(cls, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Column values from an older export (a backup) as the columns hold them today:
        a yes/no that has since become a choice is read as the choice it means."""
        return current_values(fields, cls.SETTINGS)

    @property
    def current_version(self) -> Any:
        """The newest published version of this tariff (``None`` before the first)."""
        return self.versions.order_by("-number").first()


class PreferansTariff(Tariff):
    """Every setting of preferans.md §11 and §13; the columns come from ``PREFERANS_SETTINGS``."""

    ENGINE_FIELDS: ClassVar[dict[str, str]] = {
        "contract_values": "value_6",
        "whist_obligations": "obligation_6",
    }
    SETTINGS = PREFERANS_SETTINGS

    class Meta(Tariff.Meta):
        verbose_name = _("Preferans tariff")
        verbose_name_plural = _("Preferans tariffs")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(
                condition=Q(value_6__gte=1, value_7__gte=1, value_8__gte=1, value_9__gte=1)
                & Q(value_10__gte=1, value_misere__gte=1),
                name="preferans_values_positive",
            ),
            models.CheckConstraint(
                condition=Q(obligation_6__lte=4, obligation_7__lte=4, obligation_8__lte=4)
                & Q(obligation_9__lte=4, obligation_10__lte=4),
                name="preferans_obligations_0_to_4",
            ),
            # Consolation may be 0 (preferans.md §13.1: no consolation); the others may not.
            models.CheckConstraint(
                condition=Q(whist_rate__gt=0, remise_rate__gt=0, consolation_rate__gte=0)
                & Q(whister_penalty_rate__gt=0),
                name="preferans_rates_positive",
            ),
            models.CheckConstraint(
                condition=Q(misere_penalty__gte=1, passout_whists__gte=1, dark_multiplier__gte=1)
                & Q(pool_weight__gte=1, mountain_weight__gte=1, help_whists_per_point__gte=1),
                name="preferans_multipliers_positive",
            ),
            models.CheckConstraint(
                condition=~Q(passout_ladder="") & ~Q(passout_exit=""),
                name="preferans_ladders_not_empty",
            ),
            models.CheckConstraint(
                condition=Q(passout_series_end_level__gte=6, passout_series_end_level__lte=10)
                & Q(concede_undertricks__gte=1, concede_undertricks__lte=10),
                name="preferans_house_levels",
            ),
            models.CheckConstraint(
                condition=Q(concede=True) | Q(concede_consolation=False),
                name="preferans_concede_consolation_needs_concede",
            ),
        ]

    def to_rules(self) -> PreferansRules:
        """The engine's rules for this tariff as it stands now."""
        return PreferansRules(**rules_values(self, PREFERANS_SETTINGS))

    @staticmethod
    def fields_from_rules(rules: PreferansRules) -> dict[str, Any]:
        """Model field values that give back ``rules`` (presets, copies, JSON import)."""
        return model_values(rules, PREFERANS_SETTINGS)


add_columns(PreferansTariff, PREFERANS_SETTINGS, PREFERANS_DEFAULTS)


class BostonTariff(Tariff):
    """The payment tariff and the value card of boston.md; the rows are inlines."""

    # A column from BOSTON_SETTINGS, named here for the type checker: to_rules() reads it.
    system: str
    SETTINGS = BOSTON_SETTINGS

    class Meta(Tariff.Meta):
        verbose_name = _("Boston tariff")
        verbose_name_plural = _("Boston tariffs")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(
                condition=Q(slam_multiplier__gte=1, major_multiplier__gte=1)
                & Q(double_tour_multiplier__gte=1, spades_multiplier__gte=1)
                & Q(clubs_multiplier__gte=1, diamonds_multiplier__gte=1, hearts_multiplier__gte=1),
                name="boston_multipliers_positive",
            ),
            models.CheckConstraint(
                condition=Q(together_required__gte=6, together_required__lte=13),
                name="boston_together_6_to_13",
            ),
        ]

    def to_rules(self) -> BostonRules:
        """The engine's rules: these fields plus the payment and value-card rows (rows a
        tariff lacks keep the seed's values)."""
        settings_ = rules_values(self, BOSTON_SETTINGS)
        if self.pk:
            for row in self.payment_rows.all():
                settings_ |= row.settings()
            card = BostonRules.preset(self.system).to_dict()
            for card_row in self.card_rows.all():
                card_row.apply(card)
            for name in (
                "contract_units",
                "three_honours_units",
                "four_honours_units",
                "overtrick_units",
            ):
                settings_[name] = card[name]
            for name in CARD_ROWS[len(TRICK_ROWS) :]:
                key = f"{name.replace('-', '_')}_unit"
                settings_[key] = card[key]
        return BostonRules.preset(self.system).with_overrides(settings_)

    @staticmethod
    def fields_from_rules(rules: BostonRules) -> dict[str, Any]:
        """Model field values (without the rows) that give back ``rules``."""
        fields = model_values(rules, BOSTON_SETTINGS)
        # A column multiplier belongs to its suit: rules may list the suits in another order.
        for suit in SUITS:
            fields[f"{suit}_multiplier"] = rules.column_multiplier(suit)
        return fields

    @staticmethod
    def rows_from_rules(rules: BostonRules) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The payment rows and value-card rows that give back ``rules``."""
        payment = [
            dict(
                zip(
                    ("contract", "required", "base", "rate", "no_trick_count"),
                    (contract, *rules.ask_terms(contract)),
                    strict=True,
                )
            )
            for contract in ASK_CONTRACTS
        ]
        card = [
            {
                "row": row,
                "unit": rules.contract_units[i],
                "three_honours": rules.three_honours_units[i],
                "four_honours": rules.four_honours_units[i],
                "overtrick": rules.overtrick_units[i],
            }
            for i, row in enumerate(TRICK_ROWS)
        ]
        card += [
            {"row": row, "unit": rules.special_unit(row)} for row in CARD_ROWS[len(TRICK_ROWS) :]
        ]
        return payment, card


add_columns(BostonTariff, BOSTON_SETTINGS, BOSTON_DEFAULTS)


class BostonPaymentRow(models.Model):
    """One contract of the payment tariff (boston.md §1), minor suit, simple tour."""

    CONTRACTS = (
        ("supported", _("supported ask (8 together)")),
        ("unsupported", _("unsupported ask (5 alone)")),
        ("independence", _("independence (8 alone)")),
    )
    tariff = models.ForeignKey(BostonTariff, on_delete=models.CASCADE, related_name="payment_rows")
    contract = models.CharField(_("contract"), max_length=20, choices=CONTRACTS)
    required = models.PositiveSmallIntegerField(
        _("required tricks"),
        validators=[MinValueValidator(1), MaxValueValidator(13)],
        help_text=_("Tricks the declaring side must take."),
    )
    base = positive(
        verbose_name=_("consolation"),
        help_text=_("Consolation: paid for the required tricks (won or lost)."),
    )
    rate = positive(verbose_name=_("per trick"), help_text=_("Paid per trick over or short."))
    no_trick_count = models.PositiveSmallIntegerField(
        _("tricks counted when none is taken"),
        validators=[MinValueValidator(1), MaxValueValidator(13)],
        help_text=_("Tricks counted at double rate when the side takes no trick."),
    )

    class Meta:
        verbose_name = _("payment tariff row")
        verbose_name_plural = _("payment tariff rows")
        ordering = ("id",)
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tariff", "contract"), name="boston_payment_row_once"),
            models.CheckConstraint(
                condition=Q(base__gte=1, rate__gte=1, required__gte=1, required__lte=13)
                & Q(no_trick_count__gte=1, no_trick_count__lte=13),
                name="boston_payment_row_positive",
            ),
        ]

    def __str__(self) -> str:
        return self.get_contract_display()

    def settings(self) -> dict[str, int]:
        """This row as the engine's ``<contract>_<term>`` settings."""
        return {
            f"{self.contract}_required": self.required,
            f"{self.contract}_base": self.base,
            f"{self.contract}_rate": self.rate,
            f"{self.contract}_no_trick_count": self.no_trick_count,
        }


SPECIAL_ROW_LABELS = {
    row: (names.title, names.russian) for row, names in CARD_CONTRACT_NAMES.items()
}
"""The value card's rows past the trick contracts: the label in the page's language and
the Russian term (a hint on an English page), from ``vocabulary.CARD_CONTRACT_NAMES``."""


class BostonCardRow(models.Model):
    """One row of the contract value card (boston.md §2): units, × the column."""

    ROWS = tuple(
        (row, SPECIAL_ROW_LABELS[row][0] if row in SPECIAL_ROW_LABELS else row) for row in CARD_ROWS
    )
    tariff = models.ForeignKey(BostonTariff, on_delete=models.CASCADE, related_name="card_rows")
    row = models.CharField(_("contract"), max_length=20, choices=ROWS)
    unit = positive(verbose_name=_("value"), help_text=_("The contract's value in the ×1 column."))
    three_honours = models.PositiveIntegerField(
        _("three honours"),
        null=True,
        blank=True,
        help_text=_("Trick rows: paid for three honours (×1 column)."),
    )
    four_honours = models.PositiveIntegerField(
        _("four honours"),
        null=True,
        blank=True,
        help_text=_("Trick rows: paid for four honours (×1 column)."),
    )
    overtrick = models.PositiveIntegerField(
        _("each trick over or short"),
        null=True,
        blank=True,
        help_text=_("Trick rows: paid per trick over or short (×1 column)."),
    )

    class Meta:
        verbose_name = _("value card row")
        verbose_name_plural = _("value card rows")
        ordering = ("id",)
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tariff", "row"), name="boston_card_row_once"),
            models.CheckConstraint(condition=Q(unit__gte=1), name="boston_card_unit_positive"),
        ]

    def __str__(self) -> str:
        return str(self.get_row_display())

    def clean(self) -> None:
        if self.row in TRICK_ROWS:
            missing = [
                name
                for name in ("three_honours", "four_honours", "overtrick")
                if not getattr(self, name)
            ]
            if missing:
                raise ValidationError(dict.fromkeys(missing, _("A trick row needs this value.")))

    def apply(self, card: dict[str, Any]) -> None:
        """Write this row into the engine's settings ``card`` (from ``to_dict()``)."""
        if self.row in TRICK_ROWS:
            i = TRICK_ROWS.index(self.row)
            card["contract_units"][i] = self.unit
            for name, value in (
                ("three_honours_units", self.three_honours),
                ("four_honours_units", self.four_honours),
                ("overtrick_units", self.overtrick),
            ):
                if value:
                    card[name][i] = value
        else:
            card[f"{self.row.replace('-', '_')}_unit"] = self.unit


class TariffVersion(models.Model):
    """A frozen snapshot of a tariff's rules; tables point at one for their whole life."""

    number = models.PositiveIntegerField(_("number"))
    rules = models.JSONField(
        _("rules"), help_text=_("The tariff's settings as they were when it was published.")
    )
    created_at = models.DateTimeField(_("published at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("published by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        abstract = True
        ordering = ("tariff", "-number")

    def __str__(self) -> str:
        return gettext("%(tariff)s, version %(number)s") % {
            "tariff": self.tariff,  # type: ignore[attr-defined]
            "number": self.number,
        }

    def to_rules(self) -> Any:  # overridden with the game's rules type
        raise NotImplementedError

    def has_rules(self, rules: object) -> bool:
        """Whether this version plays by ``rules``.

        The stored JSON is compared as the engine reads it, not as raw JSON: a version
        published before a setting existed lacks its key, and the engine gives that
        setting its default, so the rules are the same. Stored rules the engine no longer
        accepts match nothing.
        """
        try:
            return bool(self.to_rules() == rules)
        except RuleError:
            return False


class PreferansTariffVersion(TariffVersion):
    tariff = models.ForeignKey(
        PreferansTariff,
        verbose_name=_("tariff"),
        on_delete=models.PROTECT,
        related_name="versions",
    )

    class Meta(TariffVersion.Meta):
        verbose_name = _("Preferans tariff version")
        verbose_name_plural = _("Preferans tariff versions")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tariff", "number"), name="preferans_version_once"),
        ]

    def to_rules(self) -> PreferansRules:
        return PreferansRules.from_dict(self.rules)


class BostonTariffVersion(TariffVersion):
    tariff = models.ForeignKey(
        BostonTariff, verbose_name=_("tariff"), on_delete=models.PROTECT, related_name="versions"
    )

    class Meta(TariffVersion.Meta):
        verbose_name = _("Boston tariff version")
        verbose_name_plural = _("Boston tariff versions")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tariff", "number"), name="boston_version_once"),
        ]

    def to_rules(self) -> BostonRules:
        return BostonRules.from_dict(self.rules)
