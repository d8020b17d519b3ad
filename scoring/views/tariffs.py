"""Read-only tariff pages for members (the admin is the organisers' editor)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.db.models import Max, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from scoring.engine.boston import Ask, BostonRules, Independence, tariff_amount
from scoring.engine.boston.rules import ASK_CONTRACTS, CARD_ROWS, TRICK_ROWS
from scoring.engine.preferans.rules import LEVELS, RATES, PreferansRules
from scoring.models import BostonTariff, PreferansTariff
from scoring.models.tariff_settings import (
    BOSTON_SECTIONS,
    BOSTON_SETTINGS,
    PREFERANS_SECTIONS,
    PREFERANS_SETTINGS,
    page_rows,
)
from scoring.models.tariffs import Tariff
from scoring.seed_corrections import card_note, payment_note

SUIT_CLASSES = ("minor", "major")

CONTRACT_LABELS = {
    "supported": ("Supported ask", "прикуп купленный"),
    "unsupported": ("Unsupported ask", "прикуп не купленный"),
    "independence": ("Independence", "индепанданс, самостоятельная игра"),
}
SUIT_LABELS = {
    "spades": ("spades", "П", "♠"),
    "clubs": ("clubs", "Тр", "♣"),
    "diamonds": ("diamonds", "Б", "♦"),
    "hearts": ("hearts", "Ч", "♥"),
}
SPECIAL_ROW_LABELS = {
    "slam-by-two": ("Slam by two (13 together)", "шлем или бостон вдвоём"),
    "small-misere": ("Small misère", "маленький мизер"),
    "piccolissimo": ("Piccolissimo", "пиколиссимо"),
    "grand-misere": ("Grand misère", "большой мизер"),
    "four-tour-misere": ("Misère of four tours", "мизер четырёх туров"),
    "small-open-misere": ("Small open misère", "маленький открытый мизер"),
    "grand-open-misere": ("Grand open misère", "большой открытый мизер"),
    "boston": ("Boston (13 alone)", "бостон простой"),
    "open-boston": ("Open Boston", "бостон открытый"),
}
CARD_PARTS = (
    ("three_honours", "three honours", "три онера"),
    ("four_honours", "four honours", "четыре онера"),
    ("overtrick", "each trick over or short", "каждая взятка сверх того"),
)


# The settings each page's template writes out in its own words (tables, sentences). Every
# other declared setting is listed under its section as "label: value" by itself, so a new
# setting is on the page without touching the template.
PREFERANS_WRITTEN_OUT = frozenset(
    (
        *(f"value_{level}" for level in (*LEVELS, "misere")),
        *(f"obligation_{level}" for level in LEVELS),
        *RATES,
        *("misere_penalty", "lone_whist", "consolation_by_dealer"),
        *("whister_duty", "two_whister_duty", "half_whist_levels", "ten_is_whisted"),
        *("passout_mode", "passout_whists", "passout_ladder", "passout_exit"),
        *("passout_amnesty", "passout_zero_bonus", "misere_ends_passouts"),
        *("passout_series_ends_on", "passout_series_end_level"),
        *("concede", "concede_undertricks", "concede_consolation"),
        *("dealer_takes_widow_tricks", "passout_same_dealer"),
        *("dark_games", "dark_multiplier", "bombs"),
        *("help_whists_per_point", "pool_weight", "mountain_weight", "settlement_divisor"),
    )
)
BOSTON_WRITTEN_OUT = frozenset(
    (
        *("system", "slam_multiplier", "major_multiplier", "double_tour_multiplier"),
        *("supported_payers", "together_required", "piccolissimo_tricks"),
        *(f"{suit}_multiplier" for suit in ("spades", "clubs", "diamonds", "hearts")),
        *("card_pays_honours", "card_pays_overtricks", "card_pays_undertricks"),
    )
)


def _tariffs(model: type[Tariff]) -> QuerySet[Any]:
    """Tariffs with the number of their current version (one query)."""
    return model._default_manager.annotate(version=Max("versions__number"))


def tariff_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "scoring/tariff_list.html",
        {
            "preferans_tariffs": _tariffs(PreferansTariff).order_by("name"),
            "boston_tariffs": _tariffs(BostonTariff).order_by("name"),
        },
    )


# -- Preferans ----------------------------------------------------------------------------


def number(value: Fraction | int) -> str:
    """An exact number as the page prints it: ``4``, ``2.5``, ``0.25`` (rates have at most
    two decimals and values are whole, so every product has at most two)."""
    value = Fraction(value)
    exact = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.01"))
    return format(exact.normalize(), "f")


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


def preferans_tariff_detail(request: HttpRequest, pk: int) -> HttpResponse:
    tariff = get_object_or_404(_tariffs(PreferansTariff), pk=pk)
    rules = tariff.to_rules()
    return render(
        request,
        "scoring/tariff_preferans_detail.html",
        {
            "tariff": tariff,
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
            "half_whist_levels": list(rules.half_whist_levels),
            "help_mountain": number(Fraction(rules.pool_weight, rules.mountain_weight)),
            "more": page_rows(rules, PREFERANS_SETTINGS, PREFERANS_SECTIONS, PREFERANS_WRITTEN_OUT),
        },
    )


# -- Boston -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """A number on the page; ``note`` is the reason when it was corrected from the seed,
    ``where`` says where it stands (for the list of corrections under the tables)."""

    value: int
    note: str | None = None
    where: str = ""


@dataclass(frozen=True)
class PaymentRow:
    tricks: int
    label: str
    cells: tuple[Cell, ...]  # minor, major


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


def _payment_row(
    rules: BostonRules, contract: str, outcome: str, tricks: int, label: str
) -> PaymentRow:
    cells = []
    for suit in SUIT_CLASSES:
        value = payment_amount(rules, contract, suit, tricks)
        note = payment_note((contract, outcome, suit, tricks), value)
        where = f"{CONTRACT_LABELS[contract][0]}, {outcome}, {suit} suit, {tricks} tricks taken"
        cells.append(Cell(value, note, where if note else ""))
    return PaymentRow(tricks, label, tuple(cells))


def payment_tables(rules: BostonRules) -> list[PaymentTable]:
    """The payment tariff as boston.md §1 prints it: won rows for the required tricks up
    to the slam, lost rows for one trick short down to no trick at all."""
    tables = []
    for contract in ASK_CONTRACTS:
        required, base, rate, no_trick_count = rules.ask_terms(contract)
        won = tuple(
            _payment_row(
                rules,
                contract,
                "won",
                tricks,
                "slam" if tricks == 13 else f"+{tricks - required}" if tricks > required else "=",
            )
            for tricks in range(required, 14)
        )
        lost = tuple(
            _payment_row(
                rules,
                contract,
                "lost",
                required - short,
                "no trick" if short == required else f"−{short}",
            )
            for short in range(1, required + 1)
        )
        label, label_ru = CONTRACT_LABELS[contract]
        tables.append(
            PaymentTable(contract, label, label_ru, required, base, rate, no_trick_count, won, lost)
        )
    return tables


@dataclass(frozen=True)
class CardRow:
    row: str
    label: str
    label_ru: str
    cells: tuple[Cell, ...]
    part: bool = False  # an honours or overtrick line under its contract


def trick_row_labels(rules: BostonRules) -> list[tuple[str, str]]:
    """The value card's trick contracts 5 … 12 in words, (English, Russian)."""
    labels = []
    for row in TRICK_ROWS:
        if row == "5":
            labels.append(
                (
                    f"5 tricks alone or {rules.together_required} together",
                    f"5 взяток один или {rules.together_required} вдвоём",
                )
            )
        elif row == "6":
            labels.append(("6 tricks or independence", "шесть взяток или индепанданс"))
        else:
            labels.append((f"{row} tricks", f"{row} взяток"))
    return labels


def value_card(rules: BostonRules) -> tuple[list[tuple[str, str, str, int]], list[CardRow]]:
    """The value card: its suit columns (name, letter, symbol, multiplier) and rows; a
    cell is the row's unit × the column's multiplier (boston.md §2)."""
    suits = rules.suit_order
    multipliers = [rules.column_multiplier(suit) for suit in suits]
    columns = [(*SUIT_LABELS[suit], m) for suit, m in zip(suits, multipliers, strict=True)]

    def cells(row: str, part: str, unit: int) -> tuple[Cell, ...]:
        out = []
        for suit, m in zip(suits, multipliers, strict=True):
            note = card_note((row, part, suit), unit * m)
            where = f"value card, row {row}, {part.replace('_', ' ')}, {suit}"
            out.append(Cell(unit * m, note, where if note else ""))
        return tuple(out)

    rows = []
    for i, (row, (label, label_ru)) in enumerate(
        zip(TRICK_ROWS, trick_row_labels(rules), strict=True)
    ):
        rows.append(CardRow(row, label, label_ru, cells(row, "contract", rules.contract_units[i])))
        units = {
            "three_honours": rules.three_honours_units[i],
            "four_honours": rules.four_honours_units[i],
            "overtrick": rules.overtrick_units[i],
        }
        for part, part_label, part_ru in CARD_PARTS:
            rows.append(CardRow(row, part_label, part_ru, cells(row, part, units[part]), part=True))
    for row in CARD_ROWS[len(TRICK_ROWS) :]:
        label, label_ru = SPECIAL_ROW_LABELS[row]
        rows.append(CardRow(row, label, label_ru, cells(row, "contract", rules.special_unit(row))))
    return columns, rows


def boston_tariff_detail(request: HttpRequest, pk: int) -> HttpResponse:
    tariff = get_object_or_404(
        _tariffs(BostonTariff).prefetch_related("payment_rows", "card_rows"), pk=pk
    )
    rules = tariff.to_rules()
    tables = payment_tables(rules)
    columns, card = value_card(rules)
    corrections = [
        cell
        for group in (
            [row for table in tables for row in (*table.won, *table.lost)],
            card,
        )
        for row in group
        for cell in row.cells
        if cell.note
    ]
    return render(
        request,
        "scoring/tariff_boston_detail.html",
        {
            "tariff": tariff,
            "rules": rules,
            "payment_tables": tables,
            "card_columns": columns,
            "card_rows": card,
            "corrections": corrections,
            "more": page_rows(rules, BOSTON_SETTINGS, BOSTON_SECTIONS, BOSTON_WRITTEN_OUT),
        },
    )
