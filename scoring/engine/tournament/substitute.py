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
from decimal import Decimal

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
    raise NotImplementedError
