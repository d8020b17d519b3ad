"""The second edition's house settings and deal kinds (shared/spec/preferans.md §13).

First the worked checks at the end of §13, one table row each, then every setting value
with its interplay with the 4-player dealer, dark games and bombs, then validation. Every
expected number was worked out by hand from the rule book; the arithmetic sits beside each
row. Seats: A=0, B=1, C=2, D=3, clockwise; Sochi values 6/7/8/9/10 = 2/4/6/8/10.

An entry is written ``P(seat, n)`` (pool), ``M(seat, n)`` (mountain) or
``W(writer, on, n)`` (whists written by ``writer`` on ``on``).
"""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.preferans import (
    PRESETS,
    Adjustment,
    Concede,
    DealResult,
    Game,
    Misere,
    Passout,
    PreferansRules,
    Pulka,
    PulkaSetup,
    score_pulka,
    settle,
)
from scoring.engine.preferans.record import parse_record, score_record, to_record

A, B, C, D = 0, 1, 2, 3
NAMES = ("A", "B", "C", "D")
WH, PA, HA = "whist", "pass", "half"


def rules(preset: str = "sochi", **overrides: Any) -> PreferansRules:
    return PreferansRules.preset(preset).with_overrides(overrides)


SOCHI = rules()
CLASSIC = rules("classic")


def P(seat: int, amount: Any) -> tuple[Any, ...]:
    return ("pool", seat, amount)


def M(seat: int, amount: Any) -> tuple[Any, ...]:
    return ("mountain", seat, amount)


def W(writer: int, on: int, amount: Any) -> tuple[Any, ...]:
    return ("whists", writer, on, amount)


def game(
    declarer: int,
    contract: str,
    answers: dict[int, str],
    tricks: dict[int, int] | None = None,
    *,
    dark: bool = False,
) -> Game:
    """``contract`` as a record writes it, e.g. ``"8S"``."""
    return Game(declarer, int(contract[:-1]), contract[-1], answers, tricks, dark)


def po(a: int, b: int, c: int, *, dark: bool = False) -> Passout:
    """A 3-player pass-out with A, B, C taking ``a``, ``b``, ``c`` tricks."""
    return Passout({A: a, B: b, C: c}, dark=dark)


def pools(*amounts: int) -> Adjustment:
    return Adjustment("carried over", pool={s: a for s, a in enumerate(amounts) if a})


def mountains(*amounts: int) -> Adjustment:
    return Adjustment("carried over", mountain={s: a for s, a in enumerate(amounts) if a})


def new_pulka(
    tariff: PreferansRules,
    players: int = 3,
    first_dealer: int = 0,
    pool_target: int = 20,
    control_time_deal: int | None = None,
) -> Pulka:
    return Pulka(
        PulkaSetup(
            players=NAMES[:players],
            rules=tariff,
            first_dealer=first_dealer,
            pool_target=pool_target,
            control_time_deal=control_time_deal,
        )
    )


def written(result: DealResult) -> list[tuple[Any, ...]]:
    return [
        ("whists", e.player, e.on, e.amount) if e.kind == "whists" else (e.kind, e.player, e.amount)
        for e in result.entries
    ]


def play_last(
    tariff: PreferansRules, table: dict[str, Any], before: list[Any], deal: Any
) -> tuple[Pulka, list[tuple[Any, ...]]]:
    sheet = new_pulka(tariff, **table)
    for earlier in before:
        sheet.play(earlier)
    return sheet, written(sheet.play(deal))


# -- the worked checks at the end of §13 ----------------------------------------------------------

EIGHT_9_1_0 = game(A, "8S", {B: WH, C: WH}, {A: 9, B: 1, C: 0})
EIGHT_ALL = game(A, "8S", {B: WH, C: WH}, {A: 10, B: 0, C: 0})
SIX_CLUBS = game(A, "6C", {B: WH, C: WH}, {A: 6, B: 3, C: 1})
PO_1 = po(2, 5, 3)
PO_2 = po(0, 4, 6)

WORKED_CHECKS = [
    # 6S, B whist, C pass, A 5 B 5 C 0, consolation 0: u = 1, remise 1 × 2 = 2; greedy lone
    # whist T = 5 → 5 × 2 = 10; no consolation; T = 5 ≥ O = 4, no duty.
    pytest.param(
        {"consolation_rate": 0},
        [],
        game(A, "6S", {B: WH, C: PA}, {A: 5, B: 5, C: 0}),
        [M(A, 2), W(B, A, 10)],
        id="consolation-0",
    ),
    # 8S both whist, A 9 B 1 C 0: made, P(A, 6); B 1 × 6 = 6 on A; O = 1, T = 1.
    pytest.param(
        {"duty_at_one": "second"},
        [],
        EIGHT_9_1_0,
        [P(A, 6), W(B, A, 6)],
        id="8S-9-1-0-second",
    ),
    # second_own: the second whister (C) took no trick → 1 × 6.
    pytest.param(
        {"duty_at_one": "second_own"},
        [],
        EIGHT_9_1_0,
        [P(A, 6), W(B, A, 6), M(C, 6)],
        id="8S-9-1-0-second-own",
    ),
    # each_own: C took none, B took one → only C.
    pytest.param(
        {"duty_at_one": "each_own"},
        [],
        EIGHT_9_1_0,
        [P(A, 6), W(B, A, 6), M(C, 6)],
        id="8S-9-1-0-each-own",
    ),
    # both: the defence took a trick → nothing.
    pytest.param(
        {"duty_at_one": "both"},
        [],
        EIGHT_9_1_0,
        [P(A, 6), W(B, A, 6)],
        id="8S-9-1-0-both",
    ),
    # 8S, A takes 10: the defence took none. second: C 1 × 6.
    pytest.param(
        {"duty_at_one": "second"},
        [],
        EIGHT_ALL,
        [P(A, 6), M(C, 6)],
        id="8S-all-second",
    ),
    pytest.param(
        {"duty_at_one": "both"},
        [],
        EIGHT_ALL,
        [P(A, 6), M(B, 6), M(C, 6)],
        id="8S-all-both",
    ),
    # proportional: O − T = 1, d_B = d_C = 1/2 → each 1 × 6 × (1/2)/1 = 3.
    pytest.param(
        {"two_whister_duty": "proportional"},
        [],
        EIGHT_ALL,
        [P(A, 6), M(B, 3), M(C, 3)],
        id="8S-all-proportional",
    ),
    # 6C both whist, A 6 B 3 C 1: P(A, 2); B 3 × 2, C 1 × 2. personal: quota 2 each, C short
    # 1 → 1 × 2.
    pytest.param(
        {"two_whister_duty": "personal"},
        [],
        SIX_CLUBS,
        [P(A, 2), W(B, A, 6), W(C, A, 2), M(C, 2)],
        id="6C-personal",
    ),
    # personal_if_pair_short: T = 4 = O → nothing.
    pytest.param(
        {"two_whister_duty": "personal_if_pair_short"},
        [],
        SIX_CLUBS,
        [P(A, 2), W(B, A, 6), W(C, A, 2)],
        id="6C-personal-if-pair-short",
    ),
    pytest.param(
        {"two_whister_duty": "proportional"},
        [],
        SIX_CLUBS,
        [P(A, 2), W(B, A, 6), W(C, A, 2)],
        id="6C-proportional",
    ),
    # Second pass-out in a row: p_2 = 2; B 4 × 2, C 6 × 2; A's zero-trick bonus.
    pytest.param(
        {"passout_zero_bonus": "price"},
        [PO_1],
        PO_2,
        [P(A, 2), M(B, 8), M(C, 12)],
        id="passout-bonus-price",
    ),
    pytest.param(
        {"passout_zero_bonus": "one"},
        [PO_1],
        PO_2,
        [P(A, 1), M(B, 8), M(C, 12)],
        id="passout-bonus-one",
    ),
    pytest.param(
        {"passout_zero_bonus": "mountain"},
        [PO_1],
        PO_2,
        [M(A, -4), M(B, 8), M(C, 12)],
        id="passout-bonus-mountain",
    ),
    # pass-out, C 6S both pass, pass-out (4, 3, 3): any_deal → the game ended the series,
    # p_1 = 1; played_game → it did not, p_2 = 2.
    pytest.param(
        {"passout_series_ends_on": "any_deal"},
        [po(4, 3, 3), game(C, "6S", {A: PA, B: PA})],
        po(4, 3, 3),
        [M(A, 4), M(B, 3), M(C, 3)],
        id="series-any-deal",
    ),
    pytest.param(
        {"passout_series_ends_on": "played_game"},
        [po(4, 3, 3), game(C, "6S", {A: PA, B: PA})],
        po(4, 3, 3),
        [M(A, 8), M(B, 6), M(C, 6)],
        id="series-played-game",
    ),
]


@pytest.mark.parametrize(("overrides", "before", "deal", "expected"), WORKED_CHECKS)
def test_worked_checks_of_section_13(overrides, before, deal, expected):
    _, entries = play_last(rules(**overrides), {}, before, deal)
    assert entries == expected


def test_worked_check_mountain_bonus_goes_below_zero():
    """A's mountain: 2 × 1 on the first pass-out, then −2 × 2 on the second: −2."""
    sheet, _ = play_last(rules(passout_zero_bonus="mountain"), {}, [PO_1], PO_2)
    assert sheet.result().mountain == (-2, 5 + 8, 3 + 12)


# -- 13.1 consolation off, 13.3–13.5 whister duty ------------------------------------------------

DUTY_CASES = [
    # (tariff, table, before, deal, entries)
    # 4 players, dealer D: 7S, A 6 B 2 C 2 → M(A, 4); B, C 2 × 4; consolation 0 for B, C and
    # the dealer: nothing.
    pytest.param(
        rules(consolation_rate=0),
        {"players": 4, "first_dealer": D},
        [],
        game(A, "7S", {B: WH, C: WH}, {A: 6, B: 2, C: 2}),
        [M(A, 4), W(B, A, 8), W(C, A, 8)],
        id="consolation-0-4p-dealer",
    ),
    # Leningrad gentleman, consolation 0: 7S, B whist, C pass, A 6 B 3 C 1: remise 1 × 8;
    # split (4 × 8 + 2 × 0) / 2 = 16 each.
    pytest.param(
        rules("leningrad", consolation_rate=0),
        {},
        [],
        game(A, "7S", {B: WH, C: PA}, {A: 6, B: 3, C: 1}),
        [M(A, 8), W(B, A, 16), W(C, A, 16)],
        id="consolation-0-gentleman",
    ),
    # Classic dark 7S, consolation 0: remise 4 × 2 = 8; greedy 4 × 4 = 16 × 2 = 32.
    pytest.param(
        rules("classic", consolation_rate=0),
        {},
        [],
        game(A, "7S", {B: WH, C: PA}, {A: 6, B: 3, C: 1}, dark=True),
        [M(A, 8), W(B, A, 32)],
        id="consolation-0-dark",
    ),
    # Consolation 1/2: 7S remise by 1, A 6 B 2 C 2: consolation 1 × 2 = 2 each.
    pytest.param(
        rules(consolation_rate="1/2"),
        {},
        [],
        game(A, "7S", {B: WH, C: WH}, {A: 6, B: 2, C: 2}),
        [M(A, 4), W(B, A, 8), W(C, A, 8), W(B, A, 2), W(C, A, 2)],
        id="consolation-half",
    ),
    # 4 players, dealer B: defenders of A are C then D; A 9S takes 10, O = 1, rate 8.
    pytest.param(
        rules(duty_at_one="second"),
        {"players": 4, "first_dealer": B},
        [],
        game(A, "9S", {C: WH, D: WH}, {A: 10, C: 0, D: 0}),
        [P(A, 8), M(D, 8)],
        id="at-one-second-4p",
    ),
    pytest.param(
        rules(duty_at_one="both"),
        {"players": 4, "first_dealer": B},
        [],
        game(A, "9S", {C: WH, D: WH}, {A: 10, C: 0, D: 0}),
        [P(A, 8), M(C, 8), M(D, 8)],
        id="at-one-both-4p",
    ),
    # each_own, 4 players: C took 1, D none → D 8.
    pytest.param(
        rules(duty_at_one="each_own"),
        {"players": 4, "first_dealer": B},
        [],
        game(A, "9S", {C: WH, D: WH}, {A: 9, C: 1, D: 0}),
        [P(A, 8), W(C, A, 8), M(D, 8)],
        id="at-one-each-own-4p",
    ),
    # second_own: the *second* whister D took one, C none → nothing (C is first).
    pytest.param(
        rules(duty_at_one="second_own"),
        {"players": 4, "first_dealer": B},
        [],
        game(A, "9S", {C: WH, D: WH}, {A: 9, C: 0, D: 1}),
        [P(A, 8), W(D, A, 8)],
        id="at-one-second-own-first-took-none",
    ),
    # Dark 8S in Classic, both: everything × 2: P(A, 12), M(B, 12), M(C, 12).
    pytest.param(
        rules("classic", duty_at_one="both"),
        {},
        [],
        game(A, "8S", {B: WH, C: WH}, {A: 10, B: 0, C: 0}, dark=True),
        [P(A, 12), M(B, 12), M(C, 12)],
        id="at-one-both-dark",
    ),
    # On a bomb: a dark pass-out (p_1 × 2) draws ×2 for everyone; A's 8S × 2.
    pytest.param(
        rules("classic", duty_at_one="both"),
        {},
        [po(4, 3, 3, dark=True)],
        game(A, "8S", {B: WH, C: WH}, {A: 10, B: 0, C: 0}),
        [P(A, 12), M(B, 12), M(C, 12)],
        id="at-one-both-bomb",
    ),
    # pair ignores duty_at_one: shortfall 1 to the weaker; tie → the second whister C.
    pytest.param(
        rules(two_whister_duty="pair", duty_at_one="both"),
        {},
        [],
        EIGHT_ALL,
        [P(A, 6), M(C, 6)],
        id="pair-ignores-duty-at-one",
    ),
    # proportional ignores duty_at_one: T = 1 ≥ O = 1 → nothing although C took none.
    pytest.param(
        rules(two_whister_duty="proportional", duty_at_one="each_own"),
        {},
        [],
        EIGHT_9_1_0,
        [P(A, 6), W(B, A, 6)],
        id="proportional-ignores-duty-at-one",
    ),
    # personal_if_pair_short at O = 1 follows duty_at_one: T = 0 → both.
    pytest.param(
        rules(two_whister_duty="personal_if_pair_short", duty_at_one="both"),
        {},
        [],
        EIGHT_ALL,
        [P(A, 6), M(B, 6), M(C, 6)],
        id="if-pair-short-at-one-both",
    ),
    # personal_if_pair_short at O = 1, T = 1: nothing even with second_own.
    pytest.param(
        rules(two_whister_duty="personal_if_pair_short", duty_at_one="second_own"),
        {},
        [],
        EIGHT_9_1_0,
        [P(A, 6), W(B, A, 6)],
        id="if-pair-short-at-one-not-short",
    ),
    # 6C, A 7 B 3 C 0: T = 3 < 4 → quotas charged: C short 2 → 2 × 2 = 4.
    pytest.param(
        rules(two_whister_duty="personal_if_pair_short"),
        {},
        [],
        game(A, "6C", {B: WH, C: WH}, {A: 7, B: 3, C: 0}),
        [P(A, 2), W(B, A, 6), M(C, 4)],
        id="if-pair-short-charged",
    ),
    # The same dark in Classic: everything × 2.
    pytest.param(
        rules("classic", two_whister_duty="personal_if_pair_short"),
        {},
        [],
        game(A, "6C", {B: WH, C: WH}, {A: 7, B: 3, C: 0}, dark=True),
        [P(A, 4), W(B, A, 12), M(C, 8)],
        id="if-pair-short-dark",
    ),
    # proportional, same deal: O − T = 1; d_B = max(0, 2 − 3) = 0, d_C = 2 → C 1 × 2 = 2.
    pytest.param(
        rules(two_whister_duty="proportional"),
        {},
        [],
        game(A, "6C", {B: WH, C: WH}, {A: 7, B: 3, C: 0}),
        [P(A, 2), W(B, A, 6), M(C, 2)],
        id="proportional-one-deficit",
    ),
    # proportional 6S, A 9 B 1 C 0: O − T = 3; d_B = 1, d_C = 2 → B 3 × 2 × 1/3 = 2,
    # C 3 × 2 × 2/3 = 4.
    pytest.param(
        rules(two_whister_duty="proportional"),
        {},
        [],
        game(A, "6S", {B: WH, C: WH}, {A: 9, B: 1, C: 0}),
        [P(A, 2), W(B, A, 2), M(B, 2), M(C, 4)],
        id="proportional-two-deficits",
    ),
    # A fraction: O(6) = 3, V(6) = 3; A 8 B 1 C 1: O − T = 1, d = 1/2 each → 3/2 each.
    pytest.param(
        rules(
            two_whister_duty="proportional",
            whist_obligations=[3, 2, 1, 1, 1],
            contract_values=[3, 4, 6, 8, 10, 10],
        ),
        {},
        [],
        game(A, "6S", {B: WH, C: WH}, {A: 8, B: 1, C: 1}),
        [P(A, 3), W(B, A, 3), W(C, A, 3), M(B, Fraction(3, 2)), M(C, Fraction(3, 2))],
        id="proportional-fraction",
    ),
    # proportional, 4 players, dealer C: A 8S takes 10, defenders B and D → 3 each.
    pytest.param(
        rules(two_whister_duty="proportional"),
        {"players": 4, "first_dealer": C},
        [],
        game(A, "8S", {B: WH, D: WH}, {A: 10, B: 0, D: 0}),
        [P(A, 6), M(B, 3), M(D, 3)],
        id="proportional-4p",
    ),
    # 13.5: 7S both whist, A 6 B 4 C 0 → remise 1: M(A, 4); B 4 × 4 = 16; consolation 4
    # each; personal quota 1: C short → M(C, 4) when duty_on_remise is yes ...
    pytest.param(
        rules(duty_on_remise=True),
        {},
        [],
        game(A, "7S", {B: WH, C: WH}, {A: 6, B: 4, C: 0}),
        [M(A, 4), W(B, A, 16), W(B, A, 4), W(C, A, 4), M(C, 4)],
        id="duty-on-remise-yes",
    ),
    # ... and nothing with no.
    pytest.param(
        rules(duty_on_remise=False),
        {},
        [],
        game(A, "7S", {B: WH, C: WH}, {A: 6, B: 4, C: 0}),
        [M(A, 4), W(B, A, 16), W(B, A, 4), W(C, A, 4)],
        id="duty-on-remise-no",
    ),
    # 4 players, dealer D consoles too; no duty on the remise.
    pytest.param(
        rules(duty_on_remise=False),
        {"players": 4, "first_dealer": D},
        [],
        game(A, "7S", {B: WH, C: WH}, {A: 6, B: 4, C: 0}),
        [M(A, 4), W(B, A, 16), W(B, A, 4), W(C, A, 4), W(D, A, 4)],
        id="duty-on-remise-no-4p",
    ),
    # duty_on_remise = no still charges a made contract: 8S A 10 → C 6.
    pytest.param(
        rules(duty_on_remise=False),
        {},
        [],
        EIGHT_ALL,
        [P(A, 6), M(C, 6)],
        id="duty-on-remise-no-made",
    ),
    # duty_on_remise = no with proportional, dark 7S remise, A 6 B 4 C 0 (Classic): no duty.
    # remise 4 × 2 = 8; B 16 × 2 = 32; consolation 4 × 2 = 8 each.
    pytest.param(
        rules("classic", two_whister_duty="proportional", duty_on_remise=False),
        {},
        [],
        game(A, "7S", {B: WH, C: WH}, {A: 6, B: 4, C: 0}, dark=True),
        [M(A, 8), W(B, A, 32), W(B, A, 8), W(C, A, 8)],
        id="duty-on-remise-no-dark",
    ),
]


@pytest.mark.parametrize(("tariff", "table", "before", "deal", "expected"), DUTY_CASES)
def test_whister_duty_and_consolation(tariff, table, before, deal, expected):
    _, entries = play_last(tariff, table, before, deal)
    assert entries == expected


# -- 13.2 pools at settlement --------------------------------------------------------------------

SETTLE_CASES = [
    # pools (10, 4, 1): avg 5 → 10 × (5, −1, −4); mountains (3, 0, 6): avg 3 →
    # −10 × (0, −3, 3); whists A→B 7.
    pytest.param("counted", (50 + 0 + 7, -10 + 30 - 7, -40 - 30), id="counted"),
    pytest.param("ignored", (0 + 7, 30 - 7, -30), id="ignored"),
]


@pytest.mark.parametrize(("pools_rule", "balances"), SETTLE_CASES)
def test_settlement_pools(pools_rule, balances):
    tariff = rules(settlement_pools=pools_rule)
    whists = ((0, 7, 0), (0, 0, 0), (0, 0, 0))
    assert settle(tariff, (10, 4, 1), (3, 0, 6), whists) == list(balances)


def test_settlement_pools_ignored_with_the_divisor():
    """n/d = 3/2 multiplies the mountain term only: −10 × (0, −3, 3) × 3/2."""
    tariff = rules(settlement_pools="ignored", settlement_divisor="players_minus_one")
    zero = ((0, 0, 0),) * 3
    assert settle(tariff, (10, 4, 1), (3, 0, 6), zero) == [0, 45, -45]


# -- 13.6 zero-trick pass-out bonus --------------------------------------------------------------

ROSTOV_DARK = rules("rostov", dark_games=True)
BONUS_CASES = [
    # (tariff, table, before, deal, entries)
    # Sochi third pass-out, p_3 = 3: A 0 B 4 C 6.
    pytest.param(
        rules(passout_zero_bonus="price"),
        {},
        [po(4, 3, 3), po(4, 3, 3)],
        po(0, 4, 6),
        [P(A, 3), M(B, 12), M(C, 18)],
        id="price-p3",
    ),
    pytest.param(
        rules(passout_zero_bonus="one"),
        {},
        [po(4, 3, 3), po(4, 3, 3)],
        po(0, 4, 6),
        [P(A, 1), M(B, 12), M(C, 18)],
        id="one-p3",
    ),
    pytest.param(
        rules(passout_zero_bonus="mountain"),
        {},
        [po(4, 3, 3), po(4, 3, 3)],
        po(0, 4, 6),
        [M(A, -6), M(B, 12), M(C, 18)],
        id="mountain-p3",
    ),
    pytest.param(
        rules(passout_zero_bonus="none"),
        {},
        [po(4, 3, 3), po(4, 3, 3)],
        po(0, 4, 6),
        [M(B, 12), M(C, 18)],
        id="none-p3",
    ),
    # Amnesty: the smallest count (0) comes off nobody; the bonus still goes to A.
    pytest.param(
        rules(passout_zero_bonus="mountain", passout_amnesty=True),
        {},
        [],
        po(0, 4, 6),
        [M(A, -2), M(B, 4), M(C, 6)],
        id="mountain-amnesty",
    ),
    # Rostov whist mode: A (0) writes 5 × 1 per trick on B (4) and C (6).
    pytest.param(
        rules("rostov", passout_zero_bonus="price"),
        {},
        [],
        po(0, 4, 6),
        [W(A, B, 20), W(A, C, 30), P(A, 1)],
        id="rostov-price",
    ),
    # The defect of the first edition: false wrote the 1 point anyway in whist mode.
    pytest.param(
        rules("rostov", passout_zero_bonus=False),
        {},
        [],
        po(0, 4, 6),
        [W(A, B, 20), W(A, C, 30)],
        id="rostov-false-writes-nothing",
    ),
    pytest.param(
        rules("rostov", passout_zero_bonus="mountain"),
        {},
        [],
        po(0, 4, 6),
        [W(A, B, 20), W(A, C, 30), M(A, -2)],
        id="rostov-mountain",
    ),
    # Rostov dark: price 1 × 2; 5 × 2 = 10 whists per trick; price bonus doubled (§6/§7),
    # one stays 1, mountain −2 × 2.
    pytest.param(
        rules("rostov", dark_games=True, passout_zero_bonus="price"),
        {},
        [],
        po(0, 4, 6, dark=True),
        [W(A, B, 40), W(A, C, 60), P(A, 2)],
        id="rostov-dark-price",
    ),
    pytest.param(
        rules("rostov", dark_games=True, passout_zero_bonus="one"),
        {},
        [],
        po(0, 4, 6, dark=True),
        [W(A, B, 40), W(A, C, 60), P(A, 1)],
        id="rostov-dark-one",
    ),
    pytest.param(
        rules("rostov", dark_games=True, passout_zero_bonus="mountain"),
        {},
        [],
        po(0, 4, 6, dark=True),
        [W(A, B, 40), W(A, C, 60), M(A, -4)],
        id="rostov-dark-mountain",
    ),
    # Classic, 4 players, dealer D plays the widow (1 trick); dark p_1 = 1 × 2 = 2.
    pytest.param(
        rules("classic", passout_zero_bonus="mountain"),
        {"players": 4, "first_dealer": D},
        [],
        Passout({A: 0, B: 5, C: 4}, dealer_tricks=1, dark=True),
        [M(A, -4), M(B, 10), M(C, 8), M(D, 2)],
        id="classic-4p-dark-mountain",
    ),
    # The widow dealer with 0 tricks gets no bonus, whichever kind.
    pytest.param(
        rules("classic", passout_zero_bonus="one"),
        {"players": 4, "first_dealer": D},
        [],
        Passout({A: 5, B: 5, C: 0}, dealer_tricks=0),
        [M(A, 5), M(B, 5), P(C, 1)],
        id="classic-4p-widow-dealer-no-bonus",
    ),
]


@pytest.mark.parametrize(("tariff", "table", "before", "deal", "expected"), BONUS_CASES)
def test_zero_trick_bonus(tariff, table, before, deal, expected):
    _, entries = play_last(tariff, table, before, deal)
    assert entries == expected


@pytest.mark.parametrize(("old", "new"), [(True, "price"), (False, "none")])
def test_zero_bonus_reads_the_old_yes_no(old, new):
    assert rules(passout_zero_bonus=old).passout_zero_bonus == new
    # The tariff model builds rules directly with its yes/no field.
    assert PreferansRules(passout_zero_bonus=old).passout_zero_bonus == new  # type: ignore[arg-type]
    assert PreferansRules(passout_zero_bonus=old) == rules(passout_zero_bonus=new)


# -- 13.7 when a pass-out series ends -------------------------------------------------------------

SERIES_CASES = [
    # (overrides, the deal between two pass-outs (4, 3, 3), the step of the second: 1 or 2)
    pytest.param({}, game(C, "6S", {A: PA, B: PA}), 1, id="any-both-pass"),
    pytest.param({}, Misere(C, 0), 1, id="any-misere"),
    pytest.param({"misere_ends_passouts": False}, Misere(C, 0), 2, id="any-misere-off"),
    pytest.param(
        {"passout_series_ends_on": "played_game"},
        game(C, "6S", {A: PA, B: HA}),
        1,
        id="played-half-whist-ends",
    ),
    pytest.param(
        {"passout_series_ends_on": "played_game"},
        game(C, "6S", {A: WH, B: PA}, {A: 2, B: 2, C: 6}),
        1,
        id="played-whisted",
    ),
    pytest.param({"passout_series_ends_on": "played_game"}, Misere(C, 2), 1, id="played-misere"),
    pytest.param(
        {"passout_series_ends_on": "whisted_made_game"},
        game(C, "6S", {A: PA, B: PA}),
        2,
        id="whisted-both-pass",
    ),
    pytest.param(
        {"passout_series_ends_on": "whisted_made_game"},
        game(C, "6S", {A: PA, B: HA}),
        2,
        id="whisted-half",
    ),
    # C 6, defence 4 = O: made, no shortfall.
    pytest.param(
        {"passout_series_ends_on": "whisted_made_game"},
        game(C, "6S", {A: WH, B: PA}, {A: 2, B: 2, C: 6}),
        1,
        id="whisted-made",
    ),
    pytest.param(
        {"passout_series_ends_on": "whisted_made_game"},
        game(C, "6S", {A: WH, B: PA}, {A: 3, B: 2, C: 5}),
        2,
        id="whisted-remise",
    ),
    # C 7 on a 6: defence 3 < O = 4, a whister shortfall.
    pytest.param(
        {"passout_series_ends_on": "whisted_made_game"},
        game(C, "6S", {A: WH, B: PA}, {A: 2, B: 1, C: 7}),
        2,
        id="whisted-shortfall",
    ),
    pytest.param(
        {"passout_series_ends_on": "whisted_made_game"}, Misere(C, 0), 2, id="whisted-misere"
    ),
    pytest.param(
        {"passout_series_ends_on": "made_game_from_level"},
        game(C, "7S", {A: WH, B: PA}, {A: 2, B: 1, C: 7}),
        2,
        id="from-level-7-below-8",
    ),
    pytest.param(
        {"passout_series_ends_on": "made_game_from_level"},
        game(C, "8S", {A: PA, B: PA}),
        1,
        id="from-level-8-both-pass",
    ),
    pytest.param(
        {"passout_series_ends_on": "made_game_from_level"},
        game(C, "8S", {A: WH, B: WH}, {A: 2, B: 1, C: 7}),
        2,
        id="from-level-8-remise",
    ),
    pytest.param(
        {"passout_series_ends_on": "made_game_from_level", "passout_series_end_level": 6},
        game(C, "6S", {A: PA, B: PA}),
        1,
        id="from-level-6",
    ),
    pytest.param(
        {"passout_series_ends_on": "made_game_from_level"}, Misere(C, 0), 1, id="from-misere-made"
    ),
    pytest.param(
        {"passout_series_ends_on": "made_game_from_level"},
        Misere(C, 1),
        2,
        id="from-misere-failed",
    ),
    pytest.param(
        {"passout_series_ends_on": "made_game_from_level", "misere_ends_passouts": False},
        Misere(C, 0),
        2,
        id="from-misere-off",
    ),
    # Adjustments and concessions never end a series.
    pytest.param({}, pools(0, 1, 0), 2, id="adjustment"),
    pytest.param({"concede": True}, Concede(C, 7, "S", 2), 2, id="concede"),
]


@pytest.mark.parametrize(("overrides", "between", "step"), SERIES_CASES)
def test_when_a_passout_series_ends(overrides, between, step):
    _, entries = play_last(rules(**overrides), {}, [po(4, 3, 3), between], po(4, 3, 3))
    assert entries == [M(A, 4 * step), M(B, 3 * step), M(C, 3 * step)]


@pytest.mark.parametrize(("ends_on", "lowest"), [("any_deal", 6), ("played_game", 7)])
def test_the_series_decides_the_exit_too(ends_on, lowest):
    """Leningrad exit 7: after pass-out, 7S both pass, the series goes on under
    played_game, so a 6 is still below the exit."""
    sheet = new_pulka(rules("leningrad", passout_series_ends_on=ends_on))
    sheet.play(po(4, 3, 3))
    sheet.play(game(B, "7S", {C: PA, A: PA}))
    assert sheet.lowest_contract() == lowest
    six = game(C, "6S", {A: PA, B: PA})
    if lowest == 7:
        with pytest.raises(RuleError) as error:
            sheet.play(six)
        assert error.value.field == "contract"
    else:
        sheet.play(six)


def test_series_goes_on_while_dark_row_and_bomb_do_not():
    """Classic, played_game: dark pass-out (p_1 × 2), B's 6S both pass on his ×2 bomb
    (P 2 × 2 = 4, the bomb is used up; the row of dark pass-outs is broken), then a light
    pass-out still costs p_2 = 2."""
    sheet = new_pulka(rules("classic", passout_series_ends_on="played_game"))
    sheet.play(po(4, 3, 3, dark=True))
    assert written(sheet.play(game(B, "6S", {C: PA, A: PA}))) == [P(B, 4)]
    assert sheet.bombs == [[2], [], [2]]
    assert sheet.dark_row == 0
    assert written(sheet.play(po(4, 3, 3))) == [M(A, 8), M(B, 6), M(C, 6)]


# -- 13.8 help and the overflow floor -------------------------------------------------------------

SEVEN_BOTH_PASS = game(A, "7S", {B: PA, C: PA})
HELP_CASES = [
    # (tariff, table, before, deal, entries, pools after, mountains after); target 10.
    # A 8 + 4: 2 own, 2 overflow.
    pytest.param(
        rules(help_to="largest"),
        {},
        [pools(8, 3, 5)],
        SEVEN_BOTH_PASS,
        [P(A, 2), P(C, 2), W(A, C, 20)],
        (10, 3, 7),
        (0, 0, 0),
        id="largest",
    ),
    pytest.param(
        rules(help_to="clockwise"),
        {},
        [pools(8, 3, 5)],
        SEVEN_BOTH_PASS,
        [P(A, 2), P(B, 2), W(A, B, 20)],
        (10, 5, 5),
        (0, 0, 0),
        id="clockwise",
    ),
    # Clockwise: B has room 1, then the next, C.
    pytest.param(
        rules(help_to="clockwise"),
        {},
        [pools(8, 9, 5)],
        SEVEN_BOTH_PASS,
        [P(A, 2), P(B, 1), W(A, B, 10), P(C, 1), W(A, C, 10)],
        (10, 10, 6),
        (0, 0, 0),
        id="clockwise-then-next",
    ),
    # Clockwise skips a closed pool.
    pytest.param(
        rules(help_to="clockwise"),
        {},
        [pools(8, 10, 5)],
        SEVEN_BOTH_PASS,
        [P(A, 2), P(C, 2), W(A, C, 20)],
        (10, 10, 7),
        (0, 0, 0),
        id="clockwise-skips-closed",
    ),
    pytest.param(
        rules(help_to="none"),
        {},
        [pools(8, 3, 5)],
        SEVEN_BOTH_PASS,
        [P(A, 2), M(A, -2)],
        (10, 3, 5),
        (-2, 0, 0),
        id="none",
    ),
    # Leningrad, no help: 2 × 20/10 = 4 off the mountain.
    pytest.param(
        rules("leningrad", help_to="none"),
        {},
        [pools(8, 3, 5)],
        SEVEN_BOTH_PASS,
        [P(A, 2), M(A, -4)],
        (10, 3, 5),
        (-4, 0, 0),
        id="none-leningrad",
    ),
    # Floor 0: mountain 5 → 2 off; mountain 1 → only 1 off; mountain −3 → nothing.
    pytest.param(
        rules(overflow_floor="zero"),
        {},
        [pools(8, 10, 10), mountains(5)],
        SEVEN_BOTH_PASS,
        [P(A, 2), M(A, -2)],
        (10, 10, 10),
        (3, 0, 0),
        id="floor-above",
    ),
    pytest.param(
        rules(overflow_floor="zero"),
        {},
        [pools(8, 10, 10), mountains(1)],
        SEVEN_BOTH_PASS,
        [P(A, 2), M(A, -1)],
        (10, 10, 10),
        (0, 0, 0),
        id="floor-stops-at-0",
    ),
    pytest.param(
        rules(overflow_floor="zero"),
        {},
        [pools(8, 10, 10), mountains(-3)],
        SEVEN_BOTH_PASS,
        [P(A, 2)],
        (10, 10, 10),
        (-3, 0, 0),
        id="floor-below-0-untouched",
    ),
    pytest.param(
        rules(overflow_floor="none"),
        {},
        [pools(8, 10, 10), mountains(1)],
        SEVEN_BOTH_PASS,
        [P(A, 2), M(A, -2)],
        (10, 10, 10),
        (-1, 0, 0),
        id="floor-none",
    ),
    # Leningrad floor: 2 × 2 = 4 would come off, the mountain has 3.
    pytest.param(
        rules("leningrad", help_to="none", overflow_floor="zero"),
        {},
        [pools(8, 3, 5), mountains(3)],
        SEVEN_BOTH_PASS,
        [P(A, 2), M(A, -3)],
        (10, 3, 5),
        (0, 0, 0),
        id="floor-leningrad",
    ),
    # 4 players, dealer D (sits out, but his pool is open): clockwise from A, B is closed,
    # C next; largest would be D (5).
    pytest.param(
        rules(help_to="clockwise"),
        {"players": 4, "first_dealer": D},
        [pools(9, 10, 2, 5)],
        game(A, "6S", {B: PA, C: PA}),
        [P(A, 1), P(C, 1), W(A, C, 10)],
        (10, 10, 3, 5),
        (0, 0, 0, 0),
        id="clockwise-4p",
    ),
    pytest.param(
        rules(help_to="largest"),
        {"players": 4, "first_dealer": D},
        [pools(9, 10, 2, 5)],
        game(A, "6S", {B: PA, C: PA}),
        [P(A, 1), P(D, 1), W(A, D, 10)],
        (10, 10, 2, 6),
        (0, 0, 0, 0),
        id="largest-4p",
    ),
    # A dark Classic 7S both pass: 4 × 2 = 8 from A at 8: 2 own, 6 overflow; no help:
    # 6 off the mountain, floor at 0 with mountain 4 → 4.
    pytest.param(
        rules("classic", help_to="none", overflow_floor="zero"),
        {},
        [pools(8, 0, 0), mountains(4)],
        game(A, "7S", {B: PA, C: PA}, dark=True),
        [P(A, 2), M(A, -4)],
        (10, 0, 0),
        (0, 0, 0),
        id="dark-none-floor",
    ),
]


@pytest.mark.parametrize(
    ("tariff", "table", "before", "deal", "expected", "pool", "mountain"), HELP_CASES
)
def test_help_and_overflow(tariff, table, before, deal, expected, pool, mountain):
    sheet, entries = play_last(tariff, {"pool_target": 10, **table}, before, deal)
    assert entries == expected
    result = sheet.result()
    assert result.pool == pool
    assert result.mountain == mountain


# -- 13.9 the order of writing -------------------------------------------------------------------

ORDER_CASES = [
    # Target 10; pools A 10, B 9, C 5; pass-out A 0 B 0 C 10 (p_1 = 1): A's bonus is all
    # overflow, B's 1 fills his own pool first; then A's point helps the open pool, C.
    # (The first edition wrote A's help first, to B, the largest, and B's point then
    # overflowed to C: W(A, B, 10), W(B, C, 10).)
    pytest.param(
        SOCHI,
        0,
        [pools(10, 9, 5)],
        po(0, 0, 10),
        [P(B, 1), P(C, 1), W(A, C, 10), M(C, 10)],
        (10, 10, 6),
        id="own-points-first",
    ),
    # Pools 9, 9, 8, ladder [3]: A 0 B 0 C 10 → each bonus 3: 1 own each, 2 overflow each;
    # C has room 2. Seat order from the first dealer A: A's overflow helps C, B's comes off
    # his mountain.
    pytest.param(
        rules(passout_ladder=[3]),
        A,
        [pools(9, 9, 8)],
        po(0, 0, 10),
        [P(A, 1), P(B, 1), P(C, 2), W(A, C, 20), M(B, -2), M(C, 30)],
        (10, 10, 10),
        id="overflow-from-first-dealer-A",
    ),
    # The same with B as the first dealer: B's overflow is handed out first.
    pytest.param(
        rules(passout_ladder=[3]),
        B,
        [pools(9, 9, 8)],
        po(0, 0, 10),
        [P(A, 1), P(B, 1), P(C, 2), W(B, C, 20), M(A, -2), M(C, 30)],
        (10, 10, 10),
        id="overflow-from-first-dealer-B",
    ),
    # 4 players, first dealer B, who deals and sits out: pools A 10, B 9, C 10, D 10,
    # pass-out A 0 C 0 D 10 (p_1 = 1): both bonuses overflow and B has room for 1. Seat
    # order from B: B, C, D, A → C's point helps B, A's comes off his mountain.
    pytest.param(
        SOCHI,
        B,
        [pools(10, 9, 10, 10)],
        Passout({A: 0, C: 0, D: 10}),
        [P(B, 1), W(C, B, 10), M(A, -1), M(D, 10)],
        (10, 10, 10, 10),
        id="4p-from-first-dealer-B",
    ),
    # Adjustments keep the first edition's order (as entered): each pool entry and its
    # overflow, seat by seat, so a stored correction replays as it did. Pools A 9, B 9,
    # C 9, D 10 and +2 for A and B, first dealer B: A's overflow helps B (largest, first
    # clockwise), B's then helps C and its last point comes off B's mountain.
    pytest.param(
        SOCHI,
        B,
        [pools(9, 9, 9, 10)],
        Adjustment("carried over", pool={A: 2, B: 2}),
        [P(A, 1), P(B, 1), W(A, B, 10), P(C, 1), W(B, C, 10), M(B, -1)],
        (10, 10, 10, 10),
        id="4p-adjustment-as-entered",
    ),
    # A correction taking a point off one pool and giving two to another, all pools closed:
    # A's 2 come off his mountain (no open pool yet), then B goes down to 9. The pulka stays
    # incomplete, as it did in the first edition, so later deals still replay.
    pytest.param(
        SOCHI,
        0,
        [pools(10, 10, 10)],
        Adjustment("correction", pool={A: 2, B: -1}),
        [M(A, -2), P(B, -1)],
        (10, 9, 10),
        id="correction-as-entered",
    ),
    # An adjustment giving pool points to two players: A's point helps B (the largest open
    # pool), then B's helps C.
    pytest.param(
        SOCHI,
        0,
        [pools(10, 9, 5)],
        Adjustment("carried over", pool={A: 1, B: 1}),
        [P(B, 1), W(A, B, 10), P(C, 1), W(B, C, 10)],
        (10, 10, 6),
        id="adjustment-as-entered",
    ),
]


@pytest.mark.parametrize(("tariff", "first", "before", "deal", "expected", "pool"), ORDER_CASES)
def test_order_of_writing(tariff, first, before, deal, expected, pool):
    table = {"pool_target": 10, "first_dealer": first, "players": len(pool)}
    sheet, entries = play_last(tariff, table, before, deal)
    assert entries == expected
    assert sheet.result().pool == pool


def _rotated(deal: Any, k: int, n: int) -> Any:
    """``deal`` with every seat moved ``k`` places clockwise."""

    def seat(s: int) -> int:
        return (s + k) % n

    def seats(mapping: Any) -> Any:
        return {seat(s): v for s, v in mapping.items()}

    if isinstance(deal, Game):
        tricks = None if deal.tricks is None else seats(deal.tricks)
        return dataclasses.replace(
            deal, declarer=seat(deal.declarer), answers=seats(deal.answers), tricks=tricks
        )
    if isinstance(deal, Misere | Concede):
        return dataclasses.replace(deal, declarer=seat(deal.declarer))
    if isinstance(deal, Passout):
        return dataclasses.replace(
            deal, tricks=seats(deal.tricks), looked=frozenset(seat(s) for s in deal.looked)
        )
    return dataclasses.replace(
        deal,
        pool=seats(deal.pool),
        mountain=seats(deal.mountain),
        whists=tuple((seat(w), seat(o), a) for w, o, a in deal.whists),
    )


@pytest.mark.parametrize("k", [1, 2])
def test_the_order_case_rotated_gives_the_rotated_result(k):
    """The players move ``k`` seats and the first dealer with them: every total moves too."""
    tariff = rules(passout_ladder=[3])
    deals = [pools(9, 9, 8), po(0, 0, 10)]
    base = score_pulka(PulkaSetup(NAMES[:3], tariff, first_dealer=A, pool_target=10), deals)
    moved = score_pulka(
        PulkaSetup(NAMES[:3], tariff, first_dealer=k, pool_target=10),
        [_rotated(d, k, 3) for d in deals],
    )
    for s in range(3):
        assert moved.pool[(s + k) % 3] == base.pool[s]
        assert moved.mountain[(s + k) % 3] == base.mountain[s]
        assert moved.balances[(s + k) % 3] == base.balances[s]


# -- 13.10 Stalingrad ----------------------------------------------------------------------------

STALINGRAD = rules(stalingrad=True)


@pytest.mark.parametrize(
    "answers",
    [{B: PA, C: WH}, {B: WH, C: PA}, {B: PA, C: PA}, {B: PA, C: HA}],
    ids=["pass-whist", "whist-pass", "both-pass", "half"],
)
def test_stalingrad_rejects_a_6_spades_not_whisted_by_both(answers):
    sheet = new_pulka(STALINGRAD)
    tricks = None if WH not in answers.values() else {A: 6, B: 2, C: 2}
    with pytest.raises(RuleError) as error:
        sheet.play(game(A, "6S", answers, tricks))
    assert error.value.field == "answers"
    assert "6♠ is whisted by both" in error.value.message
    assert sheet.deals == []


STALINGRAD_CASES = [
    # 6S whisted by both, A 6 B 2 C 2: P(A, 2); 2 × 2 each; personal quota 2 each: met.
    pytest.param(
        STALINGRAD,
        {},
        game(A, "6S", {B: WH, C: WH}, {A: 6, B: 2, C: 2}),
        [P(A, 2), W(B, A, 4), W(C, A, 4)],
        id="6S-both-whist",
    ),
    pytest.param(STALINGRAD, {}, game(A, "6C", {B: PA, C: PA}), [P(A, 2)], id="6C-free"),
    pytest.param(STALINGRAD, {}, game(A, "7S", {B: PA, C: HA}), [P(A, 4), W(C, A, 4)], id="7S"),
    pytest.param(SOCHI, {}, game(A, "6S", {B: PA, C: PA}), [P(A, 2)], id="off"),
    # 4 players, dealer B: A's defenders are C and D.
    pytest.param(
        STALINGRAD,
        {"players": 4, "first_dealer": B},
        game(A, "6S", {C: WH, D: WH}, {A: 7, C: 2, D: 1}),
        [P(A, 2), W(C, A, 4), W(D, A, 2), M(D, 2)],
        id="4p",
    ),
]


@pytest.mark.parametrize(("tariff", "table", "deal", "expected"), STALINGRAD_CASES)
def test_stalingrad_accepts(tariff, table, deal, expected):
    _, entries = play_last(tariff, table, [], deal)
    assert entries == expected


def test_stalingrad_dark():
    """A dark 6♠ (Classic) follows Stalingrad too: both whist, everything × 2."""
    tariff = rules("classic", stalingrad=True)
    with pytest.raises(RuleError) as error:
        new_pulka(tariff).play(game(A, "6S", {B: WH, C: PA}, {A: 6, B: 2, C: 2}, dark=True))
    assert error.value.field == "answers"
    _, entries = play_last(
        tariff, {}, [], game(A, "6S", {B: WH, C: WH}, {A: 6, B: 2, C: 2}, dark=True)
    )
    assert entries == [P(A, 4), W(B, A, 8), W(C, A, 8)]


def test_stalingrad_4p_rejects_a_pass():
    sheet = new_pulka(STALINGRAD, players=4, first_dealer=B)
    with pytest.raises(RuleError) as error:
        sheet.play(game(A, "6S", {C: WH, D: PA}, {A: 7, C: 2, D: 1}))
    assert error.value.field == "answers"


# -- 13.11 conceding a contract ------------------------------------------------------------------

CONCEDE = rules(concede=True)
CONCEDE_CASES = [
    # (tariff, table, before, deal, entries)
    # 7S, 3 undertricks: 3 × 4 = 12 into A's mountain; no whists by default.
    pytest.param(CONCEDE, {}, [], Concede(A, 7, "S", 3), [M(A, 12)], id="7S-3"),
    # Omitted: the club's usual number, 3 by default (3 × 4 = 12), here 2 (2 × 4 = 8).
    pytest.param(CONCEDE, {}, [], Concede(A, 7, "S"), [M(A, 12)], id="usual-3"),
    pytest.param(
        rules(concede=True, concede_undertricks=2),
        {},
        [],
        Concede(A, 7, "S"),
        [M(A, 8)],
        id="usual-2",
    ),
    # Consolation: each defender 3 × 4 = 12.
    pytest.param(
        rules(concede=True, concede_consolation=True),
        {},
        [],
        Concede(A, 7, "S", 3),
        [M(A, 12), W(B, A, 12), W(C, A, 12)],
        id="consolation",
    ),
    # 4 players, dealer D consoles too (consolation_by_dealer) ...
    pytest.param(
        rules(concede=True, concede_consolation=True),
        {"players": 4, "first_dealer": D},
        [],
        Concede(A, 7, "S", 3),
        [M(A, 12), W(B, A, 12), W(C, A, 12), W(D, A, 12)],
        id="consolation-4p-dealer",
    ),
    # ... unless consolation_by_dealer is off.
    pytest.param(
        rules(concede=True, concede_consolation=True, consolation_by_dealer=False),
        {"players": 4, "first_dealer": D},
        [],
        Concede(A, 7, "S", 3),
        [M(A, 12), W(B, A, 12), W(C, A, 12)],
        id="consolation-4p-no-dealer",
    ),
    # consolation_rate 0: no whists even with concede_consolation.
    pytest.param(
        rules(concede=True, concede_consolation=True, consolation_rate=0),
        {},
        [],
        Concede(A, 7, "S", 3),
        [M(A, 12)],
        id="consolation-rate-0",
    ),
    # Leningrad 6S, 2 undertricks: remise 2 × V = 4 per trick → 8; consolation 8 each.
    pytest.param(
        rules("leningrad", concede=True, concede_consolation=True),
        {},
        [],
        Concede(A, 6, "S", 2),
        [M(A, 8), W(B, A, 8), W(C, A, 8)],
        id="leningrad",
    ),
    # Classic: a dark pass-out drew ×2 bombs; A's concession is not multiplied.
    pytest.param(
        rules("classic", concede=True),
        {},
        [po(4, 3, 3, dark=True)],
        Concede(A, 7, "S", 3),
        [M(A, 12)],
        id="bomb-not-played",
    ),
    # 10 conceded by all ten: 10 × 10 = 100.
    pytest.param(CONCEDE, {}, [], Concede(B, 10, "N", 10), [M(B, 100)], id="10-by-10"),
]


@pytest.mark.parametrize(("tariff", "table", "before", "deal", "expected"), CONCEDE_CASES)
def test_concede(tariff, table, before, deal, expected):
    _, entries = play_last(tariff, table, before, deal)
    assert entries == expected


def test_concede_keeps_the_bomb_and_passes_the_deal():
    sheet = new_pulka(rules("classic", concede=True))
    sheet.play(po(4, 3, 3, dark=True))  # Classic: A deals again after a pass-out
    assert sheet.dealer == A
    sheet.play(Concede(A, 7, "S", 3))
    assert sheet.bombs[A] == [2]
    assert sheet.dealer == B
    assert sheet.passouts_in_series == 1


CONCEDE_ERRORS = [
    # (tariff, table, before, deal, field, message part)
    pytest.param(SOCHI, {}, [], Concede(A, 7, "S", 3), "kind", "not allowed", id="off"),
    pytest.param(CONCEDE, {}, [], Concede(A, 7, "S", 0), "undertricks", "1 to 7", id="zero"),
    pytest.param(CONCEDE, {}, [], Concede(A, 7, "S", 8), "undertricks", "1 to 7", id="past-7"),
    pytest.param(
        rules(concede=True, concede_undertricks=7),
        {},
        [],
        Concede(A, 6, "S"),
        "undertricks",
        "1 to 6",
        id="usual-past-6",
    ),
    pytest.param(CONCEDE, {}, [], Concede(A, 5, "S", 3), "contract", "6 to 10", id="level-5"),
    pytest.param(CONCEDE, {}, [], Concede(A, 7, "X", 3), "contract", "suit", id="suit"),
    # The 4-player dealer sits out.
    pytest.param(
        CONCEDE,
        {"players": 4, "first_dealer": A},
        [],
        Concede(A, 7, "S", 3),
        "declarer",
        "active",
        id="dealer",
    ),
    # Leningrad exit 7 after a pass-out.
    pytest.param(
        rules("leningrad", concede=True),
        {},
        [po(4, 3, 3)],
        Concede(B, 6, "S", 3),
        "contract",
        "lowest contract is 7",
        id="exit",
    ),
]


@pytest.mark.parametrize(("tariff", "table", "before", "deal", "field", "message"), CONCEDE_ERRORS)
def test_concede_rejected(tariff, table, before, deal, field, message):
    sheet = new_pulka(tariff, **table)
    for earlier in before:
        sheet.play(earlier)
    with pytest.raises(RuleError) as error:
        sheet.play(deal)
    assert error.value.field == field
    assert message in error.value.message
    assert len(sheet.deals) == len(before)


def _record(deals: list[Any], **head: Any) -> dict[str, Any]:
    return {
        "format": "pulka/1",
        "game": "preferans",
        "rules": {"preset": "sochi", "concede": True},
        "players": ["A", "B", "C"],
        "deals": deals,
        **head,
    }


def test_concede_record_reads_and_writes_back():
    data = _record(
        [
            {"kind": "concede", "declarer": "A", "contract": "7S", "undertricks": 3},
            {"kind": "concede", "declarer": "B", "contract": "8H"},
        ]
    )
    setup, deals = parse_record(data)
    assert deals == [Concede(A, 7, "S", 3), Concede(B, 8, "H", None)]
    again = to_record(setup, deals)
    assert again["deals"] == data["deals"]
    assert parse_record(json.loads(json.dumps(again))) == (setup, deals)
    result = score_record(data)
    # A 3 × 4 = 12; B the usual 3 × 6 = 18.
    assert result["deals"][0]["entries"] == [["mountain", "A", 12]]
    assert result["deals"][1]["entries"] == [["mountain", "B", 18]]
    assert [d["dealer"] for d in result["deals"]] == ["A", "B"]


@pytest.mark.parametrize(
    ("deal", "field", "message"),
    [
        ({"undertricks": 8}, "undertricks", "1–7"),
        ({"undertricks": "3"}, "undertricks", "whole number"),
        ({"dark": True}, "dark", "unknown field"),
        ({"contract": "7Q"}, "contract", "level 6–10"),
        ({"declarer": "Z"}, "declarer", "not a player"),
    ],
)
def test_concede_record_errors(deal, field, message):
    raw = {"kind": "concede", "declarer": "A", "contract": "7S", **deal}
    with pytest.raises(RuleError) as error:
        parse_record(_record([raw]))
    assert error.value.field == field
    assert error.value.deal == 1
    assert message in error.value.message


# -- 13.12 control time and the last round, 13.13 the arrow --------------------------------------


def _misere(sheet: Pulka) -> Misere:
    """A legal deal for the current dealer: the first active seat after him, a misère."""
    n = sheet.setup.size
    return Misere((sheet.dealer + 1) % n, 1)


LAST_ROUND_CASES = [
    # (players, first dealer, control_time_deal, last_round, deals in all before complete)
    # 3 players, dealer A: after 1 deal B deals; B and C deal, then back to A.
    pytest.param(3, A, 1, "finish_circle", 3, id="3p-after-1"),
    pytest.param(3, A, 1, "one_more_circle", 6, id="3p-after-1-one-more"),
    # After 3 deals the deal is back at A: finish_circle completes at once.
    pytest.param(3, A, 3, "finish_circle", 3, id="3p-at-first-dealer"),
    pytest.param(3, A, 3, "one_more_circle", 6, id="3p-at-first-dealer-one-more"),
    pytest.param(3, A, 0, "finish_circle", 0, id="3p-before-any-deal"),
    pytest.param(3, A, 0, "one_more_circle", 3, id="3p-before-any-deal-one-more"),
    # 4 players, first dealer C; after 2 deals A deals: A, B, then back to C.
    pytest.param(4, C, 2, "finish_circle", 4, id="4p-after-2"),
    pytest.param(4, C, 2, "one_more_circle", 8, id="4p-after-2-one-more"),
    pytest.param(4, C, 5, "finish_circle", 8, id="4p-after-5"),
]


@pytest.mark.parametrize(("players", "first", "control", "last", "total"), LAST_ROUND_CASES)
def test_last_round(players, first, control, last, total):
    sheet = new_pulka(
        rules(last_round=last), players=players, first_dealer=first, control_time_deal=control
    )
    for played in range(total):
        assert not sheet.complete
        assert sheet.last_round is (played >= control)
        if played >= control:
            assert sheet.deals_left() == total - played
        else:
            assert sheet.deals_left() is None
        sheet.play(_misere(sheet))
    assert sheet.complete
    assert sheet.deals_left() == 0
    assert sheet.dealer == first
    with pytest.raises(RuleError) as error:
        sheet.play(_misere(sheet))
    assert error.value.field == "kind"
    assert "complete" in error.value.message
    sheet.play(pools(1))  # adjustments stay allowed
    result = sheet.result()
    assert result.complete
    assert (result.last_round, result.deals_left) == (True, 0)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("last", ["finish_circle", "one_more_circle"])
def test_counting_the_deal_in_play_changes_the_round_only_at_the_first_dealer(players, last):
    """Why the clock's mark counts the deal being saved as played (the site's
    ``services.tables._clock_mark``): marking after ``k`` deals or after ``k + 1`` leaves
    the same deals to play wherever the deal is, except when deal ``k + 1`` is the first
    dealer's. There ``k`` would complete the pulka before it (finish_circle) or make its
    circle the extra one (one_more_circle)."""

    def total(control: int) -> int:
        sheet = new_pulka(rules(last_round=last), players=players, control_time_deal=control)
        while not sheet.complete:
            sheet.play(_misere(sheet))
        return sheet.played

    for k in range(3 * players):
        if k % players:
            assert total(k) == total(k + 1), k
        elif last == "finish_circle":
            assert (total(k), total(k + 1)) == (k, k + players)
        else:
            assert (total(k), total(k + 1)) == (k + players, k + 2 * players)


def test_adjustments_do_not_count_towards_the_control_time():
    sheet = new_pulka(SOCHI, control_time_deal=1)
    sheet.play(pools(1))
    assert not sheet.last_round
    sheet.play(_misere(sheet))
    assert sheet.last_round
    assert sheet.deals_left() == 2


def test_last_round_with_the_classic_dealer_repeating():
    """deals_left counts as if the deal passed every time: a repeated pass-out dealer
    leaves it where it is."""
    sheet = new_pulka(CLASSIC, control_time_deal=1)
    sheet.play(_misere(sheet))  # A dealt; B deals next
    assert sheet.deals_left() == 2
    sheet.play(po(4, 3, 3))  # B deals again
    assert (sheet.dealer, sheet.deals_left()) == (B, 2)
    sheet.play(po(4, 3, 3))
    sheet.play(po(4, 3, 3))  # the third in a row: the deal moves on to C
    assert (sheet.dealer, sheet.deals_left()) == (C, 1)
    sheet.play(po(4, 3, 3))  # C deals again
    assert not sheet.complete
    sheet.play(_misere(sheet))
    assert sheet.complete


def test_mark_control_time_live_equals_the_record_field():
    deals = [game(B, "6S", {C: PA, A: PA}), po(4, 3, 3), Misere(A, 0), po(5, 5, 0)]
    live = new_pulka(SOCHI)
    for deal in deals[:2]:
        live.play(deal)
    live.mark_control_time()
    live.mark_control_time()  # a second press changes nothing
    assert live.control_time_deal == 2
    assert live.deals_left() == 1
    live.play(deals[2])
    assert live.complete
    replay = score_pulka(PulkaSetup(NAMES[:3], SOCHI, control_time_deal=2), deals[:3])
    assert live.setup.control_time_deal == 2  # the setup a record of it would give
    assert live.result() == replay


def test_first_dealer_and_current_dealer():
    sheet = new_pulka(SOCHI, players=4, first_dealer=C)
    sheet.play(Misere(D, 0))
    sheet.play(Misere(A, 0))
    assert (sheet.first_dealer, sheet.dealer) == (C, A)
    result = sheet.result()
    assert (result.first_dealer, result.dealer) == (C, A)
    assert (result.last_round, result.deals_left) == (False, None)


def test_control_time_record_field():
    data = _record([{"kind": "misere", "declarer": "B", "tricks": {"B": 0}}] * 3)
    assert score_record(data)["complete"] is False
    data["control_time_deal"] = 1
    setup, _ = parse_record(data)
    assert setup.control_time_deal == 1
    assert to_record(*parse_record(data))["control_time_deal"] == 1
    # A dealt 1, B 2, C 3, back to A: complete after the third deal.
    assert score_record(data)["complete"] is True
    data["deals"] = data["deals"] * 2
    with pytest.raises(RuleError) as error:
        score_record(data)
    assert (error.value.deal, error.value.field) == (4, "kind")
    assert "control_time_deal" not in to_record(PulkaSetup(("A", "B", "C")), [])


@pytest.mark.parametrize(
    ("value", "message"), [(-1, "0–100000"), ("3", "whole number"), (True, "whole number")]
)
def test_control_time_record_field_errors(value, message):
    with pytest.raises(RuleError) as error:
        parse_record(_record([], control_time_deal=value))
    assert error.value.field == "control_time_deal"
    assert error.value.deal is None
    assert message in error.value.message


def test_control_time_setup_error():
    with pytest.raises(RuleError) as error:
        PulkaSetup(NAMES[:3], control_time_deal=-1)
    assert error.value.field == "control_time_deal"


# -- the settings themselves: defaults, round trip, validation ----------------------------------

NEW_DEFAULTS = {
    "consolation_rate": None,  # unchanged per preset
    "settlement_pools": "counted",
    "duty_at_one": "second",
    "two_whister_duty": "personal",
    "duty_on_remise": True,
    "passout_zero_bonus": "price",
    "passout_series_ends_on": "any_deal",
    "passout_series_end_level": 8,
    "help_to": "largest",
    "overflow_floor": "none",
    "stalingrad": False,
    "concede": False,
    "concede_undertricks": 3,
    "concede_consolation": False,
    "last_round": "finish_circle",
}


# The federation's preset (issue 31) ends a series only with a whisted made game.
@pytest.mark.parametrize("preset", sorted(set(PRESETS) - {"fspr_leningrad"}))
def test_every_preset_has_the_first_listed_values(preset):
    exported = PRESETS[preset].to_dict()
    for name, value in NEW_DEFAULTS.items():
        if value is not None:
            assert exported[name] == value, name


@pytest.mark.parametrize("preset", sorted(set(PRESETS) - {"fspr_leningrad"}))
def test_an_old_settings_dict_reads_with_the_defaults(preset):
    """A tariff snapshot stored before §13: no new keys, passout_zero_bonus true."""
    old = PRESETS[preset].to_dict()
    for name in NEW_DEFAULTS:
        if name not in ("consolation_rate", "two_whister_duty", "passout_zero_bonus"):
            del old[name]
    old["passout_zero_bonus"] = True
    assert PreferansRules.from_dict(old) == PRESETS[preset]
    assert (
        PreferansRules.from_dict(json.loads(json.dumps(PRESETS[preset].to_dict())))
        == (PRESETS[preset])
    )


def test_every_new_value_round_trips():
    changed = rules(
        consolation_rate=0,
        settlement_pools="ignored",
        duty_at_one="each_own",
        two_whister_duty="proportional",
        duty_on_remise=False,
        passout_zero_bonus="mountain",
        passout_series_ends_on="made_game_from_level",
        passout_series_end_level=9,
        help_to="clockwise",
        overflow_floor="zero",
        stalingrad=True,
        concede=True,
        concede_undertricks=2,
        concede_consolation=True,
        last_round="one_more_circle",
    )
    exported = changed.to_dict()
    assert exported["consolation_rate"] == 0
    assert exported["passout_zero_bonus"] == "mountain"
    assert PreferansRules.from_dict(json.loads(json.dumps(exported))) == changed


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("duty_on_remise", "no", False),
        ("stalingrad", "yes", True),
        ("concede", "yes", True),
        ("concede", "no", False),
    ],
)
def test_yes_no_settings_read_yes_and_no(name, text, value):
    assert getattr(rules(**{name: text}), name) is value


BAD_SETTINGS = [
    pytest.param({"consolation_rate": -1}, "rules.consolation_rate", "0 or a positive", id="neg"),
    pytest.param({"settlement_pools": "half"}, "rules.settlement_pools", "counted", id="pools"),
    pytest.param({"duty_at_one": "first"}, "rules.duty_at_one", "second_own", id="at-one"),
    pytest.param(
        {"two_whister_duty": "shared"}, "rules.two_whister_duty", "proportional", id="two"
    ),
    pytest.param({"duty_on_remise": "maybe"}, "rules.duty_on_remise", "true or false", id="dr"),
    pytest.param({"duty_on_remise": 1}, "rules.duty_on_remise", "true or false", id="dr-int"),
    pytest.param(
        {"passout_zero_bonus": "yes"}, "rules.passout_zero_bonus", "price, none", id="bonus"
    ),
    pytest.param(
        {"passout_series_ends_on": "never"},
        "rules.passout_series_ends_on",
        "made_game_from_level",
        id="ends-on",
    ),
    pytest.param(
        {"passout_series_end_level": 5},
        "rules.passout_series_end_level",
        "from 6 to 10",
        id="end-level-5",
    ),
    pytest.param(
        {"passout_series_end_level": "8"},
        "rules.passout_series_end_level",
        "whole number",
        id="end-level-text",
    ),
    pytest.param({"help_to": "smallest"}, "rules.help_to", "clockwise", id="help-to"),
    pytest.param({"overflow_floor": 0}, "rules.overflow_floor", "none, zero", id="floor"),
    pytest.param({"stalingrad": "da"}, "rules.stalingrad", "true or false", id="stalingrad"),
    pytest.param(
        {"concede": True, "concede_undertricks": 0},
        "rules.concede_undertricks",
        "1 to 10",
        id="undertricks-0",
    ),
    pytest.param(
        {"concede": True, "concede_undertricks": 11},
        "rules.concede_undertricks",
        "1 to 10",
        id="undertricks-11",
    ),
    pytest.param(
        {"concede_consolation": True},
        "rules.concede_consolation",
        "concede = no",
        id="consolation-without-concede",
    ),
    pytest.param({"last_round": "two"}, "rules.last_round", "one_more_circle", id="last-round"),
]


@pytest.mark.parametrize(("overrides", "field", "message"), BAD_SETTINGS)
def test_bad_settings_are_refused(overrides, field, message):
    with pytest.raises(RuleError) as error:
        rules(**overrides)
    assert error.value.field == field
    assert message in error.value.message


def test_direct_construction_is_checked_too():
    with pytest.raises(RuleError) as error:
        PreferansRules(help_to="nobody")  # type: ignore[arg-type]
    assert error.value.field == "rules.help_to"


def test_whole_record_with_every_new_setting_scores():
    """One record through the JSON path: Stalingrad 6S, a concession, a pass-out with the
    mountain bonus, settlement without pools."""
    data = {
        "format": "pulka/1",
        "game": "preferans",
        "rules": {
            "preset": "sochi",
            "stalingrad": "yes",
            "concede": "yes",
            "passout_zero_bonus": "mountain",
            "settlement_pools": "ignored",
        },
        "players": ["A", "B", "C"],
        "whist_price": "1",
        "deals": [
            {
                "kind": "game",
                "declarer": "A",
                "contract": "6S",
                "answers": {"B": "whist", "C": "whist"},
                "tricks": {"A": 6, "B": 2, "C": 2},
            },
            {"kind": "concede", "declarer": "B", "contract": "7S"},
            {"kind": "passout", "tricks": {"A": 0, "B": 4, "C": 6}},
        ],
    }
    result = score_record(data)
    # A: pool 2, mountain −2; B: mountain 12 + 4 = 16; C: mountain 6.
    # Whists: B → A 4, C → A 4. Mountains avg (−2 + 16 + 6)/3 = 20/3; pools ignored.
    # A: −10 × (−2 − 20/3) − 8 = 260/3 − 8 = 236/3 = 78.67.
    players = result["players"]
    assert (players["A"]["pool"], players["A"]["mountain"]) == (2, -2)
    assert players["B"]["mountain"] == 16
    assert players["C"]["mountain"] == 6
    assert players["A"]["balance"] == "78.67"
    assert players["B"]["balance"] == "-89.33"  # −10 × (16 − 20/3) + 4 = −280/3 + 4
    assert players["C"]["balance"] == "10.67"  # −10 × (6 − 20/3) + 4 = 20/3 + 4
    assert isinstance(Decimal(players["C"]["money"]), Decimal)
