"""The Preferans rule book (shared/spec/preferans.md), section by section, as tables.

Every expected number here was worked out by hand from the rule book and the lead's
conventions (entry order, quotas, help entries); the arithmetic sits in the comment beside
each row. Nothing was copied from the engine's output. Seats: A=0, B=1, C=2, D=3, clockwise.

An entry is written as ``P(seat, n)`` (pool), ``M(seat, n)`` (mountain) or
``W(writer, on, n)`` (whists written by ``writer`` on ``on``).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.preferans import (
    Adjustment,
    DealResult,
    Game,
    Misere,
    Passout,
    PreferansRules,
    Pulka,
    PulkaSetup,
    joining_player_entry,
    settle,
)

A, B, C, D = 0, 1, 2, 3
NAMES = ("A", "B", "C", "D")
WH, PA, HA = "whist", "pass", "half"


def rules(preset: str = "sochi", **overrides: Any) -> PreferansRules:
    return PreferansRules.preset(preset).with_overrides(overrides)


SOCHI = rules("sochi")
LENINGRAD = rules("leningrad")
ROSTOV = rules("rostov")
CLASSIC = rules("classic")
PRESETS = {"sochi": SOCHI, "leningrad": LENINGRAD, "rostov": ROSTOV, "classic": CLASSIC}


def P(seat: int, amount: Any) -> tuple[Any, ...]:
    return ("pool", seat, amount)


def M(seat: int, amount: Any) -> tuple[Any, ...]:
    return ("mountain", seat, amount)


def W(writer: int, on: int, amount: Any) -> tuple[Any, ...]:
    return ("whists", writer, on, amount)


def game(
    declarer: int,
    level: int,
    answers: dict[int, str],
    tricks: dict[int, int] | None = None,
    *,
    dark: bool = False,
) -> Game:
    return Game(declarer, level, "S", answers, tricks, dark)


def po(a: int, b: int, c: int, *, dark: bool = False, looked: tuple[int, ...] = ()) -> Passout:
    """A 3-player pass-out with A, B, C taking ``a``, ``b``, ``c`` tricks."""
    return Passout({A: a, B: b, C: c}, dark=dark, looked=frozenset(looked))


def new_pulka(
    tariff: PreferansRules,
    players: int = 3,
    first_dealer: int = 0,
    pool_target: int = 20,
    price: str = "1",
) -> Pulka:
    return Pulka(
        PulkaSetup(
            players=NAMES[:players],
            rules=tariff,
            first_dealer=first_dealer,
            pool_target=pool_target,
            whist_price=Decimal(price),
        )
    )


def written(result: DealResult) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for e in result.entries:
        if e.kind == "whists":
            out.append(("whists", e.player, e.on, e.amount))
        else:
            out.append((e.kind, e.player, e.amount))
    return out


def play_last(
    tariff: PreferansRules, table: dict[str, Any], before: list[Any], deal: Any
) -> tuple[Pulka, list[tuple[Any, ...]]]:
    sheet = new_pulka(tariff, **table)
    for earlier in before:
        sheet.play(earlier)
    return sheet, written(sheet.play(deal))


# -- §1 Table, seats, dealer ------------------------------------------------------------------


def _filler(sheet: Pulka, kind: str) -> Any:
    """A legal deal of ``kind`` for the sheet's current dealer: the seat after the dealer
    declares a made misère (never restricted by the pass-out exit)."""
    n = sheet.setup.size
    dealer = sheet.dealer
    active = [s for s in range(n) if n == 3 or s != dealer]
    if kind == "misere":
        return Misere((dealer + 1) % n, 0)
    if kind == "passout":
        return Passout(dict(zip(active, (4, 3, 3), strict=True)))
    return Adjustment("correction", mountain={A: 1})


ROTATION_CASES = [
    # 3 players, first dealer B: the deal passes clockwise B → C → A → B, next C.
    pytest.param(SOCHI, 3, B, ["misere"] * 4, [B, C, A, B], C, id="3p-clockwise-from-B"),
    # 4 players from A: A, B, C, D, A; next B.
    pytest.param(SOCHI, 4, A, ["misere"] * 5, [A, B, C, D, A], B, id="4p-clockwise-from-A"),
    # A pass-out is a deal like any other (Sochi: no same-dealer rule).
    pytest.param(
        SOCHI,
        3,
        A,
        ["passout", "passout", "misere"],
        [A, B, C],
        A,
        id="sochi-passouts-move-the-deal",
    ),
    # An adjustment is not a deal: dealer None, the deal does not move.
    pytest.param(
        SOCHI, 3, A, ["misere", "adjust", "misere"], [A, None, B], C, id="adjustment-keeps-dealer"
    ),
    # Classic: the dealer repeats after a pass-out, up to 3 in a row, then the deal moves:
    # A, A, A (3rd pass-out moves it), B (1st of B's), B (game), then C; next A.
    pytest.param(
        CLASSIC,
        3,
        A,
        ["passout"] * 4 + ["misere"] * 2,
        [A, A, A, B, B, C],
        A,
        id="classic-same-dealer-up-to-3",
    ),
    pytest.param(
        CLASSIC,
        3,
        A,
        ["passout", "misere", "misere"],
        [A, A, B],
        C,
        id="classic-game-after-one-passout",
    ),
    pytest.param(
        CLASSIC, 4, D, ["passout"] * 3 + ["misere"], [D, D, D, A], B, id="classic-4p-same-dealer"
    ),
    pytest.param(
        rules("classic", passout_same_dealer=False),
        3,
        A,
        ["passout", "passout"],
        [A, B],
        C,
        id="classic-same-dealer-off",
    ),
]


@pytest.mark.parametrize(
    ("tariff", "players", "first", "kinds", "dealers", "next_dealer"), ROTATION_CASES
)
def test_dealer_rotation(tariff, players, first, kinds, dealers, next_dealer):
    sheet = new_pulka(tariff, players=players, first_dealer=first)
    seen = [sheet.play(_filler(sheet, kind)).dealer for kind in kinds]
    assert seen == dealers
    assert sheet.dealer == next_dealer


def test_four_player_dealer_sits_out():
    # 4 players, dealer B: A, C, D hold cards; A's defenders are C, D (B skipped).
    sheet = new_pulka(SOCHI, players=4, first_dealer=B)
    assert sheet.active_seats() == (A, C, D)
    assert sheet.defenders(A) == (C, D)
    assert sheet.defenders(D) == (A, C)
    with pytest.raises(RuleError) as error:
        sheet.play(game(B, 6, {C: PA, D: PA}))
    assert (error.value.field, error.value.deal) == ("declarer", 1)
    with pytest.raises(RuleError) as error:
        sheet.play(Misere(B, 0))
    assert error.value.field == "declarer"


# -- §3 values and rates -------------------------------------------------------------------------

# Hand-copied from §3 and §11: V per level, O per level, then rates (×V) and the misère penalty.
VALUE_CASES = [
    pytest.param("sochi", (2, 4, 6, 8, 10), 10, (4, 2, 1, 1, 1), (1, 1, 1, 1), 10, id="sochi"),
    pytest.param(
        "leningrad", (2, 4, 6, 8, 10), 10, (4, 2, 1, 1, 1), (2, 2, 2, 1), 20, id="leningrad"
    ),
    pytest.param("rostov", (2, 4, 6, 8, 10), 10, (4, 2, 1, 1, 1), (1, 1, 1, 1), 10, id="rostov"),
    pytest.param("classic", (2, 4, 6, 8, 10), 10, (4, 2, 1, 1, 1), (1, 1, 1, 1), 10, id="classic"),
]


@pytest.mark.parametrize(
    ("preset", "values", "misere", "obligations", "rates", "penalty"), VALUE_CASES
)
def test_values_and_rates(preset, values, misere, obligations, rates, penalty):
    tariff = PRESETS[preset]
    assert tuple(tariff.value(level) for level in (6, 7, 8, 9, 10)) == values
    assert tariff.misere_value == misere
    assert tuple(tariff.obligation(level) for level in (6, 7, 8, 9, 10)) == obligations
    assert (
        tariff.whist_rate,
        tariff.remise_rate,
        tariff.consolation_rate,
        tariff.whister_penalty_rate,
    ) == rates
    assert tariff.misere_penalty == penalty


# -- §4 games, §5 misère, §7 dark contracts: what one deal writes ------------------------------

S3: dict[str, Any] = {}
S4A: dict[str, Any] = {"players": 4, "first_dealer": A}
S4B: dict[str, Any] = {"players": 4, "first_dealer": B}
S4C: dict[str, Any] = {"players": 4, "first_dealer": C}
S4D: dict[str, Any] = {"players": 4, "first_dealer": D}
EX1 = game(A, 6, {B: WH, C: PA}, {A: 6, B: 3, C: 1})
EX2 = game(A, 7, {B: WH, C: WH}, {A: 6, B: 2, C: 2})
EX3 = game(B, 8, {C: WH, A: WH}, {A: 0, B: 10, C: 0})
GENTLEMAN_ODD = rules(lone_whist="gentleman", contract_values=[3, 4, 6, 8, 10, 10])
O3 = rules(whist_obligations=[3, 2, 1, 1, 1])
PAIR = rules(two_whister_duty="pair")
NO_DUTY = rules(whister_duty="none")

GAME_CASES = [
    # §12 worked examples 1–3 (Sochi).
    # 1: A 6 made: pool V=2; lone whister B writes T=(3+1) × 2 = 8. T=4 = O: no duty.
    pytest.param(SOCHI, S3, [], EX1, [P(A, 2), W(B, A, 8)], id="12.1-example-1"),
    # 2: u=1: mountain 1 × 4; B, C write 2 tricks × 4 = 8, then consolation 1 × 4 each
    #    (B 12, C 12 in all). Quota O=2 → 1 each, both took 2.
    pytest.param(
        SOCHI,
        S3,
        [],
        EX2,
        [M(A, 4), W(B, A, 8), W(C, A, 8), W(B, A, 4), W(C, A, 4)],
        id="12.2-example-2",
    ),
    # 3: B 8 made: pool 6; no defence tricks, O=1, second whister after B (C, A) is A: 1 × 6.
    pytest.param(SOCHI, S3, [], EX3, [P(B, 6), M(A, 6)], id="12.3-example-3"),
    # §4.1 both pass: V into the pool, nothing else. V = 2/4/6/8/10.
    pytest.param(SOCHI, S3, [], game(A, 6, {B: PA, C: PA}), [P(A, 2)], id="4.1-both-pass-6"),
    pytest.param(SOCHI, S3, [], game(A, 7, {B: PA, C: PA}), [P(A, 4)], id="4.1-both-pass-7"),
    pytest.param(SOCHI, S3, [], game(A, 8, {B: PA, C: PA}), [P(A, 6)], id="4.1-both-pass-8"),
    pytest.param(SOCHI, S3, [], game(C, 9, {A: PA, B: PA}), [P(C, 8)], id="4.1-both-pass-9"),
    pytest.param(
        LENINGRAD, S3, [], game(B, 10, {C: PA, A: PA}), [P(B, 10)], id="4.1-both-pass-10-leningrad"
    ),
    pytest.param(
        rules(ten_is_whisted=False),
        S3,
        [],
        game(A, 10, {B: PA, C: PA}),
        [P(A, 10)],
        id="4.3-ten-not-whisted-entered-as-both-pass",
    ),
    # §4.2 half-whist: V into the pool; the half-whister writes (O/2) × whist_rate.
    # Sochi 6: O=4 → 2 tricks × 2 = 4.  Sochi 7: O=2 → 1 trick × 4 = 4.
    pytest.param(
        SOCHI, S3, [], game(A, 6, {B: PA, C: HA}), [P(A, 2), W(C, A, 4)], id="4.2-half-6-sochi"
    ),
    pytest.param(
        SOCHI, S3, [], game(A, 7, {B: PA, C: HA}), [P(A, 4), W(C, A, 4)], id="4.2-half-7-sochi"
    ),
    # Leningrad 6: 2 × (2×2) = 8.  Leningrad 7: 1 × (2×4) = 8.
    pytest.param(
        LENINGRAD,
        S3,
        [],
        game(A, 6, {B: PA, C: HA}),
        [P(A, 2), W(C, A, 8)],
        id="4.2-half-6-leningrad",
    ),
    pytest.param(
        LENINGRAD,
        S3,
        [],
        game(A, 7, {B: PA, C: HA}),
        [P(A, 4), W(C, A, 8)],
        id="4.2-half-7-leningrad",
    ),
    # half_whist_levels with 8: O=1 → 1/2 trick × 6 = 3.  With 9: 1/2 × 8 = 4.
    pytest.param(
        rules(half_whist_levels=[6, 7, 8]),
        S3,
        [],
        game(A, 8, {B: PA, C: HA}),
        [P(A, 6), W(C, A, 3)],
        id="4.2-half-8-when-allowed",
    ),
    pytest.param(
        rules(half_whist_levels=[6, 7, 8, 9]),
        S3,
        [],
        game(A, 9, {B: PA, C: HA}),
        [P(A, 8), W(C, A, 4)],
        id="4.2-half-9-when-allowed",
    ),
    # B declares: defenders C then A; A (second) says half: 2 × 2 = 4.
    pytest.param(
        SOCHI, S3, [], game(B, 6, {C: PA, A: HA}), [P(B, 2), W(A, B, 4)], id="4.2-half-declarer-B"
    ),
    # 4 players, dealer A: B's defenders C, D; D half on a 7: 1 × 4.
    pytest.param(
        SOCHI, S4A, [], game(B, 7, {C: PA, D: HA}), [P(B, 4), W(D, B, 4)], id="4.2-half-4p"
    ),
    # §4.3 one whister, greedy remise: A 6 takes 4, u=2 → mountain 2 × 2 = 4;
    # B writes T=6 × 2 = 12; consolation 2 × 2 = 4 from B and from C. T=6 ≥ O=4.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: WH, C: PA}, {A: 4, B: 4, C: 2}),
        [M(A, 4), W(B, A, 12), W(B, A, 4), W(C, A, 4)],
        id="4.3-greedy-remise",
    ),
    # Gentleman (spec example): Leningrad B 6 takes 5, u=1 → mountain 1 × 4; whister C and
    # passer A split T=5 × 4 + 2 × (1 × 4) = 28 → 14 each (defenders clockwise: C, A).
    pytest.param(
        LENINGRAD,
        S3,
        [],
        game(B, 6, {C: WH, A: PA}, {A: 3, B: 5, C: 2}),
        [M(B, 4), W(C, B, 14), W(A, B, 14)],
        id="4.3-gentleman-remise-leningrad",
    ),
    # Leningrad A 7 takes 5: u=2 → 2 × 8 = 16; split 5 × 8 + 2 × (2 × 8) = 72 → 36 each.
    pytest.param(
        LENINGRAD,
        S3,
        [],
        game(A, 7, {B: PA, C: WH}, {A: 5, B: 1, C: 4}),
        [M(A, 16), W(B, A, 36), W(C, A, 36)],
        id="4.3-gentleman-remise-7",
    ),
    # A made contract is never split: the lone whister writes T=4 × (2×2) = 16.
    pytest.param(LENINGRAD, S3, [], EX1, [P(A, 2), W(B, A, 16)], id="4.3-gentleman-made"),
    # Odd total: V(6)=3, Sochi rates: mountain 1 × 3; split (5 × 3 + 2 × 3) / 2 = 21/2.
    pytest.param(
        GENTLEMAN_ODD,
        S3,
        [],
        game(A, 6, {B: WH, C: PA}, {A: 5, B: 3, C: 2}),
        [M(A, 3), W(B, A, Fraction(21, 2)), W(C, A, Fraction(21, 2))],
        id="4.3-gentleman-odd-total-half",
    ),
    # Two whisters, made: each writes own tricks × 2; quotas 2 each met.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: WH, C: WH}, {A: 6, B: 2, C: 2}),
        [P(A, 2), W(B, A, 4), W(C, A, 4)],
        id="4.3-two-whisters-made",
    ),
    # A fractional rate: whist_rate 3/2 × V(6)=2 → 3 per trick; T=4 → 12.
    pytest.param(
        rules(whist_rate="3/2"),
        S3,
        [],
        EX1,
        [P(A, 2), W(B, A, 12)],
        id="4.3-whist-rate-three-halves",
    ),
    # Consolation with 4 players, dealer D: A 6 takes 5, u=1 → mountain 2; B writes
    # T=5 × 2 = 10; consolation 1 × 2 from B, C, then the dealer D.
    pytest.param(
        SOCHI,
        S4D,
        [],
        game(A, 6, {B: WH, C: PA}, {A: 5, B: 3, C: 2}),
        [M(A, 2), W(B, A, 10), W(B, A, 2), W(C, A, 2), W(D, A, 2)],
        id="4.3-consolation-4p-dealer",
    ),
    pytest.param(
        rules(consolation_by_dealer=False),
        S4D,
        [],
        game(A, 6, {B: WH, C: PA}, {A: 5, B: 3, C: 2}),
        [M(A, 2), W(B, A, 10), W(B, A, 2), W(C, A, 2)],
        id="4.3-consolation-4p-dealer-off",
    ),
    # Gentleman with a 4-player dealer: split (5 × 4 + 2 × 4) / 2 = 14; dealer's 4 not split.
    pytest.param(
        LENINGRAD,
        S4D,
        [],
        game(A, 6, {B: WH, C: PA}, {A: 5, B: 3, C: 2}),
        [M(A, 4), W(B, A, 14), W(C, A, 14), W(D, A, 4)],
        id="4.3-gentleman-4p-dealer-not-split",
    ),
    # 4 players, dealer B: A's defenders C, D. A 7 takes 5: u=2 → 2 × 4 = 8; C 3 × 4 = 12,
    # D 2 × 4 = 8; consolation 2 × 4 = 8 from C, D, then dealer B. Quotas 1 each met.
    pytest.param(
        SOCHI,
        S4B,
        [],
        game(A, 7, {C: WH, D: WH}, {A: 5, C: 3, D: 2}),
        [M(A, 8), W(C, A, 12), W(D, A, 8), W(C, A, 8), W(D, A, 8), W(B, A, 8)],
        id="4.3-two-whisters-4p-dealer-consoles",
    ),
    # Whister duty, one whister: A 7 takes 9, T=1 < O=2 → B writes (2−1) × 4 = 4.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 7, {B: WH, C: PA}, {A: 9, B: 1, C: 0}),
        [P(A, 4), W(B, A, 4), M(B, 4)],
        id="4.3-duty-one-whister-7",
    ),
    # A 6 takes 8: T=2 → whists 2 × 2 = 4; short (4−2) × 2 = 4.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: WH, C: PA}, {A: 8, B: 1, C: 1}),
        [P(A, 2), W(B, A, 4), M(B, 4)],
        id="4.3-duty-one-whister-6",
    ),
    # The passer's tricks count for the defence: B 1 + C 3 = 4 = O → no duty.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: WH, C: PA}, {A: 6, B: 1, C: 3}),
        [P(A, 2), W(B, A, 8)],
        id="4.3-duty-one-whister-passer-counts",
    ),
    # Two whisters, personal, O=4 → 2 each: C took 0 → short 2 × 2 = 4.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: WH, C: WH}, {A: 6, B: 4, C: 0}),
        [P(A, 2), W(B, A, 8), M(C, 4)],
        id="4.3-duty-personal-O4",
    ),
    # Both short 1 → 1 × 2 each.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: WH, C: WH}, {A: 8, B: 1, C: 1}),
        [P(A, 2), W(B, A, 2), W(C, A, 2), M(B, 2), M(C, 2)],
        id="4.3-duty-personal-O4-both-short",
    ),
    # By the letter of step 5 the personal quota holds on a remise too: A 6 takes 5 → u=1,
    # mountain 2; B writes 5 × 2 = 10; consolation 1 × 2 from B and C; C took 0 of his 2 →
    # 2 × 2 = 4.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: WH, C: WH}, {A: 5, B: 5, C: 0}),
        [M(A, 2), W(B, A, 10), W(B, A, 2), W(C, A, 2), M(C, 4)],
        id="4.3-duty-personal-on-a-remise",
    ),
    # O=2 → 1 each: C 0 → 1 × 4.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 7, {B: WH, C: WH}, {A: 9, B: 1, C: 0}),
        [P(A, 4), W(B, A, 4), M(C, 4)],
        id="4.3-duty-personal-O2-second-short",
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 7, {B: WH, C: WH}, {A: 9, B: 0, C: 1}),
        [P(A, 4), W(C, A, 4), M(B, 4)],
        id="4.3-duty-personal-O2-first-short",
    ),
    # O=1 met by the first whister: A took the trick, whists 1 × 6; nobody short.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(B, 8, {C: WH, A: WH}, {A: 1, B: 9, C: 0}),
        [P(B, 6), W(A, B, 6)],
        id="4.3-duty-personal-O1-met",
    ),
    # O=1, 4 players, dealer C: B's defenders D, A (C skipped) → second whister A: 1 × 6.
    pytest.param(
        SOCHI,
        S4C,
        [],
        game(B, 8, {D: WH, A: WH}, {A: 0, B: 10, D: 0}),
        [P(B, 6), M(A, 6)],
        id="4.3-duty-personal-O1-4p-skips-dealer",
    ),
    # Odd O=3 (convention): first whister's quota 3 // 2 = 1, second's 2.
    # A 7, B 2, C 1: C short 1 × 2 = 2.
    pytest.param(
        O3,
        S3,
        [],
        game(A, 6, {B: WH, C: WH}, {A: 7, B: 2, C: 1}),
        [P(A, 2), W(B, A, 4), W(C, A, 2), M(C, 2)],
        id="4.3-duty-personal-O3-second",
    ),
    # A 8, B 0, C 2: B short 1 × 2 = 2.
    pytest.param(
        O3,
        S3,
        [],
        game(A, 6, {B: WH, C: WH}, {A: 8, B: 0, C: 2}),
        [P(A, 2), W(C, A, 4), M(B, 2)],
        id="4.3-duty-personal-O3-first",
    ),
    # A 7, B 1, C 2: quotas 1 and 2 met.
    pytest.param(
        O3,
        S3,
        [],
        game(A, 6, {B: WH, C: WH}, {A: 7, B: 1, C: 2}),
        [P(A, 2), W(B, A, 2), W(C, A, 4)],
        id="4.3-duty-personal-O3-met",
    ),
    # Pair: T=3 < 4, shortfall 1 × 2 on the whister with fewer tricks (C, 0).
    pytest.param(
        PAIR,
        S3,
        [],
        game(A, 6, {B: WH, C: WH}, {A: 7, B: 3, C: 0}),
        [P(A, 2), W(B, A, 6), M(C, 2)],
        id="4.3-duty-pair-fewer-tricks",
    ),
    # Pair tie 1–1: shortfall 2 × 2 = 4 on the second whister C.
    pytest.param(
        PAIR,
        S3,
        [],
        game(A, 6, {B: WH, C: WH}, {A: 8, B: 1, C: 1}),
        [P(A, 2), W(B, A, 2), W(C, A, 2), M(C, 4)],
        id="4.3-duty-pair-tie",
    ),
    # Pair: T=4 ≥ 4 → nothing (personal would write C's 2 × 2).
    pytest.param(
        PAIR,
        S3,
        [],
        game(A, 6, {B: WH, C: WH}, {A: 6, B: 4, C: 0}),
        [P(A, 2), W(B, A, 8)],
        id="4.3-duty-pair-met",
    ),
    # Pair O=1, 0–0 tie: second whister after B is A: 1 × 6.
    pytest.param(PAIR, S3, [], EX3, [P(B, 6), M(A, 6)], id="4.3-duty-pair-O1"),
    pytest.param(NO_DUTY, S3, [], EX3, [P(B, 6)], id="4.3-duty-none-two-whisters"),
    pytest.param(
        NO_DUTY,
        S3,
        [],
        game(A, 7, {B: WH, C: PA}, {A: 9, B: 1, C: 0}),
        [P(A, 4), W(B, A, 4)],
        id="4.3-duty-none-one-whister",
    ),
    # A 10 is whisted with O=1: A takes all → pool 10, no whists, B short 1 × 10.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 10, {B: WH, C: PA}, {A: 10, B: 0, C: 0}),
        [P(A, 10), M(B, 10)],
        id="4.3-ten-whisted-made",
    ),
    # A 10 takes 9: u=1 → 1 × 10; B T=1 × 10; consolation 1 × 10 from B and C.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 10, {B: WH, C: PA}, {A: 9, B: 1, C: 0}),
        [M(A, 10), W(B, A, 10), W(B, A, 10), W(C, A, 10)],
        id="4.3-ten-whisted-remise",
    ),
    # §3 rates per preset on one deal: A 7, both whist, 6/2/2 (u=1).
    # ×1 presets: remise 4; whists 2 × 4 = 8 each; consolation 4 each.
    # Leningrad ×2: remise 8; whists 2 × 8 = 16 each; consolation 8 each.
    *(
        pytest.param(
            PRESETS[p],
            S3,
            [],
            EX2,
            [M(A, 4), W(B, A, 8), W(C, A, 8), W(B, A, 4), W(C, A, 4)],
            id=f"3-rates-{p}-two-whisters-remise",
        )
        for p in ("sochi", "rostov", "classic")
    ),
    pytest.param(
        LENINGRAD,
        S3,
        [],
        EX2,
        [M(A, 8), W(B, A, 16), W(C, A, 16), W(B, A, 8), W(C, A, 8)],
        id="3-rates-leningrad-two-whisters-remise",
    ),
    # A 7 takes 9, B whists alone: whists T=1 × rate; duty (2−1) × 1×V = 4 in every preset.
    *(
        pytest.param(
            PRESETS[p],
            S3,
            [],
            game(A, 7, {B: WH, C: PA}, {A: 9, B: 1, C: 0}),
            [P(A, 4), W(B, A, 4), M(B, 4)],
            id=f"3-rates-{p}-whister-penalty",
        )
        for p in ("sochi", "rostov", "classic")
    ),
    pytest.param(
        LENINGRAD,
        S3,
        [],
        game(A, 7, {B: WH, C: PA}, {A: 9, B: 1, C: 0}),
        [P(A, 4), W(B, A, 8), M(B, 4)],
        id="3-rates-leningrad-whister-penalty",
    ),
    # §5 misère: made → 10 into the pool; failed → tricks × misere_penalty.
    pytest.param(SOCHI, S3, [], Misere(A, 0), [P(A, 10)], id="5-misere-made-sochi"),
    pytest.param(LENINGRAD, S3, [], Misere(A, 0), [P(A, 10)], id="5-misere-made-leningrad"),
    pytest.param(SOCHI, S3, [], Misere(A, 1), [M(A, 10)], id="5-misere-failed-sochi-1"),
    pytest.param(SOCHI, S3, [], Misere(A, 3), [M(A, 30)], id="5-misere-failed-sochi-3"),
    pytest.param(LENINGRAD, S3, [], Misere(A, 1), [M(A, 20)], id="5-misere-failed-leningrad-1"),
    pytest.param(LENINGRAD, S3, [], Misere(A, 2), [M(A, 40)], id="5-misere-failed-leningrad-2"),
    pytest.param(ROSTOV, S3, [], Misere(A, 2), [M(A, 20)], id="5-misere-failed-rostov-2"),
    pytest.param(CLASSIC, S3, [], Misere(A, 2), [M(A, 20)], id="5-misere-failed-classic-2"),
    pytest.param(SOCHI, S4A, [], Misere(B, 1), [M(B, 10)], id="5-misere-4p"),
    # §7 dark contract: every amount × 2.  Example 1 dark: pool 2 × 2, whists 8 × 2.
    pytest.param(
        CLASSIC,
        S3,
        [],
        game(A, 6, {B: WH, C: PA}, {A: 6, B: 3, C: 1}, dark=True),
        [P(A, 4), W(B, A, 16)],
        id="7-dark-contract-made",
    ),
    # Example 2 dark: 4, 8, 8, 4, 4 doubled.
    pytest.param(
        CLASSIC,
        S3,
        [],
        game(A, 7, {B: WH, C: WH}, {A: 6, B: 2, C: 2}, dark=True),
        [M(A, 8), W(B, A, 16), W(C, A, 16), W(B, A, 8), W(C, A, 8)],
        id="7-dark-contract-remise",
    ),
    # Example 3 dark: pool 6 × 2, the duty mountain 6 × 2.
    pytest.param(
        CLASSIC,
        S3,
        [],
        game(B, 8, {C: WH, A: WH}, {A: 0, B: 10, C: 0}, dark=True),
        [P(B, 12), M(A, 12)],
        id="7-dark-contract-duty",
    ),
    pytest.param(
        CLASSIC,
        S3,
        [],
        game(A, 7, {B: PA, C: HA}, dark=True),
        [P(A, 8), W(C, A, 8)],
        id="7-dark-half-whist",
    ),
    pytest.param(CLASSIC, S3, [], Misere(A, 0, dark=True), [P(A, 20)], id="7-dark-misere-made"),
    pytest.param(CLASSIC, S3, [], Misere(A, 1, dark=True), [M(A, 20)], id="7-dark-misere-failed"),
    pytest.param(
        rules("classic", dark_multiplier=3),
        S3,
        [],
        game(A, 6, {B: PA, C: PA}, dark=True),
        [P(A, 6)],
        id="7-dark-multiplier-3",
    ),
]


@pytest.mark.parametrize(("tariff", "table", "before", "deal", "expected"), GAME_CASES)
def test_deal_entries(tariff, table, before, deal, expected):
    _, entries = play_last(tariff, table, before, deal)
    assert entries == expected


def test_gentleman_half_is_an_exact_fraction():
    # (5 × 3 + 2 × 3) / 2 = 21/2: a Fraction, not a float, and the sheet sums it exactly.
    _, entries = play_last(GENTLEMAN_ODD, S3, [], game(A, 6, {B: WH, C: PA}, {A: 5, B: 3, C: 2}))
    amounts = [amount for *_, amount in entries[1:]]
    assert all(type(amount) is Fraction for amount in amounts)
    assert amounts == [Fraction(21, 2), Fraction(21, 2)]
    sheet = new_pulka(GENTLEMAN_ODD)
    sheet.play(game(A, 6, {B: WH, C: PA}, {A: 5, B: 3, C: 2}))
    sheet.play(game(A, 6, {B: WH, C: PA}, {A: 5, B: 3, C: 2}))
    # Twice 21/2 = 21 whists of B on A.
    assert sheet.result().whists[B][A] == 21


# -- §6 pass-outs, §7 dark pass-outs (mountain mode) ------------------------------------------

# (preset, per-trick price of the k-th pass-out for k = 1..4): the ladders of §6, the last
# step repeating past the end.
LADDERS = {"sochi": (1, 2, 3, 3), "leningrad": (2, 4, 6, 6), "classic": (1, 2, 4, 4)}
LADDER_CASES = [
    # Tricks 4/3/3 each time: mountain 4p, 3p, 3p.
    pytest.param(
        PRESETS[preset],
        S3,
        [po(4, 3, 3)] * (k - 1),
        po(4, 3, 3),
        [M(A, 4 * price), M(B, 3 * price), M(C, 3 * price)],
        id=f"6-ladder-{preset}-k{k}-p{price}",
    )
    for preset, prices in LADDERS.items()
    for k, price in enumerate(prices, start=1)
]
CLASSIC4_A: dict[str, Any] = {"players": 4, "first_dealer": A}
AMNESTY = rules(passout_amnesty=True)

PASSOUT_CASES = [
    *LADDER_CASES,
    # §12.4: A 5, B 5, C 0 at p1 = 1: mountains 5 and 5; C's zero bonus 1.
    pytest.param(SOCHI, S3, [], po(5, 5, 0), [M(A, 5), M(B, 5), P(C, 1)], id="12.4-example-4"),
    # ... and the next pass-out costs 2 per trick: 1 × 2, 4 × 2, 5 × 2.
    pytest.param(
        SOCHI,
        S3,
        [po(5, 5, 0)],
        po(1, 4, 5),
        [M(A, 2), M(B, 8), M(C, 10)],
        id="12.4-next-passout-costs-2",
    ),
    # Zero bonus is p_k: Leningrad p1 = 2 → 6 × 2, 4 × 2, bonus 2.
    pytest.param(
        LENINGRAD, S3, [], po(6, 4, 0), [M(A, 12), M(B, 8), P(C, 2)], id="6-zero-bonus-leningrad"
    ),
    # Sochi third pass-out p3 = 3: A's bonus 3 comes first (seat order), 4 × 3, 6 × 3.
    pytest.param(
        SOCHI,
        S3,
        [po(4, 3, 3)] * 2,
        po(0, 4, 6),
        [P(A, 3), M(B, 12), M(C, 18)],
        id="6-zero-bonus-k3",
    ),
    pytest.param(
        rules(passout_zero_bonus=False),
        S3,
        [],
        po(6, 4, 0),
        [M(A, 6), M(B, 4)],
        id="6-zero-bonus-off",
    ),
    # Amnesty: min 1 subtracted → 5, 2, 0; C had a trick, so no bonus.
    pytest.param(AMNESTY, S3, [], po(6, 3, 1), [M(A, 5), M(B, 2)], id="6-amnesty"),
    # Amnesty at p2 = 2: first pass-out 4/3/3 (→ 1/0/0); then 5/4/1 → 4 × 2, 3 × 2, 0.
    pytest.param(AMNESTY, S3, [po(4, 3, 3)], po(5, 4, 1), [M(A, 8), M(B, 6)], id="6-amnesty-k2"),
    # Amnesty with a zero: min 0 changes nothing; the bonus stays.
    pytest.param(
        AMNESTY, S3, [], po(6, 4, 0), [M(A, 6), M(B, 4), P(C, 1)], id="6-amnesty-with-zero"
    ),
    # A game ends the series: the next pass-out is p1 again.
    pytest.param(
        SOCHI,
        S3,
        [po(4, 3, 3), po(4, 3, 3), game(A, 6, {B: PA, C: PA})],
        po(4, 3, 3),
        [M(A, 4), M(B, 3), M(C, 3)],
        id="6-game-ends-series",
    ),
    pytest.param(
        SOCHI,
        S3,
        [po(4, 3, 3), Misere(A, 0)],
        po(4, 3, 3),
        [M(A, 4), M(B, 3), M(C, 3)],
        id="6-misere-ends-series",
    ),
    # misere_ends_passouts off: the misère does not end it → p2 = 2.
    pytest.param(
        rules(misere_ends_passouts=False),
        S3,
        [po(4, 3, 3), Misere(A, 0)],
        po(4, 3, 3),
        [M(A, 8), M(B, 6), M(C, 6)],
        id="6-misere-not-ending-series",
    ),
    # An adjustment is not a deal: the series goes on → p2 = 2.
    pytest.param(
        SOCHI,
        S3,
        [po(4, 3, 3), Adjustment("fix", mountain={A: 1})],
        po(4, 3, 3),
        [M(A, 8), M(B, 6), M(C, 6)],
        id="6-adjustment-keeps-series",
    ),
    # 4 players without the widow rule, dealer A takes no part.
    pytest.param(
        SOCHI,
        S4A,
        [],
        Passout({B: 5, C: 5, D: 0}),
        [M(B, 5), M(C, 5), P(D, 1)],
        id="6-4p-dealer-out",
    ),
    # Classic widow: dealer A's 1 trick costs 1 × 1; all four sum to 10.
    pytest.param(
        CLASSIC,
        CLASSIC4_A,
        [],
        Passout({B: 4, C: 3, D: 2}, dealer_tricks=1),
        [M(A, 1), M(B, 4), M(C, 3), M(D, 2)],
        id="6-4p-widow",
    ),
    pytest.param(
        CLASSIC,
        CLASSIC4_A,
        [],
        Passout({A: 1, B: 4, C: 3, D: 2}),
        [M(A, 1), M(B, 4), M(C, 3), M(D, 2)],
        id="6-4p-widow-in-tricks",
    ),
    # The widow dealer with 0 gets no bonus; D with 0 does.
    pytest.param(
        CLASSIC,
        CLASSIC4_A,
        [],
        Passout({B: 5, C: 5, D: 0}, dealer_tricks=0),
        [M(B, 5), M(C, 5), P(D, 1)],
        id="6-4p-widow-zero-no-bonus",
    ),
    # Amnesty counts the widow dealer: min 1 → 0, 3, 2, 1.
    pytest.param(
        rules("classic", passout_amnesty=True),
        CLASSIC4_A,
        [],
        Passout({B: 4, C: 3, D: 2}, dealer_tricks=1),
        [M(B, 3), M(C, 2), M(D, 1)],
        id="6-4p-widow-amnesty",
    ),
    # Second pass-out, same dealer A (passout_same_dealer), p2 = 2: 2, 8, 6, 4.
    pytest.param(
        CLASSIC,
        CLASSIC4_A,
        [Passout({B: 4, C: 3, D: 3})],
        Passout({B: 4, C: 3, D: 2}, dealer_tricks=1),
        [M(A, 2), M(B, 8), M(C, 6), M(D, 4)],
        id="6-4p-widow-k2-same-dealer",
    ),
    # §7 dark pass-out, Classic ladder 1, 2, 4 doubled: 2, 4, 8 (then 8) per trick.
    pytest.param(
        CLASSIC,
        S3,
        [],
        po(4, 3, 3, dark=True),
        [M(A, 8), M(B, 6), M(C, 6)],
        id="7-dark-passout-k1-2",
    ),
    pytest.param(
        CLASSIC,
        S3,
        [po(4, 3, 3, dark=True)],
        po(4, 3, 3, dark=True),
        [M(A, 16), M(B, 12), M(C, 12)],
        id="7-dark-passout-k2-4",
    ),
    pytest.param(
        CLASSIC,
        S3,
        [po(4, 3, 3, dark=True)] * 2,
        po(4, 3, 3, dark=True),
        [M(A, 32), M(B, 24), M(C, 24)],
        id="7-dark-passout-k3-8",
    ),
    pytest.param(
        CLASSIC,
        S3,
        [po(4, 3, 3, dark=True)] * 3,
        po(4, 3, 3, dark=True),
        [M(A, 32), M(B, 24), M(C, 24)],
        id="7-dark-passout-k4-8",
    ),
    # Example classic-dark-passout-bomb: 2/4/4 at 2 per trick.
    pytest.param(
        CLASSIC,
        S3,
        [],
        po(2, 4, 4, dark=True),
        [M(A, 4), M(B, 8), M(C, 8)],
        id="7-dark-passout-example",
    ),
    # The zero bonus doubles too: 2.
    pytest.param(
        CLASSIC,
        S3,
        [],
        po(5, 5, 0, dark=True),
        [M(A, 10), M(B, 10), P(C, 2)],
        id="7-dark-passout-zero-bonus",
    ),
    # A dark pass-out counts in its series; the light one after it is p2 = 2, no doubling,
    # and bombs never apply to pass-outs.
    pytest.param(
        CLASSIC,
        S3,
        [po(4, 3, 3, dark=True)],
        po(4, 3, 3),
        [M(A, 8), M(B, 6), M(C, 6)],
        id="7-dark-then-light",
    ),
    pytest.param(
        CLASSIC,
        S3,
        [po(4, 3, 3)],
        po(4, 3, 3, dark=True),
        [M(A, 16), M(B, 12), M(C, 12)],
        id="7-light-then-dark-p2x2",
    ),
    # Widow dealer in a dark pass-out: 1 × 2, 4 × 2, 3 × 2, 2 × 2.
    pytest.param(
        CLASSIC,
        CLASSIC4_A,
        [],
        Passout({B: 4, C: 3, D: 2}, dealer_tricks=1, dark=True),
        [M(A, 2), M(B, 8), M(C, 6), M(D, 4)],
        id="7-dark-passout-4p-widow",
    ),
    # Dark games switched on in Sochi: its ladder 1, 2, 3; second pass-out 2 × 2 = 4 per trick.
    pytest.param(
        rules(dark_games=True),
        S3,
        [po(4, 3, 3)],
        po(4, 3, 3, dark=True),
        [M(A, 16), M(B, 12), M(C, 12)],
        id="7-dark-passout-sochi-ladder",
    ),
]


@pytest.mark.parametrize(("tariff", "table", "before", "deal", "expected"), PASSOUT_CASES)
def test_passout_entries(tariff, table, before, deal, expected):
    _, entries = play_last(tariff, table, before, deal)
    assert entries == expected


# Rostov whist mode. The book fixes no order among whist-mode entries, so these compare as
# multisets.
ROSTOV_DARK = rules("rostov", dark_games=True)
WHIST_MODE_CASES = [
    # Example rostov-passout: A fewest (1) writes 5 × 1 per trick: B 3 × 5 = 15, C 6 × 5 = 30.
    pytest.param(ROSTOV, S3, [], po(1, 3, 6), [W(A, B, 15), W(A, C, 30)], id="rostov-example"),
    # Tie on 2 (convention): A and B each write on C only: 6 × 5 = 30.
    pytest.param(ROSTOV, S3, [], po(2, 2, 6), [W(A, C, 30), W(B, C, 30)], id="rostov-tie-low"),
    pytest.param(ROSTOV, S3, [], po(3, 3, 4), [W(A, C, 20), W(B, C, 20)], id="rostov-tie-3-3"),
    # A zero: A writes 4 × 5 = 20 on B, 6 × 5 = 30 on C, and 1 into his pool.
    pytest.param(
        ROSTOV, S3, [], po(0, 4, 6), [W(A, B, 20), W(A, C, 30), P(A, 1)], id="rostov-zero-bonus"
    ),
    pytest.param(
        ROSTOV,
        S3,
        [],
        po(0, 0, 10),
        [W(A, C, 50), W(B, C, 50), P(A, 1), P(B, 1)],
        id="rostov-two-zeros",
    ),
    # Ladder [1]: every pass-out of the series costs the same.
    pytest.param(
        ROSTOV,
        S3,
        [po(4, 3, 3)] * 2,
        po(1, 3, 6),
        [W(A, B, 15), W(A, C, 30)],
        id="rostov-k3-same-price",
    ),
    # A ladder in whist mode: p2 = 2 → 5 × 2 = 10 per trick: 3 × 10, 6 × 10.
    pytest.param(
        rules("rostov", passout_ladder=[1, 2]),
        S3,
        [po(4, 3, 3)],
        po(1, 3, 6),
        [W(A, B, 30), W(A, C, 60)],
        id="rostov-ladder-k2",
    ),
    # Dark (convention: everything doubled, the zero bonus becomes 2): 5 × 2 per trick.
    pytest.param(
        ROSTOV_DARK, S3, [], po(1, 3, 6, dark=True), [W(A, B, 30), W(A, C, 60)], id="rostov-dark"
    ),
    pytest.param(
        ROSTOV_DARK,
        S3,
        [],
        po(0, 4, 6, dark=True),
        [W(A, B, 40), W(A, C, 60), P(A, 2)],
        id="rostov-dark-zero",
    ),
    # 4 players, dealer A out: B fewest writes on C 3 × 5 and on D 5 × 5.
    pytest.param(
        ROSTOV, S4A, [], Passout({B: 2, C: 3, D: 5}), [W(B, C, 15), W(B, D, 25)], id="rostov-4p"
    ),
]


@pytest.mark.parametrize(("tariff", "table", "before", "deal", "expected"), WHIST_MODE_CASES)
def test_passout_whist_mode(tariff, table, before, deal, expected):
    _, entries = play_last(tariff, table, before, deal)
    assert sorted(entries) == sorted(expected)


# -- §6 exit from a pass-out series --------------------------------------------------------------

EXIT_CASES = [
    # (tariff, pass-outs in a row, lowest level allowed now)
    pytest.param(SOCHI, 0, 6, id="sochi-0"),
    pytest.param(SOCHI, 1, 6, id="sochi-1"),
    pytest.param(SOCHI, 3, 6, id="sochi-3"),
    pytest.param(LENINGRAD, 0, 6, id="leningrad-0"),
    pytest.param(LENINGRAD, 1, 7, id="leningrad-1"),
    pytest.param(LENINGRAD, 2, 7, id="leningrad-2-last-step-repeats"),
    pytest.param(ROSTOV, 1, 6, id="rostov-1"),
    pytest.param(CLASSIC, 0, 6, id="classic-0"),
    pytest.param(CLASSIC, 1, 6, id="classic-1"),
    pytest.param(CLASSIC, 2, 7, id="classic-2"),
    pytest.param(CLASSIC, 3, 8, id="classic-3"),
    pytest.param(CLASSIC, 4, 8, id="classic-4-last-step-repeats"),
]
VALUE = {6: 2, 7: 4, 8: 6}


@pytest.mark.parametrize(("tariff", "passouts", "lowest"), EXIT_CASES)
def test_passout_exit(tariff, passouts, lowest):
    sheet = new_pulka(tariff)
    for _ in range(passouts):
        sheet.play(po(4, 3, 3))
    assert sheet.lowest_contract() == lowest
    if lowest > 6:
        before = sheet.result()
        with pytest.raises(RuleError) as error:
            sheet.play(game(A, lowest - 1, {B: PA, C: PA}))
        assert (error.value.field, error.value.deal) == ("contract", passouts + 1)
        assert sheet.result() == before
    # At the exit level the game is played: both pass → V.
    assert written(sheet.play(game(A, lowest, {B: PA, C: PA}))) == [P(A, VALUE[lowest])]
    assert sheet.lowest_contract() == 6


@pytest.mark.parametrize("passouts", [1, 2, 3, 4])
def test_misere_is_not_restricted_by_the_exit(passouts):
    sheet = new_pulka(CLASSIC)
    for _ in range(passouts):
        sheet.play(po(4, 3, 3))
    assert written(sheet.play(Misere(A, 0))) == [P(A, 10)]


@pytest.mark.parametrize(("ends", "lowest_after"), [(True, 6), (False, 7)])
def test_misere_ends_passouts_setting_and_the_exit(ends, lowest_after):
    # Leningrad exit 7: after pass-out + misère the series ends (6 allowed) or goes on (7).
    sheet = new_pulka(rules("leningrad", misere_ends_passouts=ends))
    sheet.play(po(4, 3, 3))
    sheet.play(Misere(A, 0))
    assert sheet.passouts_in_series == (0 if ends else 1)
    assert sheet.lowest_contract() == lowest_after


# -- §7 bombs ------------------------------------------------------------------------------------


def dk(*, looked: tuple[int, ...] = ()) -> Passout:
    return po(4, 3, 3, dark=True, looked=looked)


def dk4(*, looked: tuple[int, ...] = ()) -> Passout:
    """A 4-player dark pass-out with dealer A playing no widow trick."""
    return Passout({B: 4, C: 3, D: 3}, dark=True, looked=frozenset(looked))


BOMB_DRAW_CASES = [
    # (tariff, table, deals, each seat's bomb queue afterwards)
    pytest.param(CLASSIC, S3, [dk()], [[2], [2], [2]], id="first-dark-bomb-x2"),
    pytest.param(CLASSIC, S3, [dk()] * 2, [[2, 4]] * 3, id="second-dark-double-x4"),
    pytest.param(CLASSIC, S3, [dk()] * 3, [[2, 4, 8]] * 3, id="third-dark-elka-x8"),
    pytest.param(CLASSIC, S3, [dk()] * 4, [[2, 4, 8, 8]] * 3, id="fourth-dark-x8-again"),
    # A light pass-out breaks the row: the next dark one is first in its row again.
    pytest.param(CLASSIC, S3, [dk(), po(4, 3, 3), dk()], [[2, 2]] * 3, id="light-breaks-row"),
    # A game breaks the row; A's made game also spent A's first bomb.
    pytest.param(
        CLASSIC,
        S3,
        [dk(), game(A, 6, {B: PA, C: PA}), dk()],
        [[2], [2, 2], [2, 2]],
        id="game-breaks-row",
    ),
    # Looked: one rank lower — nothing on the first, a bomb on the second, ×4 on the third.
    pytest.param(CLASSIC, S3, [dk(looked=(B,))], [[2], [], [2]], id="looked-first-nothing"),
    pytest.param(
        CLASSIC,
        S3,
        [dk(looked=(B,)), dk(looked=(B,))],
        [[2, 4], [2], [2, 4]],
        id="looked-second-bomb",
    ),
    pytest.param(
        CLASSIC,
        S3,
        [dk(), dk(), dk(looked=(C,))],
        [[2, 4, 8], [2, 4, 8], [2, 4, 4]],
        id="looked-third-double",
    ),
    # 4 players, dealer A sat out: same bomb when nobody looked ...
    pytest.param(CLASSIC, CLASSIC4_A, [dk4()], [[2], [2], [2], [2]], id="4p-dealer-same-bomb"),
    # ... one rank lower when anyone (C) looked.
    pytest.param(
        CLASSIC,
        CLASSIC4_A,
        [dk4(looked=(C,))],
        [[], [2], [], [2]],
        id="4p-dealer-lower-when-someone-looked",
    ),
    pytest.param(
        CLASSIC,
        CLASSIC4_A,
        [dk4(), dk4(looked=(C,))],
        [[2, 2], [2, 4], [2, 2], [2, 4]],
        id="4p-dealer-second-row-looked",
    ),
    pytest.param(rules("classic", bombs=False), S3, [dk()], [[], [], []], id="bombs-off"),
    pytest.param(CLASSIC, S3, [po(4, 3, 3)], [[], [], []], id="light-passout-no-bomb"),
]


@pytest.mark.parametrize(("tariff", "table", "deals", "bombs"), BOMB_DRAW_CASES)
def test_bombs_drawn(tariff, table, deals, bombs):
    sheet = new_pulka(tariff, **table)
    for deal in deals:
        sheet.play(deal)
    assert sheet.bombs == bombs


FAILED_ON_BOMB = game(B, 6, {C: WH, A: PA}, {A: 2, B: 5, C: 3})
BOMB_PLAY_CASES = [
    # (before, deal, entries ×bomb, the declarer's queue afterwards). Classic, after one dark
    # pass-out every seat holds [2]; the dealer stays A (same-dealer rule).
    # B 6 made, C whists: pool 2, C writes T=4 × 2 = 8; × 2 → 4 and 16. The bomb goes.
    pytest.param(
        [dk()],
        game(B, 6, {C: WH, A: PA}, {A: 1, B: 6, C: 3}),
        [P(B, 4), W(C, B, 16)],
        B,
        [],
        id="made-removes-bomb",
    ),
    # B 6 takes 5: mountain 2, C writes T=5 × 2 = 10, consolation 2 from C and A; × 2.
    # A failed game keeps the bomb.
    pytest.param(
        [dk()],
        FAILED_ON_BOMB,
        [M(B, 4), W(C, B, 20), W(C, B, 4), W(A, B, 4)],
        B,
        [2],
        id="failed-keeps-bomb",
    ),
    pytest.param(
        [dk(), FAILED_ON_BOMB],
        game(B, 6, {C: PA, A: PA}),
        [P(B, 4)],
        B,
        [],
        id="kept-bomb-played-on-next-game",
    ),
    # Both pass counts as made: 2 × 2, bomb gone.
    pytest.param([dk()], game(B, 6, {C: PA, A: PA}), [P(B, 4)], B, [], id="both-pass-made"),
    # Half-whist counts as made: pool 2 × 2; A's half 2 × 2 = 4 × 2 = 8.
    pytest.param(
        [dk()], game(B, 6, {C: PA, A: HA}), [P(B, 4), W(A, B, 8)], B, [], id="half-whist-made"
    ),
    # Misère on a bomb: made 10 × 2; failed 2 × 10 × 2 = 40, bomb kept.
    pytest.param([dk()], Misere(B, 0), [P(B, 20)], B, [], id="misere-made-on-bomb"),
    pytest.param([dk()], Misere(B, 2), [M(B, 40)], B, [2], id="misere-failed-on-bomb"),
    # Queue [2, 4]: the first bomb (2) plays first. Exit after 2 pass-outs is 7: 4 × 2 = 8.
    pytest.param([dk(), dk()], game(B, 7, {C: PA, A: PA}), [P(B, 8)], B, [4], id="queue-first"),
    # ... then the ×4: a 6 both pass, 2 × 4 = 8.
    pytest.param(
        [dk(), dk(), game(B, 7, {C: PA, A: PA})],
        game(B, 6, {C: PA, A: PA}),
        [P(B, 8)],
        B,
        [],
        id="queue-second",
    ),
    # Dark contract on a bomb: 2 × 2 (dark) × 2 (bomb) = 8.
    pytest.param(
        [dk()], game(B, 6, {C: PA, A: PA}, dark=True), [P(B, 8)], B, [], id="dark-on-bomb"
    ),
    # Dark 7 on bomb ×2: pool 4, C writes T=3 × 4 = 12; × 2 × 2 → 16 and 48. Queue [2,4]→[4].
    pytest.param(
        [dk(), dk()],
        game(B, 7, {C: WH, A: PA}, {A: 1, B: 7, C: 2}, dark=True),
        [P(B, 16), W(C, B, 48)],
        B,
        [4],
        id="dark-7-on-bomb",
    ),
    # B looked: no bomb, plain 2; A keeps his.
    pytest.param(
        [dk(looked=(B,))],
        game(B, 6, {C: PA, A: PA}),
        [P(B, 2)],
        A,
        [2],
        id="only-declarer-bomb-counts",
    ),
]


@pytest.mark.parametrize(("before", "deal", "expected", "seat", "queue"), BOMB_PLAY_CASES)
def test_playing_a_bomb(before, deal, expected, seat, queue):
    sheet, entries = play_last(CLASSIC, S3, before, deal)
    assert entries == expected
    assert sheet.bombs[seat] == queue


def test_four_player_dealer_plays_his_bomb():
    # Classic, 4 players, dealer A: a dark pass-out, nobody looked → everyone [2], A too.
    # B 6 both pass on his bomb: 2 × 2 = 4. The deal moves to B; A declares, defenders C, D:
    # 2 × 2 = 4 and A's bomb is gone.
    sheet = new_pulka(CLASSIC, **CLASSIC4_A)
    sheet.play(dk4())
    assert written(sheet.play(game(B, 6, {C: PA, D: PA}))) == [P(B, 4)]
    assert sheet.dealer == B
    assert written(sheet.play(game(A, 6, {C: PA, D: PA}))) == [P(A, 4)]
    assert sheet.bombs == [[], [], [2], [2]]


# -- §8 closing the pool ------------------------------------------------------------------------


def pools(a: int, b: int, c: int, d: int | None = None) -> Adjustment:
    amounts = {A: a, B: b, C: c} if d is None else {A: a, B: b, C: c, D: d}
    return Adjustment("carried over", pool={s: v for s, v in amounts.items() if v})


CLOSING_CASES = [
    # (tariff, table, before, deal, entries, pools after, mountains after, complete)
    # Target 10 throughout. A at 8 + 2 = 10 exactly: no help.
    pytest.param(
        SOCHI,
        {},
        [pools(8, 0, 0)],
        game(A, 6, {B: PA, C: PA}),
        [P(A, 2)],
        (10, 0, 0),
        (0, 0, 0),
        False,
        id="exact-fill",
    ),
    # A 8 + 4: 2 to the target, 2 help to the largest open pool C (5): 2 × 10 whists.
    pytest.param(
        SOCHI,
        {},
        [pools(8, 3, 5)],
        game(A, 7, {B: PA, C: PA}),
        [P(A, 2), P(C, 2), W(A, C, 20)],
        (10, 3, 7),
        (0, 0, 0),
        False,
        id="help-largest-open-pool",
    ),
    # Tie B 5 / C 5: first clockwise from the helper A is B.
    pytest.param(
        SOCHI,
        {},
        [pools(8, 5, 5)],
        game(A, 7, {B: PA, C: PA}),
        [P(A, 2), P(B, 2), W(A, B, 20)],
        (10, 7, 5),
        (0, 0, 0),
        False,
        id="help-tie-clockwise-from-A",
    ),
    # Tie A 4 / C 4, helper B: clockwise from B is C.
    pytest.param(
        SOCHI,
        {},
        [pools(4, 8, 4)],
        game(B, 7, {C: PA, A: PA}),
        [P(B, 2), P(C, 2), W(B, C, 20)],
        (4, 10, 6),
        (0, 0, 0),
        False,
        id="help-tie-clockwise-from-B",
    ),
    # A 8 + 8: 2 own; B (9, largest) takes 1 (10 whists); C (7) takes 3 (30 whists);
    # 2 left, no open pool: off A's mountain 2 × 10/10 = 2.
    pytest.param(
        SOCHI,
        {},
        [pools(8, 9, 7)],
        game(A, 9, {B: PA, C: PA}),
        [P(A, 2), P(B, 1), W(A, B, 10), P(C, 3), W(A, C, 30), M(A, -2)],
        (10, 10, 10),
        (-2, 0, 0),
        True,
        id="help-two-pools-then-overflow",
    ),
    # Leningrad: 20 whists per helped point, overflow 2 × 20/10 = 4.
    pytest.param(
        LENINGRAD,
        {},
        [pools(8, 9, 7)],
        game(A, 9, {B: PA, C: PA}),
        [P(A, 2), P(B, 1), W(A, B, 20), P(C, 3), W(A, C, 60), M(A, -4)],
        (10, 10, 10),
        (-4, 0, 0),
        True,
        id="help-and-overflow-leningrad",
    ),
    # A already closed: all 2 points help B (6 > 2).
    pytest.param(
        SOCHI,
        {},
        [pools(10, 6, 2)],
        game(A, 6, {B: PA, C: PA}),
        [P(B, 2), W(A, B, 20)],
        (10, 8, 2),
        (0, 0, 0),
        False,
        id="own-pool-closed",
    ),
    # Only C open with room 1: 1 helps C, 1 comes off A's mountain.
    pytest.param(
        SOCHI,
        {},
        [pools(10, 10, 9)],
        game(A, 6, {B: PA, C: PA}),
        [P(C, 1), W(A, C, 10), M(A, -1)],
        (10, 10, 10),
        (-1, 0, 0),
        True,
        id="help-last-pool-then-overflow",
    ),
    # A pass-out zero bonus from a closed pool helps too: C's 1 goes to A (9 > 3).
    pytest.param(
        SOCHI,
        {},
        [pools(9, 3, 10)],
        po(5, 5, 0),
        [M(A, 5), M(B, 5), P(A, 1), W(C, A, 10)],
        (10, 3, 10),
        (5, 5, 0),
        False,
        id="help-from-passout-bonus",
    ),
    # Help comes where the pool entry is, before the whists for tricks: A 9 + 2.
    pytest.param(
        SOCHI,
        {},
        [pools(9, 5, 0)],
        EX1,
        [P(A, 1), P(B, 1), W(A, B, 10), W(B, A, 8)],
        (10, 6, 0),
        (0, 0, 0),
        False,
        id="help-before-trick-whists",
    ),
    # Positive adjustment pool points follow §8: A 8 + 4 → 2 own, 2 to B (tie 0/0, clockwise).
    pytest.param(
        SOCHI,
        {},
        [pools(8, 0, 0)],
        Adjustment("late entry", pool={A: 4}),
        [P(A, 2), P(B, 2), W(A, B, 20)],
        (10, 2, 0),
        (0, 0, 0),
        False,
        id="help-from-adjustment",
    ),
    # 4 players, dealer D: the sitting-out dealer's pool is an opponent's pool like any other.
    pytest.param(
        SOCHI,
        {"players": 4, "first_dealer": D},
        [pools(9, 2, 3, 5)],
        game(A, 6, {B: PA, C: PA}),
        [P(A, 1), P(D, 1), W(A, D, 10)],
        (10, 2, 3, 6),
        (0, 0, 0, 0),
        False,
        id="help-4p-dealer",
    ),
]


@pytest.mark.parametrize(
    ("tariff", "table", "before", "deal", "expected", "pool", "mountain", "complete"),
    CLOSING_CASES,
)
def test_closing_the_pool(tariff, table, before, deal, expected, pool, mountain, complete):
    sheet, entries = play_last(tariff, {"pool_target": 10, **table}, before, deal)
    assert entries == expected
    result = sheet.result()
    assert result.pool == pool
    assert result.mountain == mountain
    assert result.complete is complete


# -- §9 settlement -------------------------------------------------------------------------------

EX5_MOUNTAIN = (42, 96, 132)
EX5_WHISTS = ((0, 170, 60), (64, 0, 178), (88, 95, 0))

SETTLE_CASES = [
    # §12.5: avg M = 270/3 = 90; A −10(42−90) + (170−64) + (60−88) = 480 + 106 − 28 = 558;
    # B −10(96−90) + (64−170) + (178−95) = −60 − 106 + 83 = −83;
    # C −10(132−90) + (88−60) + (95−178) = −420 + 28 − 83 = −475.
    pytest.param(SOCHI, (0, 0, 0), EX5_MOUNTAIN, EX5_WHISTS, (558, -83, -475), id="12.5-example"),
    # Divisor n − 1: mountain terms × 3/2: 720 + 78 = 798; −90 − 23 = −113; −630 − 55 = −685.
    pytest.param(
        rules(settlement_divisor="players_minus_one"),
        (0, 0, 0),
        EX5_MOUNTAIN,
        EX5_WHISTS,
        (798, -113, -685),
        id="divisor-players-minus-one",
    ),
    # Open pools 10/4/0, avg 14/3: Sochi 10 × (16/3, −2/3, −14/3).
    pytest.param(
        SOCHI,
        (10, 4, 0),
        (0, 0, 0),
        ((0,) * 3,) * 3,
        (Fraction(160, 3), Fraction(-20, 3), Fraction(-140, 3)),
        id="pool-weight-10",
    ),
    # Leningrad pool weight 20: 20 × (16/3, −2/3, −14/3).
    pytest.param(
        LENINGRAD,
        (10, 4, 0),
        (0, 0, 0),
        ((0,) * 3,) * 3,
        (Fraction(320, 3), Fraction(-40, 3), Fraction(-280, 3)),
        id="pool-weight-20",
    ),
    # Leningrad, all three terms: pools 20/20/14 (avg 18), mountains 10/4/7 (avg 7),
    # whists A→B 30, C→A 12.
    # A: 20·2 − 10·3 + 30 − 12 = 28;  B: 20·2 − 10·(−3) − 30 = 40;  C: 20·(−4) − 0 + 12 = −68.
    pytest.param(
        LENINGRAD,
        (20, 20, 14),
        (10, 4, 7),
        ((0, 30, 0), (0, 0, 0), (12, 0, 0)),
        (28, 40, -68),
        id="leningrad-all-terms",
    ),
    # 4 players, mountains 10/20/30/40 (avg 25): 150, 50, −50, −150; A→B 7 whists: 157, 43.
    pytest.param(
        SOCHI,
        (0,) * 4,
        (10, 20, 30, 40),
        ((0, 7, 0, 0), (0,) * 4, (0,) * 4, (0,) * 4),
        (157, 43, -50, -150),
        id="4p-players",
    ),
    # 4 players, divisor 3: mountain terms × 4/3: 200, 200/3, −200/3, −200, then ±7.
    pytest.param(
        rules(settlement_divisor="players_minus_one"),
        (0,) * 4,
        (10, 20, 30, 40),
        ((0, 7, 0, 0), (0,) * 4, (0,) * 4, (0,) * 4),
        (207, Fraction(200, 3) - 7, Fraction(-200, 3), -200),
        id="4p-players-minus-one",
    ),
]


@pytest.mark.parametrize(("tariff", "pool", "mountain", "whists", "balances"), SETTLE_CASES)
def test_settle(tariff, pool, mountain, whists, balances):
    result = settle(tariff, pool, mountain, whists)
    assert tuple(result) == balances
    assert sum(result) == 0


def test_worked_example_five_on_the_sheet():
    # The same numbers entered as an imported sheet (an adjustment): money = balance × 1.
    sheet = new_pulka(SOCHI)
    sheet.play(
        Adjustment(
            "imported sheet",
            mountain=dict(enumerate(EX5_MOUNTAIN)),
            whists=((A, B, 170), (B, A, 64), (A, C, 60), (C, A, 88), (B, C, 178), (C, B, 95)),
        )
    )
    result = sheet.result()
    assert result.balances == (558, -83, -475)
    assert result.money == (Decimal("558.00"), Decimal("-83.00"), Decimal("-475.00"))
    # Largest debtor C pays largest creditor A 475, then B pays A 83.
    assert result.payments == ((C, A, Decimal("475.00")), (B, A, Decimal("83.00")))
    assert result.complete is False


MONEY_CASES = [
    # (players, price, adjustment, money, payments)
    # Mountains 0/0/1 (avg 1/3): 10/3, 10/3, −20/3 → cents 333.33, 333.33, −666.67 → down to
    # 333, 333, −667 (sum −1): one cent; cut-offs all 1/3 → seat order → A.
    pytest.param(
        3,
        "1",
        Adjustment("x", mountain={C: 1}),
        ("3.34", "3.33", "-6.67"),
        [(C, A, "3.34"), (C, B, "3.33")],
        id="one-cent-tie-seat-order",
    ),
    # Mountains 0/1/0: 10/3, −20/3, 10/3 → 333, −667, 333 → the cent goes to A (seat order).
    pytest.param(
        3,
        "1",
        Adjustment("x", mountain={B: 1}),
        ("3.34", "-6.67", "3.33"),
        [(B, A, "3.34"), (B, C, "3.33")],
        id="one-cent-tie-debtor-in-middle",
    ),
    # Mountains 1/1/0 (avg 2/3): −10/3, −10/3, 20/3 → −334, −334, 666 (sum −2), cut-offs all
    # 2/3 → A and B get a cent: −3.33, −3.33, 6.66 (C keeps 6.66, not 6.67).
    pytest.param(
        3,
        "1",
        Adjustment("x", mountain={A: 1, B: 1}),
        ("-3.33", "-3.33", "6.66"),
        [(A, C, "3.33"), (B, C, "3.33")],
        id="two-cents-tie",
    ),
    # 4 players, whists A→D 7, B→D 2, B→C 3: balances 7, 5, −3, −9; price 0.003 → cents
    # 2.1, 1.5, −0.9, −2.7 → 2, 1, −1, −3 (sum −1); largest cut-off B (0.5) → 2.
    # Payments: D (−3) pays A (2, tie with B → seat order) 2; then C and D (−1 each, C first
    # by seat) pay B 1 each.
    pytest.param(
        4,
        "0.003",
        Adjustment("x", whists=((A, D, 7), (B, D, 2), (B, C, 3))),
        ("0.02", "0.02", "-0.01", "-0.03"),
        [(D, A, "0.02"), (C, B, "0.01"), (D, B, "0.01")],
        id="largest-cut-off",
    ),
    # Whists A→D 25, A→C 5, B→C 10: +30, +10, −15, −25 → D pays A 25; C pays B 10; C pays A 5.
    pytest.param(
        4,
        "1",
        Adjustment("x", whists=((A, D, 25), (A, C, 5), (B, C, 10))),
        ("30.00", "10.00", "-15.00", "-25.00"),
        [(D, A, "25.00"), (C, B, "10.00"), (C, A, "5.00")],
        id="payments-4p",
    ),
    # Ties: +10, +10, −10, −10 → C (first debtor by seat) pays A; D pays B.
    pytest.param(
        4,
        "1",
        Adjustment("x", whists=((A, C, 10), (B, D, 10))),
        ("10.00", "10.00", "-10.00", "-10.00"),
        [(C, A, "10.00"), (D, B, "10.00")],
        id="payments-ties",
    ),
]


@pytest.mark.parametrize(("players", "price", "adjustment", "money", "transfers"), MONEY_CASES)
def test_money_and_payments(players, price, adjustment, money, transfers):
    sheet = new_pulka(SOCHI, players=players, price=price)
    sheet.play(adjustment)
    result = sheet.result()
    assert result.money == tuple(Decimal(m) for m in money)
    assert sum(result.money) == 0
    assert result.payments == tuple((p, q, Decimal(amount)) for p, q, amount in transfers)
    assert len(result.payments) <= players - 1


def test_money_at_half_a_unit_per_whist():
    # The sochi-short-pulka sheet: pools 4/10/9 (avg 23/3), mountains 7/17/10 (avg 34/3),
    # whists A→B 12, B→A 8, C→A 4, C→B 12.
    # A: 10(−11/3) + 10(13/3) + 4 − 4 = 20/3; B: 10(7/3) − 10(17/3) − 4 − 12 = −148/3;
    # C: 10(4/3) + 10(4/3) + 4 + 12 = 128/3.  × 0.50 → 10/3, −74/3, 64/3 whole units →
    # cents 333.33, −2466.67, 2133.33 → 333, −2467, 2133 (sum −1) → A: 3.34, −24.67, 21.33.
    sheet = new_pulka(SOCHI, pool_target=10, price="0.50")
    sheet.play(
        Adjustment(
            "import",
            pool={A: 4, B: 10, C: 9},
            mountain={A: 7, B: 17, C: 10},
            whists=((A, B, 12), (B, A, 8), (C, A, 4), (C, B, 12)),
        )
    )
    result = sheet.result()
    assert result.balances == (Fraction(20, 3), Fraction(-148, 3), Fraction(128, 3))
    assert result.money == (Decimal("3.34"), Decimal("-24.67"), Decimal("21.33"))
    assert result.payments == ((B, C, Decimal("21.33")), (B, A, Decimal("3.34")))


JOINING_CASES = [
    # Pools 10/7/5 → 22/3 = 7.33, down to 7; mountains 3/4/4 → 11/3 = 3.67, up to 4.
    pytest.param((10, 7, 5), (3, 4, 4), (7, 4), id="rounded-against-him"),
    # Exact averages stay: 27/3 = 9, 18/3 = 6.
    pytest.param((9, 9, 9), (6, 6, 6), (9, 6), id="exact"),
    # Two others: 18/2 = 9; 3/2 = 1.5 → 2.
    pytest.param((10, 8), (1, 2), (9, 2), id="two-others"),
    # 20/3 = 6.67 → 6; 1/3 → 1.
    pytest.param((10, 10, 0), (0, 0, 1), (6, 1), id="pool-down-mountain-up"),
]


@pytest.mark.parametrize(("others_pools", "others_mountains", "entry"), JOINING_CASES)
def test_joining_player(others_pools, others_mountains, entry):
    assert joining_player_entry(others_pools, others_mountains) == entry
