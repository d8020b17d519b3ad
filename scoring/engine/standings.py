"""Standings arithmetic: places at a table, and a season's ranking with tiebreakers.

Pure functions over plain numbers; the site aggregates stored results in the database and
hands the rows here to be ordered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from scoring.engine.errors import N_, RuleError

RANKING_KEYS = {
    "total": "total result",
    "money": "total money",
    "average": "average result per game",
    "wins": "wins",
    "rating": "rating",
    "best": "best game",
    "games": "games played",
}
"""What a season may rank by, in the organiser's order (first key decides, the rest break
ties). Every key ranks higher values first."""


def table_places(results: Sequence[Decimal | int]) -> tuple[int, ...]:
    """Each seat's place at a finished table: 1 for the best balance; equal balances
    share a place (1, 1, 3)."""
    return tuple(1 + sum(other > mine for other in results) for mine in results)


@dataclass(frozen=True, slots=True)
class Standing:
    """One member's line on a leaderboard (``rank`` is filled by ``rank_standings``)."""

    member: int
    name: str
    games: int
    total: Decimal
    money: Decimal
    best: Decimal
    worst: Decimal
    wins: int
    rating: Decimal = Decimal(0)
    rank: int | None = None

    @property
    def average(self) -> Decimal:
        """The result per game, to the cent."""
        if not self.games:
            return Decimal(0)
        return (self.total / self.games).quantize(Decimal("0.01"))

    def key(self, name: str) -> Decimal | int:
        """The value a ranking key reads."""
        return getattr(self, name)  # type: ignore[no-any-return]


def check_order(order: Sequence[str]) -> tuple[str, ...]:
    """A ranking order: known keys, each once, at least one."""
    if not order:
        raise RuleError(N_("choose at least one ranking key"), field="ranking")
    unknown = [k for k in order if k not in RANKING_KEYS]
    if unknown:
        raise RuleError(
            N_("unknown ranking key %(key)s; use: %(keys)s"),
            field="ranking",
            key=repr(unknown[0]),
            keys=", ".join(RANKING_KEYS),
        )
    if len(set(order)) != len(order):
        raise RuleError(N_("each ranking key once"), field="ranking")
    return tuple(order)


def rank_standings(
    rows: Iterable[Standing], order: Sequence[str], min_games: int = 0
) -> tuple[list[Standing], list[Standing]]:
    """Rank the members with at least ``min_games`` by ``order`` (first key, then the
    tiebreakers); members equal on every key share a rank and are listed by name. Those
    below the minimum come second, unranked, ordered the same way."""
    order = check_order(order)

    def sort_key(s: Standing) -> tuple[object, ...]:
        return (*(-s.key(k) for k in order), s.name.casefold(), s.member)

    qualified = sorted((s for s in rows if s.games >= min_games), key=sort_key)
    below = sorted((s for s in rows if s.games < min_games), key=sort_key)
    ranked: list[Standing] = []
    for i, standing in enumerate(qualified):
        previous = ranked[-1] if ranked else None
        tied = previous is not None and all(previous.key(k) == standing.key(k) for k in order)
        rank = previous.rank if tied and previous is not None else i + 1
        ranked.append(replace(standing, rank=rank))
    return ranked, below
