"""A tournament's standings: tour points added up, best N of M, tie-breaks, cards, cut.

``rank`` orders the players by:

1. ``total``: the points of the counted tours (all, or the best ``best_of``) plus the
   judges' penalties (signed: a penalty of −10 is given as ``Decimal(-10)``);
2. then the larger total result (whists over the counted tours);
3. then head-to-head among the players still tied: for each tour two of them shared a
   table, a point to the one placed higher there; more points ranks higher;
4. then opponents' strength: the sum of the totals of every opponent met (each meeting
   counted), larger first.

Players equal on all four share a rank (listed by key). A yellow card is earned by a tour
result below ``yellow_below``; ``cards`` adds the judges' own; ``disqualify_at`` cards
disqualify. Disqualified players are listed last, with ``rank`` ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from scoring.engine.text import Text
from scoring.engine.tournament.points import TourScore


@dataclass(frozen=True)
class Line:
    """One player's line of the standings: ``tours`` his score in each tour (``None`` when
    he did not play it), ``counted`` which of them count (best N of M), ``total`` his
    points (counted tours + ``penalty``), ``result_total`` his whists over the counted
    tours, his yellow ``cards``, and ``tie_break``: the words that say what separated him
    from the player above on equal points (empty when nothing had to)."""

    player: str
    rank: int | None
    total: Decimal
    tours: tuple[TourScore | None, ...]
    counted: tuple[bool, ...]
    result_total: Decimal
    cards: int
    disqualified: bool
    tie_break: Text
    penalty: Decimal = Decimal(0)


def rank(
    tours: Sequence[Mapping[str, TourScore]],
    *,
    best_of: int | None = None,
    penalties: Mapping[str, Decimal] | None = None,
    yellow_below: Decimal | None = None,
    cards: Mapping[str, int] | None = None,
    disqualify_at: int = 2,
    players: Sequence[str] = (),
) -> list[Line]:
    """The standings after ``tours`` (each: player → his ``TourScore`` in that tour),
    ordered as the module docstring says. ``players``: anyone to list though he has no
    tour yet (after the cut, the players who did not reach the final still appear)."""
    raise NotImplementedError


def cut(lines: Sequence[Line], keep: int) -> tuple[str, ...]:
    """The best ``keep`` players of ``lines`` (as ``rank`` ordered them), the disqualified
    left out. ``RuleError`` when players sharing a rank straddle the line: the judges
    decide between them."""
    raise NotImplementedError
