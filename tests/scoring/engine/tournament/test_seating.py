"""Seating a tour (scoring/engine/tournament/seating.py): everyone seated once or on a
bye, reproducible from the seed, no repeat pair while one can be avoided, leaders together,
intervals, schedules and byes by the stated rule."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine.errors import RuleError
from scoring.engine.tournament.seating import (
    Seating,
    meetings,
    precheck,
    schedule,
    seat_tour,
)
from tests.hypothesis_profiles import examples

PROPERTY_SETTINGS = settings(max_examples=examples(60), deadline=None)


def _names(n: int) -> list[str]:
    return [f"p{i:02d}" for i in range(n)]


def _everyone(seating: Seating) -> list[str]:
    return [p for table in seating.tables for p in table] + list(seating.byes)


def _repeats(seatings: list[Seating]) -> int:
    return sum(count - 1 for count in meetings(seatings).values())


@PROPERTY_SETTINGS
@given(
    count=st.integers(3, 22),
    mode=st.sampled_from(["random", "swiss", "interval"]),
    prefer=st.sampled_from([3, 4]),
    seed=st.integers(0, 2**31),
    shuffle=st.randoms(use_true_random=False),
)
def test_everyone_seated_once_or_on_a_bye(
    count: int, mode: str, prefer: int, seed: int, shuffle: random.Random
) -> None:
    players = _names(count)
    ranking = players[:]
    shuffle.shuffle(ranking)
    seating = seat_tour(players, mode=mode, seed=seed, ranking=ranking, prefer=prefer)
    assert sorted(_everyone(seating)) == players  # each player exactly once
    assert all(len(table) in (3, 4) for table in seating.tables)
    assert len(seating.byes) == (1 if count == 5 else 0)
    again = seat_tour(players, mode=mode, seed=seed, ranking=ranking, prefer=prefer)
    assert again == seating


@PROPERTY_SETTINGS
@given(count=st.integers(4, 22), seed=st.integers(0, 2**31))
def test_boston_seats_fours_and_the_rest_on_a_bye(count: int, seed: int) -> None:
    players = _names(count)
    seating = seat_tour(players, mode="swiss", seed=seed, ranking=players, game="boston")
    assert sorted(_everyone(seating)) == players
    assert all(len(table) == 4 for table in seating.tables)
    # The lowest-ranked sit out.
    assert seating.byes == tuple(reversed(players[count - count % 4 :]))


@settings(max_examples=examples(25), deadline=None)
@given(
    seed=st.integers(0, 2**31),
    mode=st.sampled_from(["random", "swiss"]),
    field=st.sampled_from([(12, 3), (16, 4)]),
    shuffle=st.randoms(use_true_random=False),
)
def test_no_one_meets_twice_in_three_tours_when_that_is_possible(
    seed: int, mode: str, field: tuple[int, int], shuffle: random.Random
) -> None:
    # Twelve at four tables of 3 can play three tours with no pair meeting twice (each
    # meets 2 new players a tour, 6 of 11), and so can sixteen at four tables of 4 (the
    # affine plane of order 4 has five such tours), so the seating must find such tours,
    # whatever the standings between them.
    count, prefer = field
    players = _names(count)
    seatings: list[Seating] = []
    for tour in (1, 2, 3):
        ranking = players[:]
        shuffle.shuffle(ranking)
        seatings.append(
            seat_tour(
                players,
                mode="random" if tour == 1 else mode,
                seed=seed + tour,
                tour=tour,
                ranking=ranking,
                met=meetings(seatings),
                prefer=prefer,
            )
        )
        assert sorted(_everyone(seatings[-1])) == players
    assert _repeats(seatings) == 0


@settings(max_examples=examples(5), deadline=None)
@given(seed=st.integers(0, 2**31))
def test_a_schedule_of_twelve_at_threes_repeats_no_pair(seed: int) -> None:
    plan = schedule(_names(12), 3, seed=seed, prefer=3)
    assert plan.repeats == 0 == _repeats(list(plan.tours))
    for tour in plan.tours:
        assert sorted(_everyone(tour)) == _names(12)


def test_twelve_at_fours_must_repeat_and_the_schedule_says_so() -> None:
    # After a tour of three tables of 4, each table of the next takes 4 players from 3
    # tables: two of them have met. So tour 2 repeats at least 3 pairs.
    plan = schedule(_names(12), 2, seed=1, prefer=4)
    assert plan.repeats == _repeats(list(plan.tours)) >= 3
    assert schedule(_names(12), 2, seed=1, prefer=4) == plan  # the same seed, the same plan


def test_swiss_seats_the_leaders_together() -> None:
    players = _names(10)
    ranking = list(reversed(players))  # p09 leads
    seating = seat_tour(players, mode="swiss", seed=3, tour=2, ranking=ranking)
    assert [sorted(t) for t in seating.tables] == [
        ["p06", "p07", "p08", "p09"],
        ["p03", "p04", "p05"],
        ["p00", "p01", "p02"],
    ]


def test_swiss_moves_the_fewest_to_avoid_a_repeat() -> None:
    # 1–2 met in tour 1; the leaders' table would seat them again: one of them swaps with
    # the best player of the next table (a move of one table each), not further.
    players = _names(8)
    met = {frozenset(("p00", "p01")): 1}
    seating = seat_tour(players, mode="swiss", seed=5, tour=2, ranking=players, met=met)
    first, second = (set(t) for t in seating.tables)
    assert not {"p00", "p01"} <= first and not {"p00", "p01"} <= second
    assert len(first & {"p00", "p01", "p02", "p03"}) == 3


def test_interval_one_three_five_seven() -> None:
    players = _names(12)
    step_two = seat_tour(players, mode="interval", seed=1, ranking=players, interval=2)
    assert [sorted(t) for t in step_two.tables] == [
        ["p00", "p02", "p04", "p06"],
        ["p01", "p03", "p05", "p07"],
        ["p08", "p09", "p10", "p11"],
    ]
    step_one = seat_tour(players, mode="interval", seed=1, ranking=players, interval=1)
    assert [sorted(t) for t in step_one.tables] == [players[0:4], players[4:8], players[8:12]]


def test_byes_go_round_the_lowest_ranked_first() -> None:
    players = _names(5)
    byes: Counter[str] = Counter()
    order = []
    for tour in range(1, 6):
        seating = seat_tour(
            players, mode="swiss", seed=tour, tour=tour, ranking=players, bye_counts=byes
        )
        (bye,) = seating.byes
        order.append(bye)
        byes[bye] += 1
    assert order == ["p04", "p03", "p02", "p01", "p00"]


def test_a_scheduled_tour_is_the_schedule_s() -> None:
    players = _names(9)
    plan = schedule(players, 2, seed=4, prefer=3)
    assert seat_tour(players, mode="schedule", seed=0, tour=2, schedule=plan) == plan.tours[1]
    with pytest.raises(RuleError, match="the field is not the schedule's: p09"):
        seat_tour([*players, "p09"], mode="schedule", seed=0, tour=1, schedule=plan)
    with pytest.raises(RuleError, match="the schedule has 2 tours, not tour 3"):
        seat_tour(players, mode="schedule", seed=0, tour=3, schedule=plan)
    with pytest.raises(RuleError, match="no schedule"):
        seat_tour(players, mode="schedule", seed=0, tour=1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 2}, "2 players cannot make a table: a table needs 3"),
        ({"players": 3, "game": "boston"}, "3 players cannot make a table: a table needs 4"),
        ({"players": 9, "mode": "chess"}, "unknown seating mode chess"),
        ({"players": 9, "tours": 0}, "at least one tour"),
        ({"players": 9, "prefer": 5}, "3 or 4 players"),
        ({"players": 9, "game": "whist"}, "unknown game whist"),
    ],
)
def test_precheck_refuses_an_impossible_field(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(RuleError, match=message):
        precheck(**kwargs)  # type: ignore[arg-type]


def test_a_player_twice_is_refused() -> None:
    with pytest.raises(RuleError, match="one seat only"):
        seat_tour(["a", "b", "c", "a"], mode="random", seed=1)
