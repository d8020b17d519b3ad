"""Reading the common parts of a game record (game-format.md) with clear messages.

Both games' record readers use these, so a bad player name or a wrong type reads the same
in Preferans and Boston.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from scoring.engine.errors import N_, RuleError

Record = Mapping[str, Any]


def check_keys(
    data: Record, allowed: Collection[str], *, where: str | None = None, deal: int | None = None
) -> None:
    """Reject fields the format does not know (a typo must not be silently ignored)."""
    for key in data:
        if key not in allowed:
            field = f"{where}.{key}" if where else key
            raise RuleError(N_("unknown field"), field=field, deal=deal)


def mapping(value: Any, field: str, deal: int | None = None) -> Mapping[str, Any]:
    """``value`` as a JSON object, or a clear error."""
    if not isinstance(value, Mapping):
        raise RuleError(N_("must be an object"), field=field, deal=deal)
    return value


def integer(
    value: Any,
    field: str,
    deal: int | None = None,
    *,
    low: int | None = None,
    high: int | None = None,
) -> int:
    """``value`` as a whole number within ``low``–``high``, or a clear error."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(N_("must be a whole number"), field=field, deal=deal)
    if low is not None and high is not None and not low <= value <= high:
        raise RuleError(
            N_("must be %(low)s–%(high)s, got %(got)s"),
            field=field,
            deal=deal,
            low=low,
            high=high,
            got=value,
        )
    if low is not None and value < low:
        raise RuleError(
            N_("must be at least %(low)s, got %(got)s"), field=field, deal=deal, low=low, got=value
        )
    if high is not None and value > high:
        raise RuleError(
            N_("must be at most %(high)s, got %(got)s"),
            field=field,
            deal=deal,
            high=high,
            got=value,
        )
    return value


def boolean(value: Any, field: str, deal: int | None = None) -> bool:
    """``value`` as true/false, or a clear error."""
    if not isinstance(value, bool):
        raise RuleError(N_("must be true or false"), field=field, deal=deal)
    return value


def text(value: Any, field: str, deal: int | None = None, *, max_length: int = 500) -> str:
    """``value`` as a non-empty string of reasonable length, or a clear error."""
    if not isinstance(value, str) or not value.strip():
        raise RuleError(N_("must be a non-empty text"), field=field, deal=deal)
    if len(value) > max_length:
        raise RuleError(
            N_("must be at most %(count)s characters"), field=field, deal=deal, count=max_length
        )
    if "\x00" in value:  # no database keeps a NUL in text
        raise RuleError(N_("must not contain a NUL character"), field=field, deal=deal)
    return value


def price(data: Record, key: str) -> Decimal:
    """A money price such as ``"0.50"`` (default 1): a non-negative decimal string."""
    raw = data.get(key, "1")
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise RuleError(N_('must be a decimal string such as "0.50"'), field=key)
    try:
        value = Decimal(str(raw))
    except InvalidOperation:
        raise RuleError(N_('must be a decimal string such as "0.50"'), field=key) from None
    if not value.is_finite() or value < 0 or value > 1_000_000:
        raise RuleError(N_("must be a price from 0 to 1000000"), field=key)
    return value


def players(data: Record, counts: Collection[int]) -> tuple[str, ...]:
    """The distinct player names in clockwise seat order."""
    raw = data.get("players")
    if not isinstance(raw, list) or len(raw) not in counts:
        low, high = min(counts), max(counts)
        if low == high:
            raise RuleError(N_("must list %(count)s player names"), field="players", count=low)
        raise RuleError(
            N_("must list %(low)s or %(high)s player names"), field="players", low=low, high=high
        )
    names = tuple(text(name, "players", max_length=100) for name in raw)
    if len(set(names)) != len(names):
        raise RuleError(N_("names must be distinct"), field="players")
    return names


def seat(name: Any, names: tuple[str, ...], field: str, deal: int | None = None) -> int:
    """The seat (0-based, clockwise) of the player called ``name``."""
    if isinstance(name, str) and name in names:
        return names.index(name)
    raise RuleError(
        N_("%(name)s is not a player at this table"), field=field, deal=deal, name=repr(name)
    )
