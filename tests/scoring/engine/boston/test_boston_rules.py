"""Boston house settings: presets, validation, JSON export and import, overrides."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from scoring.engine.boston import (
    Adjustment,
    Ask,
    BostonRules,
    BostonSetup,
    BostonTable,
    Card,
    Independence,
    Pass,
    score_boston,
)
from scoring.engine.errors import RuleError


def test_the_presets_differ_only_in_the_system():
    tariff = BostonRules.preset("payment-tariff")
    card = BostonRules.preset("value-card")
    assert tariff == BostonRules()
    assert dataclasses.replace(card, system="payment-tariff") == tariff


def test_the_defaults_are_the_seed_values():
    rules = BostonRules()
    assert rules.ask_terms("supported") == (8, 2, 2, 13)
    assert rules.ask_terms("unsupported") == (5, 2, 2, 5)
    assert rules.ask_terms("independence") == (8, 16, 4, 13)
    assert (rules.major_multiplier, rules.double_tour_multiplier) == (2, 2)
    assert rules.supported_payers == "pairs"
    assert [rules.column_multiplier(s) for s in rules.suit_order] == [1, 2, 3, 4]
    assert rules.suit_order == ("spades", "clubs", "diamonds", "hearts")


@pytest.mark.parametrize("name", ["payment-tariff", "value-card"])
def test_to_dict_and_from_dict_round_trip(name):
    rules = BostonRules.preset(name).with_overrides({"supported_payers": "each", "boston_unit": 90})
    exported = rules.to_dict()
    assert exported["system"] == name
    assert exported["contract_units"] == [4, 6, 9, 12, 15, 18, 21, 24]
    assert BostonRules.from_dict(exported) == rules


def test_overrides_accept_json_lists():
    rules = BostonRules().with_overrides({"suit_order": ["hearts", "spades", "clubs", "diamonds"]})
    assert rules.suit_order == ("hearts", "spades", "clubs", "diamonds")
    assert rules.column_multiplier("hearts") == 1


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"colour": "red"}, "rules.colour: unknown setting"),
        ({"system": "bridge"}, "rules.system: must be one of payment-tariff, value-card"),
        ({"supported_payers": "all"}, "rules.supported_payers: must be one of pairs, each"),
        ({"major_multiplier": 0}, "rules.major_multiplier: must be 1–1000000, got 0"),
        ({"double_tour_multiplier": -2}, "rules.double_tour_multiplier: must be 1–1000000, got -2"),
        ({"major_multiplier": "2"}, "rules.major_multiplier: must be a whole number"),
        ({"major_multiplier": 2.0}, "rules.major_multiplier: must be a whole number"),
        ({"major_multiplier": True}, "rules.major_multiplier: must be a whole number"),
        ({"independence_base": 0}, "rules.independence_base: must be 1–1000000, got 0"),
        ({"supported_rate": 10**7}, "rules.supported_rate: must be 1–1000000, got 10000000"),
        ({"supported_required": 14}, "rules.supported_required: must be 1–13, got 14"),
        ({"unsupported_required": 0}, "rules.unsupported_required: must be 1–13, got 0"),
        (
            {"independence_no_trick_count": 0},
            "rules.independence_no_trick_count: must be 1–13, got 0",
        ),
        ({"together_required": 5}, "rules.together_required: must be 6–13, got 5"),
        ({"piccolissimo_tricks": 2}, "rules.piccolissimo_tricks: must be 0–1, got 2"),
        ({"card_pays_honours": 1}, "rules.card_pays_honours: must be true or false"),
        ({"suit_order": "spades"}, "rules.suit_order: must be a list"),
        (
            {"suit_order": ["spades", "spades", "diamonds", "hearts"]},
            "rules.suit_order: must list spades, clubs, diamonds and hearts once each",
        ),
        ({"suit_order": [1, 2, 3, 4]}, "rules.suit_order: must be a list of suit names"),
        (
            {"column_multipliers": [1, 2, 3]},
            "rules.column_multipliers: must give one multiplier per suit (4)",
        ),
        (
            {"column_multipliers": [1, 2, 0, 4]},
            "rules.column_multipliers: item 3 must be 1–1000000, got 0",
        ),
        (
            {"contract_units": [4, 6]},
            "rules.contract_units: must give one unit per trick contract 5–12 (8)",
        ),
        (
            {"overtrick_units": [1, 2, 3, 4, 5, 6, 7, "8"]},
            "rules.overtrick_units: item 8 must be a whole number",
        ),
        ({"boston_unit": 0}, "rules.boston_unit: must be 1–1000000, got 0"),
    ],
)
def test_overrides_are_checked(overrides, message):
    with pytest.raises(RuleError) as caught:
        BostonRules().with_overrides(overrides)
    assert str(caught.value) == message
    assert caught.value.field == message.split(":")[0]


@pytest.mark.parametrize(
    ("settings", "field", "message"),
    [
        ({"major_multiplier": 0}, "major_multiplier", "must be 1–1000000, got 0"),
        ({"system": "whist"}, "system", "must be one of payment-tariff, value-card"),
        ({"supported_required": 0}, "supported_required", "must be 1–13, got 0"),
        ({"contract_units": 4}, "contract_units", "must be a list of whole numbers"),
    ],
)
def test_impossible_rules_cannot_be_built(settings, field, message):
    with pytest.raises(RuleError) as caught:
        BostonRules(**settings)
    assert (caught.value.field, caught.value.message) == (field, message)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("value-card", "rules: must be an object"),
        ({"system": 3}, "rules.system: must be one of payment-tariff, value-card"),
    ],
)
def test_from_dict_is_checked(data, message):
    with pytest.raises(RuleError, match="^" + message + "$"):
        BostonRules.from_dict(data)


def test_unknown_preset():
    with pytest.raises(RuleError) as caught:
        BostonRules.preset("sochi")
    assert str(caught.value) == "rules: unknown preset 'sochi' (payment-tariff or value-card)"


@pytest.mark.parametrize(
    ("settings", "field", "message"),
    [
        ({"players": ("Anna", "Boris", "Vera")}, "players", "must list 4 distinct player names"),
        (
            {"players": ("Anna", "Anna", "Vera", "Gleb")},
            "players",
            "must list 4 distinct player names",
        ),
        ({"chip_price": Decimal("-1")}, "chip_price", "must be a price of at least 0"),
        ({"chip_price": Decimal("NaN")}, "chip_price", "must be a price of at least 0"),
        ({"double_tour_from": 0}, "double_tour_from", "must be a deal number of at least 1"),
        ({"rules": "value-card"}, "rules", "must be Boston rules"),
    ],
)
def test_impossible_setups_cannot_be_built(settings, field, message):
    arguments = {"players": ("Anna", "Boris", "Vera", "Gleb"), **settings}
    with pytest.raises(RuleError) as caught:
        BostonSetup(**arguments)
    assert (caught.value.field, caught.value.message) == (field, message)


@pytest.mark.parametrize(
    ("deal", "field", "message"),
    [
        (lambda: Ask(declarer=4, suit="minor", tricks=8), "declarer", "must be a seat 0–3, got 4"),
        (
            lambda: Ask(declarer=0, partner=0, suit="minor", tricks=8),
            "partner",
            "must differ from the declarer",
        ),
        (lambda: Ask(declarer=0, suit="red", tricks=8), "suit", "must be one of minor, major"),
        (
            lambda: Independence(declarer=0, suit="minor", tricks=14),
            "tricks",
            "must be 0–13, got 14",
        ),
        (
            lambda: Independence(declarer=0, suit="minor", tour="x", tricks=1),
            "tour",
            "must be one of simple, double",
        ),
        (
            lambda: Card(declarer=0, contract="9", column="spades", tricks=9, honours=5),
            "honours",
            "must be 0, 3 or 4, got 5",
        ),
        (
            lambda: Adjustment(reason="", transfers=((0, 1, 2),)),
            "reason",
            "an adjustment needs a reason",
        ),
        (
            lambda: Adjustment(reason="x", transfers=()),
            "transfers",
            "an adjustment needs at least one transfer",
        ),
        (
            lambda: Adjustment(reason="x", transfers=((0, 1, -2),)),
            "transfers",
            "chips must be a whole number of at least 1",
        ),
    ],
)
def test_impossible_deals_cannot_be_built(deal, field, message):
    with pytest.raises(RuleError) as caught:
        deal()
    assert (caught.value.deal, caught.value.field, caught.value.message) == (None, field, message)


def test_score_boston_locates_an_error_at_its_deal():
    setup = BostonSetup(players=("Anna", "Boris", "Vera", "Gleb"))
    deals = [
        Pass(),
        Ask(declarer=0, suit="minor", tricks=5),
        Card(declarer=1, contract="6", column="clubs", tricks=6),
    ]
    with pytest.raises(RuleError) as caught:
        score_boston(setup, deals)
    assert (
        str(caught.value)
        == "deal 3, kind: a value-card contract is not scored at a payment-tariff table"
    )


def test_a_refused_deal_leaves_the_table_as_it_was():
    table = BostonTable(BostonSetup(players=("Anna", "Boris", "Vera", "Gleb")))
    table.play(Ask(declarer=0, suit="minor", tricks=5))
    before = table.result()
    with pytest.raises(RuleError) as caught:
        table.play(Card(declarer=1, contract="6", column="clubs", tricks=6))
    assert caught.value.deal == 2
    assert table.result() == before
    assert table.play(Pass()).number == 2
