"""What is entered for one deal of a pulka (preferans.md §2), by seat (0 = sector А)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal, NamedTuple

Answer = Literal["whist", "pass", "half"]
SUITS = ("S", "C", "D", "H", "N")
"""♠ ♣ ♦ ♥ and no-trump; the suit never changes the score (§2)."""


@dataclass(frozen=True, slots=True)
class Game:
    """A contract: ``answers`` maps each defender's seat to whist / pass / half.

    ``tricks`` maps each active seat to its tricks when somebody whisted, and is ``None``
    when both defenders passed or on a half-whist.
    """

    declarer: int
    level: int
    suit: str
    answers: Mapping[int, Answer]
    tricks: Mapping[int, int] | None = None
    dark: bool = False
    fast_tricks: int = 0
    """The widow's fast tricks (0–3) for the widow premium, where the tariff has it."""


@dataclass(frozen=True, slots=True)
class Misere:
    """A misère: only the declarer's tricks matter (0 = made)."""

    declarer: int
    tricks: int
    dark: bool = False


@dataclass(frozen=True, slots=True)
class Passout:
    """A pass-out (распасы): each active seat's tricks, and with 4 players the dealer's
    widow tricks (§6) when the tariff lets him play the widow."""

    tricks: Mapping[int, int]
    dealer_tricks: int | None = None
    dark: bool = False
    looked: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Concede:
    """A contract given up before play (уход без двух / без трёх, §13.11).

    ``undertricks`` is ``None`` when the record leaves it to the tariff's
    ``concede_undertricks``.
    """

    declarer: int
    level: int
    suit: str
    undertricks: int | None = None


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A manual entry with a reason; not a deal, so the dealer does not move (§2)."""

    reason: str
    pool: Mapping[int, int] = field(default_factory=dict)
    mountain: Mapping[int, int] = field(default_factory=dict)
    whists: tuple[tuple[int, int, int], ...] = ()


Deal = Game | Misere | Passout | Concede | Adjustment

Amount = int | Fraction


class Entry(NamedTuple):
    """One line a deal writes on the sheet, with the rule that wrote it.

    ``kind`` is pool, mountain or whists; ``on`` is the debtor of whists. ``rule`` names
    the clause (a key the site translates) and ``calc`` shows the arithmetic, so a scorer
    can see why each number is what it is. (A named tuple, not a dataclass: a pulka writes
    thousands of these and a tuple is several times cheaper to build.)
    """

    kind: Literal["pool", "mountain", "whists"]
    player: int
    amount: Amount
    rule: str
    calc: str
    on: int | None = None
