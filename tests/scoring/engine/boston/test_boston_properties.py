"""Invariants of the Boston engine over random tables (hypothesis)."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine.boston import (
    CARD_ROWS,
    SUITS,
    Adjustment,
    Ask,
    BostonRules,
    BostonSetup,
    BostonTable,
    Card,
    Deal,
    Independence,
    Pass,
    parse_record,
    result_document,
    score_boston,
    score_deal,
    score_record,
    to_record,
)
from scoring.engine.boston.deals import HONOURS
from scoring.engine.boston.rules import TRICK_ROWS
from scoring.engine.errors import RuleError
from tests.hypothesis_profiles import examples

PROPERTY_SETTINGS = settings(max_examples=examples(300), deadline=None)
PLAYERS = ("Anna", "Boris", "Vera", "Gleb")
seats = st.integers(0, 3)
tricks = st.integers(0, 13)
tours = st.sampled_from(["simple", "double"])


@st.composite
def rules(draw: st.DrawFn) -> BostonRules:
    """A preset, sometimes with house settings changed."""
    base = BostonRules.preset(draw(st.sampled_from(["payment-tariff", "value-card"])))
    small = st.integers(1, 5)
    overrides = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "supported_payers": st.sampled_from(["pairs", "each"]),
                "major_multiplier": small,
                "double_tour_multiplier": small,
                "slam_multiplier": small,
                "supported_base": small,
                "unsupported_rate": small,
                "independence_required": st.integers(1, 13),
                "suit_order": st.permutations(SUITS),
                "piccolissimo_tricks": st.integers(0, 1),
                "card_pays_honours": st.booleans(),
                "card_pays_overtricks": st.booleans(),
                "card_pays_undertricks": st.booleans(),
            },
        )
    )
    return base.with_overrides(overrides)


@st.composite
def setups(draw: st.DrawFn) -> BostonSetup:
    """A table: its rules, a chip price that needs rounding, maybe a switch to double tours,
    maybe a preference suit."""
    return BostonSetup(
        players=PLAYERS,
        rules=draw(rules()),
        chip_price=draw(st.sampled_from([Decimal(1), Decimal("0.50"), Decimal("0.33")])),
        double_tour_from=draw(st.none() | st.integers(1, 20)),
        preference_suit=draw(st.none() | st.sampled_from(SUITS)),
    )


@st.composite
def partners(draw: st.DrawFn, declarer: int) -> int:
    return draw(st.sampled_from([s for s in range(4) if s != declarer]))


@st.composite
def tariff_deals(draw: st.DrawFn, preference_suit: str | None = None) -> Ask | Independence:
    """A payment-tariff deal given by its class, or (at a table with a preference suit)
    sometimes by its trump."""
    declarer = draw(seats)
    given: dict[str, str] = {"suit": draw(st.sampled_from(["minor", "major"]))}
    if preference_suit is not None and draw(st.booleans()):
        given = {"trump": draw(st.sampled_from(SUITS))}
    if draw(st.booleans()):
        return Independence(declarer=declarer, tour=draw(tours), tricks=draw(tricks), **given)
    partner = draw(st.none() | partners(declarer))
    return Ask(declarer=declarer, partner=partner, tour=draw(tours), tricks=draw(tricks), **given)


@st.composite
def card_deals(draw: st.DrawFn) -> Card:
    declarer = draw(seats)
    contract = draw(st.sampled_from(CARD_ROWS))
    partner = None
    if contract == "slam-by-two" or (contract == "5" and draw(st.booleans())):
        partner = draw(partners(declarer))
    return Card(
        declarer=declarer,
        partner=partner,
        contract=contract,
        column=draw(st.sampled_from(SUITS)),
        tricks=draw(tricks),
        honours=draw(st.sampled_from(HONOURS)) if contract in TRICK_ROWS else 0,
        tour=draw(tours),
    )


@st.composite
def adjustments(draw: st.DrawFn) -> Adjustment:
    pairs = [(a, b) for a in range(4) for b in range(4) if a != b]
    moves = draw(st.lists(st.tuples(st.sampled_from(pairs), st.integers(1, 50)), min_size=1))
    return Adjustment(reason="correction", transfers=tuple((a, b, c) for (a, b), c in moves))


@st.composite
def tables(
    draw: st.DrawFn, max_deals: int = 30, min_deals: int = 0
) -> tuple[BostonSetup, list[Deal]]:
    """A setup and a sequence of deals its system accepts."""
    setup = draw(setups())
    if setup.rules.system == "payment-tariff":
        played = tariff_deals(setup.preference_suit)
    else:
        played = card_deals()
    deal = st.one_of(played, played, played, st.just(Pass()), adjustments())
    return setup, draw(st.lists(deal, min_size=min_deals, max_size=max_deals))


@PROPERTY_SETTINGS
@given(tables())
def test_chips_and_money_sum_to_exactly_zero(table):
    setup, deals = table
    result = score_boston(setup, deals)
    assert sum(result.chips) == 0
    assert sum(result.money) == 0
    paid = [0] * 4
    for deal in result.deals:
        for transfer in deal.transfers:
            assert transfer.chips > 0 and transfer.payer != transfer.payee
            paid[transfer.payer] -= transfer.chips
            paid[transfer.payee] += transfer.chips
    assert tuple(paid) == result.chips


@PROPERTY_SETTINGS
@given(tables())
def test_the_payments_settle_the_table(table):
    setup, deals = table
    result = score_boston(setup, deals)
    left = list(result.money)
    for payer, payee, amount in result.payments:
        assert amount > 0
        left[payer] += amount
        left[payee] -= amount
    assert left == [0] * 4
    assert len(result.payments) <= 3


@PROPERTY_SETTINGS
@given(tables())
def test_deal_by_deal_equals_the_whole_record(table):
    setup, deals = table
    live = BostonTable(setup)
    for deal in deals:
        live.play(deal)
    assert live.result() == score_boston(setup, deals)


@PROPERTY_SETTINGS
@given(tables(), st.data())
def test_a_copy_plays_on_without_touching_the_original(table, data):
    setup, deals = table
    split = data.draw(st.integers(0, len(deals)))
    original = BostonTable(setup)
    for deal in deals[:split]:
        original.play(deal)
    before = original.result()
    twin = original.copy()
    for deal in deals[split:]:
        twin.play(deal)
    assert original.result() == before
    assert twin.result() == score_boston(setup, deals)


@PROPERTY_SETTINGS
@given(tables())
def test_export_import_and_scoring_the_record_agree(table):
    setup, deals = table
    exported = json.loads(json.dumps(to_record(setup, deals)))
    assert parse_record(exported) == (setup, tuple(deals))
    assert score_record(exported) == result_document(score_boston(setup, deals))


@PROPERTY_SETTINGS
@given(setups(), tariff_deals())
def test_the_major_suit_pays_exactly_twice_the_minor(setup, deal):
    rules = dataclasses.replace(setup.rules, system="payment-tariff", major_multiplier=2)
    setup = dataclasses.replace(setup, rules=rules)
    minor = score_deal(setup, 1, dataclasses.replace(deal, suit="minor"))
    major = score_deal(setup, 1, dataclasses.replace(deal, suit="major"))
    assert [(t.payer, t.payee, 2 * t.chips) for t in minor] == [
        (t.payer, t.payee, t.chips) for t in major
    ]


@PROPERTY_SETTINGS
@given(setups(), st.sampled_from(SUITS), st.data())
def test_a_trump_pays_as_its_class_at_the_table(setup, preference, data):
    rules = dataclasses.replace(setup.rules, system="payment-tariff")
    setup = dataclasses.replace(setup, rules=rules, preference_suit=preference)
    deal = data.draw(tariff_deals(preference).filter(lambda d: d.trump is not None))
    derived = "major" if deal.trump == preference else "minor"
    entered = dataclasses.replace(deal, trump=None, suit=derived)
    assert score_deal(setup, 1, deal) == score_deal(setup, 1, entered)


@PROPERTY_SETTINGS
@given(setups(), tariff_deals() | card_deals())
def test_a_double_tour_pays_exactly_twice_a_simple_one(setup, deal):
    system = "value-card" if isinstance(deal, Card) else "payment-tariff"
    rules = dataclasses.replace(setup.rules, system=system, double_tour_multiplier=2)
    setup = dataclasses.replace(setup, rules=rules, double_tour_from=None)
    simple = score_deal(setup, 1, dataclasses.replace(deal, tour="simple"))
    double = score_deal(setup, 1, dataclasses.replace(deal, tour="double"))
    assert [(t.payer, t.payee, 2 * t.chips) for t in simple] == [
        (t.payer, t.payee, t.chips) for t in double
    ]


@PROPERTY_SETTINGS
@given(tables(max_deals=5), tariff_deals() | card_deals())
def test_a_rejected_deal_leaves_the_table_unchanged(table, deal):
    setup, deals = table
    live = BostonTable(setup)
    for played in deals:
        live.play(played)
    before = live.result()
    wrong_system = isinstance(deal, Card) != (setup.rules.system == "value-card")
    try:
        live.play(deal)
    except RuleError as error:
        assert wrong_system
        assert (error.deal, error.field) == (len(deals) + 1, "kind")
        assert live.result() == before
    else:
        assert not wrong_system


# JSON-ish values: what json.loads can give, and then some.
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(
        [
            "Anna",
            "Vera",
            "minor",
            "major",
            "double",
            "hearts",
            "8",
            "boston",
            "ask",
            "card",
            "adjust",
            "pass",
            "independence",
            "value-card",
            "1e9999",
            "NaN",
            "-0",
            "0.001",
        ]
    )
)
garbage = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
DEAL_FIELDS = [
    "kind",
    "declarer",
    "partner",
    "suit",
    "trump",
    "tour",
    "tricks",
    "contract",
    "column",
    "honours",
    "reason",
    "transfers",
    "note",
]
# Not "format" and "game": a bad one hides everything after it (unit tests cover them).
HEAD_FIELDS = ["rules", "players", "chip_price", "preference_suit", "double_tour_from", "deals"]
SETTINGS = [field.name for field in dataclasses.fields(BostonRules)]


@st.composite
def mangled_records(draw: st.DrawFn) -> object:
    """A valid record with a few fields replaced by garbage, or garbage altogether."""
    if draw(st.integers(0, 4)) == 0:
        return draw(garbage)
    setup, deals = draw(tables(max_deals=4, min_deals=1))
    data = json.loads(json.dumps(to_record(setup, deals)))
    raw_deals = data["deals"]  # kept even if the head's "deals" is mangled below
    for _ in range(draw(st.integers(1, 3))):
        # Mostly deals: a mangled head hides the deals behind it.
        if raw_deals and draw(st.integers(0, 3)):
            target = draw(st.sampled_from(raw_deals))
            key = draw(st.sampled_from(DEAL_FIELDS))
        else:
            target, key = data, draw(st.sampled_from(HEAD_FIELDS))
        if isinstance(target, dict):
            target[key] = draw(garbage)
    if draw(st.booleans()):
        # A house setting with a value of any shape.
        data["rules"] = {
            "preset": setup.rules.system,
            draw(st.sampled_from(SETTINGS)): draw(garbage),
        }
    return data


@settings(max_examples=examples(1000), deadline=None)
@given(mangled_records())
def test_any_input_gives_a_result_or_a_rule_error(data):
    try:
        result = score_record(data)
    except RuleError as error:
        assert str(error)
    else:
        assert sum(int(p["chips"]) for p in result["players"].values()) == 0
        json.dumps(result)
