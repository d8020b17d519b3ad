"""Hypothesis strategies for valid Preferans pulkas, built deal by deal against the engine
so that every generated deal is legal for the sheet as it stands."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import strategies as st

from scoring.engine.preferans import (
    PRESETS,
    Adjustment,
    Concede,
    Deal,
    Game,
    Misere,
    Passout,
    PreferansRules,
    Pulka,
    PulkaSetup,
)


@st.composite
def rules(draw: st.DrawFn) -> PreferansRules:
    """A preset, sometimes with house settings changed (the §13 and §14 ones included)."""
    base = PRESETS[draw(st.sampled_from(sorted(PRESETS)))]  # the federation's preset too
    overrides = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "lone_whist": st.sampled_from(["greedy", "gentleman"]),
                "two_whister_duty": st.sampled_from(
                    ["personal", "pair", "personal_if_pair_short", "proportional"]
                ),
                "whister_duty": st.sampled_from(["responsible", "none"]),
                "passout_amnesty": st.booleans(),
                "consolation_by_dealer": st.booleans(),
                "settlement_divisor": st.sampled_from(["players", "players_minus_one"]),
                "misere_ends_passouts": st.booleans(),
                "whist_rate": st.sampled_from([1, 2, "1/2", "3/2"]),
                # §13
                "consolation_rate": st.sampled_from([0, 1, 2, "1/2"]),
                "settlement_pools": st.sampled_from(["counted", "ignored"]),
                "duty_at_one": st.sampled_from(
                    ["second", "second_own", "both", "each_own", "none"]
                ),
                "duty_on_remise": st.booleans(),
                "passout_zero_bonus": st.sampled_from(
                    [True, False, "price", "none", "one", "mountain"]
                ),
                "passout_series_ends_on": st.sampled_from(
                    ["any_deal", "played_game", "whisted_made_game", "made_game_from_level"]
                ),
                "passout_series_end_level": st.integers(6, 10),
                "help_to": st.sampled_from(["largest", "clockwise", "none"]),
                "overflow_floor": st.sampled_from(["none", "zero", "shift_all"]),
                "stalingrad": st.booleans(),
                "concede": st.booleans(),
                "concede_undertricks": st.integers(1, 6),
                "concede_consolation": st.booleans(),
                "last_round": st.sampled_from(["finish_circle", "one_more_circle"]),
                # §14
                "consolation_fixed": st.sampled_from([0, 5, 10]),
                "misere_consolation": st.sampled_from([0, 10]),
                "passout_whists_tie": st.sampled_from(["each", "split"]),
                "passout_ladder_repeat": st.sampled_from(["last", "cycle"]),
                "concede_ends_passouts": st.booleans(),
                "zero_bonus_when_closed": st.sampled_from(["help", "mountain"]),
                "consolation_by_passer": st.booleans(),
                "widow_premium": st.booleans(),
            },
        )
    )
    if overrides.get("concede_consolation") or overrides.get("concede_ends_passouts"):
        overrides["concede"] = True  # consolation or a series ended, without conceding: refused
    if not overrides.get("consolation_rate", base.consolation_rate):
        overrides.pop("consolation_fixed", None)  # a fixed consolation with consolation off
    return base.with_overrides(overrides)


@st.composite
def setups(draw: st.DrawFn) -> PulkaSetup:
    """A pulka's conditions: 3 or 4 players, a small target so pools close and help."""
    size = draw(st.sampled_from([3, 4]))
    return PulkaSetup(
        players=("Anna", "Boris", "Vera", "Gleb")[:size],
        rules=draw(rules()),
        first_dealer=draw(st.integers(0, size - 1)),
        pool_target=draw(st.integers(1, 30)),
        whist_price=draw(st.sampled_from([Decimal("1"), Decimal("0.50"), Decimal("0.33")])),
        control_time_deal=draw(st.none() | st.integers(0, 30)),
    )


def split_ten(draw: st.DrawFn, seats: tuple[int, ...], total: int = 10) -> dict[int, int]:
    """Tricks for ``seats`` adding up to ``total``."""
    cuts = sorted(
        draw(st.lists(st.integers(0, total), min_size=len(seats) - 1, max_size=len(seats) - 1))
    )
    bounds = [0, *cuts, total]
    return {seat: bounds[i + 1] - bounds[i] for i, seat in enumerate(seats)}


def next_deal(draw: st.DrawFn, pulka: Pulka, adjustment_pools: int = 2) -> Deal:
    """A deal that the rules allow on ``pulka`` as it stands now (an adjustment changing
    at most ``adjustment_pools`` pools)."""
    rules = pulka.rules
    active = pulka.active_seats()
    if pulka.complete:
        return adjustment(draw, pulka, adjustment_pools)
    kinds = ["game", "game", "game", "misere", "passout", "adjust"]
    kind = draw(st.sampled_from([*kinds, "concede"] if rules.concede else kinds))
    dark = rules.dark_games and draw(st.booleans())
    if kind == "adjust":
        return adjustment(draw, pulka, adjustment_pools)
    if kind == "concede":
        level = draw(st.integers(pulka.lowest_contract(), 10))
        undertricks = draw(st.none() | st.integers(1, level))
        return Concede(
            declarer=draw(st.sampled_from(active)),
            level=level,
            suit=draw(st.sampled_from("SCDHN")),
            undertricks=undertricks,
        )
    if kind == "passout":
        dealer_tricks = None
        if pulka.setup.size == 4 and rules.dealer_takes_widow_tricks:
            dealer_tricks = draw(st.integers(0, 2))
        tricks = split_ten(draw, active, 10 - (dealer_tricks or 0))
        looked = frozenset(draw(st.sets(st.sampled_from(active)))) if dark else frozenset()
        return Passout(tricks=tricks, dealer_tricks=dealer_tricks, dark=dark, looked=looked)
    declarer = draw(st.sampled_from(active))
    if kind == "misere":
        return Misere(declarer=declarer, tricks=draw(st.integers(0, 10)), dark=dark)
    level = draw(st.integers(pulka.lowest_contract(), 10))
    suit = draw(st.sampled_from("SCDHN"))
    defenders = pulka.defenders(declarer)
    answers = {s: draw(st.sampled_from(["whist", "pass"])) for s in defenders}
    if level == 10 and not rules.ten_is_whisted:
        answers = dict.fromkeys(defenders, "pass")
    elif rules.stalingrad and (level, suit) == (6, "S"):
        answers = dict.fromkeys(defenders, "whist")
    elif level in rules.half_whist_levels and draw(st.integers(0, 5)) == 0:
        answers = {defenders[0]: "pass", defenders[1]: "half"}
    tricks = split_ten(draw, active) if "whist" in answers.values() else None
    fast = draw(st.integers(0, 3)) if rules.widow_premium and tricks is not None else 0
    return Game(
        declarer=declarer,
        level=level,
        suit=suit,
        answers=answers,
        tricks=tricks,
        dark=dark,
        fast_tricks=fast,
    )


def adjustment(draw: st.DrawFn, pulka: Pulka, max_pools: int = 2) -> Adjustment:
    seats = range(pulka.setup.size)
    amount = st.integers(-20, 40)
    pool = draw(st.dictionaries(st.sampled_from(seats), amount, max_size=max_pools))
    mountain = draw(st.dictionaries(st.sampled_from(seats), amount, max_size=2))
    pairs = [(w, on) for w in seats for on in seats if w != on]
    whists = draw(st.lists(st.tuples(st.sampled_from(pairs), amount), max_size=2))
    return Adjustment(
        reason="correction",
        pool=pool,
        mountain=mountain,
        whists=tuple((w, on, a) for (w, on), a in whists),
    )


@st.composite
def pulkas(
    draw: st.DrawFn, max_deals: int = 40, adjustment_pools: int = 2
) -> tuple[PulkaSetup, list[Deal]]:
    """A setup and a sequence of deals, each legal when it is played; an adjustment
    changes at most ``adjustment_pools`` pools."""
    setup = draw(setups())
    pulka = Pulka(setup)
    deals: list[Deal] = []
    for _ in range(draw(st.integers(0, max_deals))):
        deal = next_deal(draw, pulka, adjustment_pools)
        pulka.play(deal)
        deals.append(deal)
    return setup, deals
