"""Every house setting of a tariff, declared once.

A :class:`Setting` names the engine rule it feeds, its kind, its admin section, label and
help text. From the declarations come the tariff models' columns (:func:`add_columns`),
``to_rules()`` (:func:`rules_values`) and ``fields_from_rules()`` (:func:`model_values`),
the admin's fieldsets and labels, the tariff pages (:func:`page_sections`,
:func:`page_rows`: a setting's :class:`Reading` holds the page's words for it), the table
of every setting on the members' rules page and the settings table in docs/rules.md
(:func:`docs_table`).

Defaults are not declared: a column's default is the engine's default (Sochi's, the
payment tariff's), so the engine stays the one place that knows the presets.

Changing a declaration's column (its help text, limits, choices) changes the schema, and
``makemigrations`` will ask for a migration: that is intended. A label or a reading only
reaches the admin form and the pages, never the schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.template.defaultfilters import yesno
from django.utils import formats, translation
from django.utils.functional import Promise
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.engine.boston.rules import BostonRules
from scoring.engine.preferans.rules import LEGACY_BOOLEANS, PRESETS, PreferansRules

Text = str | Promise
Kind = Literal["whole", "flag", "choice", "rate", "numbers"]

list_of_numbers = RegexValidator(
    r"^\s*\d+(\s*,\s*\d+)*\s*$", _("Enter whole numbers separated by commas, e.g. 1, 2, 3.")
)
# The only list that may be empty is a list of contract levels (half-whist: never).
list_of_levels = RegexValidator(r"^[\d,\s]*$", _("Enter levels separated by commas."))


def field_message(setting: Setting) -> Text:
    """What a value of ``setting`` the engine cannot read is told: its kind's words."""
    if setting.kind == "numbers":
        return list_of_levels.message if setting.may_be_empty else list_of_numbers.message
    return _("Enter a number.")


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
    """Names the page's section too; ``""`` is the head fieldset (name, description …)."""
    title: Text | None = None
    description: Text | None = None
    heading: Text | None = None
    """The tariff page's heading (it may carry a Russian hint as markup); unset: ``title``."""
    intro: Text | None = None
    """A sentence the tariff page puts under the heading."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reading:
    """How the tariff page reads a setting when its label and value are not enough.

    A setting without one is a row "label: value" (yes/no, a number, the choice's label).
    The words here may carry markup (a Russian hint ``<span lang="ru">``) and
    ``%(name)s`` placeholders: ``%(value)s`` is the setting's own value, any other name
    one of :attr:`params`. Only the site's own messages are marked safe; the values put
    into them are escaped.
    """

    term: Text | None = None
    """The page's term; unset: the setting's label."""
    text: Text | None = None
    """The value in words, one sentence for every value."""
    texts: tuple[tuple[Any, Text], ...] = ()
    """The value in words per value (a choice's, or a list's such as ``()``); a value not
    listed reads as usual. With :attr:`depends` a key may be ``(value, its value)``."""
    yesno: Text | None = None
    """A yes/no's words as the ``yesno`` filter takes them (``"yes,no — never"``)."""
    depends: str = ""
    """A setting whose value also chooses the words (keys ``(value, its value)``)."""
    params: tuple[tuple[str, str], ...] = ()
    """Placeholder → the setting (or page value) it prints."""
    also: tuple[tuple[Text, Text], ...] = ()
    """Rows after this one that no single setting owns (a value derived from several)."""
    table: str = ""
    """The page's table (a partial of the page's tables template) that shows this
    setting; the table stands where the first setting naming it is."""
    shown_with: str = ""
    """The setting whose row or table says this one: it has no row of its own."""
    only_if: str = ""
    """A yes/no setting: this row is shown only when it is on."""


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
    legacy: tuple[tuple[bool, str], ...] = ()
    """``choice``: the choice an older yes/no of this setting means, as (yes/no, choice)
    pairs (a backup made before it became a choice stores true/false)."""
    reading: Reading | None = None
    """How the tariff page says it; unset: "label: value" under its section."""

    @property
    def engine_name(self) -> str:
        return self.rule or self.name

    # -- the model column

    def column(self, default: Any) -> models.Field[Any, Any]:
        """The model field, with the engine's default already in the column's form."""
        common: dict[str, Any] = {
            "default": default,
            "help_text": self.help_text,
            "verbose_name": self.label,
        }
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

    def value(self, rules: Any) -> Any:
        """This setting's value in ``rules``, as the engine holds it."""
        value = getattr(rules, self.engine_name)
        return value if self.index is None else value[self.index]

    def text(self, rules: Any) -> str:
        """The value as the tariff page and the docs print it."""
        return value_text(self.value(rules), self.choices)

    @property
    def term(self) -> str:
        """The setting's name for people: its label, or Django's from the name."""
        return str(self.label or self.name.replace("_", " ").capitalize())


def value_text(value: Any, choices: Sequence[tuple[str, Text]] = ()) -> str:
    """An engine value for people: yes/no, ``1.5``, ``1, 2, 3``, a choice's label."""
    if isinstance(value, bool):
        return str(yesno(value, gettext("yes,no")))
    if isinstance(value, Fraction):
        return formats.number_format(decimal(value).normalize())
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


def current_values(stored: Mapping[str, Any], settings: Sequence[Setting]) -> dict[str, Any]:
    """Column values as an older export stored them (a backup), with a yes/no that has
    since become a choice read as the choice it means; everything else as given."""
    values = dict(stored)
    for setting in settings:
        value = values.get(setting.name)
        if setting.legacy and isinstance(value, bool):
            values[setting.name] = dict(setting.legacy)[value]
    return values


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


@dataclass(frozen=True, slots=True)
class PageBlock:
    """A run of a section: one of the page's tables, or rows of "term: value"."""

    table: str = ""
    rows: tuple[PageRow, ...] = ()


@dataclass(frozen=True, slots=True)
class PageSection:
    key: str
    id: str
    """The heading's HTML id (``half-whist``)."""
    heading: str
    intro: str
    blocks: tuple[PageBlock, ...]


def page_sections(
    rules: Any,
    settings: Sequence[Setting],
    sections: Sequence[Section],
    extra: Mapping[str, str] | None = None,
) -> list[PageSection]:
    """The tariff page, section by section, from the declarations: each setting says
    itself as its :class:`Reading` tells (a row, or a place in a table), and a setting
    without one is a row "label: value" — so a new setting is on the page at once.
    ``extra``: page values no single setting holds, for the readings' placeholders."""
    values: dict[str, str] = {**(extra or {})}
    for setting in settings:
        values.setdefault(setting.engine_name, setting.text(rules))
        values[setting.name] = setting.text(rules)
    by_name = {setting.name: setting for setting in settings}
    out = []
    for section in sections:
        blocks: list[PageBlock] = []
        rows: list[PageRow] = []
        tables: set[str] = set()
        for setting in (s for s in settings if s.section == section.key):
            reading = setting.reading or Reading()
            if reading.only_if and not by_name[reading.only_if].value(rules):
                continue
            if reading.table:
                if reading.table not in tables:
                    tables.add(reading.table)
                    if rows:
                        blocks.append(PageBlock(rows=tuple(rows)))
                        rows = []
                    blocks.append(PageBlock(table=reading.table))
                continue
            if reading.shown_with:
                continue
            rows.extend(_page_rows(setting, reading, rules, values, by_name))
        if rows:
            blocks.append(PageBlock(rows=tuple(rows)))
        out.append(
            PageSection(
                key=section.key or "head",
                id=section.key.replace("_", "-") or "head",
                heading=_markup(section.heading or section.title or ""),
                intro=_markup(section.intro or ""),
                blocks=tuple(blocks),
            )
        )
    return out


def _page_rows(
    setting: Setting,
    reading: Reading,
    rules: Any,
    values: Mapping[str, str],
    by_name: Mapping[str, Setting],
) -> list[PageRow]:
    value = setting.value(rules)
    params = {"value": values[setting.name]}
    params |= {key: values[name] for key, name in reading.params}
    texts = dict(reading.texts)
    words: Text | None = reading.text
    if reading.depends and (value, by_name[reading.depends].value(rules)) in texts:
        words = texts[(value, by_name[reading.depends].value(rules))]
    elif value in texts:
        words = texts[value]
    if reading.yesno is not None:
        text = str(yesno(value, str(reading.yesno)))
    elif words is not None:
        text = _markup(words, params)
    else:
        text = values[setting.name]
    term = _markup(reading.term) if reading.term is not None else setting.term
    rows = [PageRow(setting.name, term, text)]
    rows += [
        PageRow(setting.name, _markup(also_term, params), _markup(also_text, params))
        for also_term, also_text in reading.also
    ]
    return rows


def _markup(words: Text, params: Mapping[str, str] | None = None) -> str:
    """The site's own message, marked safe, with ``params`` escaped into it."""
    text = str(words)
    if params and "%(" in text:
        text = text % {key: conditional_escape(value) for key, value in params.items()}
    return mark_safe(text)  # noqa: S308 - our own messages; the params are escaped


def page_rows(
    rules: Any,
    settings: Sequence[Setting],
    sections: Sequence[Section],
    written_out: Iterable[str],
    *,
    words: bool = False,
) -> dict[str, list[PageRow]]:
    """Per section (the head one as ``"head"``), a term and a value for every setting the
    page template does not write out in its own words (``written_out``): a new setting is
    on the page at once. With ``words``, a setting says itself as its :class:`Reading`
    tells (a setting said in another's row, or in a table, has no row of its own); without,
    every setting is "label: value". Every section's key is present, so that a template's
    ``more.values`` never falls back to the dict's ``values`` method."""
    skip = set(written_out)
    values = {setting.name: setting.text(rules) for setting in settings}
    by_name = {setting.name: setting for setting in settings}
    rows: dict[str, list[PageRow]] = {section.key or "head": [] for section in sections}
    for setting in settings:
        if setting.name in skip:
            continue
        if words and setting.reading is not None:
            reading = setting.reading
            if reading.table or reading.shown_with:
                continue
            if reading.only_if and not by_name[reading.only_if].value(rules):
                continue
            said = _page_rows(setting, reading, rules, values, by_name)
        else:
            said = [PageRow(setting.name, setting.term, setting.text(rules))]
        rows[setting.section or "head"].extend(said)
    return rows


def docs_table(
    settings: Sequence[Setting], presets: Mapping[str, Any], meanings: Mapping[str, str]
) -> str:
    """The Markdown table of docs/rules.md: a row per engine rule with its value in each
    preset and its help text (in English, as the document is written); ``meanings``
    explain the list rules, whose items each have their own help text."""
    header = ["setting", *(name.replace("_", " ").capitalize() for name in presets), "meaning"]
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


DOCS_BEGIN = "<!-- generated from scoring/models/tariff_settings.py: {game} -->"
DOCS_END = "<!-- end of the generated table -->"


def docs_with_tables(text: str, tables: Mapping[str, str]) -> str:
    """``text`` (docs/rules.md) with each generated table replaced by ``tables[game]``."""
    for game, table in tables.items():
        begin = DOCS_BEGIN.format(game=game)
        start = text.index(begin) + len(begin)
        end = text.index(DOCS_END, start)
        text = f"{text[:start]}\n{table}{text[end:]}"
    return text


def _docs_value(value: Any, choices: Sequence[tuple[str, Text]]) -> str:
    if choices:
        return f"`{value}`"
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value) or "—"
    return value_text(value)


# -- the declarations -----------------------------------------------------------------------
# One entry per setting, in the order the admin shows them. The help text is what an
# organiser reads under the field; write it for them, not for a programmer.


def _whole(name: str, section: str, help_text: Text, **options: Any) -> Setting:
    """A whole number, at least 1 unless ``minimum`` says otherwise."""
    options.setdefault("minimum", 1)
    return Setting(name=name, kind="whole", section=section, help_text=help_text, **options)


def _flag(name: str, section: str, help_text: Text, **options: Any) -> Setting:
    """Yes or no."""
    return Setting(name=name, kind="flag", section=section, help_text=help_text, **options)


def _rate(name: str, section: str, help_text: Text, **options: Any) -> Setting:
    """A per-trick rate as a multiple of the contract value V (1, 2, 1.5 …), 0.01–100."""
    return Setting(name=name, kind="rate", section=section, help_text=help_text, **options)


def _choice(
    name: str,
    section: str,
    help_text: Text,
    choices: tuple[tuple[str, Text], ...],
    length: int,
    **options: Any,
) -> Setting:
    """One of ``choices`` (engine value, label); ``length`` is the column's, in characters."""
    return Setting(
        name=name,
        kind="choice",
        section=section,
        help_text=help_text,
        choices=choices,
        max_length=length,
        **options,
    )


def _numbers(name: str, section: str, help_text: Text, length: int, **options: Any) -> Setting:
    """A list of whole numbers, typed as ``1, 2, 3``."""
    return Setting(
        name=name,
        kind="numbers",
        section=section,
        help_text=help_text,
        max_length=length,
        **options,
    )


# The items of the list rules: (column, label, help text) per level.
_VALUES = (
    ("value_6", _("Value of a 6"), _("Pool points for a made 6 (V).")),
    ("value_7", _("Value of a 7"), _("Pool points for a made 7 (V).")),
    ("value_8", _("Value of an 8"), _("Pool points for a made 8 (V).")),
    ("value_9", _("Value of a 9"), _("Pool points for a made 9 (V).")),
    ("value_10", _("Value of a 10"), _("Pool points for a made 10 (V).")),
    ("value_misere", _("Value of a misère"), _("Pool points for a made misère.")),
)
_OBLIGATIONS = (
    ("obligation_6", _("Obligation on a 6"), _("Tricks the defence owes on a 6.")),
    ("obligation_7", _("Obligation on a 7"), _("Tricks the defence owes on a 7.")),
    ("obligation_8", _("Obligation on an 8"), _("Tricks the defence owes on an 8.")),
    ("obligation_9", _("Obligation on a 9"), _("Tricks the defence owes on a 9.")),
    ("obligation_10", _("Obligation on a 10"), _("Tricks the defence owes on a 10.")),
)

PREFERANS_SECTIONS = (
    Section(""),
    Section(
        "values",
        _("Values and obligations"),
        _(
            "The pool points V written for a made contract, and the tricks O the defence "
            "must take (0–4)."
        ),
        heading=_(
            'Values and obligations <span lang="ru">(стоимость игр, обязанность вистовать)</span>'
        ),
    ),
    Section(
        "rates",
        _("Whists and remises"),
        _("Each rate is a multiple of V per trick (1, 2, 1.5 …)."),
        heading=_('Whists and remises <span lang="ru">(висты и ремизы)</span>'),
        intro=_("Per trick at each level: the rate × the contract's value V."),
    ),
    Section(
        "duty",
        _("Whister duty"),
        _("What a whister short of the obligation writes."),
        heading=_('Whister duty <span lang="ru">(ответственность вистующих)</span>'),
    ),
    Section(
        "half_whist",
        _("Half-whist and tens"),
        _("When the second defender may half-whist, and whether a 10 is whisted."),
        heading=_('Half-whist and tens <span lang="ru">(полвиста и десятерная)</span>'),
    ),
    Section(
        "concede",
        _("Conceding a contract"),
        _(
            "The declarer gives his contract up without playing it and writes the "
            "undertricks as a remise."
        ),
        heading=_('Conceding a contract <span lang="ru">(уход без двух, без трёх)</span>'),
    ),
    Section(
        "passouts",
        _("Pass-outs"),
        _("Ladders list the 1st, 2nd, 3rd … pass-out in a row; the last step repeats."),
        heading=_('Pass-outs <span lang="ru">(распасы)</span>'),
    ),
    Section(
        "dark",
        _("Dark games and bombs"),
        _("Contracts played without looking at the widow, and the bombs of the Classic."),
        heading=_('Dark games and bombs <span lang="ru">(игры втёмную и бомбы)</span>'),
    ),
    Section(
        "settlement",
        _("Closing and settlement"),
        _("Help past the pool target, and how the pulka is settled in whists."),
        heading=_('Closing and settlement <span lang="ru">(закрытие пули и расчёт)</span>'),
    ),
)

PREFERANS_SETTINGS: tuple[Setting, ...] = (
    # Values and obligations.
    *(
        _whole(
            name,
            "values",
            help_text,
            label=label,
            rule="contract_values",
            index=i,
            reading=Reading(table="values-table"),
        )
        for i, (name, label, help_text) in enumerate(_VALUES)
    ),
    *(
        _whole(
            name,
            "values",
            help_text,
            label=label,
            rule="whist_obligations",
            index=i,
            minimum=0,
            maximum=4,
            small=True,
            reading=Reading(table="values-table"),
        )
        for i, (name, label, help_text) in enumerate(_OBLIGATIONS)
    ),
    # Whists and remises.
    _rate(
        "whist_rate",
        "rates",
        _("Whists a defender writes per defence trick, × V."),
        label=_("Whist rate"),
        reading=Reading(table="rates-table"),
    ),
    _rate(
        "remise_rate",
        "rates",
        _("Mountain per undertrick for the declarer, × V."),
        label=_("Remise rate"),
        reading=Reading(table="rates-table"),
    ),
    _rate(
        "consolation_rate",
        "rates",
        _("Whists each consoling player writes per undertrick, × V (0: no consolation)."),
        minimum=Decimal(0),
        label=_("Consolation rate"),
        reading=Reading(table="rates-table"),
    ),
    _whole(
        "consolation_fixed",
        "rates",
        _(
            "Whists each consoling player writes per undertrick at every level, in place of "
            "the consolation rate (0: off, the rate applies; a Rostov convention is 10)."
        ),
        minimum=0,
        maximum=1000,
        label=_("Fixed consolation per undertrick"),
        reading=Reading(
            texts=((0, _("none: the consolation rate applies")),),
        ),
    ),
    _whole(
        "misere_penalty",
        "rates",
        _("Mountain per trick on a failed misère."),
        label=_("Failed misère, per trick"),
        reading=Reading(
            term=_('Failed misère <span lang="ru">(несыгранный мизер)</span>'),
            text=_('<span id="misere-penalty">%(penalty)s</span> mountain per trick taken'),
            params=(("penalty", "misere_penalty"),),
        ),
    ),
    _whole(
        "misere_consolation",
        "rates",
        _(
            "Whists every other player (the 4-player dealer only if he consoles) writes on "
            "the declarer per trick of a failed misère (0: none)."
        ),
        minimum=0,
        maximum=1000,
        label=_("Consolation on a failed misère, per trick"),
        reading=Reading(texts=((0, _("none")),)),
    ),
    _choice(
        "lone_whist",
        "rates",
        _(
            "One whister on a remise: greedy — he is paid for every defence trick; "
            "gentleman — he and the passer share everything equally."
        ),
        (("greedy", _("greedy")), ("gentleman", _("gentleman"))),
        length=10,
        label=_("One whister on a remise"),
        reading=Reading(
            term=_('One whister on a remise <span lang="ru">(вист при ремизе)</span>'),
            texts=(
                (
                    "gentleman",
                    _(
                        'gentleman\'s whist <span lang="ru">(джентльменский вист)</span>: '
                        "the whister and the passer share everything equally"
                    ),
                ),
                (
                    "greedy",
                    _(
                        'greedy whist <span lang="ru">(жлобский вист)</span>: the whister is '
                        "paid for every defence trick"
                    ),
                ),
            ),
        ),
    ),
    _flag(
        "consolation_by_dealer",
        "rates",
        _("With 4 players the dealer consoles on a remise too."),
        label=_("The 4-player dealer consoles"),
        reading=Reading(term=_("The 4-player dealer consoles on a remise")),
    ),
    _flag(
        "consolation_by_passer",
        "rates",
        _(
            "On a remise against one whister the passer consoles too (no: only the whister "
            "and, with 4 players, the dealer do; a gentleman's split then shares only what "
            "they write)."
        ),
        label=_("The passer consoles"),
        reading=Reading(term=_("The passer consoles on a remise against one whister")),
    ),
    _flag(
        "widow_premium",
        "rates",
        _(
            "The widow premium: on a played game the scorer taps the widow's fast tricks "
            "(an ace or a king-queen of one suit 1, ace-king 2, two aces 3), and the "
            "declarer is written that many × the whist per trick, made or not: by the "
            "dealer with 4 players, half by each opponent with 3."
        ),
        label=_("Widow premium"),
        reading=Reading(
            term=_('Widow premium <span lang="ru">(быстрые взятки в прикупе)</span>'),
            texts=(
                (
                    True,
                    _(
                        "yes: fast tricks in the widow × the whist per trick, on the "
                        "declarer (4 players: from the dealer; 3: half from each opponent)"
                    ),
                ),
                (False, _("no")),
            ),
        ),
    ),
    # Whister duty.
    _choice(
        "whister_duty",
        "duty",
        _("Whether a whister short of the defence obligation writes mountain."),
        (("responsible", _("responsible")), ("none", _("none"))),
        length=12,
        label=_("Whister duty"),
        reading=Reading(
            term=_("A whister short of the obligation"),
            texts=(
                (
                    "responsible",
                    _(
                        "writes the shortfall × %(rate)s V into his mountain "
                        '<span lang="ru">(ответственный вист)</span>'
                    ),
                ),
                ("none", _('writes nothing <span lang="ru">(без ответственности)</span>')),
            ),
            params=(("rate", "whister_penalty_rate"),),
        ),
    ),
    _choice(
        "two_whister_duty",
        "duty",
        _(
            "Two whisters: each owes half the obligation (personal quotas); or they owe it "
            "as a pair and the one with fewer tricks pays the shortfall; or personal quotas "
            "charged only when the pair together is short; or the pair's shortfall shared in "
            "proportion to how far each is short of his half."
        ),
        (
            ("personal", _("personal quotas")),
            ("pair", _("as a pair")),
            ("personal_if_pair_short", _("personal quotas, only when the pair is short")),
            ("proportional", _("the pair's shortfall shared in proportion")),
        ),
        length=24,
        label=_("Two whisters"),
        reading=Reading(
            texts=(
                ("personal", _("each owes a personal quota (half the obligation)")),
                ("pair", _("owe the obligation as a pair; the one with fewer tricks pays")),
                (
                    "personal_if_pair_short",
                    _(
                        "each owes a personal quota (half the obligation), charged only when "
                        "the pair together is short"
                    ),
                ),
                (
                    "proportional",
                    _(
                        "owe the obligation as a pair; the shortfall is shared in proportion "
                        "to how far each is short of his half"
                    ),
                ),
            ),
        ),
    ),
    _choice(
        "duty_at_one",
        "duty",
        _(
            "Two whisters on an 8, 9 or 10 (obligation one trick), with personal quotas: who "
            "writes one trick into his mountain. The second whister is the later of the two "
            "clockwise after the declarer. Not used when they owe it as a pair or share the "
            "shortfall in proportion."
        ),
        (
            ("second", _("the second whister, when the defence took no trick")),
            ("second_own", _("the second whister, when he took no trick himself")),
            ("both", _("both whisters, when the defence took no trick")),
            ("each_own", _("each whister who took no trick himself")),
            ("none", _("nobody, even when the defence took no trick")),
        ),
        length=12,
        label=_("Two whisters at obligation one"),
    ),
    _flag(
        "duty_on_remise",
        "duty",
        _(
            "Whether a whister short of his duty writes mountain even when the declarer "
            "went down (no: the remise excuses the defence)."
        ),
        label=_("Whister duty on a remise"),
    ),
    _rate(
        "whister_penalty_rate",
        "duty",
        _("Mountain per trick a whister is short of his duty, × V."),
        label=_("Whister's penalty rate"),
        reading=Reading(shown_with="whister_duty"),
    ),
    # Half-whist and tens.
    _numbers(
        "half_whist_levels",
        "half_whist",
        _("Levels where half-whist is allowed, e.g. 6, 7 (empty: never)."),
        length=20,
        may_be_empty=True,
        label=_("Half-whist levels"),
        reading=Reading(
            term=_('Half-whist allowed on <span lang="ru">(полвиста)</span>'),
            texts=(((), _("never")),),
        ),
    ),
    _flag(
        "ten_is_whisted",
        "half_whist",
        _("Whether a 10 may be whisted (otherwise it is always passed)."),
        label=_("A 10 may be whisted"),
        reading=Reading(yesno=_("yes,no — it is always passed")),
    ),
    _flag(
        "stalingrad",
        "half_whist",
        _(
            "Stalingrad: a 6♠ must be whisted by both defenders; a 6♠ entered with a pass or "
            "a half-whist is refused."
        ),
        label=_("Stalingrad"),
    ),
    # Conceding a contract.
    _flag(
        "concede",
        "concede",
        _(
            "The declarer may give his contract up unplayed (down two, down three): the "
            "undertricks go into his mountain as a remise."
        ),
        label=_("Conceding allowed"),
        reading=Reading(
            term=_("The declarer may give his contract up unplayed"),
            texts=(
                (
                    True,
                    _(
                        "yes: he writes the undertricks × %(rate)s V into his mountain "
                        "(usually %(undertricks)s undertricks)"
                    ),
                ),
                (False, _("no")),
            ),
            params=(("rate", "remise_rate"), ("undertricks", "concede_undertricks")),
        ),
    ),
    _whole(
        "concede_undertricks",
        "concede",
        _("The undertricks of a concession when the scorer does not enter them (3: down three)."),
        maximum=10,
        small=True,
        label=_("Usual undertricks of a concession"),
        reading=Reading(shown_with="concede"),
    ),
    _flag(
        "concede_consolation",
        "concede",
        _(
            "The consoling players (the defenders and, if he consoles, the 4-player dealer) "
            "also write consolation on a conceded contract. Needs conceding allowed."
        ),
        label=_("Consolation on a concession"),
        reading=Reading(
            term=_("Consolation on a conceded contract"),
            texts=(
                (True, _("yes: each consoling player writes the undertricks × %(rate)s V on him")),
                (False, _("no")),
            ),
            params=(("rate", "consolation_rate"),),
            only_if="concede",
        ),
    ),
    _flag(
        "concede_ends_passouts",
        "concede",
        _(
            "A conceded contract ends a series of pass-outs as a game would, so that the "
            "price and the exit start again. Needs conceding allowed."
        ),
        label=_("A concession ends pass-outs"),
        reading=Reading(
            term=_("A conceded contract ends a series of pass-outs"), only_if="concede"
        ),
    ),
    # Pass-outs.
    _choice(
        "passout_mode",
        "passouts",
        _(
            "Pass-out tricks go into the mountain, or (Rostov) the fewest-tricks player "
            "writes whists on the others."
        ),
        (("mountain", _("mountain")), ("whists", _("whists"))),
        length=10,
        label=_("Pass-out tricks go"),
        reading=Reading(
            term=_("Tricks are paid"),
            texts=(
                (
                    "whists",
                    _(
                        "in whists: the fewest-tricks player writes %(whists)s × the price "
                        "whists on every other player per trick "
                        '<span lang="ru">(ростовские распасы)</span>'
                    ),
                ),
                (
                    "mountain",
                    _('into the mountain: tricks × the price <span lang="ru">(в гору)</span>'),
                ),
            ),
            params=(("whists", "passout_whists"),),
        ),
    ),
    _whole(
        "passout_whists",
        "passouts",
        _("Whist mode: whists per trick at the first price (Rostov 5)."),
        label=_("Pass-out whists per trick"),
        reading=Reading(shown_with="passout_mode"),
    ),
    _choice(
        "passout_whists_tie",
        "passouts",
        _(
            "Whist mode: when two players tie for fewest tricks, each writes the full "
            "amount on the others, or they share it (each half, rounded down)."
        ),
        (("each", _("each writes it all")), ("split", _("they share it"))),
        length=6,
        label=_("A tie for fewest pass-out tricks"),
    ),
    _numbers(
        "passout_ladder",
        "passouts",
        _("Price per trick of the 1st, 2nd, 3rd … pass-out in a row; the last repeats."),
        length=60,
        label=_("Pass-out prices"),
        reading=Reading(table="passout-table"),
    ),
    _choice(
        "passout_ladder_repeat",
        "passouts",
        _(
            "Past the last pass-out price: the last price repeats, or the prices start "
            "again from the first (1, 2, 3, 1, 2, 3 …). The exit is not affected."
        ),
        (("last", _("the last price repeats")), ("cycle", _("the prices start again"))),
        length=6,
        label=_("Past the last pass-out price"),
    ),
    _numbers(
        "passout_exit",
        "passouts",
        _("Lowest contract after the 1st, 2nd, 3rd … pass-out in a row, e.g. 6, 7, 8."),
        length=30,
        label=_("Exit from pass-outs"),
        reading=Reading(table="exit-table"),
    ),
    _flag(
        "passout_amnesty",
        "passouts",
        _("Take the smallest trick count off everyone's pass-out tricks."),
        label=_("Pass-out amnesty"),
        reading=Reading(
            term=_(
                "Amnesty: the smallest trick count is taken off everyone's "
                '<span lang="ru">(амнистия)</span>'
            )
        ),
    ),
    _choice(
        "passout_zero_bonus",
        "passouts",
        _(
            "What a player who took no trick on a pass-out writes: the usual bonus (the "
            "price into his pool; in whist mode 1 point), nothing, 1 point into his pool, or "
            "twice the price off his mountain."
        ),
        (
            ("price", _("the usual bonus into his pool")),
            ("none", _("nothing")),
            ("one", _("1 point into his pool")),
            ("mountain", _("twice the price off his mountain")),
        ),
        length=10,
        label=_("No trick on a pass-out"),
        reading=Reading(
            term=_("A player who took no trick"),
            depends="passout_mode",
            texts=(
                (("price", "whists"), _("writes 1 point into his pool")),
                ("price", _("writes the price into his pool")),
                ("one", _("writes 1 point into his pool")),
                ("mountain", _("takes twice the price off his mountain")),
                ("none", _("writes nothing")),
            ),
        ),
        legacy=tuple(LEGACY_BOOLEANS["passout_zero_bonus"].items()),
    ),
    _choice(
        "zero_bonus_when_closed",
        "passouts",
        _(
            "The no-trick bonus of a player whose pool is closed: it helps another pool "
            "like any point past the target, or comes off his own mountain at once."
        ),
        (("help", _("helps like any point")), ("mountain", _("off his own mountain"))),
        length=8,
        label=_("No-trick bonus with a closed pool"),
    ),
    _flag(
        "misere_ends_passouts",
        "passouts",
        _("A misère ends a series of pass-outs like any game."),
        label=_("A misère ends pass-outs"),
        reading=Reading(term=_("A misère ends a series of pass-outs")),
    ),
    _choice(
        "passout_series_ends_on",
        "passouts",
        _(
            "Which deal ends a series of pass-outs, so that the price and the exit start "
            "again from the first step. Adjustments and conceded contracts never do."
        ),
        (
            ("any_deal", _("any game or misère")),
            ("played_game", _("any game but one both defenders passed, or a misère")),
            ("whisted_made_game", _("only a whisted game, made, with the defence's duty met")),
            ("made_game_from_level", _("only a made game from a set level up, or a made misère")),
        ),
        length=24,
        label=_("A series of pass-outs ends with"),
        reading=Reading(
            texts=(
                ("any_deal", _("any game")),
                ("played_game", _("any game but one both defenders passed")),
                (
                    "whisted_made_game",
                    _(
                        "only a game made against a whister, with the defence's obligation "
                        "taken (never a misère)"
                    ),
                ),
                (
                    "made_game_from_level",
                    _(
                        "only a made game of %(level)s or more (a game both defenders passed "
                        "counts as made); a misère only when made"
                    ),
                ),
            ),
            params=(("level", "passout_series_end_level"),),
        ),
    ),
    _whole(
        "passout_series_end_level",
        "passouts",
        _(
            "With «only a made game from a set level up»: that level, the lowest contract "
            "that ends a series (a game both defenders passed counts as made)."
        ),
        minimum=6,
        maximum=10,
        small=True,
        label=_("Lowest game that ends a series"),
        reading=Reading(shown_with="passout_series_ends_on"),
    ),
    _flag(
        "dealer_takes_widow_tricks",
        "passouts",
        _("With 4 players the dealer plays the widow on pass-outs (0–2)."),
        label=_("The 4-player dealer plays the widow"),
        reading=Reading(
            term=_('With 4 players the dealer plays the widow <span lang="ru">(прикуп)</span>'),
            yesno=_("yes (0–2 tricks),no"),
        ),
    ),
    _flag(
        "passout_same_dealer",
        "passouts",
        _("After a pass-out the same player deals again, up to 3 times."),
        label=_("Same dealer after a pass-out"),
        reading=Reading(term=_("After a pass-out the same player deals again (up to 3 times)")),
    ),
    # Dark games and bombs.
    _flag(
        "dark_games",
        "dark",
        _("Dark contracts and dark pass-outs are played."),
        label=_("Dark games"),
        reading=Reading(
            term=_('Dark contracts and dark pass-outs <span lang="ru">(втёмную)</span>'),
            texts=(
                (True, _("played; every amount of a dark contract × %(multiplier)s")),
                (False, _("not played")),
            ),
            params=(("multiplier", "dark_multiplier"),),
        ),
    ),
    _whole(
        "dark_multiplier",
        "dark",
        _("Every amount of a dark contract × this."),
        label=_("Dark multiplier"),
        reading=Reading(shown_with="dark_games"),
    ),
    _flag(
        "bombs",
        "dark",
        _("Dark pass-outs draw bombs that multiply a later game."),
        label=_("Bombs"),
        reading=Reading(
            term=_('Bombs <span lang="ru">(бомбы)</span>'),
            texts=(
                (
                    True,
                    _(
                        "a dark pass-out draws a bomb: ×2, then ×4, then ×8 "
                        '<span lang="ru">(ёлка)</span> on a later game'
                    ),
                ),
                (False, _("not played")),
            ),
        ),
    ),
    # Closing and settlement.
    _choice(
        "help_to",
        "settlement",
        _(
            "Where the points past a player's pool target go: into the largest open pool of "
            "an opponent, into the next open pool clockwise, or nowhere (they come off the "
            "player's own mountain at once)."
        ),
        (
            ("largest", _("the largest open pool")),
            ("clockwise", _("the next open pool clockwise")),
            ("none", _("no help: off his own mountain")),
        ),
        length=10,
        label=_("Help goes to"),
    ),
    _whole(
        "help_whists_per_point",
        "settlement",
        _("Whists the helper writes per pool point given as help."),
        label=_("Whists per point of help"),
        reading=Reading(
            term=_(
                "Help: whists per pool point given to another player "
                '<span lang="ru">(помощь)</span>'
            ),
            also=(
                (
                    _("With every pool closed, a pool point is taken off the mountain as"),
                    _("%(points)s mountain points"),
                ),
            ),
            params=(("points", "help_mountain"),),
        ),
    ),
    _choice(
        "overflow_floor",
        "settlement",
        _(
            "Points past the target that no open pool takes come off the player's own "
            "mountain: whether that may take the mountain below zero, or the part below "
            "zero is written on every other player's mountain instead (the same balances; "
            "only the sheet differs)."
        ),
        (
            ("none", _("may go below zero")),
            ("zero", _("stops at zero")),
            ("shift_all", _("below zero: written on the others' mountains")),
        ),
        length=10,
        label=_("Overflow off the mountain"),
    ),
    _whole(
        "pool_weight",
        "settlement",
        _("Whists per pool point at settlement."),
        label=_("Pool weight"),
        reading=Reading(
            term=_('Whists per pool point at settlement <span lang="ru">(пуля)</span>')
        ),
    ),
    _whole(
        "mountain_weight",
        "settlement",
        _("Whists per mountain point at settlement."),
        label=_("Mountain weight"),
        reading=Reading(
            term=_('Whists per mountain point at settlement <span lang="ru">(гора)</span>')
        ),
    ),
    _choice(
        "settlement_divisor",
        "settlement",
        _("The mountain is divided among n players (usual) or n − 1."),
        (("players", _("players (n)")), ("players_minus_one", _("players − 1"))),
        length=20,
        label=_("Mountain divided among"),
        reading=Reading(
            term=_("The mountain is divided among"),
            texts=(
                (
                    "players",
                    _('n players (all who play) <span lang="ru">(средняя гора)</span>'),
                ),
                ("players_minus_one", _("n − 1 players")),
            ),
        ),
    ),
    _choice(
        "settlement_pools",
        "settlement",
        _(
            "Whether the pools count at settlement, or only mountains and whists do (for "
            "clubs that settle pools only by closing them)."
        ),
        (("counted", _("counted")), ("ignored", _("left out"))),
        length=8,
        label=_("Pools at settlement"),
    ),
    _choice(
        "last_round",
        "settlement",
        _(
            "After the control time: play on until the deal would come back to the first "
            "dealer, or one more full circle after that; then the pulka is complete."
        ),
        (
            ("finish_circle", _("finish the circle")),
            ("one_more_circle", _("finish the circle and play one more")),
        ),
        length=16,
        label=_("Last round after the control time"),
    ),
)

PREFERANS_LIST_MEANINGS = {
    "contract_values": "pool points V for a made 6, 7, 8, 9, 10 and misère",
    "whist_obligations": "tricks O the defence owes on a 6, 7, 8, 9 and 10 (0–4)",
}
"""The docs table's words for the list rules (each item's help text names one level)."""

_SUIT_COLUMNS = (
    ("spades_multiplier", _("Spades ♠ multiplier"), _("Value card: the spades column ♠ ×.")),
    ("clubs_multiplier", _("Clubs ♣ multiplier"), _("Value card: the clubs column ♣ ×.")),
    (
        "diamonds_multiplier",
        _("Diamonds ♦ multiplier"),
        _("Value card: the diamonds column ♦ ×."),
    ),
    ("hearts_multiplier", _("Hearts ♥ multiplier"), _("Value card: the hearts column ♥ ×.")),
)

BOSTON_SECTIONS = (
    Section(""),
    Section(
        "payment_tariff",
        _("Payment tariff"),
        _(
            "Each contract's terms are in the payment rows below (minor suit, simple "
            "tour); these multiply them."
        ),
    ),
    Section(
        "value_card",
        _("Value card"),
        _("A cell is the row's unit (rows below) × its suit column's multiplier."),
    ),
)

BOSTON_SETTINGS: tuple[Setting, ...] = (
    _choice(
        "system",
        "",
        _("Which of the two scoring systems tables under this tariff use."),
        (("payment-tariff", _("payment tariff")), ("value-card", _("contract value card"))),
        length=20,
        label=_("Scoring system"),
    ),
    # Payment tariff (its rows are BostonPaymentRow).
    _whole(
        "slam_multiplier",
        "payment_tariff",
        _("A slam (13 tricks) multiplies all by this."),
        label=_("Slam multiplier"),
        reading=Reading(term=_('A slam <span lang="ru">(шлем)</span>'), text=_("×%(value)s")),
    ),
    _whole(
        "major_multiplier",
        "payment_tariff",
        _("The major suit pays this × the minor."),
        label=_("Major suit multiplier"),
        reading=Reading(
            term=_('The major suit <span lang="ru">(старшая масть)</span>'), text=_("×%(value)s")
        ),
    ),
    _whole(
        "double_tour_multiplier",
        "payment_tariff",
        _("A double tour pays this × a simple tour."),
        label=_("Double tour multiplier"),
        reading=Reading(
            term=_('A double tour <span lang="ru">(тур двойной)</span>'), text=_("×%(value)s")
        ),
    ),
    _choice(
        "supported_payers",
        "payment_tariff",
        _("2 vs 2: each winner is paid by one opponent (pairs) or by each opponent (each)."),
        (("pairs", _("in pairs")), ("each", _("each pays each"))),
        length=10,
        label=_("Who pays in 2 vs 2"),
        reading=Reading(
            term=_("In a 2 vs 2 contract"),
            texts=(
                ("each", _("each loser pays each winner")),
                ("pairs", _("each winner is paid by one opponent")),
            ),
        ),
    ),
    # Value card (its rows are BostonCardRow).
    *(
        _whole(name, "value_card", help_text, label=label, rule="column_multipliers", index=i)
        for i, (name, label, help_text) in enumerate(_SUIT_COLUMNS)
    ),
    _whole(
        "together_required",
        "value_card",
        _("Value card: tricks two partners need on the first row (5 alone / 8 together)."),
        minimum=6,
        maximum=13,
        small=True,
        label=_("Tricks two partners need"),
    ),
    _whole(
        "piccolissimo_tricks",
        "value_card",
        _("Value card: tricks a piccolissimo must take (0 or 1)."),
        minimum=0,
        maximum=1,
        small=True,
        label=_("Piccolissimo tricks"),
        reading=Reading(
            term=_('A piccolissimo must take <span lang="ru">(пиколиссимо)</span>'),
            texts=((0, _("0 tricks")), (1, _("1 trick"))),
        ),
    ),
    _flag(
        "card_pays_honours",
        "value_card",
        _("Value card: honours are paid on a made trick contract."),
        label=_("Honours paid"),
        reading=Reading(
            term=_('Honours <span lang="ru">(онёры)</span>'),
            texts=((True, _("paid on a made trick contract")), (False, _("not paid"))),
        ),
    ),
    _flag(
        "card_pays_overtricks",
        "value_card",
        _("Value card: each overtrick is paid at the row's rate."),
        label=_("Overtricks paid"),
        reading=Reading(
            term=_("Overtricks"),
            texts=((True, _("each is paid at the row's rate")), (False, _("not paid"))),
        ),
    ),
    _flag(
        "card_pays_undertricks",
        "value_card",
        _("Value card: each undertrick is paid at the row's rate."),
        label=_("Undertricks paid"),
        reading=Reading(
            term=_("Undertricks"),
            texts=((True, _("each is paid at the row's rate")), (False, _("not paid"))),
        ),
    ),
)

PREFERANS_DEFAULTS = PreferansRules()
BOSTON_DEFAULTS = BostonRules()
PREFERANS_PRESETS: Mapping[str, PreferansRules] = PRESETS


# -- docs/rules.md --------------------------------------------------------------------------

RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def docs_tables() -> dict[str, str]:
    """The generated tables of docs/rules.md, by game. Boston's table stays written by
    hand: most of its settings are the payment and value-card rows, not declarations."""
    return {"preferans": docs_table(PREFERANS_SETTINGS, PREFERANS_PRESETS, PREFERANS_LIST_MEANINGS)}


def update_docs(path: Path = RULES_DOC) -> bool:
    """Rewrite the generated tables of docs/rules.md; whether anything changed."""
    text = path.read_text(encoding="utf-8")
    updated = docs_with_tables(text, docs_tables())
    if updated != text:
        path.write_text(updated, encoding="utf-8")
    return updated != text
