"""A substitute mid-pulka (Kodeks 3.1.2): the newcomer takes the average pool and the
average mountain of the players who stay, **rounded against him**: his pool (which helps
him) rounded down, his mountain (which counts against him) rounded up. His whists start
empty; each player's statistics keep their own deals.

Worked example (tests/scoring/engine/tournament/test_substitute.py): the others have pools
7 and 4 (average 5.5 → 5) and mountains 3 and 6 (average 4.5 → 5): the newcomer enters
with pool 5 and mountain 5.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from scoring.engine.errors import N_, RuleError
from scoring.engine.text import Text


@dataclass(frozen=True)
class Entry:
    """What the newcomer writes on entering: his ``pool`` and ``mountain``, explained."""

    pool: int
    mountain: Decimal
    explanation: Text


def substitute_entry(
    pools: Mapping[str, int], mountains: Mapping[str, Decimal | int], *, leaving: str
) -> Entry:
    """The newcomer's pool and mountain when ``leaving`` leaves the table (``pools`` and
    ``mountains``: every seat's, the leaving player's included; the average is over the
    others). ``RuleError`` when ``leaving`` is not at the table."""
    if leaving not in pools or set(pools) != set(mountains):
        raise RuleError(N_("%(player)s is not at this table"), field="player", player=leaving)
    others = [p for p in pools if p != leaving]
    if not others:
        raise RuleError(N_("no one stays at the table to average"), field="player")
    pool_average = Decimal(sum(pools[p] for p in others)) / len(others)
    mountain_average = Decimal(sum(Decimal(mountains[p]) for p in others)) / len(others)
    pool = int(pool_average.to_integral_value(rounding=ROUND_FLOOR))
    mountain = mountain_average.to_integral_value(rounding=ROUND_CEILING)
    return Entry(
        pool,
        mountain,
        Text(
            N_(
                "the others' pools %(pools)s average %(pool_average)s, rounded down: "
                "pool %(pool)s; their mountains %(mountains)s average %(mountain_average)s, "
                "rounded up: mountain %(mountain)s"
            ),
            pools=", ".join(str(pools[p]) for p in others),
            pool_average=_shown(pool_average),
            pool=pool,
            mountains=", ".join(str(mountains[p]) for p in others),
            mountain_average=_shown(mountain_average),
            mountain=mountain,
        ),
    )


def _shown(value: Decimal) -> Decimal:
    """An average as shown: to the hundredth, without trailing zeros (5.5, 5.33)."""
    shown = value.quantize(Decimal("0.01"))
    if shown == shown.to_integral_value():
        return shown.quantize(Decimal(1))
    return shown.normalize()
