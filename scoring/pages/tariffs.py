"""What the read-only tariff pages show (the admin is the organisers' editor): each
tariff's summary in words, its tables of numbers and its other settings."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils import formats
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from scoring.engine.boston import Ask, BostonRules, Independence, tariff_amount
from scoring.engine.boston.rules import ASK_CONTRACTS, CARD_ROWS, TRICK_ROWS
from scoring.engine.preferans.rules import LEVELS, PreferansRules
from scoring.models import BostonTariff, PreferansTariff
from scoring.models.tariff_settings import (
    BOSTON_SECTIONS,
    BOSTON_SETTINGS,
    PREFERANS_SECTIONS,
    PREFERANS_SETTINGS,
    page_rows,
    page_sections,
)
from scoring.models.tariffs import SPECIAL_ROW_LABELS
from scoring.models.vocabulary import SUIT_NAMES, SUIT_SYMBOLS

SUIT_CLASSES = ("minor", "major")

# Each label in the page's language; the Russian term follows as a hint on the English page.
CONTRACT_LABELS = {
    "supported": (_("Supported ask"), "прикуп купленный"),
    "unsupported": (_("Unsupported ask"), "прикуп не купленный"),
    "independence": (_("Independence"), "индепанданс"),
}
CARD_PARTS = (
    ("three_honours", _("three honours"), "три онёра"),
    ("four_honours", _("four honours"), "четыре онёра"),
    ("overtrick", _("each trick over or short"), "каждая лишняя или недобранная взятка"),
)


# The settings the Boston page's template writes out in its own words (tables, sentences).
# Every other declared setting is listed under its section as "label: value" by itself.
# The Preferans page has no such list: it is drawn from the declarations
# (``tariff_settings.Reading``).
BOSTON_WRITTEN_OUT = frozenset(
    (
        # The system orders the page (its tables first) and the page's lead says it; the
        # suit columns' multipliers head the value card's columns, and the tricks two
        # partners need name its first row.
        "system",
        *(f"{suit}_multiplier" for suit in ("spades", "clubs", "diamonds", "hearts")),
        "together_required",
    )
)


def numbers_text(values: tuple[int, ...]) -> str:
    return ", ".join(map(str, values))


def preferans_summary(rules: PreferansRules) -> str:
    """The tariff in one line, from its settings (so it never goes stale after an edit)."""
    parts = [
        gettext("gentleman's whist")
        if rules.lone_whist == "gentleman"
        else gettext("greedy whist"),
        gettext("whists ×%(whist)s, remise ×%(remise)s")
        % {"whist": number(rules.whist_rate), "remise": number(rules.remise_rate)},
        gettext("pass-outs %(ladder)s, exit %(exit)s")
        % {
            "ladder": numbers_text(rules.passout_ladder),
            "exit": numbers_text(rules.passout_exit),
        },
    ]
    if rules.passout_mode == "whists":
        parts.append(gettext("pass-outs paid in whists"))
    if rules.dark_games:
        parts.append(gettext("dark games and bombs") if rules.bombs else gettext("dark games"))
    if rules.widow_premium:  # what tells the federation's preset from Leningrad at a glance
        parts.append(gettext("widow premium (fast tricks)"))
    parts.append(
        ngettext(
            "a pool point is worth %(whists)s whist",
            "a pool point is worth %(whists)s whists",
            rules.pool_weight,
        )
        % {"whists": rules.pool_weight}
    )
    return "; ".join(parts) + "."


def boston_summary(tariff: Any) -> str:
    """The Boston tariff in one line: its system and multipliers (the tariff's own columns,
    so the list needs no query per tariff)."""
    if tariff.system == "value-card":
        return gettext("Scored by the contract value card.")
    return gettext(
        "Scored by the payment tariff; major suit ×%(major)s, double tour ×%(double)s, "
        "slam ×%(slam)s."
    ) % {
        "major": tariff.major_multiplier,
        "double": tariff.double_tour_multiplier,
        "slam": tariff.slam_multiplier,
    }


# -- Preferans ----------------------------------------------------------------------------


def number(value: Fraction | int) -> str:
    """An exact number as the page prints it, in the page's language: ``4``, ``2,5``,
    ``0,25`` in Russian (rates have at most two decimals and values are whole, so every
    product has at most two)."""
    value = Fraction(value)
    exact = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.01"))
    return formats.number_format(exact.normalize())


@dataclass(frozen=True)
class LevelRow:
    """One contract level of the values table, with each per-trick amount (rate × V)."""

    level: int
    value: int
    obligation: int
    whist: str
    remise: str
    consolation: str
    whister_penalty: str


def level_rows(rules: PreferansRules) -> list[LevelRow]:
    rows = []
    for level in LEVELS:
        value = rules.value(level)
        rows.append(
            LevelRow(
                level=level,
                value=value,
                obligation=rules.obligation(level),
                whist=number(rules.whist_rate * value),
                remise=number(rules.remise_rate * value),
                consolation=number(rules.consolation_rate * value),
                whister_penalty=number(rules.whister_penalty_rate * value),
            )
        )
    return rows


# -- Boston -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PaymentRow:
    tricks: int
    label: str
    cells: tuple[int, ...]  # minor, major


@dataclass(frozen=True)
class PaymentTable:
    contract: str
    label: str
    label_ru: str
    required: int
    base: int
    rate: int
    no_trick_count: int
    won: tuple[PaymentRow, ...]
    lost: tuple[PaymentRow, ...]


def payment_amount(rules: BostonRules, contract: str, suit: str, tricks: int) -> int:
    """What each payer pays (simple tour), straight from the engine."""
    deal: Ask | Independence
    if contract == "independence":
        deal = Independence(declarer=0, suit=suit, tricks=tricks)
    else:
        deal = Ask(
            declarer=0, partner=2 if contract == "supported" else None, suit=suit, tricks=tricks
        )
    return tariff_amount(rules, deal, double=False).chips


def _payment_row(rules: BostonRules, contract: str, tricks: int, label: str) -> PaymentRow:
    cells = tuple(payment_amount(rules, contract, suit, tricks) for suit in SUIT_CLASSES)
    return PaymentRow(tricks, label, cells)


def payment_tables(rules: BostonRules) -> list[PaymentTable]:
    """The payment tariff, one table per contract: won rows for the required tricks up to
    the slam, lost rows for one trick short down to no trick at all."""
    tables = []
    for contract in ASK_CONTRACTS:
        required, base, rate, no_trick_count = rules.ask_terms(contract)
        won = tuple(
            _payment_row(
                rules,
                contract,
                tricks,
                gettext("slam")
                if tricks == 13
                else f"+{tricks - required}"
                if tricks > required
                else "=",
            )
            for tricks in range(required, 14)
        )
        lost = tuple(
            _payment_row(
                rules,
                contract,
                required - short,
                gettext("no trick") if short == required else f"−{short}",
            )
            for short in range(1, required + 1)
        )
        label, label_ru = CONTRACT_LABELS[contract]
        tables.append(
            PaymentTable(
                contract, str(label), label_ru, required, base, rate, no_trick_count, won, lost
            )
        )
    return tables


@dataclass(frozen=True)
class CardRow:
    row: str
    label: str
    label_ru: str
    cells: tuple[int, ...]
    part: bool = False  # an honours or overtrick line under its contract


def trick_row_labels(rules: BostonRules) -> list[tuple[str, str]]:
    """The value card's trick contracts 5 … 12 in words, (the page's language, Russian)."""
    labels = []
    for row in TRICK_ROWS:
        together = rules.together_required
        if row == "5":
            labels.append(
                (
                    gettext("5 tricks alone or %(together)s together") % {"together": together},
                    f"5 взяток один или {together} вдвоём",
                )
            )
        elif row == "6":
            labels.append((gettext("6 tricks or independence"), "6 взяток или индепанданс"))
        else:
            tricks = int(row)
            labels.append(
                (
                    ngettext("%(tricks)s trick", "%(tricks)s tricks", tricks) % {"tricks": tricks},
                    f"{tricks} взяток",
                )
            )
    return labels


def value_card(rules: BostonRules) -> tuple[list[tuple[str, str, int]], list[CardRow]]:
    """The value card: its suit columns (name, symbol, multiplier) and rows; a cell is the
    row's unit × the column's multiplier."""
    suits = rules.suit_order
    multipliers = [rules.column_multiplier(suit) for suit in suits]
    columns = [
        (str(SUIT_NAMES[suit]), SUIT_SYMBOLS[suit], m)
        for suit, m in zip(suits, multipliers, strict=True)
    ]

    def cells(unit: int) -> tuple[int, ...]:
        return tuple(unit * m for m in multipliers)

    rows = []
    for i, (row, (label, label_ru)) in enumerate(
        zip(TRICK_ROWS, trick_row_labels(rules), strict=True)
    ):
        rows.append(CardRow(row, label, label_ru, cells(rules.contract_units[i])))
        units = {
            "three_honours": rules.three_honours_units[i],
            "four_honours": rules.four_honours_units[i],
            "overtrick": rules.overtrick_units[i],
        }
        for part, part_label, part_ru in CARD_PARTS:
            rows.append(CardRow(row, str(part_label), part_ru, cells(units[part]), part=True))
    for row in CARD_ROWS[len(TRICK_ROWS) :]:
        special, special_ru = SPECIAL_ROW_LABELS[row]
        rows.append(CardRow(row, str(special), special_ru, cells(rules.special_unit(row))))
    return columns, rows


def tariff_lines(preferans: list[PreferansTariff], boston: list[BostonTariff]) -> dict[str, Any]:
    """The tariff list: each tariff with its summary in words."""
    return {
        "preferans_tariffs": [(t, preferans_summary(t.to_rules())) for t in preferans],
        "boston_tariffs": [(t, boston_summary(t)) for t in boston],
    }


def preferans_tariff_context(tariff: PreferansTariff) -> dict[str, Any]:
    """What a Preferans tariff's page shows."""
    rules = tariff.to_rules()
    return {
        "tariff": tariff,
        "summary": preferans_summary(rules),
        "rules": rules,
        "levels": level_rows(rules),
        "rates": {
            name: number(getattr(rules, name))
            for name in (
                "whist_rate",
                "remise_rate",
                "consolation_rate",
                "whister_penalty_rate",
            )
        },
        "passout_ladder": list(rules.passout_ladder),
        "passout_exit": list(rules.passout_exit),
        "sections": page_sections(
            rules,
            PREFERANS_SETTINGS,
            PREFERANS_SECTIONS,
            {"help_mountain": number(Fraction(rules.pool_weight, rules.mountain_weight))},
        ),
    }


def boston_tariff_context(tariff: BostonTariff) -> dict[str, Any]:
    """What a Boston tariff's page shows."""
    rules = tariff.to_rules()
    columns, card = value_card(rules)
    return {
        "tariff": tariff,
        "summary": boston_summary(tariff),
        "rules": rules,
        "payment_tables": payment_tables(rules),
        "card_columns": columns,
        "card_rows": card,
        # The system the tariff's tables score by comes first; the other follows.
        "card_first": rules.system == "value-card",
        "more": page_rows(rules, BOSTON_SETTINGS, BOSTON_SECTIONS, BOSTON_WRITTEN_OUT, words=True),
    }
