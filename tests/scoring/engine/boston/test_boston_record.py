"""The Boston game record: the shared examples, every validation rule, export and import."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

import pytest

from scoring.engine.boston import (
    Adjustment,
    Ask,
    BostonRules,
    BostonSetup,
    Card,
    Independence,
    Pass,
    parse_record,
    score_record,
    to_record,
)
from scoring.engine.errors import RuleError

# shared/spec/examples' copy (tests/scoring/engine/test_examples.py keeps it the same).
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PLAYERS = ["Anna", "Boris", "Vera", "Gleb"]


def examples() -> list[object]:
    """Every Boston example of the spec with its expected result."""
    return [
        pytest.param(path, id=path.stem)
        for path in sorted(EXAMPLES.glob("boston-*.json"))
        if not path.name.endswith(".expected.json")
    ]


@pytest.mark.parametrize("path", examples())
def test_the_shared_examples(path):
    record = json.loads(path.read_text(encoding="utf-8"))
    expected = json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))
    if expected == {"invalid": True}:
        with pytest.raises(RuleError):
            score_record(record)
    else:
        assert json.loads(json.dumps(score_record(record))) == expected


def record(*deals, rules="payment-tariff", **head):
    """A Boston record at Anna, Boris, Vera and Gleb's table."""
    return {
        "format": "pulka/1",
        "game": "boston",
        "rules": rules,
        "players": list(PLAYERS),
        **head,
        "deals": list(deals),
    }


ASK = {"kind": "ask", "declarer": "Anna", "suit": "minor", "tricks": 6}
SUPPORTED = {**ASK, "partner": "Vera", "tricks": 9}
SOLO = {"kind": "independence", "declarer": "Boris", "suit": "major", "tricks": 8}
CARD = {"kind": "card", "declarer": "Vera", "contract": "7", "column": "hearts", "tricks": 7}
ADJUST = {"kind": "adjust", "reason": "arrived late", "transfers": [["Gleb", "Anna", 5]]}


def test_a_whole_record():
    result = score_record(
        record(
            ASK,  # each other pays Anna 2 + 2 × 1 = 4
            {"kind": "pass"},
            SOLO,  # each other pays Boris 16 × 2 = 32
            {**SUPPORTED, "tour": "double"},  # Boris pays Anna, Gleb pays Vera (2 + 2) × 2 = 8
            ADJUST,
            chip_price="0.10",
        )
    )
    assert result["players"] == {
        "Anna": {"chips": 12 - 32 + 8 + 5, "money": "-0.70"},
        "Boris": {"chips": -4 + 96 - 8, "money": "8.40"},
        "Vera": {"chips": -4 - 32 + 8, "money": "-2.80"},
        "Gleb": {"chips": -4 - 32 - 8 - 5, "money": "-4.90"},
    }
    assert result["deals"][0]["entries"] == [
        ["chips", "Boris", "Anna", 4],
        ["chips", "Vera", "Anna", 4],
        ["chips", "Gleb", "Anna", 4],
    ]
    assert result["deals"][1] == {"n": 2, "entries": []}
    assert result["deals"][3]["entries"] == [
        ["chips", "Boris", "Anna", 8],
        ["chips", "Gleb", "Vera", 8],
    ]
    assert result["deals"][4]["entries"] == [["chips", "Gleb", "Anna", 5]]
    assert result["payments"] == [
        ["Gleb", "Boris", "4.90"],
        ["Vera", "Boris", "2.80"],
        ["Anna", "Boris", "0.70"],
    ]


def test_a_value_card_record_with_overrides_and_double_tours():
    rules = {"preset": "value-card", "supported_payers": "each"}
    data = record({**CARD, "honours": 3}, {**CARD, "tricks": 6}, rules=rules, double_tour_from=2)
    result = score_record(data)
    # 7 with three honours in hearts: 9×4 + 6×4 = 60; then 7 one short, doubled:
    # (36 + 1 × 3×4) × 2 = 96 paid by Vera to each other.
    assert result["deals"][0]["entries"][0] == ["chips", "Anna", "Vera", 60]
    assert result["deals"][1]["entries"][0] == ["chips", "Vera", "Anna", 96]
    assert result["players"]["Vera"]["chips"] == 3 * 60 - 3 * 96


def test_the_defaults_of_a_record():
    setup, deals = parse_record({"players": PLAYERS})
    assert setup == BostonSetup(players=tuple(PLAYERS))
    assert setup.rules == BostonRules.preset("payment-tariff")
    assert setup.chip_price == Decimal(1)
    assert deals == ()


def test_parse_record_gives_engine_deals():
    data = record(
        SUPPORTED,
        {**SOLO, "partner": None, "tour": "double", "note": "last round"},
        {"kind": "pass"},
        ADJUST,
    )
    _setup, deals = parse_record(data)
    assert deals == (
        Ask(declarer=0, partner=2, suit="minor", tricks=9),
        Independence(declarer=1, suit="major", tour="double", tricks=8),
        Pass(),
        Adjustment(reason="arrived late", transfers=((3, 0, 5),)),
    )


def test_export_and_import_round_trip():
    setup = BostonSetup(
        players=tuple(PLAYERS),
        rules=BostonRules.preset("value-card").with_overrides({"boston_unit": 120}),
        chip_price=Decimal("0.25"),
        double_tour_from=4,
    )
    deals = (
        Card(declarer=0, partner=2, contract="5", column="clubs", tricks=9, honours=4),
        Card(declarer=1, contract="small-misere", column="spades", tricks=0, tour="double"),
        Pass(),
        Adjustment(reason="tea", transfers=((0, 1, 3),)),
    )
    exported = to_record(setup, deals)
    assert exported["rules"] == {"preset": "value-card", "boston_unit": 120}
    assert parse_record(json.loads(json.dumps(exported))) == (setup, deals)


def test_a_preset_record_exports_the_preset_name():
    assert to_record(BostonSetup(players=tuple(PLAYERS)), [])["rules"] == "payment-tariff"


def fails(data) -> RuleError:
    with pytest.raises(RuleError) as caught:
        score_record(data)
    return caught.value


# (record, deal number, field, message): one row per validation rule of boston.md §3,
# then wrong types, unknown names and numbers out of range.
INVALID = [
    # tricks outside 0–13
    (record({**ASK, "tricks": 14}), 1, "tricks", "must be 0–13, got 14"),
    (record(ASK, {**SOLO, "tricks": -1}), 2, "tricks", "must be 0–13, got -1"),
    (record({**CARD, "tricks": 20}, rules="value-card"), 1, "tricks", "must be 0–13, got 20"),
    # a partner on a solo contract
    (record({**SOLO, "partner": "Gleb"}), 1, "partner", "independence is played alone"),
    (
        record({**CARD, "partner": "Anna"}, rules="value-card"),
        1,
        "partner",
        "contract 7 is played alone",
    ),
    (
        record({**CARD, "contract": "boston", "partner": "Anna"}, rules="value-card"),
        1,
        "partner",
        "contract boston is played alone",
    ),
    # no partner on a supported contract
    (
        record({**CARD, "contract": "slam-by-two", "tricks": 13}, rules="value-card"),
        1,
        "partner",
        "slam by two is played with a partner",
    ),
    # the partner equal to the declarer
    (record({**ASK, "partner": "Anna"}), 1, "partner", "must differ from the declarer"),
    (
        record({**CARD, "contract": "5", "partner": "Vera"}, rules="value-card"),
        1,
        "partner",
        "must differ from the declarer",
    ),
    # a player not at the table
    (record({**ASK, "declarer": "Zoe"}), 1, "declarer", "'Zoe' is not a player at this table"),
    (record({**ASK, "partner": "Zoe"}), 1, "partner", "'Zoe' is not a player at this table"),
    (
        record({**ADJUST, "transfers": [["Anna", "Zoe", 1]]}),
        1,
        "transfers",
        "'Zoe' is not a player at this table",
    ),
    # honours other than 0, 3 or 4
    (
        record({**CARD, "honours": 2}, rules="value-card"),
        1,
        "honours",
        "must be 0, 3 or 4, got 2",
    ),
    (
        record({**CARD, "contract": "grand-misere", "tricks": 0, "honours": 3}, rules="value-card"),
        1,
        "honours",
        "honours count only on the trick contracts 5–12",
    ),
    (record({**CARD, "honours": "3"}, rules="value-card"), 1, "honours", "must be a whole number"),
    # an adjustment without a reason
    (record({**ADJUST, "reason": "   "}), 1, "reason", "an adjustment needs a reason"),
    (
        record({"kind": "adjust", "transfers": [["Gleb", "Anna", 5]]}),
        1,
        "reason",
        "an adjustment needs a reason",
    ),
    (record({**ADJUST, "reason": 7}), 1, "reason", "must be a non-empty text"),
    # adjustments' transfers
    (
        record({**ADJUST, "transfers": []}),
        1,
        "transfers",
        "must list at least one [payer, payee, chips]",
    ),
    (
        record({**ADJUST, "transfers": "Gleb"}),
        1,
        "transfers",
        "must list at least one [payer, payee, chips]",
    ),
    (
        record({**ADJUST, "transfers": [["Gleb", "Anna"]]}),
        1,
        "transfers",
        "each transfer must be [payer, payee, chips]",
    ),
    (
        record({**ADJUST, "transfers": [["Gleb", "Gleb", 5]]}),
        1,
        "transfers",
        "a player cannot pay himself",
    ),
    (
        record({**ADJUST, "transfers": [["Gleb", "Anna", 0]]}),
        1,
        "transfers",
        "must be 1–1000000, got 0",
    ),
    (
        record({**ADJUST, "transfers": [["Gleb", "Anna", 1.5]]}),
        1,
        "transfers",
        "must be a whole number",
    ),
    # wrong types and unknown names
    (record("ask"), 1, None, "must be an object"),
    (
        record({"declarer": "Anna"}),
        1,
        "kind",
        "must be one of ask, independence, card, pass, adjust",
    ),
    (record({"kind": "bid"}), 1, "kind", "must be one of ask, independence, card, pass, adjust"),
    (record({**ASK, "colour": "hearts"}), 1, "colour", "unknown field"),
    (record({**CARD, "trump": "hearts"}, rules="value-card"), 1, "trump", "unknown field"),
    (record({"kind": "pass", "tricks": 3}), 1, "tricks", "unknown field"),
    (record({**ASK, "tricks": "8"}), 1, "tricks", "must be a whole number"),
    (record({**ASK, "tricks": True}), 1, "tricks", "must be a whole number"),
    (record({**ASK, "tricks": 8.0}), 1, "tricks", "must be a whole number"),
    (record({k: v for k, v in ASK.items() if k != "tricks"}), 1, "tricks", "must be given"),
    (record({k: v for k, v in ASK.items() if k != "declarer"}), 1, "declarer", "must be given"),
    (record({**ASK, "declarer": 0}), 1, "declarer", "0 is not a player at this table"),
    (record({**ASK, "suit": "hearts"}), 1, "suit", "must be one of minor, major"),
    (record({**ASK, "tour": "triple"}), 1, "tour", "must be one of simple, double"),
    (record({**ASK, "note": ""}), 1, "note", "must be a non-empty text"),
    (
        record({**CARD, "contract": 7}, rules="value-card"),
        1,
        "contract",
        "must be one of 5, 6, 7, 8, 9, 10, 11, 12, slam-by-two, small-misere, piccolissimo, "
        "grand-misere, four-tour-misere, small-open-misere, grand-open-misere, boston, "
        "open-boston",
    ),
    (
        record({**CARD, "column": "notrump"}, rules="value-card"),
        1,
        "column",
        "must be one of spades, clubs, diamonds, hearts",
    ),
    # a deal of the other system
    (
        record(CARD),
        1,
        "kind",
        "a value-card contract is not scored at a payment-tariff table",
    ),
    (
        record({"kind": "pass"}, SOLO, rules="value-card"),
        2,
        "kind",
        "an ask or independence is not scored at a value-card table",
    ),
]


@pytest.mark.parametrize(("data", "deal", "field", "message"), INVALID)
def test_invalid_deals_name_the_deal_and_the_field(data, deal, field, message):
    error = fails(data)
    assert (error.deal, error.field, error.message) == (deal, field, message)
    where = f"deal {deal}, {field}" if field else f"deal {deal}"
    assert str(error) == f"{where}: {message}"


INVALID_HEAD = [
    ({**record(), "players": PLAYERS[:3]}, "players", "must list 4 player names"),
    (
        {**record(), "players": ["Anna", "Anna", "Vera", "Gleb"]},
        "players",
        "names must be distinct",
    ),
    ({**record(), "format": "pulka/2"}, "format", 'must be "pulka/1"'),
    ({**record(), "game": "preferans"}, "game", 'must be "boston"'),
    ({**record(), "pool_target": 20}, "pool_target", "unknown field"),
    ({**record(), "chip_price": "cheap"}, "chip_price", 'must be a decimal string such as "0.50"'),
    ({**record(), "chip_price": "-1"}, "chip_price", "must be a price from 0 to 1000000"),
    ({**record(), "double_tour_from": 0}, "double_tour_from", "must be 1–100000, got 0"),
    ({**record(), "double_tour_from": "3"}, "double_tour_from", "must be a whole number"),
    ({**record(), "deals": {}}, "deals", "must be a list of at most 100000 deals"),
    (record(rules="bridge"), "rules", "unknown preset 'bridge' (payment-tariff or value-card)"),
    (record(rules=3), "rules", "must be a preset name or an object with a preset"),
    (record(rules={"preset": "x"}), "rules.preset", "must be one of payment-tariff, value-card"),
    (record(rules={"preset": "value-card", "honours": 3}), "rules.honours", "unknown setting"),
    (
        record(rules={"major_multiplier": 0}),
        "rules.major_multiplier",
        "must be 1–1000000, got 0",
    ),
]


@pytest.mark.parametrize(("data", "field", "message"), INVALID_HEAD)
def test_an_invalid_head_names_the_field(data, field, message):
    error = fails(data)
    assert (error.deal, error.field, error.message) == (None, field, message)


@pytest.mark.parametrize("data", [[], "record", None, 3])
def test_a_record_must_be_an_object(data):
    assert str(fails(data)) == "a game record must be a JSON object"


def test_a_bad_deal_later_in_the_record_is_located():
    data = record(ASK, ASK, ASK, {**ASK, "tricks": 99})
    assert str(fails(data)) == "deal 4, tricks: must be 0–13, got 99"


def test_the_record_is_not_changed_by_scoring():
    data = record(ASK, SUPPORTED, rules={"preset": "payment-tariff", "supported_payers": "each"})
    before = copy.deepcopy(data)
    score_record(data)
    assert data == before
