"""Evenings announced ahead (scoring/services/calendar.py, scoring/selectors/calendar.py):
scheduling one evening or a weekly series, the answers, the seats and the waiting list,
the check-in from the answers, the private calendar link."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.models import Attendance, Evening, EveningAnswer, EveningSeries
from scoring.selectors import calendar as selectors
from scoring.services import calendar as services
from tests import factories

pytestmark = pytest.mark.django_db

# Sunday 6 December 2026, noon in the club's time zone; the Friday after is the 11th.
NOW = datetime.datetime(2026, 12, 6, 12, 0)
FRIDAY = datetime.date(2026, 12, 11)


@pytest.fixture
def now(clock: Any) -> Any:
    clock.at(NOW)
    return clock


def _schedule(organiser: Member, **changes: Any) -> list[Evening]:
    fields: dict[str, Any] = {
        "organiser": organiser,
        "played_on": FRIDAY,
        "starts_at": datetime.time(19, 0),
        "place": "Hall",
        "game": "preferans",
        "table_size": 4,
        "seats": None,
    }
    return services.evening_schedule(**(fields | changes))


def test_one_evening_is_announced(now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    (evening,) = _schedule(olga, seats=8)
    assert (evening.played_on, evening.starts_at, evening.seats, evening.series) == (
        FRIDAY,
        datetime.time(19, 0),
        8,
        None,
    )


def test_a_weekly_series_falls_on_the_first_evenings_weekday(now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    # Friday 11 Dec until Friday 1 Jan: 11, 18, 25 Dec and 1 Jan — four Fridays.
    evenings = _schedule(olga, until=datetime.date(2027, 1, 1))
    assert [e.played_on for e in evenings] == [
        datetime.date(2026, 12, 11),
        datetime.date(2026, 12, 18),
        datetime.date(2026, 12, 25),
        datetime.date(2027, 1, 1),
    ]
    assert {e.played_on.weekday() for e in evenings} == {4}
    series = EveningSeries.objects.get()
    assert set(series.evenings.all()) == set(evenings)
    # Until a Thursday: the last Friday before it.
    assert len(_schedule(olga, until=datetime.date(2026, 12, 31))) == 3


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"played_on": datetime.date(2026, 12, 5)}, "played_on"),  # yesterday
        ({"until": datetime.date(2026, 12, 10)}, "until"),  # before the first evening
        ({"until": datetime.date(2028, 1, 1)}, "until"),  # 56 weeks
        ({"seats": 2}, "seats"),
        ({"game": "chess"}, "game"),
    ],
)
def test_a_bad_schedule_is_refused_and_stores_nothing(
    now: Any, changes: dict[str, Any], field: str
) -> None:
    olga = factories.member("Olga", organiser=True)
    with pytest.raises(RuleError) as refused:
        _schedule(olga, **changes)
    assert refused.value.field == field
    assert not Evening.objects.exists()
    assert not EveningSeries.objects.exists()


def test_a_series_of_exactly_53_weeks_is_allowed(now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    until = FRIDAY + datetime.timedelta(weeks=52)
    assert len(_schedule(olga, until=until)) == 53


def test_the_seats_go_first_come_first_served_and_the_line_moves_up(clock: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    clock.at(NOW)
    (evening,) = _schedule(olga, seats=3)
    people = [factories.member(name) for name in ("A", "B", "C", "D", "E")]
    for minute, member in enumerate(people):
        clock.at(NOW + datetime.timedelta(minutes=minute))
        services.evening_answer(evening=evening, member=member, answer="yes")
    roll = selectors.roll(evening)
    assert [a.member.name for a in roll.coming] == ["A", "B", "C"]
    assert [a.member.name for a in roll.waiting] == ["D", "E"]
    assert roll.mine(people[4].pk) == ("yes", 2)
    # B cannot come after all: D, the first in line, has a seat at once; E is next.
    clock.at(NOW + datetime.timedelta(minutes=10))
    services.evening_answer(evening=evening, member=people[1], answer="no")
    roll = selectors.roll(evening)
    assert [a.member.name for a in roll.coming] == ["A", "C", "D"]
    assert roll.mine(people[4].pk) == ("yes", 1)
    assert roll.mine(people[1].pk) == ("no", 0)
    # B changes his mind again: he queues behind E.
    clock.at(NOW + datetime.timedelta(minutes=11))
    services.evening_answer(evening=evening, member=people[1], answer="yes")
    assert [a.member.name for a in selectors.roll(evening).waiting] == ["E", "B"]


def test_saying_coming_again_keeps_the_place_and_maybe_gives_it_up(clock: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    clock.at(NOW)
    (evening,) = _schedule(olga, seats=3)
    a, b, c, d = (factories.member(n) for n in "ABCD")
    for minute, member in enumerate((a, b, c, d)):
        clock.at(NOW + datetime.timedelta(minutes=minute))
        services.evening_answer(evening=evening, member=member, answer="yes")
    clock.at(NOW + datetime.timedelta(minutes=5))
    services.evening_answer(evening=evening, member=a, answer="yes")  # a second tap
    assert [x.member.name for x in selectors.roll(evening).coming] == ["A", "B", "C"]
    services.evening_answer(evening=evening, member=a, answer="maybe")
    roll = selectors.roll(evening)
    assert [x.member.name for x in roll.coming] == ["B", "C", "D"]
    assert [x.member.name for x in roll.maybe] == ["A"]
    assert EveningAnswer.objects.get(member=a).queued_at is None


def test_without_a_seat_limit_nobody_waits(now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    (evening,) = _schedule(olga)
    for n in range(5):
        services.evening_answer(evening=evening, member=factories.member(f"P{n}"), answer="yes")
    roll = selectors.roll(evening)
    assert (len(roll.coming), len(roll.waiting)) == (5, 0)


def test_answers_to_an_evening_that_is_over_or_unknown_are_refused(clock: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    clock.at(NOW)
    (evening,) = _schedule(olga)
    member = factories.member("Anna")
    with pytest.raises(RuleError):
        services.evening_answer(evening=evening, member=member, answer="perhaps")
    clock.at(datetime.datetime(2026, 12, 12, 9, 0))  # the day after
    with pytest.raises(RuleError) as refused:
        services.evening_answer(evening=evening, member=member, answer="yes")
    assert "over" in str(refused.value.message)
    assert not EveningAnswer.objects.exists()


def test_the_check_in_starts_from_those_coming(now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    (evening,) = _schedule(olga, seats=3)
    a, b, c, d, e = (factories.member(n) for n in "ABCDE")
    for member in (a, b, c, d):
        services.evening_answer(evening=evening, member=member, answer="yes")
    services.evening_answer(evening=evening, member=e, answer="maybe")
    Attendance.objects.create(evening=evening, member=b, checked_in_by=olga)
    assert services.evening_check_in_answered(evening=evening, by=olga) == 2
    here = set(
        Attendance.objects.filter(evening=evening).values_list("member__display_name", flat=True)
    )
    assert here == {"A", "B", "C"}  # D waits, E said maybe
    assert services.evening_check_in_answered(evening=evening, by=olga) == 0


def test_a_new_calendar_link_replaces_the_old() -> None:
    anna = factories.member("Anna")
    first = services.calendar_link_reset(member=anna)
    second = services.calendar_link_reset(member=anna)
    assert first != second and len(second) >= 40
    anna.refresh_from_db()
    assert anna.calendar_token == second
