"""A substitute mid-pulka (Kodeks 3.1.2, scoring/engine/tournament/substitute.py)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.preferans import PreferansRules
from scoring.engine.preferans.pulka import Pulka, PulkaSetup
from scoring.engine.tournament.substitute import substitute_entry, substitute_seat


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


# -- the seat taken over in a pulka in play (``substitute_seat``) -----------------------------


def _sheet(divisor: str = "players") -> Pulka:
    """Sochi, three players. Pools: Anna 7, Boris 4, Vera 2; mountains 3, 6, 10; whists:
    Anna on Boris 6, Anna on Vera 4, Vera on Anna 12."""
    rules = PreferansRules.preset("sochi").with_overrides({"settlement_divisor": divisor})
    pulka = Pulka(PulkaSetup(players=("Anna", "Boris", "Vera"), rules=rules))
    pulka.pool[:] = [7, 4, 2]
    pulka.mountain[:] = [3, 6, 10]
    pulka.whists[0][1], pulka.whists[0][2], pulka.whists[2][0] = 6, 4, 12
    return pulka


def test_the_leaver_settles_pair_by_pair_and_the_seat_starts_afresh() -> None:
    # Vera with Anna: (10 × (2 − 7) − 10 × (10 − 3)) / 3 = −40, whists 12 − 4 = +8: −32.
    # Vera with Boris: (10 × (2 − 4) − 10 × (10 − 6)) / 3 = −20, no whists: −20.
    # Her balance −52 is settle()'s: 10 × (2 − 13/3) − 10 × (10 − 19/3) + 8 = −60 + 8.
    pulka = _sheet()
    assert pulka.result().balances[2] == -52

    left = substitute_seat(pulka, 2)

    assert (left.balance, dict(left.settled)) == (-52, {0: 32, 1: 20})
    # Her substitute: pools 7, 4 → 5.5 → 5; mountains 3, 6 → 4.5 → 5; no whists either way.
    assert (pulka.pool, pulka.mountain) == ([7, 4, 5], [3, 6, 5])
    assert pulka.whists == [[0, 6, 0], [0, 0, 0], [0, 0, 0]]
    # Settled now: pools 7, 4, 5 (average 16/3), mountains 3, 6, 5 (14/3):
    # Anna 50/3 + 50/3 + 6 = 118/3, Boris −40/3 − 40/3 − 6 = −98/3, the substitute
    # −10/3 − 10/3 = −20/3 (the rounding against him).
    balances = pulka.result().balances
    assert balances == (Fraction(118, 3), Fraction(-98, 3), Fraction(-20, 3))
    # Everything adds up: Anna 118/3 + 32, Boris −98/3 + 20, the substitute, Vera.
    assert sum(balances) + sum(left.settled.values()) + left.balance == 0


def test_with_the_divisor_of_the_players_less_one_the_sheet_terms_are_halved() -> None:
    # Vera with Anna: −120 / 2 = −60, +8: −52; with Boris: −60 / 2 = −30: −82 in all,
    # settle()'s 3/2 × (−180/3) + 8 = −82.
    pulka = _sheet("players_minus_one")
    assert pulka.result().balances[2] == -82
    left = substitute_seat(pulka, 2)
    assert (left.balance, dict(left.settled)) == (-82, {0: 52, 1: 30})


def test_a_seat_not_at_the_table_is_refused() -> None:
    with pytest.raises(RuleError):
        substitute_seat(_sheet(), 3)
