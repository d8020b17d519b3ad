"""The third edition's house settings (preferans.md §14), worked by hand.

First the worked checks printed in §14, one table row each (numbers copied from the
spec, since a clone has no ../shared), then each setting's interplay with 4 players,
gentleman's whist, dark games and the other settings, then the refusals. Seats: A=0, B=1,
C=2, D=3, clockwise; Sochi values 6/7/8/9/10 = 2/4/6/8/10. An entry is ``P(seat, n)``
(pool), ``M(seat, n)`` (mountain) or ``W(writer, on, n)`` (whists ``writer`` writes on
``on``).
"""

from __future__ import annotations

from typing import Any

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.preferans import (
    Adjustment,
    Concede,
    Misere,
    Passout,
    PreferansRules,
    Pulka,
    PulkaSetup,
)
from scoring.engine.preferans.record import parse_record, score_record, to_record
from tests.scoring.engine.preferans.test_preferans_house_settings import (
    HA,
    PA,
    WH,
    A,
    B,
    C,
    D,
    M,
    P,
    W,
    game,
    po,
    written,
)


def rules(preset: str = "sochi", **overrides: Any) -> PreferansRules:
    return PreferansRules.preset(preset).with_overrides(overrides)


def sheet(
    tariff: PreferansRules, players: int = 3, first_dealer: int = 0, pool_target: int = 20
) -> Pulka:
    return Pulka(
        PulkaSetup(
            players=("A", "B", "C", "D")[:players],
            rules=tariff,
            first_dealer=first_dealer,
            pool_target=pool_target,
        )
    )


def last_entries(
    tariff: PreferansRules, deals: list[Any], **table: Any
) -> tuple[Pulka, list[tuple[Any, ...]]]:
    """Play ``deals`` and return the pulka and what the last one wrote."""
    pulka = sheet(tariff, **table)
    for deal in deals[:-1]:
        pulka.play(deal)
    return pulka, written(pulka.play(deals[-1]))


SIX_5_3_2_BOTH = game(A, "6S", {B: WH, C: WH}, {A: 5, B: 3, C: 2})
SIX_5_3_2_LONE = game(A, "6S", {B: WH, C: PA}, {A: 5, B: 3, C: 2})
EIGHT_ALL = game(A, "8S", {B: WH, C: WH}, {A: 10, B: 0, C: 0})
MISERE_2 = Misere(A, 2)

# -- the worked checks printed in §14 -----------------------------------------------------

WORKED_CHECKS = [
    # 14.1 Rostov, fixed 10, 6S both whist, A 5 B 3 C 2: u = 1, remise 1 × 2; B 3 × 2 = 6,
    # C 2 × 2 = 4 for tricks, then each 1 × 10 = 10 consolation → B 16, C 14 on A.
    pytest.param(
        "rostov",
        {"consolation_fixed": 10},
        [SIX_5_3_2_BOTH],
        [M(A, 2), W(B, A, 6), W(C, A, 4), W(B, A, 10), W(C, A, 10)],
        id="14.1-fixed-10",
    ),
    # The same with the default (0): consolation 1 × 2 = 2 each → B 8, C 6.
    pytest.param(
        "rostov",
        {},
        [SIX_5_3_2_BOTH],
        [M(A, 2), W(B, A, 6), W(C, A, 4), W(B, A, 2), W(C, A, 2)],
        id="14.1-default",
    ),
    # 14.2 misère consolation 10, A takes 2: 2 × 10 = 20 into A's mountain; B, C 2 × 10.
    pytest.param(
        "sochi",
        {"misere_consolation": 10},
        [MISERE_2],
        [M(A, 20), W(B, A, 20), W(C, A, 20)],
        id="14.2-misere-consolation",
    ),
    pytest.param("sochi", {}, [MISERE_2], [M(A, 20)], id="14.2-default"),
    # 14.3 Rostov pass-out A 2 B 2 C 6, 5 whists × p1 = 1: C's 6 tricks → 6 × 5 = 30.
    pytest.param(
        "rostov",
        {"passout_whists_tie": "each"},
        [po(2, 2, 6)],
        [W(A, C, 30), W(B, C, 30)],
        id="14.3-each",
    ),
    pytest.param(
        "rostov",
        {"passout_whists_tie": "split"},
        [po(2, 2, 6)],
        [W(A, C, 15), W(B, C, 15)],
        id="14.3-split",
    ),
    # 14.4 ladder 1, 2, 3: the 4th pass-out in a row, A 5 B 5 C 0, costs 3 (last) or 1 (cycle).
    pytest.param(
        "sochi",
        {"passout_ladder_repeat": "last"},
        [po(4, 3, 3), po(4, 3, 3), po(4, 3, 3), po(5, 5, 0)],
        [M(A, 15), M(B, 15), P(C, 3)],
        id="14.4-last",
    ),
    pytest.param(
        "sochi",
        {"passout_ladder_repeat": "cycle"},
        [po(4, 3, 3), po(4, 3, 3), po(4, 3, 3), po(5, 5, 0)],
        [M(A, 5), M(B, 5), P(C, 1)],
        id="14.4-cycle",
    ),
    # 14.5 pass-out, A concedes 7S by 3, pass-out A 5 B 5 C 0: p2 = 2 (no) or p1 = 1 (yes).
    pytest.param(
        "sochi",
        {"concede": True, "concede_ends_passouts": False},
        [po(4, 3, 3), Concede(A, 7, "S", 3), po(5, 5, 0)],
        [M(A, 10), M(B, 10), P(C, 2)],
        id="14.5-no",
    ),
    pytest.param(
        "sochi",
        {"concede": True, "concede_ends_passouts": True},
        [po(4, 3, 3), Concede(A, 7, "S", 3), po(5, 5, 0)],
        [M(A, 5), M(B, 5), P(C, 1)],
        id="14.5-yes",
    ),
    # 14.6 8S both whist, A takes 10: none → only A's pool 6; second → C 1 × 6.
    pytest.param("sochi", {"duty_at_one": "none"}, [EIGHT_ALL], [P(A, 6)], id="14.6-none"),
    pytest.param(
        "sochi", {"duty_at_one": "second"}, [EIGHT_ALL], [P(A, 6), M(C, 6)], id="14.6-second"
    ),
    # 14.9 6S, B whist, C pass, A 5 B 3 C 2, greedy: B 5 × 2 = 10 for tricks, 1 × 2
    # consolation; C 2 (yes) or nothing (no).
    pytest.param(
        "sochi",
        {"consolation_by_passer": True},
        [SIX_5_3_2_LONE],
        [M(A, 2), W(B, A, 10), W(B, A, 2), W(C, A, 2)],
        id="14.9-yes",
    ),
    pytest.param(
        "sochi",
        {"consolation_by_passer": False},
        [SIX_5_3_2_LONE],
        [M(A, 2), W(B, A, 10), W(B, A, 2)],
        id="14.9-no",
    ),
]


@pytest.mark.parametrize(("preset", "overrides", "deals", "expected"), WORKED_CHECKS)
def test_worked_checks_of_section_14(preset, overrides, deals, expected):
    _, entries = last_entries(rules(preset, **overrides), deals)
    assert entries == expected


# 14.7 target 2; A 6S pass-pass closes A's pool; pass-out A 0 B 4 C 6: A's bonus p1 = 1.
CLOSED_BONUS = [game(A, "6S", {B: PA, C: PA}), po(0, 4, 6)]


def test_14_7_the_bonus_of_a_closed_pool_helps():
    pulka, entries = last_entries(rules(zero_bonus_when_closed="help"), CLOSED_BONUS, pool_target=2)
    # The bonus overflows: B (0) and C (0) tie for largest, first clockwise from A is B:
    # B pool +1 and A writes 1 × 10 on B; then the pass-out mountains.
    assert entries == [P(B, 1), W(A, B, 10), M(B, 4), M(C, 6)]
    assert pulka.pool == [2, 1, 0]


def test_14_7_the_bonus_of_a_closed_pool_comes_off_his_mountain():
    pulka, entries = last_entries(
        rules(zero_bonus_when_closed="mountain"), CLOSED_BONUS, pool_target=2
    )
    assert entries == [M(A, -1), M(B, 4), M(C, 6)]
    assert pulka.pool == [2, 0, 0]


def test_14_7_balances_are_equal_either_way():
    """Help: pools 2 1 0 (avg 1), mountains 0 4 6 (avg 10/3), A → B 10: A = 10 × 1 +
    10 × 10/3 + 10 = 160/3. Mountain: pools 2 0 0 (avg 2/3), mountains −1 4 6 (avg 3):
    A = 10 × 4/3 + 10 × 4 = 160/3."""
    balances = []
    for how in ("help", "mountain"):
        pulka, _ = last_entries(rules(zero_bonus_when_closed=how), CLOSED_BONUS, pool_target=2)
        balances.append(pulka.result().balances)
    assert balances[0] == balances[1]
    assert balances[0][A] * 3 == 160


def test_14_7_games_still_help():
    """Only the zero-trick bonus is kept from helping: target 2, A and B close their
    pools with 6S; A's next made 6S (2) helps C's open pool: C +2, A writes 2 × 10."""
    six = game(A, "6S", {B: PA, C: PA})
    _, entries = last_entries(
        rules(zero_bonus_when_closed="mountain"),
        [six, game(B, "6S", {C: PA, A: PA}), six],
        pool_target=2,
    )
    assert entries == [P(C, 2), W(A, C, 20)]


def test_14_7_a_bonus_that_closes_the_pool_gives_only_the_rest_to_the_mountain():
    """Target 2, A's pool 1 (an adjustment), Sochi's second pass-out p2 = 2: A's bonus
    2 → 1 up to the target, 1 off his mountain; nobody is helped."""
    pulka, entries = last_entries(
        rules(zero_bonus_when_closed="mountain"),
        [Adjustment("carried", pool={A: 1}), po(4, 3, 3), po(0, 4, 6)],
        pool_target=2,
    )
    assert [e for e in entries if e[0] == "pool"] == [P(A, 1)]
    assert M(A, -1) in entries
    assert pulka.pool == [2, 0, 0]


# 14.8 target 2; B 6S, C 6S (both pass) close B's and C's pools; A's made misère (10) has
# no open pool to help: 8 past A's own 2 come off his mountain.
NEGATIVE = [game(B, "6S", {C: PA, A: PA}), game(C, "6S", {A: PA, B: PA}), Misere(A, 0)]


@pytest.mark.parametrize(
    ("floor", "expected", "mountain"),
    [
        ("none", [P(A, 2), M(A, -8)], [-8, 0, 0]),
        ("shift_all", [P(A, 2), M(B, 8), M(C, 8)], [0, 8, 8]),
        ("zero", [P(A, 2)], [0, 0, 0]),
    ],
)
def test_14_8_negative_mountain_entries(floor, expected, mountain):
    pulka, entries = last_entries(rules(overflow_floor=floor), NEGATIVE, pool_target=2)
    assert entries == expected
    assert pulka.mountain == mountain


def test_14_8_only_the_part_below_zero_is_shifted():
    """A's mountain 3 first: of the 8, 3 come off A's own (to 0), 5 go on B and C each."""
    pulka, entries = last_entries(
        rules(overflow_floor="shift_all"),
        [Adjustment("carried", mountain={A: 3}), *NEGATIVE],
        pool_target=2,
    )
    assert entries == [P(A, 2), M(A, -3), M(B, 5), M(C, 5)]
    assert pulka.mountain == [0, 5, 5]


def test_14_8_shift_all_keeps_the_balances():
    results = [
        last_entries(rules(overflow_floor=floor), NEGATIVE, pool_target=2)[0].result()
        for floor in ("none", "shift_all")
    ]
    assert results[0].balances == results[1].balances
    # Pools 2 2 2; mountains −8 0 0 → A = −10 × (−8 + 8/3) = 160/3.
    assert results[0].balances[A] * 3 == 160


def test_14_8_the_mountain_zero_bonus_is_shifted_too():
    """passout_zero_bonus = mountain: A's −2 × 1 would take his 0 below zero → B, C 2."""
    _, entries = last_entries(
        rules(overflow_floor="shift_all", passout_zero_bonus="mountain"), [po(0, 4, 6)]
    )
    assert entries == [M(B, 2), M(C, 2), M(B, 4), M(C, 6)]


def test_14_8_a_correction_is_written_as_entered():
    _, entries = last_entries(
        rules(overflow_floor="shift_all"), [Adjustment("mistake", mountain={A: -5})]
    )
    assert entries == [M(A, -5)]


def test_14_8_four_players_shift_onto_all_three_others():
    """4 players, dealer D sits out; target 2, B and C close with 6S, A's misère: 8 on
    B, C and D each."""
    deals = [
        game(B, "6S", {C: PA, D: PA}),  # dealer A: active B C D
        game(C, "6S", {D: PA, A: PA}),  # dealer B: active C D A
        Misere(A, 0),  # dealer C: active D A B
    ]
    pulka = sheet(rules(overflow_floor="shift_all"), players=4, pool_target=2)
    for deal in deals[:-1]:
        pulka.play(deal)
    # A's 10: 2 up to his target, then help to D's open pool (2), then 6 past.
    entries = written(pulka.play(deals[-1]))
    assert entries == [P(A, 2), P(D, 2), W(A, D, 20), M(B, 6), M(C, 6), M(D, 6)]


# -- each setting with 4 players, gentleman's whist, dark games ---------------------------


def test_14_1_fixed_consolation_with_gentleman_whist():
    """Leningrad, fixed 10, 6S B whist C pass, A 5 B 4 C 1: remise 1 × 4; split
    (5 × 4 + 2 × 10) / 2 = 20 each."""
    _, entries = last_entries(
        rules("leningrad", consolation_fixed=10),
        [game(A, "6S", {B: WH, C: PA}, {A: 5, B: 4, C: 1})],
    )
    assert entries == [M(A, 4), W(B, A, 20), W(C, A, 20)]


def test_14_1_fixed_consolation_by_the_4_player_dealer_and_on_a_concession():
    """4 players, D deals; A 7S, B and C whist, A 5 B 3 C 2: u = 2, remise 2 × 4 = 8;
    tricks 3 × 4, 2 × 4; consolation 2 × 10 = 20 from B, C and the dealer D."""
    pulka = sheet(rules(consolation_fixed=10, concede=True, concede_consolation=True), 4, D)
    entries = written(pulka.play(game(A, "7S", {B: WH, C: WH}, {A: 5, B: 3, C: 2})))
    assert entries == [
        M(A, 8),
        W(B, A, 12),
        W(C, A, 8),
        W(B, A, 20),
        W(C, A, 20),
        W(D, A, 20),
    ]
    # Dealer A now; B concedes 6C by 2: 2 × 2 = 4; consolation 2 × 10 from C, D and A.
    entries = written(pulka.play(Concede(B, 6, "C", 2)))
    assert entries == [M(B, 4), W(C, B, 20), W(D, B, 20), W(A, B, 20)]


@pytest.mark.parametrize(
    ("by_dealer", "expected"),
    [
        (True, [M(A, 20), W(B, A, 20), W(C, A, 20), W(D, A, 20)]),
        (False, [M(A, 20), W(B, A, 20), W(C, A, 20)]),
    ],
)
def test_14_2_misere_consolation_with_4_players(by_dealer, expected):
    pulka = sheet(rules(misere_consolation=10, consolation_by_dealer=by_dealer), 4, D)
    assert written(pulka.play(MISERE_2)) == expected


def test_14_2_a_made_misere_is_not_consoled():
    _, entries = last_entries(rules(misere_consolation=10), [Misere(A, 0)])
    assert entries == [P(A, 10)]


def test_14_2_a_dark_misere_doubles_the_consolation():
    """Classic, dark misère, A takes 1: 1 × 10 × 2 = 20 mountain; 1 × 5 × 2 = 10 each."""
    _, entries = last_entries(rules("classic", misere_consolation=5), [Misere(A, 1, dark=True)])
    assert entries == [M(A, 20), W(B, A, 10), W(C, A, 10)]


@pytest.mark.parametrize(("tie", "each"), [("each", 35), ("split", 11)])
def test_14_3_three_tied_for_fewest_share_rounded_down(tie, each):
    """4 players, D deals and plays the widow (Classic, whist mode): A 1 B 1 C 7, D 1.
    Fewest 1: A, B, D. C's 7 × 5 × p1 = 35; split three ways → 11 each (35 / 3 rounded
    down)."""
    tariff = rules("classic", passout_mode="whists", passout_whists_tie=tie)
    pulka = sheet(tariff, 4, D)
    entries = written(pulka.play(Passout({A: 1, B: 1, C: 7}, dealer_tricks=1)))
    assert entries == [W(A, C, each), W(B, C, each), W(D, C, each)]


def test_14_3_split_writes_nothing_on_one_fewest():
    """No tie: A 0 B 4 C 6 → A writes 4 × 5 on B and 6 × 5 on C, and his bonus 1."""
    _, entries = last_entries(rules("rostov", passout_whists_tie="split"), [po(0, 4, 6)])
    assert entries == [W(A, B, 20), W(A, C, 30), P(A, 1)]


@pytest.mark.parametrize(
    ("repeat", "prices"),
    [("last", [1, 2, 3, 3, 3, 3, 3]), ("cycle", [1, 2, 3, 1, 2, 3, 1])],
)
def test_14_4_prices_past_the_end_of_the_ladder(repeat, prices):
    pulka = sheet(rules(passout_ladder_repeat=repeat))
    seen = []
    for _ in prices:
        seen.append(pulka.passout_price())
        pulka.play(po(4, 3, 3))
    assert seen == prices


def test_14_4_the_exit_ladder_is_unchanged():
    """Classic exit 6, 7, 8 and ladder 1, 2, 4 cycled: after 4 pass-outs the price is 1
    again but the lowest contract stays 8."""
    pulka = sheet(rules("classic", passout_ladder_repeat="cycle", passout_same_dealer=False))
    for _ in range(4):
        pulka.play(po(4, 3, 3))
    assert (pulka.passout_price(), pulka.lowest_contract()) == (2, 8)


def test_14_4_a_dark_passout_doubles_the_cycled_price():
    """Classic ladder 1, 2, 4 cycled: the 4th pass-out, dark, costs 1 × 2 per trick."""
    pulka = sheet(rules("classic", passout_ladder_repeat="cycle"))
    for _ in range(3):
        pulka.play(po(4, 3, 3))
    entries = written(pulka.play(po(5, 5, 0, dark=True)))
    assert entries == [M(A, 10), M(B, 10), P(C, 2)]


def test_14_5_the_exit_starts_again_after_a_concession():
    """Leningrad exit 7: after a pass-out and a concession ending the series a 6 is
    allowed again."""
    tariff = rules("leningrad", concede=True, concede_ends_passouts=True)
    pulka = sheet(tariff)
    pulka.play(po(4, 3, 3))
    assert pulka.lowest_contract() == 7
    pulka.play(Concede(A, 7, "S"))
    assert pulka.lowest_contract() == 6


def test_14_6_none_with_personal_if_pair_short_at_obligation_one():
    _, entries = last_entries(
        rules(duty_at_one="none", two_whister_duty="personal_if_pair_short"), [EIGHT_ALL]
    )
    assert entries == [P(A, 6)]


def test_14_6_none_leaves_a_lone_whister_responsible():
    """One whister at obligation 1 is charged as §4.3.5: 8S, B whist, C pass, A 10."""
    _, entries = last_entries(
        rules(duty_at_one="none"), [game(A, "8S", {B: WH, C: PA}, {A: 10, B: 0, C: 0})]
    )
    assert entries == [P(A, 6), M(B, 6)]


@pytest.mark.parametrize(
    ("by_passer", "share"),
    # (5 × 2 + 2 × 2) / 2 = 7 each; without the passer's consolation (5 × 2 + 2) / 2 = 6.
    [(True, 7), (False, 6)],
)
def test_14_9_gentleman_split_of_what_they_write(by_passer, share):
    tariff = rules(lone_whist="gentleman", consolation_by_passer=by_passer)
    _, entries = last_entries(tariff, [SIX_5_3_2_LONE])
    assert entries == [M(A, 2), W(B, A, share), W(C, A, share)]


def test_14_9_the_4_player_dealer_still_consoles():
    pulka = sheet(rules(consolation_by_passer=False), 4, D)
    entries = written(pulka.play(SIX_5_3_2_LONE))
    assert entries == [M(A, 2), W(B, A, 10), W(B, A, 2), W(D, A, 2)]


def test_14_9_two_whisters_both_console():
    _, entries = last_entries(rules(consolation_by_passer=False), [SIX_5_3_2_BOTH])
    assert entries == [M(A, 2), W(B, A, 6), W(C, A, 4), W(B, A, 2), W(C, A, 2)]


def test_a_half_whist_is_unchanged_by_the_new_settings():
    tariff = rules(consolation_by_passer=False, consolation_fixed=10, misere_consolation=10)
    _, entries = last_entries(tariff, [game(A, "6S", {B: PA, C: HA})])
    assert entries == [P(A, 2), W(C, A, 4)]


# -- defaults, records, refusals ----------------------------------------------------------

NEW = {
    "consolation_fixed": 0,
    "misere_consolation": 0,
    "passout_whists_tie": "each",
    "passout_ladder_repeat": "last",
    "concede_ends_passouts": False,
    "zero_bonus_when_closed": "help",
    "consolation_by_passer": True,
}


@pytest.mark.parametrize("preset", ["sochi", "leningrad", "rostov", "classic"])
def test_every_preset_has_the_defaults(preset):
    values = PreferansRules.preset(preset).to_dict()
    assert {name: values[name] for name in NEW} == NEW


def test_a_record_reads_yes_and_no_and_round_trips():
    record = {
        "format": "pulka/1",
        "game": "preferans",
        "rules": {
            "preset": "sochi",
            "consolation_by_passer": "no",
            "concede": "yes",
            "concede_ends_passouts": "yes",
            "overflow_floor": "shift_all",
            "consolation_fixed": 10,
        },
        "players": ["A", "B", "C"],
        "deals": [
            {
                "kind": "game",
                "declarer": "A",
                "contract": "6S",
                "answers": {"B": "whist", "C": "pass"},
                "tricks": {"A": 5, "B": 3, "C": 2},
            }
        ],
    }
    setup, deals = parse_record(record)
    assert setup.rules.consolation_by_passer is False
    assert setup.rules.concede_ends_passouts is True
    again = to_record(setup, deals)
    assert parse_record(again) == (setup, deals)
    # B 5 × 2 + 1 × 10; C writes nothing (no consolation by the passer).
    assert score_record(record)["players"]["B"]["whists"]["A"] == 20
    assert score_record(record)["players"]["C"]["whists"]["A"] == 0


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"consolation_fixed": -1}, "rules.consolation_fixed"),
        ({"consolation_fixed": 1001}, "rules.consolation_fixed"),
        ({"consolation_fixed": "10"}, "rules.consolation_fixed"),
        ({"misere_consolation": -5}, "rules.misere_consolation"),
        ({"misere_consolation": True}, "rules.misere_consolation"),
        ({"passout_whists_tie": "half"}, "rules.passout_whists_tie"),
        ({"passout_ladder_repeat": "loop"}, "rules.passout_ladder_repeat"),
        ({"concede_ends_passouts": "maybe"}, "rules.concede_ends_passouts"),
        ({"zero_bonus_when_closed": "pool"}, "rules.zero_bonus_when_closed"),
        ({"consolation_by_passer": 1}, "rules.consolation_by_passer"),
        ({"duty_at_one": "nobody"}, "rules.duty_at_one"),
        ({"overflow_floor": "shift"}, "rules.overflow_floor"),
        # Impossible combinations, refused with the setting's name.
        ({"consolation_rate": 0, "consolation_fixed": 10}, "rules.consolation_fixed"),
        ({"concede": False, "concede_ends_passouts": True}, "rules.concede_ends_passouts"),
    ],
)
def test_impossible_settings_are_refused_by_name(overrides, field):
    with pytest.raises(RuleError) as error:
        rules(**overrides)
    assert error.value.field == field


def test_a_refused_setting_changes_nothing_in_a_record():
    record = {
        "format": "pulka/1",
        "game": "preferans",
        "rules": {"preset": "sochi", "concede_ends_passouts": True},
        "players": ["A", "B", "C"],
        "deals": [],
    }
    with pytest.raises(RuleError, match="concede = no"):
        parse_record(record)


def test_unchanged_defaults_score_a_remise_as_before():
    """The §13 sheet's arithmetic with every §14 setting at its default: 7H, B and C
    whist, A 6 B 2 C 2 (§12 example 2) → A mountain 4; B and C 2 × 4 + 1 × 4 = 12."""
    _, entries = last_entries(rules(**NEW), [game(A, "7H", {B: WH, C: WH}, {A: 6, B: 2, C: 2})])
    assert entries == [M(A, 4), W(B, A, 8), W(C, A, 8), W(B, A, 4), W(C, A, 4)]
