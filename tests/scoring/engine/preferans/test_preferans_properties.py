"""Invariants of the Preferans engine over random legal pulkas (hypothesis)."""

from __future__ import annotations

import pickle
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine.money import payments
from scoring.engine.preferans import Pulka, score_pulka
from scoring.engine.preferans.record import parse_record, result_document, to_record
from tests.hypothesis_profiles import examples
from tests.scoring.engine.strategies import pulkas

PROPERTY_SETTINGS = settings(max_examples=examples(300), deadline=None)


@PROPERTY_SETTINGS
@given(pulkas())
def test_balances_and_money_sum_to_zero(pulka):
    setup, deals = pulka
    result = score_pulka(setup, deals)
    assert sum(result.balances) == 0
    assert sum(result.money) == 0
    assert all(isinstance(b, Fraction) for b in result.balances)


@PROPERTY_SETTINGS
@given(pulkas())
def test_whists_and_settlement_agree_with_the_sheet(pulka):
    """Each whist written moves the balance of exactly two players, in opposite ways."""
    setup, deals = pulka
    result = score_pulka(setup, deals)
    n = setup.size
    net_whists = [
        sum(result.whists[i][j] - result.whists[j][i] for j in range(n)) for i in range(n)
    ]
    assert sum(net_whists) == 0


@PROPERTY_SETTINGS
@given(pulkas())
def test_no_pool_passes_the_target(pulka):
    setup, deals = pulka
    # Adjustments may lower a pool but never lift one past the target either.
    result = score_pulka(setup, deals)
    assert all(p <= setup.pool_target for p in result.pool)
    assert result.complete == all(p == setup.pool_target for p in result.pool)


@PROPERTY_SETTINGS
@given(pulkas())
def test_replaying_the_record_gives_the_same_result(pulka):
    setup, deals = pulka
    assert score_pulka(setup, deals) == score_pulka(setup, deals)


@PROPERTY_SETTINGS
@given(pulkas())
def test_deal_by_deal_equals_the_whole_record(pulka):
    setup, deals = pulka
    live = Pulka(setup)
    for deal in deals:
        live.play(deal)
        assert sum(live.result().balances) == 0
    assert live.result() == score_pulka(setup, deals)


@PROPERTY_SETTINGS
@given(pulkas(), st.data())
def test_a_copy_plays_on_without_touching_the_original(pulka, data):
    """The site keeps replayed pulkas and hands out copies to play the next deal on."""
    setup, deals = pulka
    split = data.draw(st.integers(0, len(deals)))
    original = Pulka(setup)
    for deal in deals[:split]:
        original.play(deal)
    before = pickle.dumps(original)
    twin = original.copy()
    for deal in deals[split:]:
        twin.play(deal)
    assert pickle.dumps(original) == before
    assert twin.result() == score_pulka(setup, deals)
    shared = {"setup", "rules", "_active", "_active_set", "_defenders", "_rates"}
    for name, value in vars(original).items():  # a new mutable field must be copied too
        if isinstance(value, list | dict | set) and name not in shared:
            assert getattr(twin, name) is not value, name


@PROPERTY_SETTINGS
@given(pulkas())
def test_export_and_import_lose_nothing(pulka):
    setup, deals = pulka
    record = to_record(setup, deals)
    again_setup, again_deals = parse_record(record)
    assert again_setup == setup
    assert again_deals == deals
    assert result_document(score_pulka(again_setup, again_deals)) == result_document(
        score_pulka(setup, deals)
    )


@PROPERTY_SETTINGS
@given(pulkas())
def test_payments_settle_the_money_in_at_most_n_minus_one_transfers(pulka):
    setup, deals = pulka
    result = score_pulka(setup, deals)
    left = list(result.money)
    for payer, payee, amount in payments(result.money):
        assert amount > 0
        left[payer] += amount
        left[payee] -= amount
    assert all(m == 0 for m in left)
    assert len(result.payments) <= setup.size - 1
