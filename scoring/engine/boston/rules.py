"""Boston house settings (boston.md §1–§2): one frozen value holds a whole house tariff.

The defaults are the cleaned seed values of ``boston_tariff.json``, copied here as
constants: the shared spec folder is not part of the site, so nothing is read at run time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from scoring.engine.errors import N_, RuleError

SYSTEMS = ("payment-tariff", "value-card")
"""The two scoring systems of the seed: the prose tariff and the contract value card."""

SUPPORTED_PAYERS = ("pairs", "each")
"""Who pays whom in a 2-vs-2 contract (the seed's wording is ambiguous, boston.md §1)."""

SUITS = ("spades", "clubs", "diamonds", "hearts")
"""The value card's columns, lowest to highest as the seed prints them (П, Тр, Б, Ч)."""

ASK_CONTRACTS = ("supported", "unsupported", "independence")
"""The payment tariff's three contracts."""

TRICK_ROWS = ("5", "6", "7", "8", "9", "10", "11", "12")
"""The value card's trick contracts; row "5" is "5 alone or 8 together"."""

MISERE_ROWS = (
    "small-misere",
    "piccolissimo",
    "grand-misere",
    "four-tour-misere",
    "small-open-misere",
    "grand-open-misere",
)
"""The value card's misère rows, cheapest first."""

BOSTON_ROWS = ("boston", "open-boston")
"""The value card's 13-tricks-alone rows."""

CARD_ROWS = (*TRICK_ROWS, "slam-by-two", *MISERE_ROWS, *BOSTON_ROWS)
"""Every contract row of the value card, as the game record names them."""

# A ceiling on every number setting: no house needs more, and it keeps every product the
# engine forms (and prints in an explanation) to a sane size whatever a record says.
SETTING_MAX = 1_000_000

_ROW_COUNT = len(TRICK_ROWS)


@dataclass(frozen=True, slots=True, kw_only=True)
class BostonRules:
    """Every house setting of a Boston table (boston.md §1–§2).

    Payment tariff: per contract the ``required`` tricks, the ``base`` (consolation, or the
    payment for the unfulfilled obligation), the ``rate`` per trick over or short and the
    trick count ``no_trick_count`` (S) charged when the declaring side takes no trick, all
    for the minor suit in a simple tour. Value card: the column order and multipliers, the
    unit of every row (a cell is unit × column multiplier) and which parts of a trick
    contract are paid.
    """

    system: str = "payment-tariff"

    # Payment tariff (seed sections A–N).
    supported_required: int = 8
    supported_base: int = 2
    supported_rate: int = 2
    supported_no_trick_count: int = 13
    unsupported_required: int = 5
    unsupported_base: int = 2
    unsupported_rate: int = 2
    unsupported_no_trick_count: int = 5
    independence_required: int = 8
    independence_base: int = 16
    independence_rate: int = 4
    independence_no_trick_count: int = 13
    slam_multiplier: int = 2
    major_multiplier: int = 2
    double_tour_multiplier: int = 2
    supported_payers: str = "pairs"

    # Contract value card (the table at the end of seed 003).
    suit_order: tuple[str, ...] = SUITS
    column_multipliers: tuple[int, ...] = (1, 2, 3, 4)
    contract_units: tuple[int, ...] = (4, 6, 9, 12, 15, 18, 21, 24)
    three_honours_units: tuple[int, ...] = (3, 4, 6, 8, 10, 12, 14, 16)
    four_honours_units: tuple[int, ...] = (4, 6, 9, 12, 15, 18, 21, 24)
    overtrick_units: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
    slam_by_two_unit: int = 50
    small_misere_unit: int = 16
    piccolissimo_unit: int = 24
    grand_misere_unit: int = 32
    four_tour_misere_unit: int = 40
    small_open_misere_unit: int = 48
    grand_open_misere_unit: int = 56
    boston_unit: int = 100
    open_boston_unit: int = 200
    together_required: int = 8
    piccolissimo_tricks: int = 1
    card_pays_honours: bool = True
    card_pays_overtricks: bool = True
    card_pays_undertricks: bool = True

    _CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {
        "system": SYSTEMS,
        "supported_payers": SUPPORTED_PAYERS,
    }
    _TRICK_SETTINGS: ClassVar[tuple[str, ...]] = (
        "supported_required",
        "unsupported_required",
        "independence_required",
        "supported_no_trick_count",
        "unsupported_no_trick_count",
        "independence_no_trick_count",
        "together_required",
    )
    _UNIT_ROWS: ClassVar[tuple[str, ...]] = (
        "contract_units",
        "three_honours_units",
        "four_honours_units",
        "overtrick_units",
    )

    def __post_init__(self) -> None:
        for setting in dataclasses.fields(self):
            _check_setting(setting.name, getattr(self, setting.name), setting.default)
        if sorted(self.suit_order) != sorted(SUITS):
            raise RuleError(
                N_("must list spades, clubs, diamonds and hearts once each"), field="suit_order"
            )
        if len(self.column_multipliers) != len(SUITS):
            raise RuleError(N_("must give one multiplier per suit (4)"), field="column_multipliers")
        for name in self._UNIT_ROWS:
            if len(getattr(self, name)) != _ROW_COUNT:
                raise RuleError(
                    N_("must give one unit per trick contract 5–12 (%(count)s)"),
                    field=name,
                    count=_ROW_COUNT,
                )
        # Row "5" is "5 alone or 8 together": together must ask for more than alone.
        if self.together_required < 6:
            raise RuleError(
                N_("must be %(low)s–%(high)s, got %(got)s"),
                field="together_required",
                low=6,
                high=13,
                got=self.together_required,
            )

    @classmethod
    def preset(cls, name: str) -> Self:
        """The default house tariff of a system: ``"payment-tariff"`` or ``"value-card"``.

        Both presets carry the seed's values for both systems; they differ in the system
        the table scores by.
        """
        if name not in SYSTEMS:
            raise RuleError(
                N_("unknown preset %(name)s (payment-tariff or value-card)"),
                field="rules",
                name=repr(name),
            )
        return cls(system=name)

    def to_dict(self) -> dict[str, Any]:
        """Every setting as a JSON-able value (tuples become lists)."""
        return {
            setting.name: _jsonable(getattr(self, setting.name))
            for setting in dataclasses.fields(self)
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Rules from :meth:`to_dict`'s output: the preset of its ``system`` (default the
        payment tariff) with every other setting it names applied on top."""
        if not isinstance(data, Mapping):
            raise RuleError(N_("must be an object"), field="rules")
        system = data.get("system", SYSTEMS[0])
        if not isinstance(system, str) or system not in SYSTEMS:
            raise _not_one_of(SYSTEMS, "rules.system")
        return cls.preset(system).with_overrides(data)

    def with_overrides(self, overrides: Mapping[str, Any]) -> Self:
        """A copy with the named settings replaced; unknown names, wrong types and
        impossible values raise RuleError naming ``rules.<setting>``."""
        if not isinstance(overrides, Mapping):
            raise RuleError(N_("must be an object"), field="rules")
        known = {setting.name for setting in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for name, value in overrides.items():
            if name not in known:
                raise RuleError(N_("unknown setting"), field=f"rules.{name}")
            changes[name] = _read_setting(name, value, getattr(self, name))
        try:
            return dataclasses.replace(self, **changes)
        except RuleError as err:
            raise err.at_field(f"rules.{err.field}") from None

    def ask_terms(self, contract: str) -> tuple[int, int, int, int]:
        """(required, base, rate, no-trick count S) of a payment-tariff contract."""
        if contract not in ASK_CONTRACTS:
            raise _not_one_of(ASK_CONTRACTS, "contract")
        return (
            getattr(self, f"{contract}_required"),
            getattr(self, f"{contract}_base"),
            getattr(self, f"{contract}_rate"),
            getattr(self, f"{contract}_no_trick_count"),
        )

    def column_multiplier(self, column: str) -> int:
        """The value card's multiplier of a suit column."""
        if column not in self.suit_order:
            raise _not_one_of(SUITS, "column")
        return self.column_multipliers[self.suit_order.index(column)]

    def special_unit(self, row: str) -> int:
        """The unit of a value-card row that is not a trick contract (slam by two, a
        misère, a Boston)."""
        if row in TRICK_ROWS or row not in CARD_ROWS:
            raise _not_one_of(CARD_ROWS[_ROW_COUNT:], "contract")
        unit: int = getattr(self, f"{row.replace('-', '_')}_unit")
        return unit


def _check_setting(name: str, value: object, default: object) -> None:
    """Reject a setting whose type differs from its default's, or an impossible value."""
    choices = BostonRules._CHOICES.get(name)
    if choices is not None:
        if not isinstance(value, str) or value not in choices:
            raise _not_one_of(choices, name)
    elif isinstance(default, bool):
        if not isinstance(value, bool):
            raise RuleError(N_("must be true or false"), field=name)
    elif name == "suit_order":
        if not isinstance(value, tuple) or not all(isinstance(s, str) for s in value):
            raise RuleError(N_("must be a list of suit names"), field=name)
    elif isinstance(default, tuple):
        if not isinstance(value, tuple):
            raise RuleError(N_("must be a list of whole numbers"), field=name)
        for position, item in enumerate(value, start=1):
            _check_number(name, item, low=1, item=position)
    elif name in BostonRules._TRICK_SETTINGS:
        _check_number(name, value, low=1, high=13)
    elif name == "piccolissimo_tricks":
        _check_number(name, value, low=0, high=1)
    else:
        _check_number(name, value, low=1)


def _check_number(
    name: str, value: object, *, low: int, high: int = SETTING_MAX, item: int | None = None
) -> None:
    # A list's item is named, so that the admin can show the message on the item's row.
    if isinstance(value, bool) or not isinstance(value, int):
        if item is None:
            raise RuleError(N_("must be a whole number"), field=name)
        raise RuleError(N_("item %(item)s must be a whole number"), field=name, item=item)
    if not low <= value <= high:
        bounds = {"low": low, "high": high, "got": value}
        if item is None:
            raise RuleError(N_("must be %(low)s–%(high)s, got %(got)s"), field=name, **bounds)
        raise RuleError(
            N_("item %(item)s must be %(low)s–%(high)s, got %(got)s"),
            field=name,
            item=item,
            **bounds,
        )


def _read_setting(name: str, value: Any, current: object) -> object:
    """A JSON value for a setting, in the setting's Python type (lists become tuples).

    Only the shape is checked here; ``BostonRules.__post_init__`` checks the values.
    """
    if isinstance(current, tuple):
        if not isinstance(value, list | tuple):
            raise RuleError(N_("must be a list"), field=f"rules.{name}")
        return tuple(value)
    return value


def _jsonable(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def _not_one_of(choices: tuple[str, ...], field: str) -> RuleError:
    return RuleError(N_("must be one of %(choices)s"), field=field, choices=", ".join(choices))
