"""What the members' rules page shows: the numbers of the tariffs the club plays by now
(``selectors.tariffs.house_tariffs``), which the rules quote.

The rules are prose, so each language has its own template (``scoring/rules/ru.html``,
``scoring/rules/en.html``) rather than a few hundred gettext messages of whole paragraphs:
a translator edits a page, not a catalogue of fragments. The numbers are one place: this
module computes them from the tariff's rules (with the engine where a sum is involved) and
the tables that show them are shared by both pages (``scoring/rules/_tables.html``, short
labels through gettext). The developers' document ``docs/rules.md`` is not served.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.urls import reverse
from django.utils import timezone

from scoring.engine.boston import Card, card_amount
from scoring.engine.boston.rules import ASK_CONTRACTS, CARD_ROWS, TRICK_ROWS, BostonRules
from scoring.engine.preferans import settle
from scoring.engine.preferans.rules import LEVELS, PreferansRules
from scoring.models import BostonTariff, PreferansTariff
from scoring.models.tariff_settings import (
    BOSTON_SECTIONS,
    BOSTON_SETTINGS,
    PREFERANS_SECTIONS,
    PREFERANS_SETTINGS,
    PageRow,
    page_rows,
)
from scoring.models.tariffs import SPECIAL_ROW_LABELS
from scoring.models.vocabulary import SUIT_SYMBOLS
from scoring.pages.labels import seat_letter
from scoring.pages.tariffs import (
    CONTRACT_LABELS,
    LevelRow,
    level_rows,
    number,
    payment_amount,
    trick_row_labels,
)
from scoring.selectors.tariffs import house_tariffs

# The settlement example: three players whose pools are closed, with these mountains and
# these whists written (writer, on whom, whists). Its balances come from the engine.
EXAMPLE_MOUNTAINS = (12, 30, 6)
EXAMPLE_WHISTS = ((0, 1, 40), (1, 2, 10), (2, 0, 16))


def rules_context(language: str | None) -> dict[str, object]:
    """The numbers the rules page quotes, from the tariffs the club plays by today."""
    house = house_tariffs(timezone.localdate())
    boston = {tariff.system: tariff for tariff in house.boston}
    payment = boston.get("payment-tariff")
    card = boston.get("value-card")
    english = language == "en"
    return {
        "preferans": preferans_numbers(house.preferans) if house.preferans else None,
        "payment_tariff": payment_numbers(payment, english=english) if payment else None,
        "value_card": card_numbers(card, english=english) if card else None,
        "settings_tables": settings_tables(house.preferans, payment, card),
    }


# -- every setting, from its declaration ----------------------------------------------------


@dataclass(frozen=True)
class SettingsTable:
    """All the declared settings of one house tariff, by section, each as "label: value"
    (``tariff_settings.page_rows``): what the prose above explains, listed in full, so a
    new setting is on the page without a word of its templates changed."""

    key: str
    tariff: Any
    url: str
    sections: list[tuple[str, list[PageRow]]]
    """(the section's title, or ``""`` for the head section; its rows)."""


def settings_tables(
    preferans: PreferansTariff | None, payment: BostonTariff | None, card: BostonTariff | None
) -> list[SettingsTable]:
    tables = []
    if preferans:
        tables.append(
            _settings_table("preferans", preferans, PREFERANS_SETTINGS, PREFERANS_SECTIONS)
        )
    for tariff in (payment, card):
        if tariff:
            # A Boston tariff's settings of the other system do not score its tables.
            own = ("", tariff.system.replace("-", "_"))
            sections = tuple(s for s in BOSTON_SECTIONS if s.key in own)
            settings = tuple(s for s in BOSTON_SETTINGS if s.section in own)
            tables.append(_settings_table(tariff.system, tariff, settings, sections))
    return tables


def _settings_table(key: str, tariff: Any, settings: Any, sections: Any) -> SettingsTable:
    game = "preferans" if key == "preferans" else "boston"
    rows = page_rows(tariff.to_rules(), settings, sections, ())
    return SettingsTable(
        key=key,
        tariff=tariff,
        url=reverse(f"scoring:{game}_tariff_detail", args=[tariff.pk]),
        sections=[
            (str(section.title or ""), rows[section.key or "head"])
            for section in sections
            if rows[section.key or "head"]
        ],
    )


# -- Preferans ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Quota:
    """What each of two whisters owes of a level's obligation: the first O ÷ 2 rounded
    down, the second the rest (docs/rules.md, whister duty)."""

    level: int
    first: int
    second: int


@dataclass(frozen=True)
class HalfWhist:
    """A level where half-whist is allowed: the tricks and the whists the half-whister
    writes (half the obligation at the whist price)."""

    level: int
    tricks: str
    price: str
    """Whists per trick at this level (the whist rate × V)."""
    whists: str


@dataclass(frozen=True)
class SettlementLine:
    sector: str
    mountain: int
    written: int
    received: int
    balance: str


@dataclass(frozen=True)
class PreferansNumbers:
    tariff: PreferansTariff
    url: str
    rules: PreferansRules
    levels: list[LevelRow]
    personal_quotas: bool
    """Whether two whisters each answer for a share of the obligation."""
    quotas: list[Quota]
    one_trick_levels: list[int]
    """The levels whose obligation is one trick (8, 9, 10 by default): two whisters cannot
    split it, so ``duty_at_one`` says who answers for it."""
    half_whists: list[HalfWhist]
    passout_whists: list[int]
    """Whist mode: the whists per trick at each step of the pass-out ladder."""
    help_mountain: str
    example: list[SettlementLine]
    example_average: str
    example_whists: list[tuple[str, str, int]]
    """The example's whists: (writer, on whom, whists) by sector."""


def preferans_numbers(tariff: PreferansTariff) -> PreferansNumbers:
    rules = tariff.to_rules()
    levels = level_rows(rules)
    half = {level: Fraction(rules.obligation(level), 2) for level in rules.half_whist_levels}
    return PreferansNumbers(
        tariff=tariff,
        url=reverse("scoring:preferans_tariff_detail", args=[tariff.pk]),
        rules=rules,
        levels=levels,
        personal_quotas=rules.whister_duty == "responsible"
        and rules.two_whister_duty in ("personal", "personal_if_pair_short"),
        quotas=[
            Quota(row.level, row.obligation // 2, row.obligation - row.obligation // 2)
            for row in levels
        ],
        one_trick_levels=[row.level for row in levels if row.obligation == 1],
        half_whists=[
            HalfWhist(
                level,
                tricks=number(half[level]),
                price=number(rules.whist_rate * rules.value(level)),
                whists=number(half[level] * rules.whist_rate * rules.value(level)),
            )
            for level in LEVELS
            if level in half
        ],
        passout_whists=[rules.passout_whists * price for price in rules.passout_ladder],
        help_mountain=number(Fraction(rules.pool_weight, rules.mountain_weight)),
        example=settlement_example(rules),
        example_average=number(Fraction(sum(EXAMPLE_MOUNTAINS), len(EXAMPLE_MOUNTAINS))),
        example_whists=[
            (seat_letter(i), seat_letter(j), whists) for i, j, whists in EXAMPLE_WHISTS
        ],
    )


def settlement_example(rules: PreferansRules) -> list[SettlementLine]:
    """The worked settlement of the page, balanced by the engine under ``rules``."""
    n = len(EXAMPLE_MOUNTAINS)
    whists = [[0] * n for _ in range(n)]
    for writer, debtor, amount in EXAMPLE_WHISTS:
        whists[writer][debtor] = amount
    balances = settle(rules, [20] * n, list(EXAMPLE_MOUNTAINS), whists)
    return [
        SettlementLine(
            sector=seat_letter(i),
            mountain=EXAMPLE_MOUNTAINS[i],
            written=sum(whists[i]),
            received=sum(row[i] for row in whists),
            balance=number(balances[i]),
        )
        for i in range(n)
    ]


# -- Boston -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AskLine:
    """One contract of the payment tariff, with what each payer pays (minor suit, simple
    tour) in its main outcomes."""

    contract: str
    label: str
    required: int
    base: int
    rate: int
    no_trick_count: int
    made: int
    slam: int
    lost_by_one: int
    no_trick: int


@dataclass(frozen=True)
class PaymentNumbers:
    tariff: BostonTariff
    url: str
    rules: BostonRules
    lines: list[AskLine]


def payment_numbers(tariff: BostonTariff, *, english: bool) -> PaymentNumbers:
    rules = tariff.to_rules()
    lines = []
    for contract in ASK_CONTRACTS:
        required, base, rate, no_trick_count = rules.ask_terms(contract)
        english_label, russian_label = CONTRACT_LABELS[contract]
        lines.append(
            AskLine(
                contract=contract,
                label=str(english_label) if english else russian_label,
                required=required,
                base=base,
                rate=rate,
                no_trick_count=no_trick_count,
                made=payment_amount(rules, contract, "minor", required),
                slam=payment_amount(rules, contract, "minor", 13),
                lost_by_one=payment_amount(rules, contract, "minor", required - 1),
                no_trick=payment_amount(rules, contract, "minor", 0),
            )
        )
    return PaymentNumbers(
        tariff=tariff,
        url=reverse("scoring:boston_tariff_detail", args=[tariff.pk]),
        rules=rules,
        lines=lines,
    )


@dataclass(frozen=True)
class CardLine:
    """A row of the value card in the ×1 column; a trick contract also has its honours and
    over- or undertrick units."""

    row: str
    label: str
    unit: int
    three_honours: int | None = None
    four_honours: int | None = None
    overtrick: int | None = None


@dataclass(frozen=True)
class CardExample:
    """8 tricks in diamonds made with 9 and four honours: its parts as the tariff pays
    them (0 for a part it does not pay) and the engine's total, per payer."""

    cell: int
    honours: int
    overtrick: int
    total: int


@dataclass(frozen=True)
class CardNumbers:
    tariff: BostonTariff
    url: str
    rules: BostonRules
    columns: list[tuple[str, int]]
    """Each suit column, lowest first: its symbol and multiplier."""
    tricks: list[CardLine]
    others: list[CardLine]
    example: CardExample


def card_numbers(tariff: BostonTariff, *, english: bool) -> CardNumbers:
    rules = tariff.to_rules()
    tricks = [
        CardLine(
            row,
            label if english else label_ru,
            rules.contract_units[i],
            rules.three_honours_units[i],
            rules.four_honours_units[i],
            rules.overtrick_units[i],
        )
        for i, (row, (label, label_ru)) in enumerate(
            zip(TRICK_ROWS, trick_row_labels(rules), strict=True)
        )
    ]
    others = [
        CardLine(row, str(SPECIAL_ROW_LABELS[row][0 if english else 1]), rules.special_unit(row))
        for row in CARD_ROWS[len(TRICK_ROWS) :]
    ]
    return CardNumbers(
        tariff=tariff,
        url=reverse("scoring:boston_tariff_detail", args=[tariff.pk]),
        rules=rules,
        columns=[(SUIT_SYMBOLS[suit], rules.column_multiplier(suit)) for suit in rules.suit_order],
        tricks=tricks,
        others=others,
        example=card_example(rules),
    )


def card_example(rules: BostonRules) -> CardExample:
    row, column = TRICK_ROWS.index("8"), "diamonds"
    multiplier = rules.column_multiplier(column)
    deal = Card(declarer=0, contract="8", column=column, tricks=9, honours=4)
    return CardExample(
        cell=rules.contract_units[row] * multiplier,
        honours=rules.four_honours_units[row] * multiplier if rules.card_pays_honours else 0,
        overtrick=rules.overtrick_units[row] * multiplier if rules.card_pays_overtricks else 0,
        total=card_amount(rules, deal, double=False).chips,
    )
