"""House tariffs: the rules a club plays by, edited by organisers, versioned for games.

A tariff is the editable row an organiser changes in the admin; a *version* is a frozen
snapshot of its rules (the engine's ``to_dict()``) that tables point at. Editing a tariff
that tables have used publishes a new version (``services.tariff_publish``), so a finished
game is always scored by the exact rules it was played under.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from scoring.engine.boston.rules import ASK_CONTRACTS, CARD_ROWS, SUITS, TRICK_ROWS, BostonRules
from scoring.engine.errors import RuleError
from scoring.engine.preferans.rules import PreferansRules

LEVELS = (6, 7, 8, 9, 10)
list_of_numbers = RegexValidator(
    r"^\s*\d+(\s*,\s*\d+)*\s*$", _("Enter whole numbers separated by commas, e.g. 1, 2, 3.")
)


def positive(**kwargs: Any) -> models.PositiveIntegerField[int, int]:
    """A whole-number setting that must be at least 1."""
    return models.PositiveIntegerField(validators=[MinValueValidator(1)], **kwargs)


def rate(help_text: str) -> models.DecimalField[Decimal, Decimal]:
    """A per-trick rate as a multiple of the contract value V (1, 2, 1.5 …)."""
    return models.DecimalField(
        max_digits=6,
        decimal_places=2,
        default=Decimal(1),
        validators=[MinValueValidator(Decimal("0.01")), MaxValueValidator(Decimal(100))],
        help_text=help_text,
    )


def numbers(text: str) -> tuple[int, ...]:
    """``"1, 2, 3"`` → ``(1, 2, 3)``."""
    return tuple(int(part) for part in text.split(",") if part.strip())


def numbers_text(values: tuple[int, ...] | list[int]) -> str:
    """``(1, 2, 3)`` → ``"1, 2, 3"``."""
    return ", ".join(str(v) for v in values)


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
            raise ValidationError({field if field in known else "__all__": error.message}) from None
        except (TypeError, ValueError) as error:
            raise ValidationError(str(error)) from None

    @property
    def current_version(self) -> Any:
        """The newest published version of this tariff (``None`` before the first)."""
        return self.versions.order_by("-number").first()  # type: ignore[attr-defined]


class PreferansTariff(Tariff):
    """Every setting of preferans.md §11."""

    LONE_WHIST = (("greedy", _("greedy")), ("gentleman", _("gentleman")))
    WHISTER_DUTY = (("responsible", _("responsible")), ("none", _("none")))
    TWO_WHISTER_DUTY = (("personal", _("personal quotas")), ("pair", _("as a pair")))
    PASSOUT_MODE = (("mountain", _("mountain")), ("whists", _("whists")))
    DIVISOR = (("players", _("players (n)")), ("players_minus_one", _("players − 1")))

    value_6 = positive(default=2, help_text=_("Pool points for a made 6 (V)."))
    value_7 = positive(default=4, help_text=_("Pool points for a made 7 (V)."))
    value_8 = positive(default=6, help_text=_("Pool points for a made 8 (V)."))
    value_9 = positive(default=8, help_text=_("Pool points for a made 9 (V)."))
    value_10 = positive(default=10, help_text=_("Pool points for a made 10 (V)."))
    value_misere = positive(default=10, help_text=_("Pool points for a made misère."))
    obligation_6 = models.PositiveSmallIntegerField(
        default=4, validators=[MaxValueValidator(4)], help_text=_("Tricks the defence owes on a 6.")
    )
    obligation_7 = models.PositiveSmallIntegerField(
        default=2, validators=[MaxValueValidator(4)], help_text=_("Tricks the defence owes on a 7.")
    )
    obligation_8 = models.PositiveSmallIntegerField(
        default=1,
        validators=[MaxValueValidator(4)],
        help_text=_("Tricks the defence owes on an 8."),
    )
    obligation_9 = models.PositiveSmallIntegerField(
        default=1, validators=[MaxValueValidator(4)], help_text=_("Tricks the defence owes on a 9.")
    )
    obligation_10 = models.PositiveSmallIntegerField(
        default=1,
        validators=[MaxValueValidator(4)],
        help_text=_("Tricks the defence owes on a 10."),
    )
    whist_rate = rate(_("Whists a defender writes per defence trick, × V."))
    remise_rate = rate(_("Mountain per undertrick for the declarer, × V."))
    consolation_rate = rate(_("Whists each consoling player writes per undertrick, × V."))
    whister_penalty_rate = rate(_("Mountain per trick a whister is short of his duty, × V."))
    misere_penalty = positive(default=10, help_text=_("Mountain per trick on a failed misère."))
    lone_whist = models.CharField(
        max_length=10,
        choices=LONE_WHIST,
        default="greedy",
        help_text=_(
            "One whister on a remise: greedy — he is paid for every defence trick; "
            "gentleman — he and the passer share everything equally."
        ),
    )
    consolation_by_dealer = models.BooleanField(
        default=True, help_text=_("With 4 players the dealer consoles on a remise too.")
    )
    whister_duty = models.CharField(
        max_length=12,
        choices=WHISTER_DUTY,
        default="responsible",
        help_text=_("Whether a whister short of the defence obligation writes mountain."),
    )
    two_whister_duty = models.CharField(
        max_length=10,
        choices=TWO_WHISTER_DUTY,
        default="personal",
        help_text=_("Two whisters: each owes half the obligation, or they owe it as a pair."),
    )
    ten_is_whisted = models.BooleanField(
        default=True, help_text=_("Whether a 10 may be whisted (otherwise it is always passed).")
    )
    half_whist_levels = models.CharField(
        max_length=20,
        default="6, 7",
        blank=True,
        validators=[RegexValidator(r"^[\d,\s]*$", _("Enter levels separated by commas."))],
        help_text=_("Levels where half-whist is allowed, e.g. 6, 7 (empty: never)."),
    )
    passout_mode = models.CharField(
        max_length=10,
        choices=PASSOUT_MODE,
        default="mountain",
        help_text=_(
            "Pass-out tricks go into the mountain, or (Rostov) the fewest-tricks player "
            "writes whists on the others."
        ),
    )
    passout_whists = positive(
        default=5, help_text=_("Whist mode: whists per trick at the first price (Rostov 5).")
    )
    passout_ladder = models.CharField(
        max_length=60,
        default="1, 2, 3",
        validators=[list_of_numbers],
        help_text=_("Price per trick of the 1st, 2nd, 3rd … pass-out in a row; the last repeats."),
    )
    passout_amnesty = models.BooleanField(
        default=False, help_text=_("Take the smallest trick count off everyone's pass-out tricks.")
    )
    passout_zero_bonus = models.BooleanField(
        default=True, help_text=_("A player with no pass-out trick writes the price into his pool.")
    )
    passout_exit = models.CharField(
        max_length=30,
        default="6",
        validators=[list_of_numbers],
        help_text=_("Lowest contract after the 1st, 2nd, 3rd … pass-out in a row, e.g. 6, 7, 8."),
    )
    misere_ends_passouts = models.BooleanField(
        default=True, help_text=_("A misère ends a series of pass-outs like any game.")
    )
    dealer_takes_widow_tricks = models.BooleanField(
        default=False, help_text=_("With 4 players the dealer plays the widow on pass-outs (0–2).")
    )
    passout_same_dealer = models.BooleanField(
        default=False, help_text=_("After a pass-out the same player deals again, up to 3 times.")
    )
    dark_games = models.BooleanField(
        default=False, help_text=_("Dark contracts and dark pass-outs are played.")
    )
    dark_multiplier = positive(default=2, help_text=_("Every amount of a dark contract × this."))
    bombs = models.BooleanField(
        default=False, help_text=_("Dark pass-outs draw bombs that multiply a later game.")
    )
    pool_weight = positive(default=10, help_text=_("Whists per pool point at settlement."))
    mountain_weight = positive(default=10, help_text=_("Whists per mountain point at settlement."))
    help_whists_per_point = positive(
        default=10, help_text=_("Whists the helper writes per pool point given as help.")
    )
    settlement_divisor = models.CharField(
        max_length=20,
        choices=DIVISOR,
        default="players",
        help_text=_("The mountain is divided among n players (usual) or n − 1."),
    )

    ENGINE_FIELDS: ClassVar[dict[str, str]] = {
        "contract_values": "value_6",
        "whist_obligations": "obligation_6",
    }

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
            models.CheckConstraint(
                condition=Q(whist_rate__gt=0, remise_rate__gt=0, consolation_rate__gt=0)
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
        ]

    def to_rules(self) -> PreferansRules:
        """The engine's rules for this tariff as it stands now."""
        return PreferansRules(
            contract_values=(
                self.value_6,
                self.value_7,
                self.value_8,
                self.value_9,
                self.value_10,
                self.value_misere,
            ),
            whist_obligations=(
                self.obligation_6,
                self.obligation_7,
                self.obligation_8,
                self.obligation_9,
                self.obligation_10,
            ),
            whist_rate=Fraction(self.whist_rate),
            remise_rate=Fraction(self.remise_rate),
            consolation_rate=Fraction(self.consolation_rate),
            whister_penalty_rate=Fraction(self.whister_penalty_rate),
            misere_penalty=self.misere_penalty,
            lone_whist=self.lone_whist,  # type: ignore[arg-type]
            consolation_by_dealer=self.consolation_by_dealer,
            whister_duty=self.whister_duty,  # type: ignore[arg-type]
            two_whister_duty=self.two_whister_duty,  # type: ignore[arg-type]
            ten_is_whisted=self.ten_is_whisted,
            half_whist_levels=numbers(self.half_whist_levels),
            passout_mode=self.passout_mode,  # type: ignore[arg-type]
            passout_whists=self.passout_whists,
            passout_ladder=numbers(self.passout_ladder),
            passout_amnesty=self.passout_amnesty,
            passout_zero_bonus=self.passout_zero_bonus,
            passout_exit=numbers(self.passout_exit),
            misere_ends_passouts=self.misere_ends_passouts,
            dealer_takes_widow_tricks=self.dealer_takes_widow_tricks,
            passout_same_dealer=self.passout_same_dealer,
            dark_games=self.dark_games,
            dark_multiplier=self.dark_multiplier,
            bombs=self.bombs,
            pool_weight=self.pool_weight,
            mountain_weight=self.mountain_weight,
            help_whists_per_point=self.help_whists_per_point,
            settlement_divisor=self.settlement_divisor,  # type: ignore[arg-type]
        )

    @staticmethod
    def fields_from_rules(rules: PreferansRules) -> dict[str, Any]:
        """Model field values that give back ``rules`` (presets, copies, JSON import)."""
        data = rules.to_dict()
        values, obligations = data.pop("contract_values"), data.pop("whist_obligations")
        for level, value, obligation in zip(LEVELS, values, obligations, strict=False):
            data[f"value_{level}"] = value
            data[f"obligation_{level}"] = obligation
        data["value_misere"] = values[5]
        for name in ("half_whist_levels", "passout_ladder", "passout_exit"):
            data[name] = numbers_text(data[name])
        for name in ("whist_rate", "remise_rate", "consolation_rate", "whister_penalty_rate"):
            data[name] = Decimal(Fraction(data[name]).numerator) / Fraction(data[name]).denominator
        return data


class BostonTariff(Tariff):
    """The payment tariff and the value card of boston.md; the rows are inlines."""

    SYSTEM = (("payment-tariff", _("payment tariff")), ("value-card", _("contract value card")))
    PAYERS = (("pairs", _("in pairs")), ("each", _("each pays each")))

    system = models.CharField(
        max_length=20,
        choices=SYSTEM,
        default="payment-tariff",
        help_text=_("Which of the seed's two scoring systems tables under this tariff use."),
    )
    slam_multiplier = positive(default=2, help_text=_("A slam (13 tricks) multiplies all by this."))
    major_multiplier = positive(default=2, help_text=_("The major suit pays this × the minor."))
    double_tour_multiplier = positive(
        default=2, help_text=_("A double tour pays this × a simple tour.")
    )
    supported_payers = models.CharField(
        max_length=10,
        choices=PAYERS,
        default="pairs",
        help_text=_(
            "2 vs 2: each winner is paid by one opponent (pairs) or by each opponent (each)."
        ),
    )
    spades_multiplier = positive(default=1, help_text=_("Value card: the spades column (П) ×."))
    clubs_multiplier = positive(default=2, help_text=_("Value card: the clubs column (Тр) ×."))
    diamonds_multiplier = positive(default=3, help_text=_("Value card: the diamonds column (Б) ×."))
    hearts_multiplier = positive(default=4, help_text=_("Value card: the hearts column (Ч) ×."))
    together_required = models.PositiveSmallIntegerField(
        default=8,
        validators=[MinValueValidator(6), MaxValueValidator(13)],
        help_text=_(
            "Value card: tricks two partners need on the first row (5 alone / 8 together)."
        ),
    )
    piccolissimo_tricks = models.PositiveSmallIntegerField(
        default=1,
        validators=[MaxValueValidator(1)],
        help_text=_("Value card: tricks a piccolissimo must take (0 or 1)."),
    )
    card_pays_honours = models.BooleanField(
        default=True, help_text=_("Value card: honours are paid on a made trick contract.")
    )
    card_pays_overtricks = models.BooleanField(
        default=True, help_text=_("Value card: each overtrick is paid at the row's rate.")
    )
    card_pays_undertricks = models.BooleanField(
        default=True, help_text=_("Value card: each undertrick is paid at the row's rate.")
    )

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
        settings_: dict[str, Any] = {
            "slam_multiplier": self.slam_multiplier,
            "major_multiplier": self.major_multiplier,
            "double_tour_multiplier": self.double_tour_multiplier,
            "supported_payers": self.supported_payers,
            "column_multipliers": [getattr(self, f"{suit}_multiplier") for suit in SUITS],
            "together_required": self.together_required,
            "piccolissimo_tricks": self.piccolissimo_tricks,
            "card_pays_honours": self.card_pays_honours,
            "card_pays_overtricks": self.card_pays_overtricks,
            "card_pays_undertricks": self.card_pays_undertricks,
        }
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
        data = rules.to_dict()
        fields = {
            name: data[name]
            for name in (
                "system",
                "slam_multiplier",
                "major_multiplier",
                "double_tour_multiplier",
                "supported_payers",
                "together_required",
                "piccolissimo_tricks",
                "card_pays_honours",
                "card_pays_overtricks",
                "card_pays_undertricks",
            )
        }
        for suit, multiplier in zip(rules.suit_order, rules.column_multipliers, strict=True):
            fields[f"{suit}_multiplier"] = multiplier
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


class BostonPaymentRow(models.Model):
    """One contract of the payment tariff (boston.md §1), minor suit, simple tour."""

    CONTRACTS = (
        ("supported", _("supported ask (8 together)")),
        ("unsupported", _("unsupported ask (5 alone)")),
        ("independence", _("independence (8 alone)")),
    )
    tariff = models.ForeignKey(BostonTariff, on_delete=models.CASCADE, related_name="payment_rows")
    contract = models.CharField(max_length=20, choices=CONTRACTS)
    required = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(13)],
        help_text=_("Tricks the declaring side must take."),
    )
    base = positive(help_text=_("Consolation: paid for the required tricks (won or lost)."))
    rate = positive(help_text=_("Paid per trick over or short."))
    no_trick_count = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(13)],
        help_text=_("Tricks S counted at double rate when the side takes no trick."),
    )

    class Meta:
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


class BostonCardRow(models.Model):
    """One row of the contract value card (boston.md §2): units, × the column."""

    ROWS = tuple((row, row) for row in CARD_ROWS)
    tariff = models.ForeignKey(BostonTariff, on_delete=models.CASCADE, related_name="card_rows")
    row = models.CharField(max_length=20, choices=ROWS)
    unit = positive(help_text=_("The contract's value in the ×1 column."))
    three_honours = models.PositiveIntegerField(
        null=True, blank=True, help_text=_("Trick rows: paid for three honours (×1 column).")
    )
    four_honours = models.PositiveIntegerField(
        null=True, blank=True, help_text=_("Trick rows: paid for four honours (×1 column).")
    )
    overtrick = models.PositiveIntegerField(
        null=True, blank=True, help_text=_("Trick rows: paid per trick over or short (×1 column).")
    )

    class Meta:
        ordering = ("id",)
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tariff", "row"), name="boston_card_row_once"),
            models.CheckConstraint(condition=Q(unit__gte=1), name="boston_card_unit_positive"),
        ]

    def __str__(self) -> str:
        return self.row

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

    number = models.PositiveIntegerField()
    rules = models.JSONField(help_text=_("The engine's settings (to_dict) at publication."))
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        abstract = True
        ordering = ("tariff", "-number")

    def __str__(self) -> str:
        return f"{self.tariff} v{self.number}"  # type: ignore[attr-defined]


class PreferansTariffVersion(TariffVersion):
    tariff = models.ForeignKey(PreferansTariff, on_delete=models.PROTECT, related_name="versions")

    class Meta(TariffVersion.Meta):
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tariff", "number"), name="preferans_version_once"),
        ]

    def to_rules(self) -> PreferansRules:
        return PreferansRules.from_dict(self.rules)


class BostonTariffVersion(TariffVersion):
    tariff = models.ForeignKey(BostonTariff, on_delete=models.PROTECT, related_name="versions")

    class Meta(TariffVersion.Meta):
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=("tariff", "number"), name="boston_version_once"),
        ]

    def to_rules(self) -> BostonRules:
        return BostonRules.from_dict(self.rules)
