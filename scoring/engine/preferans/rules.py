"""The house settings of a Preferans tariff (preferans.md §11) and the four presets."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from scoring.engine.errors import N_, RuleError

LEVELS = (6, 7, 8, 9, 10)
LoneWhist = Literal["greedy", "gentleman"]
WhisterDuty = Literal["responsible", "none"]
TwoWhisterDuty = Literal["personal", "pair", "personal_if_pair_short", "proportional"]
DutyAtOne = Literal["second", "second_own", "both", "each_own", "none"]
PassoutMode = Literal["mountain", "whists"]
ZeroBonus = Literal["price", "none", "one", "mountain"]
SeriesEndsOn = Literal["any_deal", "played_game", "whisted_made_game", "made_game_from_level"]
HelpTo = Literal["largest", "clockwise", "none"]
OverflowFloor = Literal["none", "zero", "shift_all"]
PassoutWhistsTie = Literal["each", "split"]
LadderRepeat = Literal["last", "cycle"]
ZeroBonusWhenClosed = Literal["help", "mountain"]
Divisor = Literal["players", "players_minus_one"]
SettlementPools = Literal["counted", "ignored"]
LastRound = Literal["finish_circle", "one_more_circle"]

CHOICES: dict[str, tuple[str, ...]] = {
    "lone_whist": ("greedy", "gentleman"),
    "whister_duty": ("responsible", "none"),
    "two_whister_duty": ("personal", "pair", "personal_if_pair_short", "proportional"),
    "duty_at_one": ("second", "second_own", "both", "each_own", "none"),
    "passout_mode": ("mountain", "whists"),
    "passout_zero_bonus": ("price", "none", "one", "mountain"),
    "passout_series_ends_on": (
        "any_deal",
        "played_game",
        "whisted_made_game",
        "made_game_from_level",
    ),
    "help_to": ("largest", "clockwise", "none"),
    "overflow_floor": ("none", "zero", "shift_all"),
    "settlement_divisor": ("players", "players_minus_one"),
    "settlement_pools": ("counted", "ignored"),
    "last_round": ("finish_circle", "one_more_circle"),
    # §14
    "passout_whists_tie": ("each", "split"),
    "passout_ladder_repeat": ("last", "cycle"),
    "zero_bonus_when_closed": ("help", "mountain"),
}
LEGACY_BOOLEANS: dict[str, dict[bool, str]] = {
    "passout_zero_bonus": {True: "price", False: "none"},
}
"""Choice settings that were yes/no before the second edition (§13.6): the old values stay
accepted and mean these choices."""
YES_NO = frozenset(
    (
        "duty_on_remise",
        "stalingrad",
        "concede",
        "concede_consolation",
        "concede_ends_passouts",
        "consolation_by_passer",
        "widow_premium",
    )
)
"""The §13 and §14 yes/no settings: a record may give them as true/false or "yes"/"no"."""
RATES = ("whist_rate", "remise_rate", "consolation_rate", "whister_penalty_rate")
ZERO_RATES = frozenset(("consolation_rate",))
"""Rates that may be 0 (§13.1: consolation off)."""
LADDERS = ("passout_ladder", "passout_exit", "half_whist_levels")


@dataclass(frozen=True, slots=True)
class PreferansRules:
    """Every setting that clubs disagree on; defaults are Sochi's.

    Rates are multiples of the contract value ``V`` per trick (preferans.md §3). The
    settings after ``settlement_divisor`` are the second edition's (§13); their defaults
    score every older tariff and record exactly as before, but for one fixed defect:
    ``passout_zero_bonus = false`` now also holds in whist mode (§13.6). The settings
    after ``last_round`` are the third edition's (§14); their defaults change nothing.
    """

    contract_values: tuple[int, int, int, int, int, int] = (2, 4, 6, 8, 10, 10)
    whist_obligations: tuple[int, int, int, int, int] = (4, 2, 1, 1, 1)
    whist_rate: Fraction = Fraction(1)
    remise_rate: Fraction = Fraction(1)
    consolation_rate: Fraction = Fraction(1)
    whister_penalty_rate: Fraction = Fraction(1)
    misere_penalty: int = 10
    lone_whist: LoneWhist = "greedy"
    consolation_by_dealer: bool = True
    whister_duty: WhisterDuty = "responsible"
    two_whister_duty: TwoWhisterDuty = "personal"
    ten_is_whisted: bool = True
    half_whist_levels: tuple[int, ...] = (6, 7)
    passout_mode: PassoutMode = "mountain"
    passout_whists: int = 5
    passout_ladder: tuple[int, ...] = (1, 2, 3)
    passout_amnesty: bool = False
    passout_zero_bonus: ZeroBonus = "price"
    passout_exit: tuple[int, ...] = (6,)
    misere_ends_passouts: bool = True
    dealer_takes_widow_tricks: bool = False
    passout_same_dealer: bool = False
    dark_games: bool = False
    dark_multiplier: int = 2
    bombs: bool = False
    pool_weight: int = 10
    mountain_weight: int = 10
    help_whists_per_point: int = 10
    settlement_divisor: Divisor = "players"
    # -- second edition (§13) --
    settlement_pools: SettlementPools = "counted"
    duty_at_one: DutyAtOne = "second"
    duty_on_remise: bool = True
    passout_series_ends_on: SeriesEndsOn = "any_deal"
    passout_series_end_level: int = 8
    help_to: HelpTo = "largest"
    overflow_floor: OverflowFloor = "none"
    stalingrad: bool = False
    concede: bool = False
    concede_undertricks: int = 3
    concede_consolation: bool = False
    last_round: LastRound = "finish_circle"
    # -- third edition (§14) --
    consolation_fixed: int = 0
    misere_consolation: int = 0
    passout_whists_tie: PassoutWhistsTie = "each"
    passout_ladder_repeat: LadderRepeat = "last"
    concede_ends_passouts: bool = False
    zero_bonus_when_closed: ZeroBonusWhenClosed = "help"
    consolation_by_passer: bool = True
    # -- the federation's widow premium (issue 31, docs/rules.md) --
    widow_premium: bool = False

    def __post_init__(self) -> None:
        # Callers that build rules directly (the tariff model) may still pass the old
        # yes/no of a setting that became a choice; store the choice it means.
        for name, meaning in LEGACY_BOOLEANS.items():
            value = getattr(self, name)
            if isinstance(value, bool):
                object.__setattr__(self, name, meaning[value])
        _check(self)

    @classmethod
    def preset(cls, name: str) -> PreferansRules:
        """The preset called ``name`` (sochi, leningrad, rostov, classic, fspr_leningrad)."""
        try:
            return PRESETS[name]
        except KeyError:
            known = ", ".join(PRESETS)
            raise RuleError(
                N_("unknown preset %(name)s (known: %(known)s)"),
                field="rules",
                name=repr(name),
                known=known,
            ) from None

    def with_overrides(self, overrides: Mapping[str, Any]) -> PreferansRules:
        """These rules with some settings changed, each checked by name and type."""
        changes = {name: _coerce(name, value) for name, value in overrides.items()}
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every setting as a JSON-able value (rates as int or ``"3/2"`` strings)."""
        out: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, Fraction):
                value = value.numerator if value.denominator == 1 else str(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[field.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PreferansRules:
        """Rules from ``to_dict()`` output; missing settings take the Sochi defaults."""
        return cls().with_overrides(data)

    def value(self, level: int) -> int:
        """The contract value ``V`` of a level 6–10."""
        return self.contract_values[level - 6]

    @property
    def misere_value(self) -> int:
        """The value written for a made misère."""
        return self.contract_values[5]

    def obligation(self, level: int) -> int:
        """The defence obligation ``O`` (tricks) of a level 6–10."""
        return self.whist_obligations[level - 6]


def _coerce(name: str, value: Any) -> Any:
    """A setting's value from JSON, or a RuleError naming ``rules.<name>``."""
    field = f"rules.{name}"
    if name not in _FIELD_TYPES:
        raise RuleError(N_("unknown setting"), field=field)
    kind = _FIELD_TYPES[name]
    if kind == "bool":
        if name in YES_NO and value in ("yes", "no"):
            return value == "yes"
        if not isinstance(value, bool):
            raise RuleError(N_("must be true or false"), field=field)
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise RuleError(N_("must be a whole number"), field=field)
        return value
    if kind == "rate":
        return _rate(value, field)
    if kind == "ints":
        if not isinstance(value, list | tuple) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise RuleError(N_("must be a list of whole numbers"), field=field)
        return tuple(value)
    if isinstance(value, bool) and name in LEGACY_BOOLEANS:
        return LEGACY_BOOLEANS[name][value]
    if not isinstance(value, str) or value not in CHOICES[name]:
        raise RuleError(
            N_("must be one of: %(choices)s"), field=field, choices=", ".join(CHOICES[name])
        )
    return value


def _rate(value: Any, field: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | str | float):
        raise RuleError(N_('must be a number such as 1, 2 or "3/2"'), field=field)
    try:
        rate = Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise RuleError(N_('must be a number such as 1, 2 or "3/2"'), field=field) from None
    return rate.limit_denominator(1000)


def _field_kind(field: dataclasses.Field[Any]) -> str:
    if field.name in CHOICES:
        return "choice"
    if field.name in RATES:
        return "rate"
    if isinstance(field.default, bool):
        return "bool"
    if isinstance(field.default, int):
        return "int"
    return "ints"


_FIELD_TYPES = {f.name: _field_kind(f) for f in dataclasses.fields(PreferansRules)}


def _check(rules: PreferansRules) -> None:
    """Reject an impossible tariff, naming the setting."""

    def fail(name: str, template: str, **params: Any) -> None:
        raise RuleError(template, field=f"rules.{name}", **params)

    if len(rules.contract_values) != 6 or any(v <= 0 for v in rules.contract_values):
        fail("contract_values", N_("must be 6 positive values (6, 7, 8, 9, 10, misère)"))
    if len(rules.whist_obligations) != 5 or any(not 0 <= o <= 4 for o in rules.whist_obligations):
        fail("whist_obligations", N_("must be 5 obligations (6–10), each from 0 to 4"))
    for name in RATES:
        rate = getattr(rules, name)
        if name in ZERO_RATES:
            if not isinstance(rate, Fraction) or rate < 0 or rate > 100:
                fail(
                    name, N_("must be 0 or a positive multiple of the contract value, at most 100")
                )
        elif not isinstance(rate, Fraction) or rate <= 0 or rate > 100:
            fail(name, N_("must be a positive multiple of the contract value, at most 100"))
    for name in (
        "misere_penalty",
        "pool_weight",
        "mountain_weight",
        "help_whists_per_point",
        "passout_whists",
        "dark_multiplier",
    ):
        if not 0 < getattr(rules, name) <= 1000:
            fail(name, N_("must be a positive whole number, at most 1000"))
    for name in LADDERS:
        if not getattr(rules, name) and name != "half_whist_levels":
            fail(name, N_("must not be empty"))
    if any(not 0 < p <= 1000 for p in rules.passout_ladder):
        fail("passout_ladder", N_("every step must be a positive whole number, at most 1000"))
    if any(level not in LEVELS for level in rules.passout_exit):
        fail("passout_exit", N_("every step must be a contract level from 6 to 10"))
    if any(level not in LEVELS for level in rules.half_whist_levels):
        fail("half_whist_levels", N_("every level must be from 6 to 10"))
    for name, choices in CHOICES.items():
        if getattr(rules, name) not in choices:
            fail(name, N_("must be one of: %(choices)s"), choices=", ".join(choices))
    if rules.passout_series_end_level not in LEVELS:
        fail("passout_series_end_level", N_("must be a contract level from 6 to 10"))
    if not 1 <= rules.concede_undertricks <= 10:
        fail("concede_undertricks", N_("must be from 1 to 10"))
    if rules.concede_consolation and not rules.concede:
        fail("concede_consolation", N_("conceding is off (concede = no): nothing to console"))
    for name in ("consolation_fixed", "misere_consolation"):
        if not 0 <= getattr(rules, name) <= 1000:
            fail(name, N_("must be from %(low)s to %(high)s"), low=0, high=1000)
    if rules.consolation_fixed and not rules.consolation_rate:
        fail(
            "consolation_fixed",
            N_("consolation is off (consolation rate 0): a fixed consolation contradicts it"),
        )
    if rules.concede_ends_passouts and not rules.concede:
        fail(
            "concede_ends_passouts",
            N_("conceding is off (concede = no): no concession can end a series"),
        )


SOCHI = PreferansRules()
LENINGRAD = dataclasses.replace(
    SOCHI,
    whist_rate=Fraction(2),
    remise_rate=Fraction(2),
    consolation_rate=Fraction(2),
    misere_penalty=20,
    lone_whist="gentleman",
    passout_ladder=(2, 4, 6),
    passout_exit=(7,),
    pool_weight=20,
    help_whists_per_point=20,
)
FSPR_LENINGRAD = dataclasses.replace(
    LENINGRAD,
    # Exit 7-7-7 and pass-outs 2-4-6-6-6, obligations 4/2/1/1/1 half-responsible (the
    # whister's penalty 1 × V against 2 × V whists and remises) and no concession are
    # Leningrad's already; the federation adds these two (docs/rules.md, ФСПР).
    passout_series_ends_on="whisted_made_game",
    widow_premium=True,
)
ROSTOV = dataclasses.replace(SOCHI, passout_mode="whists", passout_whists=5, passout_ladder=(1,))
CLASSIC = dataclasses.replace(
    SOCHI,
    passout_ladder=(1, 2, 4),
    passout_exit=(6, 7, 8),
    dealer_takes_widow_tricks=True,
    passout_same_dealer=True,
    dark_games=True,
    dark_multiplier=2,
    bombs=True,
)
PRESETS: dict[str, PreferansRules] = {
    "sochi": SOCHI,
    "leningrad": LENINGRAD,
    "rostov": ROSTOV,
    "classic": CLASSIC,
    "fspr_leningrad": FSPR_LENINGRAD,
}
