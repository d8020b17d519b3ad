"""The four presets (preferans.md §11): their settings, one fixed pulka scored under each,
overrides checked by name and type, and the JSON round trip.

The expected sheets were worked out by hand from the rule book; the arithmetic is in the
comments. Seats: A=0, B=1, C=2.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.preferans import (
    Game,
    Misere,
    Passout,
    PreferansRules,
    PulkaSetup,
    score_pulka,
)

A, B, C = 0, 1, 2

# -- §11, copied by hand -------------------------------------------------------------------------

COMMON: dict[str, Any] = {
    "contract_values": (2, 4, 6, 8, 10, 10),
    "whist_obligations": (4, 2, 1, 1, 1),
    "whister_penalty_rate": 1,
    "consolation_by_dealer": True,
    "whister_duty": "responsible",
    "two_whister_duty": "personal",
    "ten_is_whisted": True,
    "half_whist_levels": (6, 7),
    "passout_amnesty": False,
    # §13.6 made this yes/no a choice: `true` now reads as "price", its meaning then.
    "passout_zero_bonus": "price",
    "misere_ends_passouts": True,
    "mountain_weight": 10,
    "settlement_divisor": "players",
}
TABLE_11: dict[str, dict[str, Any]] = {
    "sochi": {
        "whist_rate": 1,
        "remise_rate": 1,
        "consolation_rate": 1,
        "misere_penalty": 10,
        "lone_whist": "greedy",
        "passout_mode": "mountain",
        "passout_ladder": (1, 2, 3),
        "passout_exit": (6,),
        "dealer_takes_widow_tricks": False,
        "passout_same_dealer": False,
        "dark_games": False,
        "bombs": False,
        "pool_weight": 10,
        "help_whists_per_point": 10,
    },
    "leningrad": {
        "whist_rate": 2,
        "remise_rate": 2,
        "consolation_rate": 2,
        "misere_penalty": 20,
        "lone_whist": "gentleman",
        "passout_mode": "mountain",
        "passout_ladder": (2, 4, 6),
        "passout_exit": (7,),
        "dealer_takes_widow_tricks": False,
        "passout_same_dealer": False,
        "dark_games": False,
        "bombs": False,
        "pool_weight": 20,
        "help_whists_per_point": 20,
    },
    "rostov": {
        "whist_rate": 1,
        "remise_rate": 1,
        "consolation_rate": 1,
        "misere_penalty": 10,
        "lone_whist": "greedy",
        "passout_mode": "whists",
        "passout_whists": 5,
        "passout_ladder": (1,),
        "passout_exit": (6,),
        "dealer_takes_widow_tricks": False,
        "passout_same_dealer": False,
        "dark_games": False,
        "bombs": False,
        "pool_weight": 10,
        "help_whists_per_point": 10,
    },
    "classic": {
        "whist_rate": 1,
        "remise_rate": 1,
        "consolation_rate": 1,
        "misere_penalty": 10,
        "lone_whist": "greedy",
        "passout_mode": "mountain",
        "passout_ladder": (1, 2, 4),
        "passout_exit": (6, 7, 8),
        "dealer_takes_widow_tricks": True,
        "passout_same_dealer": True,
        "dark_games": True,
        "dark_multiplier": 2,
        "bombs": True,
        "pool_weight": 10,
        "help_whists_per_point": 10,
    },
}


@pytest.mark.parametrize("preset", list(TABLE_11))
def test_preset_matches_the_table(preset):
    rules = PreferansRules.preset(preset)
    for name, value in {**COMMON, **TABLE_11[preset]}.items():
        assert getattr(rules, name) == value, name


def test_sochi_is_the_default():
    assert PreferansRules.preset("sochi") == PreferansRules()


def test_unknown_preset():
    with pytest.raises(RuleError) as error:
        PreferansRules.preset("moscow")
    assert error.value.field == "rules"
    assert "unknown preset" in error.value.message


# -- one short pulka under each preset -----------------------------------------------------------

DEALS = [
    # 1. A 7♠, B whists, C passes; A 6, B 3, C 1 (remise by one, lone whister).
    Game(A, 7, "S", {B: "whist", C: "pass"}, {A: 6, B: 3, C: 1}),
    # 2.–4. Three pass-outs in a row.
    Passout({A: 6, B: 4, C: 0}),
    Passout({A: 2, B: 3, C: 5}),
    Passout({A: 3, B: 3, C: 4}),
    # 5. B 8♥ (allowed after 3 pass-outs everywhere: Classic's exit is 8), C and A whist;
    #    B 8, C 1, A 1.
    Game(B, 8, "H", {C: "whist", A: "whist"}, {A: 1, B: 8, C: 1}),
    # 6. C misère, takes 1 trick.
    Misere(C, 1),
    # 7. A 6♣, B passes, C half-whists.
    Game(A, 6, "C", {B: "pass", C: "half"}),
]

# Sochi (greedy, rates ×1, ladder 1/2/3):
#  1: u=1 → A mountain 4; B writes T=4 × 4 = 16, consolation 4 from B and 4 from C.
#  2: p1=1 → A 6, B 4 mountain; C pool 1.   3: p2=2 → A 4, B 6, C 10.
#  4: p3=3 → A 9, B 9, C 12.   5: B pool 6; C and A write 1 × 6 each (O=1 met).
#  6: C mountain 1 × 10.   7: A pool 2; C writes 2 tricks × 2 = 4 on A.
#  pool 2/6/1 (avg 3); mountain 23/19/32 (avg 74/3); whists A→B 6, B→A 20, C→A 8, C→B 6.
#  A: −10 + 50/3 + (6−20) + (0−8) = −46/3;  B: 30 + 170/3 + 14 − 6 = 284/3;
#  C: −20 − 220/3 + 8 + 6 = −238/3.  Cents −1533.33, 9466.67, −7933.33 → −1534, 9466, −7934
#  (sum −2); all cut-offs 2/3 → A, B get a cent.
SOCHI_SHEET = {
    "dealers": (A, B, C, A, B, C, A),
    "pool": (2, 6, 1),
    "mountain": (23, 19, 32),
    "whists": ((0, 6, 0), (20, 0, 0), (8, 6, 0)),
    "balances": (Fraction(-46, 3), Fraction(284, 3), Fraction(-238, 3)),
    "money": ("-15.33", "94.67", "-79.34"),
    "payments": ((C, B, "79.34"), (A, B, "15.33")),
}
# Leningrad (gentleman, rates ×2, ladder 2/4/6, pool weight 20, misère 20):
#  1: A mountain 1 × 8; split (4 × 8 + 2 × 8) / 2 = 24 from B and from C.
#  2: p1=2 → A 12, B 8; C pool 2.   3: p2=4 → A 8, B 12, C 20.   4: p3=6 → 18, 18, 24.
#  5: B pool 6; C, A write 1 × 12.   6: C mountain 20.   7: A pool 2; C writes 2 × 4 = 8.
#  pool 2/6/2 (avg 10/3); mountain 46/38/64 (avg 148/3); whists A→B 12, B→A 24, C→A 32,
#  C→B 12.  A: 20(−4/3) − 10(−10/3) + (12−24) + (0−32) = −112/3;
#  B: 20(8/3) − 10(−34/3) + 12 − 12 = 500/3;  C: 20(−4/3) − 10(44/3) + 32 + 12 = −388/3.
#  Cents −3733.33, 16666.67, −12933.33 → −3734, 16666, −12934 (sum −2) → A, B.
LENINGRAD_SHEET = {
    "dealers": (A, B, C, A, B, C, A),
    "pool": (2, 6, 2),
    "mountain": (46, 38, 64),
    "whists": ((0, 12, 0), (24, 0, 0), (32, 12, 0)),
    "balances": (Fraction(-112, 3), Fraction(500, 3), Fraction(-388, 3)),
    "money": ("-37.33", "166.67", "-129.34"),
    "payments": ((C, B, "129.34"), (A, B, "37.33")),
}
# Rostov (as Sochi for games; pass-outs in whists, 5 per trick):
#  2: C (0) writes 6 × 5 = 30 on A, 4 × 5 = 20 on B; C pool 1.
#  3: A (2) writes 3 × 5 = 15 on B, 5 × 5 = 25 on C.
#  4: A and B tie on 3: each writes 4 × 5 = 20 on C.
#  pool 2/6/1 (avg 3); mountain 4/0/10 (avg 14/3);
#  whists A→B 15+6 = 21, A→C 25+20 = 45, B→A 16+4 = 20, B→C 20, C→A 4+30+4 = 38,
#  C→B 20+6 = 26.  A: −10 + 20/3 + 1 + 7 = 14/3;  B: 30 + 140/3 − 1 − 6 = 209/3;
#  C: −20 − 160/3 − 7 + 6 = −223/3.  Cents 466.67, 6966.67, −7433.33 → 466, 6966, −7434
#  (sum −2) → A, B.
ROSTOV_SHEET = {
    "dealers": (A, B, C, A, B, C, A),
    "pool": (2, 6, 1),
    "mountain": (4, 0, 10),
    "whists": ((0, 21, 45), (20, 0, 20), (38, 26, 0)),
    "balances": (Fraction(14, 3), Fraction(209, 3), Fraction(-223, 3)),
    "money": ("4.67", "69.67", "-74.34"),
    "payments": ((C, B, "69.67"), (C, A, "4.67")),
}
# Classic (as Sochi but ladder 1/2/4; the dealer B repeats for three pass-outs):
#  4: p3=4 → A 12, B 12, C 16.  mountain 26/22/36 (avg 28).
#  A: −10 + 20 − 14 − 8 = −12;  B: 30 + 60 + 14 − 6 = 98;  C: −20 − 80 + 8 + 6 = −86.
CLASSIC_SHEET = {
    "dealers": (A, B, B, B, C, A, B),
    "pool": (2, 6, 1),
    "mountain": (26, 22, 36),
    "whists": ((0, 6, 0), (20, 0, 0), (8, 6, 0)),
    "balances": (-12, 98, -86),
    "money": ("-12.00", "98.00", "-86.00"),
    "payments": ((C, B, "86.00"), (A, B, "12.00")),
}
SHEETS = {
    "sochi": SOCHI_SHEET,
    "leningrad": LENINGRAD_SHEET,
    "rostov": ROSTOV_SHEET,
    "classic": CLASSIC_SHEET,
}


@pytest.mark.parametrize("preset", list(SHEETS))
def test_fixed_pulka_under_each_preset(preset):
    expected = SHEETS[preset]
    setup = PulkaSetup(players=("A", "B", "C"), rules=PreferansRules.preset(preset))
    result = score_pulka(setup, DEALS)
    assert tuple(deal.dealer for deal in result.deals) == expected["dealers"]
    assert result.pool == expected["pool"]
    assert result.mountain == expected["mountain"]
    assert result.whists == expected["whists"]
    assert result.balances == expected["balances"]
    assert sum(result.balances) == 0
    assert result.money == tuple(Decimal(m) for m in expected["money"])
    assert result.payments == tuple((p, q, Decimal(m)) for p, q, m in expected["payments"])
    assert result.complete is False


# -- overrides -----------------------------------------------------------------------------------

BAD_OVERRIDES = [
    pytest.param({"colour": "red"}, "rules.colour", "unknown setting", id="unknown-setting"),
    pytest.param({"whist_rates": 2}, "rules.whist_rates", "unknown setting", id="typo"),
    pytest.param({"whist_rate": True}, "rules.whist_rate", "must be a number", id="rate-bool"),
    pytest.param({"whist_rate": [1]}, "rules.whist_rate", "must be a number", id="rate-list"),
    pytest.param({"whist_rate": "two"}, "rules.whist_rate", "must be a number", id="rate-word"),
    pytest.param(
        {"remise_rate": "1/0"}, "rules.remise_rate", "must be a number", id="rate-zero-denominator"
    ),
    # §13.1 lets consolation_rate be 0 (test_preferans_house_settings); the others may not.
    pytest.param({"whist_rate": 0}, "rules.whist_rate", "positive", id="rate-zero"),
    pytest.param({"remise_rate": 0}, "rules.remise_rate", "positive", id="remise-rate-zero"),
    pytest.param(
        {"whister_penalty_rate": -1}, "rules.whister_penalty_rate", "positive", id="rate-negative"
    ),
    pytest.param(
        {"lone_whist": "rude"}, "rules.lone_whist", "greedy, gentleman", id="choice-unknown"
    ),
    pytest.param({"lone_whist": 1}, "rules.lone_whist", "greedy, gentleman", id="choice-number"),
    pytest.param(
        {"passout_mode": "chips"}, "rules.passout_mode", "mountain, whists", id="passout-mode"
    ),
    pytest.param(
        {"settlement_divisor": 2}, "rules.settlement_divisor", "players", id="divisor-number"
    ),
    pytest.param(
        {"two_whister_duty": "team"},
        "rules.two_whister_duty",
        "personal, pair",
        id="two-whister-duty",
    ),
    pytest.param(
        {"whister_duty": True}, "rules.whister_duty", "responsible, none", id="whister-duty-bool"
    ),
    pytest.param(
        {"ten_is_whisted": "yes"}, "rules.ten_is_whisted", "true or false", id="bool-string"
    ),
    pytest.param({"bombs": 1}, "rules.bombs", "true or false", id="bool-number"),
    pytest.param({"misere_penalty": 1.5}, "rules.misere_penalty", "whole number", id="int-float"),
    pytest.param({"misere_penalty": "10"}, "rules.misere_penalty", "whole number", id="int-string"),
    pytest.param({"pool_weight": True}, "rules.pool_weight", "whole number", id="int-bool"),
    pytest.param({"misere_penalty": 0}, "rules.misere_penalty", "positive", id="int-zero"),
    pytest.param(
        {"dark_multiplier": 0}, "rules.dark_multiplier", "positive", id="dark-multiplier-zero"
    ),
    pytest.param(
        {"passout_ladder": "1,2"},
        "rules.passout_ladder",
        "list of whole numbers",
        id="ladder-string",
    ),
    pytest.param(
        {"passout_ladder": [1, "2"]},
        "rules.passout_ladder",
        "list of whole numbers",
        id="ladder-mixed",
    ),
    pytest.param(
        {"passout_ladder": [1, True]},
        "rules.passout_ladder",
        "list of whole numbers",
        id="ladder-bool",
    ),
    pytest.param(
        {"passout_ladder": []}, "rules.passout_ladder", "must not be empty", id="ladder-empty"
    ),
    pytest.param(
        {"passout_ladder": [1, 0]}, "rules.passout_ladder", "positive", id="ladder-zero-step"
    ),
    pytest.param({"passout_exit": [5]}, "rules.passout_exit", "from 6 to 10", id="exit-5"),
    pytest.param({"passout_exit": []}, "rules.passout_exit", "must not be empty", id="exit-empty"),
    pytest.param(
        {"half_whist_levels": [11]}, "rules.half_whist_levels", "from 6 to 10", id="half-whist-11"
    ),
    pytest.param(
        {"contract_values": [2, 4, 6]},
        "rules.contract_values",
        "6 positive values",
        id="values-short",
    ),
    pytest.param(
        {"whist_obligations": [4, 2, 1, 1]},
        "rules.whist_obligations",
        "5 obligations",
        id="obligations-short",
    ),
]


@pytest.mark.parametrize("preset", ["sochi", "classic"])
@pytest.mark.parametrize(("overrides", "field", "message"), BAD_OVERRIDES)
def test_with_overrides_rejects(preset, overrides, field, message):
    base = PreferansRules.preset(preset)
    with pytest.raises(RuleError) as error:
        base.with_overrides(overrides)
    assert error.value.field == field
    assert message in error.value.message
    assert PreferansRules.preset(preset) == base


def test_with_overrides_changes_only_what_is_named():
    base = PreferansRules.preset("leningrad")
    changed = base.with_overrides(
        {"whist_rate": "3/2", "passout_ladder": [1, 2], "lone_whist": "greedy", "bombs": True}
    )
    assert changed.whist_rate == Fraction(3, 2)
    assert changed.passout_ladder == (1, 2)
    assert (changed.lone_whist, changed.bombs) == ("greedy", True)
    assert changed.remise_rate == 2
    assert changed.pool_weight == 20
    assert base.whist_rate == 2
    assert base.with_overrides({}) == base


@pytest.mark.parametrize("preset", list(TABLE_11))
def test_to_dict_from_dict_round_trip(preset):
    rules = PreferansRules.preset(preset)
    exported = rules.to_dict()
    assert PreferansRules.from_dict(exported) == rules
    # ... and through JSON text, as a record or the database stores it.
    assert PreferansRules.from_dict(json.loads(json.dumps(exported))) == rules
    assert exported["passout_ladder"] == list(TABLE_11[preset]["passout_ladder"])


def test_round_trip_keeps_a_fractional_rate():
    rules = PreferansRules.preset("classic").with_overrides({"consolation_rate": "3/2"})
    exported = rules.to_dict()
    assert exported["consolation_rate"] == "3/2"
    assert exported["whist_rate"] == 1
    assert PreferansRules.from_dict(json.loads(json.dumps(exported))) == rules
