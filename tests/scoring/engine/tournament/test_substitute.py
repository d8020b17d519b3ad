"""A substitute mid-pulka (Kodeks 3.1.2, scoring/engine/tournament/substitute.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.tournament.substitute import substitute_entry


def test_the_worked_example() -> None:
    # Vera leaves; Anna and Boris stay with pools 7 and 4 (5.5 → 5, down: against him)
    # and mountains 3 and 6 (4.5 → 5, up: against him).
    entry = substitute_entry(
        {"anna": 7, "boris": 4, "vera": 2}, {"anna": 3, "boris": 6, "vera": 10}, leaving="vera"
    )
    assert (entry.pool, entry.mountain) == (5, Decimal(5))
    assert entry.explanation == (
        "the others' pools 7, 4 average 5.5, rounded down: pool 5; "
        "their mountains 3, 6 average 4.5, rounded up: mountain 5"
    )


def test_at_four_the_three_who_stay_are_averaged() -> None:
    # Pools 10, 6, 0 → 16 / 3 = 5.33 → 5; mountains 2, 3, 3 → 8 / 3 = 2.67 → 3.
    entry = substitute_entry(
        {"a": 10, "b": 6, "c": 0, "d": 9},
        {"a": 2, "b": 3, "c": Decimal(3), "d": 0},
        leaving="d",
    )
    assert (entry.pool, entry.mountain) == (5, Decimal(3))
    assert "average 5.33" in entry.explanation
    assert "average 2.67" in entry.explanation


def test_an_exact_average_is_not_rounded() -> None:
    entry = substitute_entry({"a": 4, "b": 6, "c": 1}, {"a": 8, "b": 2, "c": 1}, leaving="c")
    assert (entry.pool, entry.mountain) == (5, Decimal(5))


def test_someone_not_at_the_table_cannot_leave() -> None:
    with pytest.raises(RuleError, match="zoe is not at this table"):
        substitute_entry({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "c": 3}, leaving="zoe")
