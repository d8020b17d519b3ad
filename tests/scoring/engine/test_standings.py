"""Standings arithmetic: places at a table and ranking with tiebreakers (table-driven)."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.standings import Standing, check_order, rank_standings, table_places


@pytest.mark.parametrize(
    ("results", "places"),
    [
        ([D("558"), D("-83"), D("-475")], (1, 2, 3)),
        ([D("13.33"), D("13.33"), D("-26.66")], (1, 1, 3)),
        ([0, 0, 0, 0], (1, 1, 1, 1)),
        ([-5, 10, -5, 0], (3, 1, 3, 2)),
    ],
)
def test_table_places(results, places):
    assert table_places(results) == places


def line(member, name, games, total, money=None, wins=0, best=None, worst=None, rating="0"):
    total = D(total)
    return Standing(
        member=member,
        name=name,
        games=games,
        total=total,
        money=D(money) if money is not None else total / 2,
        best=D(best) if best is not None else total,
        worst=D(worst) if worst is not None else total,
        wins=wins,
        rating=D(rating),
    )


ANNA = line(1, "Anna", 10, "100", wins=4)  # average 10.00
BORIS = line(2, "Boris", 5, "100", wins=2)  # average 20.00
VERA = line(3, "Vera", 4, "120", wins=1)  # average 30.00
GLEB = line(4, "Gleb", 10, "100", wins=4)  # same as Anna on every key but the name


@pytest.mark.parametrize(
    ("order", "min_games", "ranked", "ranks", "below"),
    [
        # Total first: Vera 120; Anna, Boris, Gleb 100 — tied on total alone share rank 2.
        (["total"], 0, ["Vera", "Anna", "Boris", "Gleb"], [1, 2, 2, 2], []),
        # Average breaks the tie: Boris 20 ahead of Anna and Gleb (10), who stay tied.
        (["total", "average"], 0, ["Vera", "Boris", "Anna", "Gleb"], [1, 2, 3, 3], []),
        # Wins first: Anna and Gleb 4, Boris 2, Vera 1.
        (["wins", "total"], 0, ["Anna", "Gleb", "Boris", "Vera"], [1, 1, 3, 4], []),
        # Average first; Vera has 4 games < 5 and is listed apart.
        (["average"], 5, ["Boris", "Anna", "Gleb"], [1, 2, 2], ["Vera"]),
        # Games first, then money (total / 2 here): Anna and Gleb 10 games, equal money.
        (["games", "money"], 6, ["Anna", "Gleb"], [1, 1], ["Boris", "Vera"]),
    ],
)
def test_ranking_with_tiebreakers(order, min_games, ranked, ranks, below):
    got, apart = rank_standings([ANNA, BORIS, VERA, GLEB], order, min_games)
    assert [s.name for s in got] == ranked
    assert [s.rank for s in got] == ranks
    assert [s.name for s in apart] == below
    assert all(s.rank is None for s in apart)


def test_average_is_rounded_to_the_cent():
    assert line(1, "A", 3, "10").average == D("3.33")
    assert line(1, "A", 0, "0").average == D("0")


@pytest.mark.parametrize(
    ("order", "message"),
    [
        ([], "at least one"),
        (["luck"], "unknown ranking key 'luck'"),
        (["wins", "wins"], "each ranking key once"),
    ],
)
def test_bad_ranking_orders_are_refused(order, message):
    with pytest.raises(RuleError, match=message) as error:
        check_order(order)
    assert error.value.field == "ranking"
