"""Provisional, then final (issue 32, item 6; scoring/services/confirmations.py,
scoring/selectors/confirmations.py): a finished tour table waits for its players'
confirmation or the correction window, closing a tour waits for every table, and a
final table is reopened only by a judge; the same for club tables where the club's
setting says so."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone

from members.models import Member
from scoring import services as table_services
from scoring.engine.errors import RuleError
from scoring.models import AuditEntry, Club, Table, Tour, TourSeat
from scoring.selectors.confirmations import table_finality
from scoring.services import confirmations
from scoring.services import tournaments as services
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def judge() -> Member:
    return factories.member("Judith")


def _seated_tour(judge: Member, **fields: Any) -> Tour:
    """Six players (P0 … P5), two tables of three, tour 1 played and not yet confirmed."""
    tournament = factories.tournament(**fields)
    tournament.judges.add(judge)
    services.tournament_start(tournament=tournament, seed=7)
    tour = services.tour_seat(tournament=tournament, by=judge)
    return factories.tour_played(tour, judge, confirm=False)  # type: ignore[no-any-return]


def _table(tour: Tour, number: int) -> Table:
    return tour.tables.get(number=number).table


def _players(table: Table) -> list[Member]:
    return [s.member for s in table.seats.order_by("position").select_related("member")]


def _finished_ago(table: Table, minutes: int) -> None:
    moment = timezone.now() - datetime.timedelta(minutes=minutes)
    Table.objects.filter(pk=table.pk).update(finished_at=moment)


def test_a_finished_tour_table_is_provisional_until_every_player_confirms(judge: Member) -> None:
    tour = _seated_tour(judge)
    table = _table(tour, 1)
    first, second, third = _players(table)
    assert table_finality(table).provisional

    confirmations.table_confirm(table=table, by=first)
    confirmations.table_confirm(table=table, by=second)
    state = table_finality(Table.objects.get(pk=table.pk))
    assert state.provisional
    assert (len(state.confirmed), state.seated) == (2, 3)
    assert state.awaiting == (third.name,)

    confirmations.table_confirm(table=table, by=third)
    state = table_finality(Table.objects.get(pk=table.pk))
    assert state.final and not state.awaiting
    assert table.audit.filter(action=AuditEntry.CONFIRM).count() == 3


def test_closing_a_tour_names_the_tables_that_wait_and_for_whom(judge: Member) -> None:
    tour = _seated_tour(judge)
    one, two = _table(tour, 1), _table(tour, 2)
    for player in _players(one):
        confirmations.table_confirm(table=one, by=player)
    first, *rest = _players(two)
    confirmations.table_confirm(table=two, by=first)

    waiting = ", ".join(p.name for p in rest)
    with pytest.raises(RuleError) as refused:
        services.tour_close(tour=tour)

    assert refused.value.template == f"results not final yet: table 2 (waiting for {waiting})"
    tour.refresh_from_db()
    assert not tour.is_closed
    assert not TourSeat.objects.filter(tour=tour, points__isnull=False).exists()


def test_once_every_table_is_confirmed_the_tour_closes(judge: Member) -> None:
    tour = _seated_tour(judge)
    for number in (1, 2):
        table = _table(tour, number)
        for player in _players(table):
            confirmations.table_confirm(table=table, by=player)

    services.tour_close(tour=tour)

    tour.refresh_from_db()
    assert tour.is_closed


def test_the_window_makes_a_table_final_when_it_has_passed(judge: Member) -> None:
    tour = _seated_tour(judge, correction_minutes=10)
    for number in (1, 2):
        _finished_ago(_table(tour, number), 9)
    assert table_finality(_table(tour, 1)).provisional
    with pytest.raises(RuleError):
        services.tour_close(tour=tour)

    for number in (1, 2):
        _finished_ago(_table(tour, number), 10)
    state = table_finality(_table(tour, 1))
    assert state.final and state.confirmed == ()
    services.tour_close(tour=tour)
    assert Tour.objects.get(pk=tour.pk).is_closed


def test_a_window_of_zero_waits_for_the_players_however_long_it_takes(judge: Member) -> None:
    tour = _seated_tour(judge, correction_minutes=0)
    table = _table(tour, 1)
    _finished_ago(table, 60 * 24)
    state = table_finality(Table.objects.get(pk=table.pk))
    assert state.provisional and state.window_ends is None


def test_a_judge_confirms_for_the_whole_table(judge: Member) -> None:
    tour = _seated_tour(judge)
    table = _table(tour, 1)
    confirmations.table_confirm(table=table, by=judge)
    state = table_finality(Table.objects.get(pk=table.pk))
    assert state.final
    assert state.for_table == judge.name
    entry = table.audit.get(action=AuditEntry.CONFIRM)
    assert (entry.actor, entry.after) == (judge, {"for": "table"})


@pytest.mark.parametrize("who", ["twice", "stranger", "final"])
def test_a_confirmation_that_is_not_his_to_make_is_refused_and_nothing_stored(
    judge: Member, who: str
) -> None:
    tour = _seated_tour(judge)
    table = _table(tour, 1)
    first = _players(table)[0]
    by = first
    if who == "twice":
        confirmations.table_confirm(table=table, by=first)
        expected = "you have confirmed this table already"
    elif who == "stranger":
        by = factories.member("Stranger")
        expected = "only the players at this table confirm it"
    else:
        confirmations.table_confirm(table=table, by=judge)
        expected = "this table's result is final already"
    before = table.audit.count(), Table.objects.get(pk=table.pk).revision

    with pytest.raises(RuleError, match=expected):
        confirmations.table_confirm(table=table, by=by)

    assert (table.audit.count(), Table.objects.get(pk=table.pk).revision) == before


def test_reopening_clears_the_confirmations_and_the_history_says_who_and_why(
    judge: Member,
) -> None:
    tour = _seated_tour(judge)
    table = _table(tour, 1)
    first, second, _third = _players(table)
    confirmations.table_confirm(table=table, by=first)
    confirmations.table_confirm(table=table, by=second)

    confirmations.table_reopen_confirmed(table, by=judge, reason="seats swapped")
    reopened = table.audit.filter(action=AuditEntry.REOPEN).get()
    assert (reopened.actor, reopened.reason) == (judge, "seats swapped")
    table_services.table_finish(Table.objects.get(pk=table.pk), by=judge)

    state = table_finality(Table.objects.get(pk=table.pk))
    assert state.provisional
    assert state.confirmed == ()
    assert len(state.awaiting) == 3


def test_a_table_of_a_closed_tour_is_final_and_not_reopened(judge: Member) -> None:
    tournament = factories.tournament()
    tournament.judges.add(judge)
    services.tournament_start(tournament=tournament, seed=7)
    tour = factories.tour_played(services.tour_seat(tournament=tournament, by=judge), judge)
    services.tour_close(tour=tour)
    table = _table(tour, 1)
    assert table_finality(table).final

    with pytest.raises(RuleError, match="tour 1 is closed"):
        confirmations.table_reopen_confirmed(table, by=judge, reason="a deal")
    assert not Table.objects.get(pk=table.pk).is_open


def test_an_ordinary_table_needs_no_confirmation_while_the_setting_is_off() -> None:
    players = [factories.member(n) for n in ("Anna", "Boris", "Vera")]
    table = factories.finished_pulka(players, players[0], timezone.localdate())
    state = table_finality(table)
    assert state.final and not state.needed
    with pytest.raises(RuleError, match="needs no confirmation"):
        confirmations.table_confirm(table=table, by=_players(table)[0])


def test_with_the_setting_on_an_ordinary_table_waits_for_its_players_or_the_window() -> None:
    Club.objects.update_or_create(
        pk=Club.ONLY_PK, defaults={"confirm_tables": True, "confirm_minutes": 30}
    )
    anna, boris, vera = (factories.member(n) for n in ("Anna", "Boris", "Vera"))
    table = factories.finished_pulka([anna, boris, vera], anna, timezone.localdate())
    assert table_finality(table).provisional

    confirmations.table_confirm(table=table, by=anna)
    state = table_finality(Table.objects.get(pk=table.pk))
    assert state.provisional and state.confirmed == ("Anna",)

    _finished_ago(table, 30)
    assert table_finality(Table.objects.get(pk=table.pk)).final
