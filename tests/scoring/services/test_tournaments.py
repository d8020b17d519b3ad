"""Tournament writes and reads (scoring/services/tournaments.py, scoring/selectors/
tournaments.py) on the database: the start, seating tours through the engine, closing a
tour into tournament points, the cut, penalties.

Every table here is the factories' hand-worked short pulka: pool 10 on Sochi, the player
in seat 1 declares an unplayed ten without trumps and both defenders pass, so his balance
is +66.67 whists and each other player's −33.33 (``factories.finished_pulka``)."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

import pytest

from members.models import Member
from scoring import services as table_services
from scoring.engine.errors import RuleError
from scoring.models import Entry, Penalty, PreferansTariff, Seat, Table, Tour, Tournament
from scoring.selectors import tournaments as selectors
from scoring.services import tournaments as services
from tests import factories

pytestmark = pytest.mark.django_db
SOCHI = "Сочи (Sochi)"


def _tournament(players: int = 6, **fields: Any) -> Tournament:
    return factories.tournament(players, **fields)  # type: ignore[no-any-return]


def _judge() -> Member:
    return factories.member("Judge", organiser=True)


def _finish_tour(tour: Tour, by: Member) -> None:
    factories.tour_played(tour, by)


def _totals(tournament: Tournament) -> dict[str, Decimal]:
    lines = selectors.standings(tournament).lines
    names = {e.key: e.name for e in selectors.entries(tournament)}
    return {names[line.player]: line.total for line in lines}


def test_start_freezes_the_tariff_version_and_the_tables_keep_it() -> None:
    tournament = _tournament()
    frozen = PreferansTariff.objects.get(name=SOCHI).current_version
    services.tournament_start(tournament=tournament, seed=7)
    tariff = PreferansTariff.objects.get(name=SOCHI)
    tariff.consolation_by_dealer = not tariff.consolation_by_dealer  # type: ignore[attr-defined]
    table_services.tariff_publish(tariff, by=None)
    assert tariff.current_version != frozen

    tour = services.tour_seat(tournament=tournament, by=_judge())

    tournament.refresh_from_db()
    assert (tournament.status, tournament.preferans_version, tournament.seed) == (
        Tournament.RUNNING,
        frozen,
        7,
    )
    assert {link.table.preferans_version for link in tour.tables.all()} == {frozen}


def test_a_field_too_small_is_refused_in_words_and_nothing_changes() -> None:
    tournament = _tournament(players=2)
    with pytest.raises(RuleError):
        services.tournament_start(tournament=tournament, seed=7)
    tournament.refresh_from_db()
    assert (tournament.status, tournament.preferans_version) == (Tournament.DRAFT, None)


def test_an_impossible_format_is_refused() -> None:
    tournament = _tournament(best_of=5)  # best 5 of 2 tours
    with pytest.raises(RuleError) as refused:
        services.tournament_start(tournament=tournament, seed=7)
    assert refused.value.field == "best_of"
    assert Tournament.objects.get().status == Tournament.DRAFT


def test_seating_opens_one_table_per_three_players_each_player_once() -> None:
    tournament = _tournament()
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=_judge())
    seated = list(tour.seats.values_list("entry_id", flat=True))
    assert sorted(seated) == sorted(tournament.entries.values_list("pk", flat=True))
    assert tour.tables.count() == 2
    for link in tour.tables.all():
        assert sorted(link.table.seats.values_list("member_id", flat=True)) == sorted(
            Entry.objects.filter(seats__table=link).values_list("member_id", flat=True)
        )
        assert link.table.pool_target == 10


def test_the_same_seed_seats_the_same_first_tour() -> None:
    seatings = []
    for _ in range(2):
        tournament = _tournament()
        services.tournament_start(tournament=tournament, seed=11)
        tour = services.tour_seat(tournament=tournament, by=_judge())
        names = {e.pk: e.name for e in tournament.entries.select_related("member")}
        tables = tour.tables.all()
        seatings.append([[names[s.entry_id] for s in t.seats.order_by("position")] for t in tables])
    assert seatings[0] == seatings[1]


def test_a_tour_with_a_table_in_play_is_not_closed() -> None:
    tournament = _tournament()
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=_judge())
    with pytest.raises(RuleError, match="tables still in play: 1, 2"):
        services.tour_close(tour=tour)
    assert not Tour.objects.get().is_closed
    with pytest.raises(RuleError, match="close the tour in play first"):
        services.tour_seat(tournament=tournament, by=_judge())


def test_totals_are_the_tables_engine_results_through_the_raw_rule() -> None:
    """Raw points: each player's total is the sum of his balances at his tables, as the
    engine settled them (Seat.result): +66.67 for each table he won, −33.33 otherwise."""
    judge = _judge()
    tournament = _tournament()
    services.tournament_start(tournament=tournament, seed=7)
    for _ in range(2):
        tour = services.tour_seat(tournament=tournament, by=judge)
        _finish_tour(tour, judge)
        services.tour_close(tour=tour)

    engine = {
        name: sum(
            Seat.objects.filter(member__display_name=name).values_list("result", flat=True),
            Decimal(0),
        )
        for name in (f"P{i}" for i in range(6))
    }
    assert _totals(tournament) == engine
    assert sorted(engine.values()) == sorted(
        # two winners per tour: each total is one of these
        [engine[n] for n in engine]
    )
    assert set(engine.values()) <= {Decimal("133.34"), Decimal("33.34"), Decimal("-66.66")}
    assert sum(engine.values()) == Decimal("0.04")  # 66.67 − 2 × 33.33 = 0.01 per table
    assert Tournament.objects.get().status == Tournament.FINISHED


def test_band_points_worked_by_hand() -> None:
    """PlayElephant's bands: 66.67 = 50 × 1 + 16.67 × 0.5 = 58.335, kept to the
    hundredth as 58.34; −33.33 lies in the first band and stays −33.33."""
    judge = _judge()
    tournament = _tournament(points=Tournament.BANDS, bands=[[50, 1], [100, 0.5], [None, 0.1]])
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=judge)
    _finish_tour(tour, judge)
    services.tour_close(tour=tour)
    rows = sorted(tour.seats.values_list("position", "result", "place", "points"))
    assert rows == [
        (0, Decimal("66.67"), 1, Decimal("58.34")),
        (0, Decimal("66.67"), 1, Decimal("58.34")),
        (1, Decimal("-33.33"), 2, Decimal("-33.33")),
        (1, Decimal("-33.33"), 2, Decimal("-33.33")),
        (2, Decimal("-33.33"), 2, Decimal("-33.33")),
        (2, Decimal("-33.33"), 2, Decimal("-33.33")),
    ]
    seat = tour.seats.get(position=0, table__number=1)
    assert "50 × 1 + 16.67 × 0.5" in str(selectors.scores(tour)[seat.entry.key].explanation)


def test_place_points_with_the_sole_positive_bonus() -> None:
    """3 / 2 / 0, 4 for a sole positive player, 1 for a negative 2nd: the winner alone is
    positive (4); the two others tie for places 2–3 and share 1 + 0 (0.5 each)."""
    judge = _judge()
    tournament = _tournament(
        points=Tournament.PLACES,
        place_points=[3, 2, 0],
        sole_positive=Decimal(4),
        second_negative=Decimal(1),
    )
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=judge)
    _finish_tour(tour, judge)
    services.tour_close(tour=tour)
    assert sorted(tour.seats.values_list("position", "points")) == [
        (0, Decimal(4)),
        (0, Decimal(4)),
        (1, Decimal("0.5")),
        (1, Decimal("0.5")),
        (2, Decimal("0.5")),
        (2, Decimal("0.5")),
    ]


def test_the_cut_seats_only_the_best_after_it_and_a_tie_at_the_line_is_the_judges() -> None:
    """Two winners (+66.67) and four players on −33.33: a cut to 3 falls inside the tie,
    which the judges settle (here by points off: 1, 2 and 3 for three of the four)."""
    judge = _judge()
    tournament = _tournament(tours=2, cut_after=1, cut_to=3, final_deals=4)
    services.tournament_start(tournament=tournament, seed=7)
    first = services.tour_seat(tournament=tournament, by=judge)
    _finish_tour(first, judge)
    services.tour_close(tour=first)
    with pytest.raises(RuleError, match="the judges decide who goes on"):
        services.tour_seat(tournament=tournament, by=judge)
    assert tournament.tour_set.count() == 1

    winners = set(first.seats.filter(position=0).values_list("entry_id", flat=True))
    losers = list(first.seats.exclude(position=0).order_by("entry_id"))
    for points, seat in enumerate(losers[1:], start=1):
        services.penalty_add(
            tournament=tournament,
            entry=seat.entry,
            category=Penalty.POINTS,
            reason="slow play",
            points=Decimal(points),
            by=judge,
        )
    final = services.tour_seat(tournament=tournament, by=judge)

    assert final.is_final and (final.length, final.deals) == ("deals", 4)
    assert final.tables.count() == 1
    assert set(final.seats.values_list("entry_id", flat=True)) == winners | {losers[0].entry_id}


def test_a_penalty_takes_points_off_and_reversing_it_gives_them_back() -> None:
    judge = _judge()
    tournament = _tournament()
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=judge)
    _finish_tour(tour, judge)
    services.tour_close(tour=tour)
    entry = tour.seats.get(position=0, table__number=1).entry

    penalty = services.penalty_add(
        tournament=tournament,
        entry=entry,
        category=Penalty.POINTS,
        reason="late",
        points=Decimal(10),
        by=judge,
    )
    assert _totals(tournament)[entry.name] == Decimal("56.67")
    services.penalty_reverse(penalty=penalty, by=judge, reason="he was not late")
    assert _totals(tournament)[entry.name] == Decimal("66.67")
    penalty.refresh_from_db()
    assert (penalty.reversed_by, penalty.reversal_reason) == (judge, "he was not late")


@pytest.mark.parametrize(
    ("category", "reason", "points", "field"),
    [
        (Penalty.POINTS, "  ", Decimal(5), "reason"),
        (Penalty.POINTS, "late", Decimal(0), "points"),
        (Penalty.WARNING, "late", Decimal(5), "points"),
        ("nonsense", "late", Decimal(0), "category"),
    ],
)
def test_a_bad_penalty_is_refused_and_nothing_is_stored(
    category: str, reason: str, points: Decimal, field: str
) -> None:
    tournament = _tournament(players=3)
    entry = tournament.entries.first()
    assert entry is not None
    with pytest.raises(RuleError) as refused:
        services.penalty_add(
            tournament=tournament,
            entry=entry,
            category=category,
            reason=reason,
            points=points,
            by=_judge(),
        )
    assert refused.value.field == field
    assert not Penalty.objects.exists()


def test_a_disqualified_player_is_not_seated_again() -> None:
    judge = _judge()
    tournament = _tournament(players=7, tours=2)
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=judge)
    _finish_tour(tour, judge)
    services.tour_close(tour=tour)
    out = tour.seats.filter(table__isnull=False).first()
    assert out is not None
    services.penalty_add(
        tournament=tournament,
        entry=out.entry,
        category=Penalty.DISQUALIFICATION,
        reason="cheating",
        by=judge,
    )
    second = services.tour_seat(tournament=tournament, by=judge)
    assert out.entry_id not in set(second.seats.values_list("entry_id", flat=True))
    assert second.seats.count() == 6


def test_the_field_closes_when_the_first_tour_is_seated() -> None:
    tournament = _tournament()
    services.tournament_start(tournament=tournament, seed=7)
    services.tour_seat(tournament=tournament, by=_judge())
    with pytest.raises(RuleError, match="field is closed"):
        services.entry_add(tournament=tournament, guest_name="Late Guest")
    assert tournament.entries.count() == 6


def test_a_tour_played_to_time_sets_the_control_time_and_extra_time_moves_it(
    clock: Any,
) -> None:
    clock.at(datetime.datetime(2026, 12, 6, 18, 0, tzinfo=datetime.UTC))
    tournament = _tournament(length=Tournament.TIME, minutes=180)
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=_judge())
    link = tour.tables.get(number=1)
    assert link.table.control_time == datetime.time(0, 0)  # 21:00 Moscow + 3 hours
    services.table_extra_time(link=link, minutes=15)
    link.table.refresh_from_db()
    assert (link.table.control_time, link.extra_minutes) == (datetime.time(0, 15), 15)
    other = Table.objects.get(pk=tour.tables.get(number=2).table_id)
    assert other.control_time == datetime.time(0, 0)


def test_a_table_the_time_stopped_scores_zero_where_the_format_says_so() -> None:
    """Gambler: a tour to time, a table stopped before its pulka is complete scores 0
    for each player, its results kept for the tie-break."""
    judge = _judge()
    tournament = _tournament(length=Tournament.TIME, minutes=120, timeout_scores_zero=True)
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=judge)
    _finish_tour(tour, judge)  # one unplayed ten: pool 10 is not closed for the others
    services.tour_close(tour=tour)
    assert sorted(tour.seats.values_list("result", "points")) == [
        (Decimal("-33.33"), Decimal(0)),
        (Decimal("-33.33"), Decimal(0)),
        (Decimal("-33.33"), Decimal(0)),
        (Decimal("-33.33"), Decimal(0)),
        (Decimal("66.67"), Decimal(0)),
        (Decimal("66.67"), Decimal(0)),
    ]
