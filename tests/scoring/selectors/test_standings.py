"""Seasons, stored results, leaderboards and ratings against the database."""

from __future__ import annotations

import datetime
import io
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from scoring import selectors, services
from scoring.models import Rating, RatingHistory, Season, Seat, Table
from tests.factories import finished_pulka

pytestmark = pytest.mark.django_db


def ratings_now():
    return (
        sorted(Rating.objects.values_list("member_id", "game", "mu", "sigma", "ordinal", "tables")),
        sorted(RatingHistory.objects.values_list("member_id", "table_id", "mu", "sigma")),
    )


def test_finishing_stores_each_seats_result_place_and_stats(club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    table = finished_pulka([anna, boris, vera], boris, datetime.date(2026, 3, 1))
    seats = {s.name: s for s in Seat.objects.filter(table=table)}
    # Boris: pool 10 (a 10 unplayed); balance 10·(10 − 10/3) = 66.67, others −33.33.
    assert seats["Boris"].result == Decimal("66.67")
    assert seats["Anna"].result == Decimal("-33.33")
    assert (seats["Boris"].place, seats["Boris"].won) == (1, True)
    assert (seats["Anna"].place, seats["Vera"].place) == (2, 2)
    assert seats["Boris"].stats == {"declared_10": 1, "made_10": 1}
    assert sum(s.money for s in seats.values()) == 0


def test_reopening_clears_the_stored_results(club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    table = finished_pulka([anna, boris, vera], anna, datetime.date(2026, 3, 1))
    services.table_reopen(table, by=anna, reason="check")
    assert not Seat.objects.filter(table=table, result__isnull=False).exists()
    assert not RatingHistory.objects.filter(table=table).exists()


def test_season_boundaries_decide_which_tables_count(club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    spring = Season.objects.create(
        name="Spring",
        starts_on=datetime.date(2026, 3, 1),
        ends_on=datetime.date(2026, 5, 31),
        min_games=1,
    )
    finished_pulka([anna, boris, vera], anna, datetime.date(2026, 2, 28))  # the day before
    finished_pulka([anna, boris, vera], boris, datetime.date(2026, 3, 1))  # first day
    finished_pulka([anna, boris, vera], boris, datetime.date(2026, 5, 31))  # last day
    finished_pulka([anna, boris, vera], vera, datetime.date(2026, 6, 1))  # the day after
    ranked, _ = selectors.standings(Table.PREFERANS, spring)
    by_name = {s.name: s for s in ranked}
    assert by_name["Boris"].games == 2
    assert by_name["Boris"].wins == 2
    assert by_name["Boris"].total == Decimal("133.34")
    assert ranked[0].name == "Boris"
    all_time, _ = selectors.standings(Table.PREFERANS)
    assert {s.name: s.games for s in all_time} == {"Anna": 4, "Boris": 4, "Vera": 4}


def test_members_below_the_minimum_are_listed_apart(club):
    anna, boris, vera, gleb = (club[n] for n in ("Anna", "Boris", "Vera", "Gleb"))
    season = Season.objects.create(
        name="S",
        starts_on=datetime.date(2026, 1, 1),
        ends_on=datetime.date(2026, 12, 31),
        min_games=2,
    )
    finished_pulka([anna, boris, vera], anna, datetime.date(2026, 3, 1))
    finished_pulka([anna, boris, gleb], anna, datetime.date(2026, 3, 2))
    ranked, below = selectors.standings(Table.PREFERANS, season)
    assert [s.name for s in ranked] == ["Anna", "Boris"]
    assert sorted(s.name for s in below) == ["Gleb", "Vera"]


def test_overlapping_seasons_are_refused():
    Season.objects.create(
        name="A", starts_on=datetime.date(2026, 1, 1), ends_on=datetime.date(2026, 6, 30)
    )
    overlapping = Season(
        name="B", starts_on=datetime.date(2026, 6, 30), ends_on=datetime.date(2026, 12, 31)
    )
    with pytest.raises(ValidationError, match="overlap"):
        overlapping.full_clean()
    backwards = Season(
        name="C",
        starts_on=datetime.date(2027, 2, 1),
        ends_on=datetime.date(2027, 1, 1),
        ranking="luck",
    )
    with pytest.raises(ValidationError) as error:
        backwards.full_clean()
    assert "ranking" in error.value.message_dict


def test_leaderboard_queries_do_not_grow_with_tables(club, django_assert_num_queries):
    anna, boris, vera, gleb = (club[n] for n in ("Anna", "Boris", "Vera", "Gleb"))
    finished_pulka([anna, boris, vera], anna, datetime.date(2026, 3, 1))
    with django_assert_num_queries(2):
        selectors.standings(Table.PREFERANS)
    for day in range(2, 8):
        finished_pulka([boris, vera, gleb], boris, datetime.date(2026, 3, day))
    with django_assert_num_queries(2):
        ranked, _ = selectors.standings(Table.PREFERANS)
    assert len(ranked) == 4


def test_rebuilding_ratings_gives_identical_results(club):
    anna, boris, vera, gleb = (club[n] for n in ("Anna", "Boris", "Vera", "Gleb"))
    for day, (seated, winner) in enumerate(
        [
            ([anna, boris, vera], anna),
            ([boris, vera, gleb], boris),
            ([anna, boris, vera], boris),
            ([boris, vera, gleb], gleb),
            ([anna, boris, vera], vera),
        ],
        start=1,
    ):
        finished_pulka(seated, winner, datetime.date(2026, 3, day))
    incremental = ratings_now()  # each table was rated as it finished
    call_command("rebuild_ratings", stdout=io.StringIO())
    assert ratings_now() == incremental
    assert Rating.objects.get(member=boris).tables == 5
    best = Rating.objects.filter(game=Table.PREFERANS).order_by("-ordinal").first()
    assert best.member == boris  # won two of five, never last


def test_a_game_finished_out_of_date_order_is_rated_in_date_order(club):
    anna, boris, vera = (club[n] for n in ("Anna", "Boris", "Vera"))
    later = finished_pulka([anna, boris, vera], anna, datetime.date(2026, 3, 2))
    earlier = finished_pulka([anna, boris, vera], vera, datetime.date(2026, 3, 1))
    in_order = ratings_now()
    call_command("rebuild_ratings", stdout=io.StringIO())
    assert ratings_now() == in_order
    first = RatingHistory.objects.filter(member=anna).order_by("played_on")
    assert [h.table_id for h in first] == [earlier.pk, later.pk]
