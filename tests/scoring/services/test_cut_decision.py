"""The judges' decision at a tied cut (scoring/services/tournaments.py ``cut_decide``,
``cut_decision_reverse``): recorded in the tournament's history of the judges' decisions,
written into the standings after the cut's tour, kept by the seating of the final, and
reversible with a reason until the final is seated.

Six players, two tables of three, tour 1 of the factories' hand-worked short pulka: the
player in seat 1 of each table makes +66.67 whists, each other −33.33 (raw points). The
two winners share place 1; the four others are equal on every tie-break (head-to-head 0:
the two at a table share their place; opponents' totals 66.67 − 33.33 = 33.34 each), so
they share places 3–6. A cut to 3 leaves one of those places to them; a cut to 4, two."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.models import Entry, Penalty, Tour, Tournament
from scoring.selectors import tournaments as selectors
from scoring.services import tournaments as services
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def judge() -> Member:
    return factories.member("Judge", organiser=True)


def _at_the_cut(judge: Member, **fields: Any) -> tuple[Tournament, Tour]:
    """Tour 1 played and closed; the format cuts after it (to 3 unless told)."""
    values: dict[str, Any] = {"tours": 2, "cut_after": 1, "cut_to": 3, "final_deals": 4}
    tournament = factories.tournament(**(values | fields))
    services.tournament_start(tournament=tournament, seed=7)
    first = services.tour_seat(tournament=tournament, by=judge)
    factories.tour_played(first, judge)
    services.tour_close(tour=first)
    return tournament, first


def _winners(tour: Tour) -> set[int]:
    return set(tour.seats.filter(position=0).values_list("entry_id", flat=True))


def _tied(tour: Tour) -> list[Entry]:
    return [seat.entry for seat in tour.seats.exclude(position=0).order_by("entry_id")]


def _seated(tour: Tour) -> set[int]:
    return set(tour.seats.values_list("entry_id", flat=True))


def test_the_page_knows_who_is_tied_for_which_places(judge: Member) -> None:
    tournament, first = _at_the_cut(judge)
    standings = selectors.standings(tournament)
    assert standings.tie is not None
    assert (standings.tie.first, standings.tie.last, standings.tie.free) == (3, 6, 1)
    assert set(standings.tie.players) == {entry.key for entry in _tied(first)}
    assert standings.decision == ()


def test_the_decision_is_recorded_and_the_final_seats_exactly_the_chosen(
    judge: Member,
) -> None:
    tournament, first = _at_the_cut(judge)
    tied = _tied(first)
    with pytest.raises(RuleError, match="the judges decide who goes on"):
        services.tour_seat(tournament=tournament, by=judge)

    rows = services.cut_decide(tournament=tournament, chosen=[tied[2]], reason=" жребий ", by=judge)

    row = Penalty.objects.get()
    assert [r.pk for r in rows] == [row.pk]
    assert (row.entry, row.category, row.reason, row.by, row.tour, row.points) == (
        tied[2],
        Penalty.CUT,
        "жребий",
        judge,
        first,
        Decimal(0),
    )
    assert row.at is not None and row.in_force
    lines = {line.player: line for line in selectors.standings(tournament).lines}
    # The chosen keeps place 3; the three left out share the place after him, 4; the
    # decision's words are on each of the four (no tie-break separated them from the
    # winners: 66.67 points against −33.33).
    assert lines[tied[2].key].rank == 3
    assert [lines[e.key].rank for e in (tied[0], tied[1], tied[3])] == [4, 4, 4]
    assert {lines[e.key].tie_break for e in tied} == {"the judges' decision: жребий"}
    assert lines[tied[2].key].total == Decimal("-33.33")  # no points off

    final = services.tour_seat(tournament=tournament, by=judge)

    assert final.is_final
    assert _seated(final) == _winners(first) | {tied[2].pk}


def test_two_places_among_four(judge: Member) -> None:
    tournament, first = _at_the_cut(judge, cut_to=4)
    tied = _tied(first)
    services.cut_decide(tournament=tournament, chosen=[tied[3], tied[0]], reason="ГСК", by=judge)
    assert set(Penalty.objects.values_list("entry_id", flat=True)) == {tied[0].pk, tied[3].pk}
    final = services.tour_seat(tournament=tournament, by=judge)
    assert _seated(final) == _winners(first) | {tied[0].pk, tied[3].pk}


def test_the_final_s_later_tours_keep_the_finalists(judge: Member) -> None:
    """Tour 3 seats the players tour 2 (the final's first) seated, not a new cut of the
    standings after the final's tours."""
    tournament, first = _at_the_cut(judge, tours=3)
    tied = _tied(first)
    services.cut_decide(tournament=tournament, chosen=[tied[1]], reason="жребий", by=judge)
    second = services.tour_seat(tournament=tournament, by=judge)
    factories.tour_played(second, judge)
    services.tour_close(tour=second)
    third = services.tour_seat(tournament=tournament, by=judge)
    assert _seated(third) == _seated(second) == _winners(first) | {tied[1].pk}


@pytest.mark.parametrize(
    ("pick", "reason", "message"),
    [
        ("two", "жребий", "choose 1 of the players tied for places 3–6"),
        ("none", "жребий", "choose 1 of the players tied for places 3–6"),
        ("winner", "жребий", "are not tied at the cut"),
        ("one", "  ", "say why: the reason is kept with the decision"),
        ("stranger", "жребий", "this player is not in the tournament"),
    ],
)
def test_a_bad_decision_is_refused_and_nothing_is_stored(
    judge: Member, pick: str, reason: str, message: str
) -> None:
    tournament, first = _at_the_cut(judge)
    tied = _tied(first)
    winner = first.seats.filter(position=0).first()
    assert winner is not None
    other = factories.tournament(players=1, name="Other")
    chosen = {
        "two": tied[:2],
        "none": [],
        "winner": [winner.entry],
        "one": tied[:1],
        "stranger": [other.entries.get()],
    }[pick]
    with pytest.raises(RuleError, match=message):
        services.cut_decide(tournament=tournament, chosen=chosen, reason=reason, by=judge)
    assert not Penalty.objects.exists()
    assert tournament.tour_set.count() == 1


def test_no_decision_without_a_tie_or_before_the_cut_s_tour_closes(judge: Member) -> None:
    tournament, _first = _at_the_cut(judge, cut_to=6)  # everyone goes on: no tie
    with pytest.raises(RuleError, match="nobody is tied at the cut"):
        services.cut_decide(tournament=tournament, chosen=[], reason="жребий", by=judge)

    early = factories.tournament(name="Early", cut_after=1, cut_to=3, final_deals=4)
    services.tournament_start(tournament=early, seed=7)
    services.tour_seat(tournament=early, by=judge)
    with pytest.raises(RuleError, match="once tour 1 is closed"):
        services.cut_decide(
            tournament=early, chosen=list(early.entries.all()[:1]), reason="x", by=judge
        )
    assert not Penalty.objects.exists()


def test_reversing_the_decision_opens_the_tie_again(judge: Member) -> None:
    tournament, first = _at_the_cut(judge, cut_to=4)
    tied = _tied(first)
    services.cut_decide(tournament=tournament, chosen=tied[:2], reason="жребий", by=judge)
    with pytest.raises(RuleError, match="reverse that decision first"):
        services.cut_decide(tournament=tournament, chosen=tied[2:], reason="жребий", by=judge)
    with pytest.raises(RuleError, match="say why the decision is reversed"):
        services.cut_decision_reverse(tournament=tournament, by=judge, reason=" ")
    assert Penalty.objects.filter(reversed_at__isnull=True).count() == 2

    # Reversing one player's row (as a penalty is reversed) reverses the whole decision.
    row = Penalty.objects.get(entry=tied[0])
    services.penalty_reverse(penalty=row, by=judge, reason="ошибка в протоколе")

    assert list(Penalty.objects.values_list("reversed_by", "reversal_reason")) == [
        (judge.pk, "ошибка в протоколе"),
        (judge.pk, "ошибка в протоколе"),
    ]
    standings = selectors.standings(tournament)
    assert standings.decision == ()
    assert {line.rank for line in standings.lines if line.player in standings.tie.players} == {3}  # type: ignore[union-attr]
    with pytest.raises(RuleError, match="the judges decide who goes on"):
        services.tour_seat(tournament=tournament, by=judge)

    services.cut_decide(tournament=tournament, chosen=tied[2:], reason="ГСК", by=judge)
    final = services.tour_seat(tournament=tournament, by=judge)
    assert _seated(final) == _winners(first) | {tied[2].pk, tied[3].pk}


def test_once_the_final_is_seated_the_decision_stands(judge: Member) -> None:
    tournament, first = _at_the_cut(judge)
    services.cut_decide(tournament=tournament, chosen=_tied(first)[:1], reason="жребий", by=judge)
    services.tour_seat(tournament=tournament, by=judge)
    with pytest.raises(RuleError, match="the tour after the cut is seated"):
        services.cut_decision_reverse(tournament=tournament, by=judge, reason="ошибка")
    row = Penalty.objects.get()
    with pytest.raises(RuleError, match="the tour after the cut is seated"):
        services.penalty_reverse(penalty=row, by=judge, reason="ошибка")
    assert Penalty.objects.get().in_force


def test_a_judge_cannot_give_the_cut_s_category_as_a_penalty(judge: Member) -> None:
    tournament, first = _at_the_cut(judge)
    with pytest.raises(RuleError, match="choose a category"):
        services.penalty_add(
            tournament=tournament,
            entry=_tied(first)[0],
            category=Penalty.CUT,
            reason="жребий",
            by=judge,
        )
    assert not Penalty.objects.exists()
