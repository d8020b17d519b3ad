"""Boston's preference suit (boston.md §3): the suit turned at the first deal is the major
suit of the payment tariff. A deal may give its trump instead of its class; the table
derives the class from its preference suit. Every number here is worked out by hand from
the seed tariff (boston.md §1)."""

from __future__ import annotations

import json

import pytest

from scoring.engine.boston import (
    SUITS,
    Ask,
    BostonRules,
    BostonSetup,
    BostonTable,
    Card,
    Independence,
    parse_record,
    score_record,
    suit_class,
    tariff_amount,
    to_record,
    trump_class,
)
from scoring.engine.errors import RuleError

PLAYERS = ("Anna", "Boris", "Vera", "Gleb")
TARIFF = BostonRules.preset("payment-tariff")
HEARTS = BostonSetup(players=PLAYERS, preference_suit="hearts")


def record(*deals, **head):
    """A payment-tariff record at Anna, Boris, Vera and Gleb's table."""
    return {
        "format": "pulka/1",
        "game": "boston",
        "players": list(PLAYERS),
        **head,
        "deals": list(deals),
    }


def chips(setup: BostonSetup, deal: Ask | Independence) -> list[tuple[int, int, int]]:
    """(payer, payee, chips) of ``deal`` as the first deal of a table set up as ``setup``."""
    return [(t.payer, t.payee, t.chips) for t in BostonTable(setup).play(deal).transfers]


@pytest.mark.parametrize(
    ("preference", "trump", "expected"),
    [
        (preference, trump, "major" if trump == preference else "minor")
        for preference in SUITS
        for trump in SUITS
    ],
)
def test_the_trump_is_major_exactly_when_it_is_the_preference_suit(preference, trump, expected):
    assert trump_class(trump, preference) == expected
    assert suit_class(Ask(declarer=0, trump=trump, tricks=5), preference) == expected


# (deal at a table whose preference suit is hearts, transfers): seats Anna 0, Boris 1,
# Vera 2, Gleb 3; under "pairs" the declarer is paid by the opponent next after him.
TRUMP_DEALS = [
    pytest.param(
        # supported, 9 tricks: 2 + 2 × 1 = 4, major ×2 = 8; Boris pays Anna, Gleb pays Vera
        Ask(declarer=0, partner=2, trump="hearts", tricks=9),
        [(1, 0, 8), (3, 2, 8)],
        id="supported-hearts-major",
    ),
    pytest.param(
        # the same in spades: minor, 4
        Ask(declarer=0, partner=2, trump="spades", tricks=9),
        [(1, 0, 4), (3, 2, 4)],
        id="supported-spades-minor",
    ),
    pytest.param(
        # independence made exactly: 16, major ×2 = 32 from each of the three others
        Independence(declarer=1, trump="hearts", tricks=8),
        [(0, 1, 32), (2, 1, 32), (3, 1, 32)],
        id="independence-hearts-major",
    ),
    pytest.param(
        # independence in clubs one short: 16 + 4 × 1 = 20, minor: Boris pays each
        Independence(declarer=1, trump="clubs", tricks=7),
        [(1, 0, 20), (1, 2, 20), (1, 3, 20)],
        id="independence-clubs-minor-lost",
    ),
    pytest.param(
        # unsupported slam: 2 × 2 + 8 × 2 × 2 = 36, major ×2 = 72 from each
        Ask(declarer=3, trump="hearts", tricks=13),
        [(0, 3, 72), (1, 3, 72), (2, 3, 72)],
        id="unsupported-hearts-slam",
    ),
    pytest.param(
        # the seed's double-tour major supported slam: 24 × 2 × 2 = 96
        Ask(declarer=0, partner=2, trump="hearts", tour="double", tricks=13),
        [(1, 0, 96), (3, 2, 96)],
        id="supported-hearts-double-slam",
    ),
    pytest.param(
        # diamonds, no trick at all: 2 × 2 + 13 × 2 × 2 = 56, minor; Anna pays Boris,
        # Vera pays Gleb
        Ask(declarer=0, partner=2, trump="diamonds", tricks=0),
        [(0, 1, 56), (2, 3, 56)],
        id="supported-diamonds-no-trick",
    ),
]


@pytest.mark.parametrize(("deal", "expected"), TRUMP_DEALS)
def test_a_deal_given_by_its_trump(deal, expected):
    assert chips(HEARTS, deal) == expected


@pytest.mark.parametrize(("deal", "_expected"), TRUMP_DEALS)
def test_a_trump_scores_exactly_as_the_class_it_gives(deal, _expected):
    derived = "major" if deal.trump == "hearts" else "minor"
    kind = type(deal)
    fields = {"declarer": deal.declarer, "tour": deal.tour, "tricks": deal.tricks}
    if isinstance(deal, Ask):
        fields["partner"] = deal.partner
    by_class = kind(suit=derived, **fields)
    played, entered = BostonTable(HEARTS).play(deal), BostonTable(HEARTS).play(by_class)
    assert played.transfers == entered.transfers  # the rule and the arithmetic too


def test_the_arithmetic_of_a_trump_deal_says_major():
    deal = Ask(declarer=0, partner=2, trump="hearts", tricks=11)
    amount = tariff_amount(TARIFF, deal, double=False, preference_suit="hearts")
    assert (amount.chips, amount.arithmetic) == (16, "2 + 2 × 3 = 8, major ×2 = 16")


def test_a_class_entered_directly_ignores_the_preference_suit():
    # Hearts is the preference suit, yet a deal entered as minor pays minor: 4, not 8.
    deal = Ask(declarer=0, partner=2, suit="minor", tricks=9)
    assert chips(HEARTS, deal) == [(1, 0, 4), (3, 2, 4)]
    assert chips(BostonSetup(players=PLAYERS), deal) == [(1, 0, 4), (3, 2, 4)]


def test_a_whole_record_with_a_preference_suit():
    result = score_record(
        record(
            {"kind": "ask", "declarer": "Anna", "partner": "Vera", "trump": "clubs", "tricks": 9},
            {"kind": "independence", "declarer": "Boris", "trump": "diamonds", "tricks": 8},
            {"kind": "ask", "declarer": "Gleb", "suit": "minor", "tricks": 5},
            preference_suit="clubs",
        )
    )
    # 1: clubs is the preference suit, major: (2 + 2) × 2 = 8, Boris → Anna, Gleb → Vera.
    # 2: diamonds, minor: 16 from each other to Boris. 3: minor, as entered: 2 from each.
    assert result["players"] == {
        "Anna": {"chips": 8 - 16 - 2, "money": "-10.00"},
        "Boris": {"chips": -8 + 48 - 2, "money": "38.00"},
        "Vera": {"chips": 8 - 16 - 2, "money": "-10.00"},
        "Gleb": {"chips": -8 - 16 + 6, "money": "-18.00"},
    }


def test_the_record_keeps_what_was_entered():
    setup = BostonSetup(players=PLAYERS, preference_suit="spades", double_tour_from=3)
    deals = (
        Ask(declarer=0, partner=2, trump="spades", tricks=9),
        Independence(declarer=1, trump="hearts", tour="double", tricks=8),
        Ask(declarer=3, suit="major", tricks=6),
    )
    exported = to_record(setup, deals)
    assert exported["preference_suit"] == "spades"
    assert exported["deals"] == [
        {
            "kind": "ask",
            "declarer": "Anna",
            "partner": "Vera",
            "trump": "spades",
            "tour": "simple",
            "tricks": 9,
        },
        {
            "kind": "independence",
            "declarer": "Boris",
            "trump": "hearts",
            "tour": "double",
            "tricks": 8,
        },
        {"kind": "ask", "declarer": "Gleb", "suit": "major", "tour": "simple", "tricks": 6},
    ]
    assert parse_record(json.loads(json.dumps(exported))) == (setup, deals)


def test_a_table_without_a_preference_suit_writes_none():
    exported = to_record(BostonSetup(players=PLAYERS), [Ask(declarer=0, suit="minor", tricks=5)])
    assert "preference_suit" not in exported
    assert parse_record(exported)[0].preference_suit is None


def test_a_value_card_table_may_record_its_preference_suit():
    # The card prices by its column; the preference suit is only written down.
    card = {"kind": "card", "declarer": "Vera", "contract": "7", "column": "hearts", "tricks": 7}
    plain = score_record(record(card, rules="value-card"))
    with_suit = score_record(record(card, rules="value-card", preference_suit="spades"))
    assert with_suit == plain
    assert plain["deals"][0]["entries"][0] == ["chips", "Anna", "Vera", 36]  # 9 × 4
    setup, deals = parse_record(record(card, rules="value-card", preference_suit="spades"))
    assert deals == (Card(declarer=2, contract="7", column="hearts", tricks=7),)
    assert to_record(setup, deals)["preference_suit"] == "spades"


def fails(data) -> RuleError:
    with pytest.raises(RuleError) as caught:
        score_record(data)
    return caught.value


ASK = {"kind": "ask", "declarer": "Anna", "tricks": 6}
SOLO = {"kind": "independence", "declarer": "Boris", "tricks": 8}

# (record, deal number, field, message)
INVALID = [
    pytest.param(
        record({**ASK, "suit": "minor"}, {**ASK, "trump": "hearts"}),
        2,
        "trump",
        "the table has no preference suit, so a trump does not say minor or major: "
        "give the suit class instead",
        id="trump-without-preference-suit",
    ),
    pytest.param(
        record({**SOLO, "trump": "hearts", "suit": "major"}, preference_suit="hearts"),
        1,
        "trump",
        "give the trump or the suit class, not both",
        id="suit-and-trump",
    ),
    pytest.param(
        record({**ASK, "trump": "notrump"}, preference_suit="hearts"),
        1,
        "trump",
        "must be one of spades, clubs, diamonds, hearts",
        id="unknown-trump",
    ),
    pytest.param(
        record({**ASK, "trump": "H"}, preference_suit="hearts"),
        1,
        "trump",
        "must be one of spades, clubs, diamonds, hearts",
        id="trump-as-a-letter",
    ),
    pytest.param(
        record({**ASK, "trump": "hearts", "suit": "red"}, preference_suit="hearts"),
        1,
        "suit",
        "must be one of minor, major",
        id="bad-suit-beside-a-trump",
    ),
    pytest.param(
        record({**ASK, "trump": ["hearts"]}, preference_suit="hearts"),
        1,
        "trump",
        "must be one of spades, clubs, diamonds, hearts",
        id="trump-not-a-string",
    ),
    pytest.param(record(ASK, preference_suit="hearts"), 1, "suit", "must be given", id="neither"),
]


@pytest.mark.parametrize(("data", "deal", "field", "message"), INVALID)
def test_refusals_name_the_deal_and_the_field(data, deal, field, message):
    error = fails(data)
    assert (error.deal, error.field, error.message) == (deal, field, message)


@pytest.mark.parametrize("suit", ["red", "Hearts", "♥", 3, True, ["hearts"]])
def test_an_unknown_preference_suit_is_refused(suit):
    error = fails(record({**ASK, "suit": "minor"}, preference_suit=suit))
    assert (error.deal, error.field, error.message) == (
        None,
        "preference_suit",
        "must be one of spades, clubs, diamonds, hearts",
    )


@pytest.mark.parametrize(
    ("build", "field", "message"),
    [
        (
            lambda: BostonSetup(players=PLAYERS, preference_suit="red"),
            "preference_suit",
            "must be one of spades, clubs, diamonds, hearts",
        ),
        (
            lambda: Ask(declarer=0, suit="minor", trump="hearts", tricks=5),
            "trump",
            "give the trump or the suit class, not both",
        ),
        (
            lambda: Independence(declarer=0, trump="stars", tricks=8),
            "trump",
            "must be one of spades, clubs, diamonds, hearts",
        ),
        (lambda: Independence(declarer=0, tricks=8), "suit", "must be one of minor, major"),
    ],
)
def test_the_engine_values_check_themselves(build, field, message):
    with pytest.raises(RuleError) as caught:
        build()
    assert (caught.value.field, caught.value.message) == (field, message)


def test_a_refused_trump_leaves_the_table_unchanged():
    table = BostonTable(BostonSetup(players=PLAYERS))
    table.play(Ask(declarer=0, suit="major", tricks=5))
    before = table.result()
    with pytest.raises(RuleError) as caught:
        table.play(Ask(declarer=0, trump="hearts", tricks=5))
    assert (caught.value.deal, caught.value.field) == (2, "trump")
    assert table.result() == before
