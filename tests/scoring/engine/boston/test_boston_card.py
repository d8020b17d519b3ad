"""The Boston contract value card (boston.md §2): every row, the cells, how rows combine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.engine.boston import BostonRules, BostonSetup, BostonTable, Card, card_amount
from scoring.engine.boston.amounts import card_required

# shared/spec/data's copy (tests/scoring/engine/test_examples.py keeps it the same).
TARIFF_JSON = Path(__file__).resolve().parents[1] / "data" / "boston_tariff.json"
PLAYERS = ("Anna", "Boris", "Vera", "Gleb")
CARD = BostonRules.preset("value-card")

# (contract, partner, column, tricks, honours, won, chips per payer); columns multiply by
# spades 1, clubs 2, diamonds 3, hearts 4. Every row of the card is used at least once.
ROWS = [
    # 5 alone, made exactly: 4×1 = 4
    ("5", None, "spades", 5, 0, True, 4),
    # 5 alone +2 with three honours: 4×2 + 3×2 + 2 × 1×2 = 8 + 6 + 4 = 18
    ("5", None, "clubs", 7, 3, True, 18),
    # 8 together with four honours: 4×4 + 4×4 = 16 + 16 = 32
    ("5", 2, "hearts", 8, 4, True, 32),
    # 8 together, 2 short (honours are not paid on a failure): 4×3 + 2 × 1×3 = 12 + 6 = 18
    ("5", 2, "diamonds", 6, 3, False, 18),
    # 6 with three honours: 6×1 + 4×1 = 10
    ("6", None, "spades", 6, 3, True, 10),
    # 6 +3 with four honours: 6×4 + 6×4 + 3 × 2×4 = 24 + 24 + 24 = 72
    ("6", None, "hearts", 9, 4, True, 72),
    # 7 with three honours: 9×2 + 6×2 = 18 + 12 = 30
    ("7", None, "clubs", 7, 3, True, 30),
    # 7, 2 short: 9×3 + 2 × 3×3 = 27 + 18 = 45
    ("7", None, "diamonds", 5, 0, False, 45),
    # 8 +2 with four honours: 12×1 + 12×1 + 2 × 4×1 = 12 + 12 + 8 = 32
    ("8", None, "spades", 10, 4, True, 32),
    # 8 +1 with four honours (the shared example): 12×3 + 12×3 + 1 × 4×3 = 36 + 36 + 12 = 84
    ("8", None, "diamonds", 9, 4, True, 84),
    # 9 with three honours: 15×4 + 10×4 = 60 + 40 = 100
    ("9", None, "hearts", 9, 3, True, 100),
    # 9 +1 with four honours: 15×2 + 15×2 + 1 × 5×2 = 30 + 30 + 10 = 70
    ("9", None, "clubs", 10, 4, True, 70),
    # 10 +1 with three honours: 18×1 + 12×1 + 1 × 6×1 = 36
    ("10", None, "spades", 11, 3, True, 36),
    # 10 with four honours: 18×3 + 18×3 = 108
    ("10", None, "diamonds", 10, 4, True, 108),
    # 11 with three honours: 21×2 + 14×2 = 42 + 28 = 70
    ("11", None, "clubs", 11, 3, True, 70),
    # 11 +1 with four honours: 21×4 + 21×4 + 1 × 7×4 = 84 + 84 + 28 = 196
    ("11", None, "hearts", 12, 4, True, 196),
    # 12 +1 with three honours: 24×1 + 16×1 + 1 × 8×1 = 48
    ("12", None, "spades", 13, 3, True, 48),
    # 12 with four honours: 24×3 + 24×3 = 144
    ("12", None, "diamonds", 12, 4, True, 144),
    # 12, 2 short, four honours not paid: 24×4 + 2 × 8×4 = 96 + 64 = 160
    ("12", None, "hearts", 10, 4, False, 160),
    # slam by two: 50 × column
    ("slam-by-two", 2, "spades", 13, 0, True, 50),
    ("slam-by-two", 2, "clubs", 12, 0, False, 100),
    # misères: the cell, made with no trick
    ("small-misere", None, "diamonds", 0, 0, True, 48),  # 16×3
    ("small-misere", None, "spades", 1, 0, False, 16),  # 16×1
    ("piccolissimo", None, "hearts", 1, 0, True, 96),  # 24×4, exactly one trick
    ("piccolissimo", None, "clubs", 0, 0, False, 48),  # 24×2
    ("grand-misere", None, "spades", 0, 0, True, 32),  # 32×1
    ("grand-misere", None, "hearts", 2, 0, False, 128),  # 32×4
    ("four-tour-misere", None, "clubs", 0, 0, True, 80),  # 40×2
    ("small-open-misere", None, "hearts", 0, 0, True, 192),  # 48×4
    ("grand-open-misere", None, "diamonds", 0, 0, True, 168),  # 56×3
    ("grand-open-misere", None, "spades", 1, 0, False, 56),  # 56×1
    # Bostons: 13 alone
    ("boston", None, "clubs", 13, 0, True, 200),  # 100×2
    ("boston", None, "hearts", 12, 0, False, 400),  # 100×4
    ("open-boston", None, "spades", 13, 0, True, 200),  # 200×1
    ("open-boston", None, "hearts", 13, 0, True, 800),  # 200×4 (the OCR's "80&")
]


def card(contract, partner, column, tricks, honours=0, tour="simple"):
    """Anna (seat 0) declares; Vera (seat 2) is the partner where there is one."""
    return Card(
        declarer=0,
        partner=partner,
        contract=contract,
        column=column,
        tricks=tricks,
        honours=honours,
        tour=tour,
    )


@pytest.mark.parametrize(
    ("contract", "partner", "column", "tricks", "honours", "won", "chips"), ROWS
)
def test_every_row_of_the_card(contract, partner, column, tricks, honours, won, chips):
    amount = card_amount(CARD, card(contract, partner, column, tricks, honours), double=False)
    assert (amount.won, amount.chips) == (won, chips)


@pytest.mark.parametrize(
    ("deal", "rule", "arithmetic"),
    [
        (
            card("8", None, "diamonds", 9, 4),
            "card-made",
            "8 tricks (diamonds) 36 + four honours 36 + 1 overtrick × 12 = 84",
        ),
        (
            card("5", 2, "diamonds", 6, 3),
            "card-failed",
            "8 together (diamonds) 12 + 2 undertricks × 3 = 18",
        ),
        (card("grand-misere", None, "hearts", 2), "misere-failed", "grand misere hearts = 128"),
        (card("open-boston", None, "clubs", 13), "boston-made", "open boston clubs = 400"),
        (card("slam-by-two", 2, "spades", 13), "slam-by-two-made", "slam by two spades = 50"),
        (
            card("7", None, "spades", 7, 3, tour="double"),
            "card-made",
            "7 tricks (spades) 9 + three honours 6 = 15, double tour ×2 = 30",
        ),
    ],
)
def test_each_amount_explains_itself(deal, rule, arithmetic):
    amount = card_amount(CARD, deal, deal.tour == "double")
    assert (amount.rule, amount.arithmetic) == (rule, arithmetic)


ROW_KINDS = {
    "contract": "contract_units",
    "honours3": "three_honours_units",
    "honours4": "four_honours_units",
    "overtrick": "overtrick_units",
}
SPECIAL_KINDS = {
    "slam_together": "slam-by-two",
    "misere_small": "small-misere",
    "piccolissimo": "piccolissimo",
    "misere_grand": "grand-misere",
    "misere_four_tours": "four-tour-misere",
    "misere_small_open": "small-open-misere",
    "misere_grand_open": "grand-open-misere",
    "boston_simple": "boston",
    "boston_open": "open-boston",
}


def card_cells() -> list[object]:
    """(row label, cells) for every row of the cleaned card (the spec's data)."""
    rows = json.loads(TARIFF_JSON.read_text(encoding="utf-8"))["contract_value_table"]["rows"]
    return [
        pytest.param(row, id=f"{row['order']}-{row['kind']}-{row.get('tricks', '')}")
        for row in rows
    ]


@pytest.mark.parametrize("row", card_cells())
def test_the_default_card_matches_the_cleaned_table(row):
    if row["kind"] in ROW_KINDS:
        unit = getattr(CARD, ROW_KINDS[row["kind"]])[row["tricks"] - 5]
    else:
        unit = CARD.special_unit(SPECIAL_KINDS[row["kind"]])
    cells = [unit * CARD.column_multiplier(suit) for suit in CARD.suit_order]
    assert cells == [cell["chips"] for cell in row["cells"]]


@pytest.mark.parametrize(
    ("overrides", "deal", "chips"),
    [
        # Without honours: 12×3 + 1 × 4×3 = 48
        ({"card_pays_honours": False}, card("8", None, "diamonds", 9, 4), 48),
        # Without overtricks: 12×3 + 12×3 = 72
        ({"card_pays_overtricks": False}, card("8", None, "diamonds", 9, 4), 72),
        # Without undertricks: the cell alone, 24×4 = 96
        ({"card_pays_undertricks": False}, card("12", None, "hearts", 10), 96),
        # Piccolissimo as a plain misère: made with no trick (24×2)
        ({"piccolissimo_tricks": 0}, card("piccolissimo", None, "clubs", 0), 48),
        # Hearts lowest, spades highest: 9 × 4 for spades
        (
            {"suit_order": ["hearts", "clubs", "diamonds", "spades"]},
            card("7", None, "spades", 7),
            36,
        ),
        ({"column_multipliers": [1, 2, 4, 8]}, card("7", None, "hearts", 7), 72),  # 9×8
        ({"boston_unit": 150}, card("boston", None, "spades", 13), 150),
        ({"together_required": 9}, card("5", 2, "spades", 8), 5),  # 4 + 1 undertrick × 1
        # Other row units: 7 +1 with three honours, 10 + 7 + 1 × 4 = 21
        (
            {
                "contract_units": [4, 6, 10, 12, 15, 18, 21, 24],
                "three_honours_units": [3, 4, 7, 8, 10, 12, 14, 16],
                "overtrick_units": [1, 2, 4, 4, 5, 6, 7, 8],
            },
            card("7", None, "spades", 8, 3),
            21,
        ),
    ],
)
def test_house_settings_change_the_card(overrides, deal, chips):
    rules = CARD.with_overrides(overrides)
    assert card_amount(rules, deal, double=False).chips == chips


@pytest.mark.parametrize(
    ("deal", "required"),
    [
        (card("5", None, "spades", 0), 5),
        (card("5", 2, "spades", 0), 8),
        (card("9", None, "spades", 0), 9),
        (card("slam-by-two", 2, "spades", 0), 13),
        (card("four-tour-misere", None, "spades", 0), 0),
        (card("piccolissimo", None, "spades", 0), 1),
        (card("open-boston", None, "spades", 0), 13),
    ],
)
def test_tricks_each_row_needs(deal, required):
    assert card_required(CARD, deal) == required


def play(rules: BostonRules, deal: Card) -> list[tuple[int, int, int]]:
    table = BostonTable(BostonSetup(players=PLAYERS, rules=rules))
    return [(t.payer, t.payee, t.chips) for t in table.play(deal).transfers]


EACH = CARD.with_overrides({"supported_payers": "each"})


@pytest.mark.parametrize(
    ("rules", "deal", "expected"),
    [
        # Made alone: each opponent pays the declarer.
        (CARD, card("6", None, "spades", 6), [(1, 0, 6), (2, 0, 6), (3, 0, 6)]),
        # Failed alone: the declarer pays each opponent.
        (CARD, card("small-misere", None, "spades", 2), [(0, 1, 16), (0, 2, 16), (0, 3, 16)]),
        # 2 v 2 by pairs: Boris pays Anna, Gleb pays Vera (and back on a failure).
        (CARD, card("5", 2, "spades", 8), [(1, 0, 4), (3, 2, 4)]),
        (CARD, card("slam-by-two", 2, "clubs", 11), [(0, 1, 100), (2, 3, 100)]),
        # 2 v 2, each loser pays each winner.
        (EACH, card("5", 2, "spades", 9), [(1, 0, 5), (3, 0, 5), (1, 2, 5), (3, 2, 5)]),
        (
            EACH,
            card("5", 2, "spades", 7),
            [(0, 1, 5), (0, 3, 5), (2, 1, 5), (2, 3, 5)],
        ),
    ],
)
def test_who_pays_whom_on_the_card(rules, deal, expected):
    assert play(rules, deal) == expected


def test_a_double_tour_doubles_the_card():
    for contract, partner, column, tricks, honours, _won, chips in ROWS:
        deal = card(contract, partner, column, tricks, honours, tour="double")
        assert card_amount(CARD, deal, double=True).chips == 2 * chips
