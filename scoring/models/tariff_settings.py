"""Every house setting of a tariff, declared once.

A :class:`Setting` names the engine rule it feeds, its kind, its admin section, label and
help text. From the declarations come the tariff models' columns (:func:`add_columns`),
``to_rules()`` (:func:`rules_values`) and ``fields_from_rules()`` (:func:`model_values`),
the admin's fieldsets and labels, the plain rows of the tariff pages and the settings
table in docs/rules.md (:func:`docs_table`).

Defaults are not declared: a column's default is the engine's default (Sochi's, the
payment tariff's), so the engine stays the one place that knows the presets.

Changing a declaration's column (its help text, limits, choices) changes the schema, and
``makemigrations`` will ask for a migration: that is intended. A label only reaches the
admin form and the page, never the schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.template.defaultfilters import yesno
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.engine.boston.rules import BostonRules
from scoring.engine.preferans.rules import PRESETS, PreferansRules

Text = str | Promise
Kind = Literal["whole", "flag", "choice", "rate", "numbers"]

list_of_numbers = RegexValidator(
    r"^\s*\d+(\s*,\s*\d+)*\s*$", _("Enter whole numbers separated by commas, e.g. 1, 2, 3.")
)
# The only list that may be empty is a list of contract levels (half-whist: never).
list_of_levels = RegexValidator(r"^[\d,\s]*$", _("Enter levels separated by commas."))

RATE_MIN = Decimal("0.01")
RATE_MAX = Decimal(100)


def numbers(text: str) -> tuple[int, ...]:
    """``"1, 2, 3"`` → ``(1, 2, 3)``."""
    return tuple(int(part) for part in text.split(",") if part.strip())


def numbers_text(values: Iterable[int]) -> str:
    """``(1, 2, 3)`` → ``"1, 2, 3"``."""
    return ", ".join(str(v) for v in values)


def decimal(value: Fraction) -> Decimal:
    """An engine rate (a Fraction with at most two decimals) as the column's Decimal."""
    return Decimal(value.numerator) / value.denominator


@dataclass(frozen=True, slots=True)
class Section:
    """A group of settings: one fieldset of the admin, one section of the tariff page."""

    key: str
    """The page section's id; ``""`` is the head fieldset (name, description …)."""
    title: Text | None = None
    description: Text | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """One house setting: one model column feeding one engine rule (or one item of a
    list rule such as ``contract_values``)."""

    name: str
    """The model field, and the admin form's field."""
    kind: Kind
    section: str
    """The key of its :class:`Section`."""
    help_text: Text
    label: Text | None = None
    """The admin's label and the page's term; ``None``: Django's, from the name."""
    rule: str = ""
    """The engine rule it feeds; ``""``: the rule is called ``name`` too."""
    index: int | None = None
    """Its position in a list rule (all items of one rule sit on one admin line)."""
    choices: tuple[tuple[str, Text], ...] = ()
    minimum: int | Decimal | None = None
    """``whole``: the least value (unset: 0); ``rate``: unset means 0.01."""
    maximum: int | Decimal | None = None
    small: bool = False
    """``whole``: a small column (0–32767) for the counts of tricks."""
    max_length: int = 0
    """``choice`` and ``numbers``: the column's length."""
    may_be_empty: bool = False
    """``numbers``: an empty list is allowed (a list of levels)."""

    @property
    def engine_name(self) -> str:
        return self.rule or self.name

    # -- the model column

    def column(self, default: Any) -> models.Field[Any, Any]:
        """The model field, with the engine's default already in the column's form."""
        common: dict[str, Any] = {"default": default, "help_text": self.help_text}
        if self.kind == "flag":
            return models.BooleanField(**common)
        if self.kind == "choice":
            return models.CharField(max_length=self.max_length, choices=self.choices, **common)
        if self.kind == "rate":
            low = RATE_MIN if self.minimum is None else self.minimum
            high = RATE_MAX if self.maximum is None else self.maximum
            return models.DecimalField(
                max_digits=6,
                decimal_places=2,
                validators=[MinValueValidator(low), MaxValueValidator(high)],
                **common,
            )
        if self.kind == "numbers":
            if self.may_be_empty:
                return models.CharField(
                    max_length=self.max_length, blank=True, validators=[list_of_levels], **common
                )
            return models.CharField(
                max_length=self.max_length, validators=[list_of_numbers], **common
            )
        validators: list[Any] = []
        if self.minimum:
            validators.append(MinValueValidator(self.minimum))
        if self.maximum is not None:
            validators.append(MaxValueValidator(self.maximum))
        field = models.PositiveSmallIntegerField if self.small else models.PositiveIntegerField
        return field(validators=validators, **common)

    # -- between the column and the engine

    def to_engine(self, value: Any) -> Any:
        """The column's value as the engine's (a Fraction rate, a tuple of numbers)."""
        if self.kind == "rate":
            return Fraction(value)
        if self.kind == "numbers":
            return numbers(value)
        return value

    def from_engine(self, rules: Any) -> Any:
        """This setting's value in ``rules``, in the column's form."""
        value = getattr(rules, self.engine_name)
        if self.index is not None:
            value = value[self.index]
        if self.kind == "rate":
            return decimal(value)
        if self.kind == "numbers":
            return numbers_text(value)
        return value

    # -- for people

    def text(self, rules: Any) -> str:
        """The value as the tariff page and the docs print it."""
        value = getattr(rules, self.engine_name)
        if self.index is not None:
            value = value[self.index]
        return value_text(value, self.choices)


def value_text(value: Any, choices: Sequence[tuple[str, Text]] = ()) -> str:
    if isinstance(value, bool):
        return yesno(value, gettext("yes,no"))
    if isinstance(value, Fraction):
        return format(decimal(value).normalize(), "f")
    if isinstance(value, tuple):
        return numbers_text(value) or "—"
    labels = dict(choices)
    return str(labels.get(value, value))


# -- what the models, the admin and the page derive ------------------------------------------


def add_columns(model: type[models.Model], settings: Sequence[Setting], defaults: Any) -> None:
    """Give ``model`` a column per setting, defaulting to the setting's value in the
    engine's ``defaults`` (a rules value).

    The columns are added right after the class is made, before any migration or form
    reads it, exactly as if they were written in its body.
    """
    for setting in settings:
        model.add_to_class(setting.name, setting.column(setting.from_engine(defaults)))


def rules_values(instance: models.Model, settings: Sequence[Setting]) -> dict[str, Any]:
    """The engine's rules as ``instance``'s columns hold them, by engine name (a list rule
    gathered from its items, in order)."""
    values: dict[str, Any] = {}
    items: dict[str, dict[int, Any]] = {}
    for setting in settings:
        value = setting.to_engine(getattr(instance, setting.name))
        if setting.index is None:
            values[setting.engine_name] = value
        else:
            items.setdefault(setting.engine_name, {})[setting.index] = value
    for name, by_index in items.items():
        values[name] = tuple(by_index[i] for i in sorted(by_index))
    return values


def model_values(rules: Any, settings: Sequence[Setting]) -> dict[str, Any]:
    """The column values that give back ``rules``."""
    return {setting.name: setting.from_engine(rules) for setting in settings}


def fieldsets(
    settings: Sequence[Setting], sections: Sequence[Section], head: Sequence[Any], tail: Any
) -> tuple[Any, ...]:
    """The admin's fieldsets: ``head`` (name, description …) with the head section's
    settings before its last entry, then a fieldset per section, then ``tail``."""
    out: list[Any] = []
    for section in sections:
        fields = _lines(s for s in settings if s.section == section.key)
        if not section.key:
            out.append((None, {"fields": (*head[:-1], *fields, head[-1])}))
            continue
        options: dict[str, Any] = {"fields": fields}
        if section.description is not None:
            options = {"description": section.description, **options}
        out.append((section.title, options))
    return (*out, tail)


def _lines(settings: Iterable[Setting]) -> tuple[Any, ...]:
    """Field names in order; the items of one list rule share a line (a tuple)."""
    lines: list[Any] = []
    rows: dict[str, list[str]] = {}
    for setting in settings:
        if setting.index is None:
            lines.append(setting.name)
        elif setting.engine_name in rows:
            rows[setting.engine_name].append(setting.name)
        else:
            rows[setting.engine_name] = [setting.name]
            lines.append(rows[setting.engine_name])
    return tuple(tuple(line) if isinstance(line, list) else line for line in lines)


def labels(settings: Sequence[Setting]) -> dict[str, Text]:
    """The admin form's labels, where a setting declares one."""
    return {s.name: s.label for s in settings if s.label is not None}


@dataclass(frozen=True, slots=True)
class PageRow:
    name: str
    term: str
    value: str


def page_rows(
    rules: Any, settings: Sequence[Setting], written_out: Iterable[str]
) -> dict[str, list[PageRow]]:
    """Per section, a term and a value for every setting the page template does not
    write out in its own words (``written_out``): a new setting is on the page at once."""
    skip = set(written_out)
    rows: dict[str, list[PageRow]] = {}
    for setting in settings:
        if setting.name in skip:
            continue
        term = str(setting.label or setting.name.replace("_", " ").capitalize())
        rows.setdefault(setting.section, []).append(
            PageRow(setting.name, term, setting.text(rules))
        )
    return rows


def docs_table(
    settings: Sequence[Setting], presets: Mapping[str, Any], meanings: Mapping[str, str]
) -> str:
    """The Markdown table of docs/rules.md: a row per engine rule with its value in each
    preset and its help text (in English, as the document is written); ``meanings``
    explain the list rules, whose items each have their own help text."""
    header = ["setting", *(name.capitalize() for name in presets), "meaning"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    seen: set[str] = set()
    with translation.override("en"):
        for setting in settings:
            name = setting.engine_name
            if name in seen:
                continue
            seen.add(name)
            values = [
                _docs_value(getattr(rules, name), setting.choices) for rules in presets.values()
            ]
            meaning = meanings.get(name) or str(setting.help_text)
            lines.append("| " + " | ".join([f"`{name}`", *values, meaning]) + " |")
    return "\n".join(lines) + "\n"


def _docs_value(value: Any, choices: Sequence[tuple[str, Text]]) -> str:
    if choices:
        return f"`{value}`"
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value) or "—"
    return value_text(value)


# -- the declarations -----------------------------------------------------------------------


def _whole(name: str, help_text: Text, section: str, **kwargs: Any) -> Setting:
    """A whole-number setting that must be at least 1 (the common case)."""
    return Setting(
        name=name, kind="whole", section=section, help_text=help_text, minimum=1, **kwargs
    )


def _flag(name: str, help_text: Text, section: str, **kwargs: Any) -> Setting:
    return Setting(name=name, kind="flag", section=section, help_text=help_text, **kwargs)


def _rate(name: str, help_text: Text, section: str, **kwargs: Any) -> Setting:
    """A per-trick rate as a multiple of the contract value V (1, 2, 1.5 …)."""
    return Setting(name=name, kind="rate", section=section, help_text=help_text, **kwargs)


PREFERANS_SECTIONS = (
    Section(""),
    Section(
        "values",
        _("Values and obligations (стоимость игр, обязанность вистовать)"),
        _(
            "preferans.md §3: the pool points V written for a made contract, and the "
            "tricks O the defence must take (0–4)."
        ),
    ),
    Section(
        "rates",
        _("Whists and remises (висты и ремизы)"),
        _("preferans.md §4–5: each rate is a multiple of V per trick (1, 2, 1.5 …)."),
    ),
    Section(
        "duty",
        _("Whister duty (ответственность вистующих)"),
        _("preferans.md §4.3 step 5: a whister short of the obligation."),
    ),
    Section(
        "half-whist",
        _("Half-whist and tens (полвиста и десятерная)"),
        _("preferans.md §4.2 and §4.3."),
    ),
    Section(
        "passouts",
        _("Pass-outs (распасы)"),
        _(
            "preferans.md §6: ladders list the 1st, 2nd, 3rd … pass-out in a row; "
            "the last step repeats."
        ),
    ),
    Section(
        "dark", _("Dark games and bombs (игры втёмную и бомбы)"), _("preferans.md §7 (Classic).")
    ),
    Section(
        "settlement", _("Closing and settlement (закрытие пули и расчёт)"), _("preferans.md §8–9.")
    ),
)

PREFERANS_SETTINGS: tuple[Setting, ...] = (
    # Values and obligations: list rules, one column per item.
    _whole(
        "value_6",
        _("Pool points for a made 6 (V)."),
        "values",
        label=_("Value of a 6"),
        rule="contract_values",
        index=0,
    ),
    _whole(
        "value_7",
        _("Pool points for a made 7 (V)."),
        "values",
        label=_("Value of a 7"),
        rule="contract_values",
        index=1,
    ),
    _whole(
        "value_8",
        _("Pool points for a made 8 (V)."),
        "values",
        label=_("Value of an 8"),
        rule="contract_values",
        index=2,
    ),
    _whole(
        "value_9",
        _("Pool points for a made 9 (V)."),
        "values",
        label=_("Value of a 9"),
        rule="contract_values",
        index=3,
    ),
    _whole(
        "value_10",
        _("Pool points for a made 10 (V)."),
        "values",
        label=_("Value of a 10"),
        rule="contract_values",
        index=4,
    ),
    _whole(
        "value_misere",
        _("Pool points for a made misère."),
        "values",
        label=_("Value of a misère"),
        rule="contract_values",
        index=5,
    ),
    Setting(
        name="obligation_6",
        kind="whole",
        section="values",
        small=True,
        maximum=4,
        help_text=_("Tricks the defence owes on a 6."),
        label=_("Obligation on a 6"),
        rule="whist_obligations",
        index=0,
    ),
    Setting(
        name="obligation_7",
        kind="whole",
        section="values",
        small=True,
        maximum=4,
        help_text=_("Tricks the defence owes on a 7."),
        label=_("Obligation on a 7"),
        rule="whist_obligations",
        index=1,
    ),
    Setting(
        name="obligation_8",
        kind="whole",
        section="values",
        small=True,
        maximum=4,
        help_text=_("Tricks the defence owes on an 8."),
        label=_("Obligation on an 8"),
        rule="whist_obligations",
        index=2,
    ),
    Setting(
        name="obligation_9",
        kind="whole",
        section="values",
        small=True,
        maximum=4,
        help_text=_("Tricks the defence owes on a 9."),
        label=_("Obligation on a 9"),
        rule="whist_obligations",
        index=3,
    ),
    Setting(
        name="obligation_10",
        kind="whole",
        section="values",
        small=True,
        maximum=4,
        help_text=_("Tricks the defence owes on a 10."),
        label=_("Obligation on a 10"),
        rule="whist_obligations",
        index=4,
    ),
    # Whists and remises.
    _rate("whist_rate", _("Whists a defender writes per defence trick, × V."), "rates"),
    _rate("remise_rate", _("Mountain per undertrick for the declarer, × V."), "rates"),
    _rate(
        "consolation_rate", _("Whists each consoling player writes per undertrick, × V."), "rates"
    ),
    _whole("misere_penalty", _("Mountain per trick on a failed misère."), "rates"),
    Setting(
        name="lone_whist",
        kind="choice",
        section="rates",
        max_length=10,
        choices=(("greedy", _("greedy")), ("gentleman", _("gentleman"))),
        help_text=_(
            "One whister on a remise: greedy — he is paid for every defence trick; "
            "gentleman — he and the passer share everything equally."
        ),
    ),
    _flag(
        "consolation_by_dealer", _("With 4 players the dealer consoles on a remise too."), "rates"
    ),
    # Whister duty.
    Setting(
        name="whister_duty",
        kind="choice",
        section="duty",
        max_length=12,
        choices=(("responsible", _("responsible")), ("none", _("none"))),
        help_text=_("Whether a whister short of the defence obligation writes mountain."),
    ),
    Setting(
        name="two_whister_duty",
        kind="choice",
        section="duty",
        max_length=10,
        choices=(("personal", _("personal quotas")), ("pair", _("as a pair"))),
        help_text=_("Two whisters: each owes half the obligation, or they owe it as a pair."),
    ),
    _rate(
        "whister_penalty_rate", _("Mountain per trick a whister is short of his duty, × V."), "duty"
    ),
    # Half-whist and tens.
    Setting(
        name="half_whist_levels",
        kind="numbers",
        section="half-whist",
        max_length=20,
        may_be_empty=True,
        help_text=_("Levels where half-whist is allowed, e.g. 6, 7 (empty: never)."),
    ),
    _flag(
        "ten_is_whisted",
        _("Whether a 10 may be whisted (otherwise it is always passed)."),
        "half-whist",
    ),
    # Pass-outs.
    Setting(
        name="passout_mode",
        kind="choice",
        section="passouts",
        max_length=10,
        choices=(("mountain", _("mountain")), ("whists", _("whists"))),
        help_text=_(
            "Pass-out tricks go into the mountain, or (Rostov) the fewest-tricks player "
            "writes whists on the others."
        ),
    ),
    _whole(
        "passout_whists",
        _("Whist mode: whists per trick at the first price (Rostov 5)."),
        "passouts",
    ),
    Setting(
        name="passout_ladder",
        kind="numbers",
        section="passouts",
        max_length=60,
        help_text=_("Price per trick of the 1st, 2nd, 3rd … pass-out in a row; the last repeats."),
    ),
    Setting(
        name="passout_exit",
        kind="numbers",
        section="passouts",
        max_length=30,
        help_text=_("Lowest contract after the 1st, 2nd, 3rd … pass-out in a row, e.g. 6, 7, 8."),
    ),
    _flag(
        "passout_amnesty",
        _("Take the smallest trick count off everyone's pass-out tricks."),
        "passouts",
    ),
    _flag(
        "passout_zero_bonus",
        _("A player with no pass-out trick writes the price into his pool."),
        "passouts",
    ),
    _flag(
        "misere_ends_passouts", _("A misère ends a series of pass-outs like any game."), "passouts"
    ),
    _flag(
        "dealer_takes_widow_tricks",
        _("With 4 players the dealer plays the widow on pass-outs (0–2)."),
        "passouts",
    ),
    _flag(
        "passout_same_dealer",
        _("After a pass-out the same player deals again, up to 3 times."),
        "passouts",
    ),
    # Dark games and bombs.
    _flag("dark_games", _("Dark contracts and dark pass-outs are played."), "dark"),
    _whole("dark_multiplier", _("Every amount of a dark contract × this."), "dark"),
    _flag("bombs", _("Dark pass-outs draw bombs that multiply a later game."), "dark"),
    # Closing and settlement.
    _whole(
        "help_whists_per_point",
        _("Whists the helper writes per pool point given as help."),
        "settlement",
    ),
    _whole("pool_weight", _("Whists per pool point at settlement."), "settlement"),
    _whole("mountain_weight", _("Whists per mountain point at settlement."), "settlement"),
    Setting(
        name="settlement_divisor",
        kind="choice",
        section="settlement",
        max_length=20,
        choices=(("players", _("players (n)")), ("players_minus_one", _("players − 1"))),
        help_text=_("The mountain is divided among n players (usual) or n − 1."),
    ),
)

PREFERANS_LIST_MEANINGS = {
    "contract_values": "pool points V for a made 6, 7, 8, 9, 10 and misère",
    "whist_obligations": "tricks O the defence owes on a 6, 7, 8, 9, 10 (0–4)",
}
"""What the docs table says about the list rules (each item's help text names one level)."""

BOSTON_SECTIONS = (
    Section(""),
    Section(
        "payment-tariff",
        _("Payment tariff (тариф платежей)"),
        _(
            "boston.md §1: each contract's terms are in the payment rows below (minor "
            "suit, simple tour); these multiply them."
        ),
    ),
    Section(
        "value-card",
        _("Value card (таблица стоимости)"),
        _("boston.md §2: a cell is the row's unit (rows below) × its suit column's multiplier."),
    ),
)

BOSTON_SETTINGS: tuple[Setting, ...] = (
    Setting(
        name="system",
        kind="choice",
        section="",
        max_length=20,
        choices=(("payment-tariff", _("payment tariff")), ("value-card", _("contract value card"))),
        help_text=_("Which of the seed's two scoring systems tables under this tariff use."),
    ),
    _whole("slam_multiplier", _("A slam (13 tricks) multiplies all by this."), "payment-tariff"),
    _whole("major_multiplier", _("The major suit pays this × the minor."), "payment-tariff"),
    _whole(
        "double_tour_multiplier", _("A double tour pays this × a simple tour."), "payment-tariff"
    ),
    Setting(
        name="supported_payers",
        kind="choice",
        section="payment-tariff",
        max_length=10,
        choices=(("pairs", _("in pairs")), ("each", _("each pays each"))),
        help_text=_(
            "2 vs 2: each winner is paid by one opponent (pairs) or by each opponent (each)."
        ),
    ),
    _whole(
        "spades_multiplier",
        _("Value card: the spades column (П) ×."),
        "value-card",
        rule="column_multipliers",
        index=0,
    ),
    _whole(
        "clubs_multiplier",
        _("Value card: the clubs column (Тр) ×."),
        "value-card",
        rule="column_multipliers",
        index=1,
    ),
    _whole(
        "diamonds_multiplier",
        _("Value card: the diamonds column (Б) ×."),
        "value-card",
        rule="column_multipliers",
        index=2,
    ),
    _whole(
        "hearts_multiplier",
        _("Value card: the hearts column (Ч) ×."),
        "value-card",
        rule="column_multipliers",
        index=3,
    ),
    Setting(
        name="together_required",
        kind="whole",
        section="value-card",
        small=True,
        minimum=6,
        maximum=13,
        help_text=_(
            "Value card: tricks two partners need on the first row (5 alone / 8 together)."
        ),
    ),
    Setting(
        name="piccolissimo_tricks",
        kind="whole",
        section="value-card",
        small=True,
        maximum=1,
        help_text=_("Value card: tricks a piccolissimo must take (0 or 1)."),
    ),
    _flag(
        "card_pays_honours",
        _("Value card: honours are paid on a made trick contract."),
        "value-card",
    ),
    _flag(
        "card_pays_overtricks",
        _("Value card: each overtrick is paid at the row's rate."),
        "value-card",
    ),
    _flag(
        "card_pays_undertricks",
        _("Value card: each undertrick is paid at the row's rate."),
        "value-card",
    ),
)

PREFERANS_DEFAULTS = PreferansRules()
BOSTON_DEFAULTS = BostonRules()
PREFERANS_PRESETS: Mapping[str, PreferansRules] = PRESETS
