"""The widow premium («быстрые взятки в прикупе») and the «ФСПР Ленинградская» preset
(issue 31 item 3; the rule and its sources: docs/rules.md, "The federation's preset").

Fast tricks: an ace or a king-queen of one suit in the widow 1, ace-king of one suit 2,
two aces 3. The premium is the fast tricks × the contract's whist per trick (whist rate ×
V), written on the declarer whether he makes the game or not, on a game that was played
(somebody whisted): with 4 players the dealer writes it all, with 3 each opponent writes
half, whoever dealt. Every number below is worked by hand. Seats A=0 B=1 C=2 D=3; under
the preset a whist per trick is 2 × V: 6 → 4, 7 → 8.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.preferans import Concede, Game, Misere, PreferansRules
from scoring.engine.preferans.record import parse_record, to_record
from tests.scoring.engine.preferans.test_preferans_conventions import last_entries, rules, sheet
from tests.scoring.engine.preferans.test_preferans_house_settings import (
    PA,
    WH,
    A,
    B,
    C,
    D,
    M,
    P,
    W,
    po,
    written,
)

FSPR = PreferansRules.preset("fspr_leningrad")


def game(declarer, contract, answers, tricks=None, fast=0):
    return Game(declarer, int(contract[:-1]), contract[-1], answers, tricks, fast_tricks=fast)


@pytest.mark.parametrize(
    ("deal", "expected"),
    [
        # 6S both whist, A 6 B 2 C 2, two aces (3): made, P(A, 2); B, C 2 × 4 = 8 for
        # tricks; premium 3 × 4 = 12, half each: 6.
        pytest.param(
            game(A, "6S", {B: WH, C: WH}, {A: 6, B: 2, C: 2}, fast=3),
            [P(A, 2), W(B, A, 8), W(C, A, 8), W(B, A, 6), W(C, A, 6)],
            id="3p-made-two-aces",
        ),
        # 7S, B whist, C pass, A 5 B 4 C 1, an ace (1): down 2, remise 2 × 8 = 16;
        # gentleman split (5 × 8 + 2 × 16) / 2 = 36 each; premium 1 × 8 / 2 = 4 each.
        pytest.param(
            game(A, "7S", {B: WH, C: PA}, {A: 5, B: 4, C: 1}, fast=1),
            [M(A, 16), W(B, A, 36), W(C, A, 36), W(B, A, 4), W(C, A, 4)],
            id="3p-remise-gentleman",
        ),
        # No fast tricks: nothing more.
        pytest.param(
            game(A, "6S", {B: WH, C: WH}, {A: 6, B: 2, C: 2}),
            [P(A, 2), W(B, A, 8), W(C, A, 8)],
            id="3p-none",
        ),
    ],
)
def test_three_players_each_opponent_writes_half(deal, expected):
    _, entries = last_entries(FSPR, [deal])
    assert entries == expected


def test_three_players_the_declarer_who_dealt_pays_the_same():
    """A deals (first dealer A) and declares: B and C still write half each."""
    _, entries = last_entries(
        FSPR, [game(A, "6S", {B: WH, C: WH}, {A: 6, B: 2, C: 2}, fast=2)], first_dealer=A
    )
    assert entries[-2:] == [W(B, A, 4), W(C, A, 4)]  # 2 × 4 / 2


@pytest.mark.parametrize(
    ("deal", "expected"),
    [
        # D deals; 7S, B and C whist, A 7 B 2 C 1, ace-king (2): P(A, 4); B 2 × 8 = 16,
        # C 1 × 8 = 8; the dealer writes the premium 2 × 8 = 16.
        pytest.param(
            game(A, "7S", {B: WH, C: WH}, {A: 7, B: 2, C: 1}, fast=2),
            [P(A, 4), W(B, A, 16), W(C, A, 8), W(D, A, 16)],
            id="4p-made",
        ),
        # 7S down 2 (A 5 B 3 C 2), an ace: remise 2 × 8 = 16; B 3 × 8 = 24, C 2 × 8 = 16;
        # consolation 2 × 8 = 16 from B, C and the dealer; premium 1 × 8 from the dealer.
        pytest.param(
            game(A, "7S", {B: WH, C: WH}, {A: 5, B: 3, C: 2}, fast=1),
            [
                M(A, 16),
                W(B, A, 24),
                W(C, A, 16),
                W(B, A, 16),
                W(C, A, 16),
                W(D, A, 16),
                W(D, A, 8),
            ],
            id="4p-remise",
        ),
    ],
)
def test_four_players_the_dealer_writes_it_all(deal, expected):
    pulka = sheet(FSPR, players=4, first_dealer=D)
    assert written(pulka.play(deal)) == expected


def test_balances_of_a_premium():
    """3 players, the made 6S with two aces alone: A pool 2 (avg 2/3) → A +10 × 4/3 =
    40/3; whists B, C each 8 + 6 = 14 on A → A −28, B +14, C +14. Leningrad's pool
    counts 20 whists a point: A 20 × 4/3 − 28 = −4/3, B −40/3 + 14 = 2/3, C 2/3."""
    pulka, _ = last_entries(FSPR, [game(A, "6S", {B: WH, C: WH}, {A: 6, B: 2, C: 2}, fast=3)])
    assert pulka.result().balances == (Fraction(-4, 3), Fraction(2, 3), Fraction(2, 3))


def test_an_odd_premium_is_halved_exactly():
    """Sochi with the premium and whist rate 3/2: a 6's whist per trick is 3; one fast
    trick → 3 / 2 each."""
    tariff = rules(widow_premium=True, whist_rate="3/2")
    _, entries = last_entries(tariff, [game(A, "6S", {B: WH, C: WH}, {A: 6, B: 2, C: 2}, fast=1)])
    assert entries[-2:] == [W(B, A, Fraction(3, 2)), W(C, A, Fraction(3, 2))]


@pytest.mark.parametrize(
    ("tariff", "deal", "field"),
    [
        (rules(), game(A, "6S", {B: WH, C: WH}, {A: 6, B: 2, C: 2}, fast=1), "fast_tricks"),
        (FSPR, game(A, "7S", {B: WH, C: WH}, {A: 7, B: 2, C: 1}, fast=4), "fast_tricks"),
        (FSPR, game(A, "7S", {B: PA, C: PA}, fast=1), "fast_tricks"),
    ],
)
def test_fast_tricks_refused(tariff, deal, field):
    pulka = sheet(tariff)
    with pytest.raises(RuleError) as error:
        pulka.play(deal)
    assert error.value.field == field
    assert pulka.deals == []


def test_the_premium_is_off_in_every_other_preset():
    for name in ("sochi", "leningrad", "rostov", "classic"):
        assert PreferansRules.preset(name).widow_premium is False


def test_a_record_keeps_the_fast_tricks():
    record = {
        "format": "pulka/1",
        "game": "preferans",
        "rules": "fspr_leningrad",
        "players": ["A", "B", "C"],
        "deals": [
            {
                "kind": "game",
                "declarer": "A",
                "contract": "6S",
                "answers": {"B": "whist", "C": "whist"},
                "tricks": {"A": 6, "B": 2, "C": 2},
                "fast_tricks": 3,
            },
            {"kind": "misere", "declarer": "B", "tricks": {"B": 0}},
        ],
    }
    setup, deals = parse_record(record)
    assert deals[0].fast_tricks == 3
    again = to_record(setup, deals)
    assert again["deals"][0]["fast_tricks"] == 3
    assert "fast_tricks" not in again["deals"][1]
    assert parse_record(again) == (setup, deals)
    record["deals"][1]["fast_tricks"] = 1  # never on a misère
    with pytest.raises(RuleError, match="fast_tricks"):
        parse_record(record)


# -- the preset ---------------------------------------------------------------------------


def test_the_preset_is_leningrad_with_the_federations_two_rules():
    leningrad = PreferansRules.preset("leningrad").to_dict()
    fspr = FSPR.to_dict()
    changed = {name for name in fspr if fspr[name] != leningrad[name]}
    assert changed == {"passout_series_ends_on", "widow_premium"}
    assert fspr["passout_exit"] == [7]
    assert fspr["passout_ladder"] == [2, 4, 6]
    assert fspr["whist_obligations"] == [4, 2, 1, 1, 1]
    assert (fspr["whist_rate"], fspr["whister_penalty_rate"]) == (2, 1)  # half-responsible
    assert fspr["concede"] is False


def test_pass_outs_cost_2_4_6_6_6_and_exit_on_7():
    pulka = sheet(FSPR)
    prices, exits = [], []
    for _ in range(5):
        prices.append(pulka.passout_price())
        pulka.play(po(4, 3, 3))
        exits.append(pulka.lowest_contract())
    assert (prices, exits) == ([2, 4, 6, 6, 6], [7, 7, 7, 7, 7])


@pytest.mark.parametrize(
    ("deal", "ends"),
    [
        (game(A, "8S", {B: PA, C: PA}), False),  # passed: not whisted
        (game(A, "8S", {B: WH, C: PA}, {A: 7, B: 2, C: 1}), False),  # down one
        (game(A, "8S", {B: WH, C: PA}, {A: 8, B: 2, C: 0}), True),
        (Misere(A, 0), False),
    ],
)
def test_only_a_whisted_made_game_ends_a_series(deal, ends):
    pulka = sheet(FSPR)
    pulka.play(po(4, 3, 3))
    pulka.play(deal)
    assert pulka.passout_price() == (2 if ends else 4)


def test_no_concession_and_a_half_responsible_whister():
    pulka = sheet(FSPR)
    with pytest.raises(RuleError, match="conceding"):
        pulka.play(Concede(A, 7, "S"))
    # 6S, B whists alone, A takes all 10: B short 4 of the obligation 4 → 4 × 1 × 2 = 8.
    entries = written(pulka.play(game(A, "6S", {B: WH, C: PA}, {A: 10, B: 0, C: 0})))
    assert entries == [P(A, 2), M(B, 8)]
