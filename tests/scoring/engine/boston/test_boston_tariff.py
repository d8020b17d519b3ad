"""The Boston payment tariff (boston.md §1): seed totals, the cleaned tariff, who pays."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from scoring.engine.boston import (
    Ask,
    BostonRules,
    BostonSetup,
    BostonTable,
    Independence,
    Transfer,
    score_boston,
    tariff_amount,
)

# shared/spec/data's copy (tests/scoring/engine/test_examples.py keeps it the same).
TARIFF_JSON = Path(__file__).resolve().parents[1] / "data" / "boston_tariff.json"
PLAYERS = ("Anna", "Boris", "Vera", "Gleb")
TARIFF = BostonRules.preset("payment-tariff")


def contract(kind: str, suit: str, tricks: int, tour: str = "simple") -> Ask | Independence:
    """A deal of the named tariff contract with Anna (seat 0) declaring, Vera her partner."""
    if kind == "supported":
        return Ask(declarer=0, partner=2, suit=suit, tour=tour, tricks=tricks)
    if kind == "unsupported":
        return Ask(declarer=0, suit=suit, tour=tour, tricks=tricks)
    return Independence(declarer=0, suit=suit, tour=tour, tricks=tricks)


# Every total the seed prints (boston.md §1), per payer.
SEED_TOTALS = [
    ("supported", "minor", "simple", 13, 24),
    ("supported", "major", "simple", 13, 48),
    ("independence", "minor", "simple", 13, 72),
    ("independence", "major", "simple", 13, 144),
    ("supported", "minor", "simple", 0, 56),
    ("independence", "minor", "simple", 7, 20),
    ("independence", "minor", "simple", 0, 136),
    ("unsupported", "minor", "simple", 13, 36),
    ("unsupported", "minor", "simple", 4, 4),
    ("unsupported", "minor", "simple", 0, 24),
    ("supported", "minor", "double", 13, 48),
    ("supported", "major", "double", 13, 96),
]


@pytest.mark.parametrize(("kind", "suit", "tour", "tricks", "chips"), SEED_TOTALS)
def test_every_total_printed_in_the_seed(kind, suit, tour, tricks, chips):
    amount = tariff_amount(TARIFF, contract(kind, suit, tricks), tour == "double")
    assert amount.chips == chips


def tariff_cases() -> list[object]:
    """(case id, contract, suit, tour, tricks, chips) for every payment of the cleaned
    tariff (the spec's data)."""
    data = json.loads(TARIFF_JSON.read_text(encoding="utf-8"))
    names = {"bought": "supported", "unbought": "unsupported", "independence": "independence"}
    return [
        pytest.param(
            (
                names[case["contract"]],
                case["suit_class"],
                case["tour"],
                pay["tricks_taken"],
                pay["chips"],
            ),
            id=f"{case['id']}-{pay['tricks_taken']}",
        )
        for case in data["cases"]
        for pay in case["payments"]
    ]


@pytest.mark.parametrize("case", tariff_cases())
def test_every_payment_of_the_cleaned_tariff(case):
    kind, suit, tour, tricks, chips = case
    amount = tariff_amount(TARIFF, contract(kind, suit, tricks), tour == "double")
    assert amount.chips == chips


@pytest.mark.parametrize(
    ("deal", "rule", "arithmetic"),
    [
        (contract("supported", "minor", 11), "supported-won", "2 + 2 × 3 = 8"),
        (
            contract("supported", "major", 11, "double"),
            "supported-won",
            "2 + 2 × 3 = 8, major ×2 = 16, double tour ×2 = 32",
        ),
        (contract("supported", "minor", 13), "supported-slam", "slam ×2: 4 + 5 × 4 = 24"),
        (contract("supported", "minor", 0), "supported-no-trick", "no trick ×2: 4 + 13 × 4 = 56"),
        (contract("unsupported", "minor", 3), "unsupported-lost", "2 + 2 × 2 = 6"),
        (
            contract("unsupported", "minor", 0),
            "unsupported-no-trick",
            "no trick ×2: 4 + 5 × 4 = 24",
        ),
        (contract("independence", "minor", 8), "independence-won", "16 + 4 × 0 = 16"),
        (
            contract("independence", "major", 13),
            "independence-slam",
            "slam ×2: 32 + 5 × 8 = 72, major ×2 = 144",
        ),
    ],
)
def test_each_amount_explains_itself(deal, rule, arithmetic):
    amount = tariff_amount(TARIFF, deal, deal.tour == "double")
    assert (amount.rule, amount.arithmetic) == (rule, arithmetic)


def transfers(rules: BostonRules, deal: Ask | Independence) -> list[tuple[int, int, int]]:
    table = BostonTable(BostonSetup(players=PLAYERS, rules=rules))
    return [(t.payer, t.payee, t.chips) for t in table.play(deal).transfers]


EACH = TARIFF.with_overrides({"supported_payers": "each"})


@pytest.mark.parametrize(
    ("rules", "deal", "expected"),
    [
        # Anna (0) + Vera (2) v Boris (1) + Gleb (3): Boris sits next after Anna.
        (TARIFF, Ask(declarer=0, partner=2, suit="minor", tricks=9), [(1, 0, 4), (3, 2, 4)]),
        (TARIFF, Ask(declarer=0, partner=2, suit="minor", tricks=7), [(0, 1, 4), (2, 3, 4)]),
        (
            EACH,
            Ask(declarer=0, partner=2, suit="minor", tricks=9),
            [(1, 0, 4), (3, 0, 4), (1, 2, 4), (3, 2, 4)],
        ),
        (
            EACH,
            Ask(declarer=0, partner=2, suit="minor", tricks=7),
            [(0, 1, 4), (0, 3, 4), (2, 1, 4), (2, 3, 4)],
        ),
        # Boris (1) + Vera (2) v Anna (0) + Gleb (3): Gleb sits next after Boris.
        (TARIFF, Ask(declarer=1, partner=2, suit="minor", tricks=8), [(3, 1, 2), (0, 2, 2)]),
        # Gleb (3) + Boris (1) v Anna (0) + Vera (2): Anna sits next after Gleb.
        (TARIFF, Ask(declarer=3, partner=1, suit="major", tricks=6), [(3, 0, 12), (1, 2, 12)]),
        # Solo contracts: the three others, in seat order, whatever the payer setting.
        (TARIFF, Ask(declarer=2, suit="minor", tricks=5), [(0, 2, 2), (1, 2, 2), (3, 2, 2)]),
        (EACH, Ask(declarer=2, suit="minor", tricks=4), [(2, 0, 4), (2, 1, 4), (2, 3, 4)]),
        (
            TARIFF,
            Independence(declarer=1, suit="minor", tricks=7),
            [(1, 0, 20), (1, 2, 20), (1, 3, 20)],
        ),
        (
            EACH,
            Independence(declarer=3, suit="major", tricks=9),
            [(0, 3, 40), (1, 3, 40), (2, 3, 40)],
        ),
    ],
)
def test_who_pays_whom(rules, deal, expected):
    assert transfers(rules, deal) == expected


@pytest.mark.parametrize(
    ("overrides", "deal", "chips"),
    [
        ({"major_multiplier": 3}, contract("supported", "major", 9), 12),  # (2 + 2) × 3
        ({"double_tour_multiplier": 3}, contract("unsupported", "minor", 6, "double"), 12),
        ({"slam_multiplier": 3}, contract("supported", "minor", 13), 36),  # 6 + 5 × 6
        ({"unsupported_no_trick_count": 13}, contract("unsupported", "minor", 0), 56),
        ({"independence_required": 9, "independence_base": 20}, contract("x", "minor", 8), 24),
        ({"supported_rate": 3}, contract("supported", "minor", 10), 8),  # 2 + 3 × 2
        ({"unsupported_base": 5}, contract("unsupported", "minor", 2), 11),  # 5 + 2 × 3
    ],
)
def test_house_settings_change_the_tariff(overrides, deal, chips):
    rules = TARIFF.with_overrides(overrides)
    assert tariff_amount(rules, deal, deal.tour == "double").chips == chips


def chips_after(setup: BostonSetup, deals: list[Ask | Independence]) -> tuple[int, ...]:
    return score_boston(setup, deals).chips


def test_double_tour_entered_on_a_deal_doubles_every_payment():
    simple = [contract("supported", "minor", 10), contract("independence", "major", 6)]
    double = [
        contract("supported", "minor", 10, "double"),
        contract("independence", "major", 6, "double"),
    ]
    setup = BostonSetup(players=PLAYERS)
    assert chips_after(setup, double) == tuple(2 * c for c in chips_after(setup, simple))


def test_double_tours_from_a_given_deal_on():
    deals = [contract("unsupported", "minor", 6)] * 4
    setup = BostonSetup(players=PLAYERS, double_tour_from=3)
    result = score_boston(setup, deals)
    # 4 chips from each of three others: 12 per simple deal, 24 per double one.
    assert [sum(t.chips for t in d.transfers) for d in result.deals] == [12, 12, 24, 24]
    assert result.chips == (72, -24, -24, -24)
    doubled = result.deals[2].transfers[0]
    assert doubled == Transfer(1, 0, 8, "unsupported-won", "2 + 2 × 1 = 4, double tour ×2 = 8")


def test_a_deal_entered_double_stays_double_after_the_switch():
    deals = [contract("unsupported", "minor", 5, "double")] * 2
    setup = BostonSetup(players=PLAYERS, double_tour_from=2)
    assert [d.transfers[0].chips for d in score_boston(setup, deals).deals] == [4, 4]


def test_chips_become_money_at_the_chip_price():
    setup = BostonSetup(players=PLAYERS, chip_price=Decimal("0.30"))
    # Vera's unsupported ask, one trick over: each other pays her 4 chips.
    result = score_boston(setup, [Ask(declarer=2, suit="minor", tricks=6)])
    assert result.chips == (-4, -4, 12, -4)
    assert result.money == (Decimal("-1.20"), Decimal("-1.20"), Decimal("3.60"), Decimal("-1.20"))
    assert result.payments == (
        (0, 2, Decimal("1.20")),
        (1, 2, Decimal("1.20")),
        (3, 2, Decimal("1.20")),
    )
