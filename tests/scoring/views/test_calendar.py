"""The calendar of evenings announced ahead (scoring/views/calendar.py): the page, an
answer in one tap (htmx and a plain POST), scheduling, the check-in from the answers,
the iCal feeds and the private link."""

from __future__ import annotations

import datetime
from typing import Any

import icalendar
import pytest
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring.models import Attendance, Evening, EveningAnswer
from scoring.services import calendar as services
from tests import factories
from tests.factories import HTMX

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 6, 12, 0)  # a Sunday
FRIDAY = datetime.date(2026, 12, 11)


@pytest.fixture
def now(clock: Any) -> Any:
    clock.at(NOW)
    return clock


def _announce(organiser: Member, **changes: Any) -> list[Evening]:
    fields: dict[str, Any] = {
        "organiser": organiser,
        "played_on": FRIDAY,
        "starts_at": datetime.time(19, 0),
        "place": "Hall",
        "game": "preferans",
        "table_size": 4,
        "seats": 3,
    }
    return services.evening_schedule(**(fields | changes))


def test_the_calendar_lists_the_upcoming_evenings_with_my_answer(
    client: Client, now: Any, django_assert_num_queries: Any
) -> None:
    olga = factories.member("Olga", organiser=True)
    first, second = _announce(olga, until=FRIDAY + datetime.timedelta(weeks=1))
    anna, boris, vera, gleb = (factories.member(n) for n in ("Anna", "Boris", "Vera", "Gleb"))
    for member in (anna, boris, vera, gleb):
        services.evening_answer(evening=first, member=member, answer="yes")
    services.evening_answer(evening=second, member=boris, answer="maybe")
    client.force_login(gleb)
    # session, member, the evenings, their answers (one query for all), the club's name.
    with django_assert_num_queries(5):
        page = client.get(reverse("scoring:evening_calendar")).content.decode()
    assert page.count('id="evening-answer-') == 2
    assert "3 coming of 3 seats · 1 waiting · 0 maybe · 0 not coming" in page
    assert "waiting list: number 1" in page
    assert "Waiting: 1. Gleb." in page
    assert "0 coming of 3 seats · 1 maybe · 0 not coming" in page
    assert 'aria-pressed="true">Coming' in page
    assert "Announce an evening" not in page  # members do not schedule


def test_a_member_answers_in_one_tap_with_htmx(client: Client, now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    (evening,) = _announce(olga, seats=None)
    anna = factories.member("Anna")
    client.force_login(anna)
    url = reverse("scoring:evening_answer", args=[evening.pk])
    response = client.post(url, {"answer": "maybe", "next": "/evenings/calendar/"}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith(
        f'<div class="evening-answer stacked" id="evening-answer-{evening.pk}"'
    )
    assert 'aria-pressed="true">Maybe' in html
    assert "0 coming · 1 maybe · 0 not coming" in html
    assert EveningAnswer.objects.get().answer == "maybe"


def test_a_plain_post_answers_and_returns_where_it_came_from(client: Client, now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    (evening,) = _announce(olga)
    client.force_login(factories.member("Anna"))
    url = reverse("scoring:evening_answer", args=[evening.pk])
    response = client.post(url, {"answer": "yes", "next": "/evenings/calendar/"})
    assert response["Location"] == "/evenings/calendar/"
    response = client.post(url, {"answer": "no", "next": "https://evil.example/"})
    assert response["Location"] == reverse("scoring:evening_detail", args=[evening.pk])
    assert EveningAnswer.objects.get().answer == "no"


def test_a_bad_answer_says_why_and_stores_nothing(client: Client, now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    (evening,) = _announce(olga)
    client.force_login(factories.member("Anna"))
    url = reverse("scoring:evening_answer", args=[evening.pk])
    response = client.post(url, {"answer": "perhaps"}, **HTMX)
    assert response.status_code == 400
    assert response["X-Write-Refused"] == "1"
    assert "answer coming, maybe or not coming" in response.content.decode()
    response = client.post(url, {"answer": "perhaps"}, follow=True)
    assert "answer coming, maybe or not coming" in response.content.decode()
    assert not EveningAnswer.objects.exists()


def test_a_bad_answer_in_russian(now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    (evening,) = _announce(olga)
    client = Client(headers={"accept-language": "ru"})
    client.force_login(factories.member("Anna"))
    url = reverse("scoring:evening_answer", args=[evening.pk])
    response = client.post(url, {"answer": "x"}, **HTMX)
    assert "ответьте: приду, может быть или не приду" in response.content.decode()


def test_nobody_answers_an_evening_that_is_over(client: Client, clock: Any) -> None:
    clock.at(NOW)
    olga = factories.member("Olga", organiser=True)
    (evening,) = _announce(olga)
    client.force_login(factories.member("Anna"))
    clock.at(datetime.datetime(2026, 12, 12, 10, 0))
    response = client.post(reverse("scoring:evening_answer", args=[evening.pk]), {"answer": "yes"})
    assert response.status_code == 403
    assert not EveningAnswer.objects.exists()


def test_a_visitor_is_sent_to_sign_in_to_answer(client: Client, now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    (evening,) = _announce(olga)
    response = client.post(reverse("scoring:evening_answer", args=[evening.pk]), {"answer": "yes"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("members:login"))
    page = client.get(reverse("scoring:evening_calendar")).content.decode()
    assert "0 coming of 3 seats" in page
    assert 'name="answer"' not in page


def test_a_visitor_sees_no_calendar_when_standings_are_private(
    client: Client, now: Any, settings: Any
) -> None:
    settings.STANDINGS_PUBLIC = False
    assert client.get(reverse("scoring:evening_calendar")).status_code == 302
    assert client.get(reverse("scoring:calendar_feed")).status_code == 403


def test_an_organiser_schedules_a_weekly_series(
    client: Client, now: Any, organiser: Member
) -> None:
    response = client.post(
        reverse("scoring:evening_schedule"),
        {
            "played_on": "2026-12-11",
            "starts_at": "19:00",
            "place": "Hall",
            "game": "preferans",
            "table_size": "4",
            "seats": "12",
            "until": "2026-12-25",
        },
        follow=True,
    )
    assert "3 evenings announced." in response.content.decode()
    evenings = Evening.objects.order_by("played_on")
    assert [e.played_on.day for e in evenings] == [11, 18, 25]
    assert {(e.seats, e.starts_at) for e in evenings} == {(12, datetime.time(19, 0))}


def test_a_bad_schedule_answers_with_the_reason(
    client: Client, now: Any, organiser: Member
) -> None:
    response = client.post(
        reverse("scoring:evening_schedule"),
        {"played_on": "2026-12-11", "game": "preferans", "table_size": "4", "until": "2026-12-01"},
    )
    assert response.status_code == 200
    assert "the series ends on or after its first evening" in response.content.decode()
    assert not Evening.objects.exists()


def test_a_member_may_not_schedule(client: Client, now: Any) -> None:
    client.force_login(factories.member("Anna"))
    response = client.post(
        reverse("scoring:evening_schedule"),
        {"played_on": "2026-12-11", "game": "preferans", "table_size": "4"},
    )
    assert response.status_code == 403
    assert not Evening.objects.exists()


def test_the_evening_page_starts_the_check_in_from_the_answers(
    client: Client, now: Any, organiser: Member
) -> None:
    (evening,) = _announce(organiser, seats=3)
    members = {n: factories.member(n) for n in ("Zoe", "Yan", "Xen", "Abe")}
    for name in ("Zoe", "Yan", "Xen", "Abe"):
        services.evening_answer(evening=evening, member=members[name], answer="yes")
    page = client.get(reverse("scoring:evening_detail", args=[evening.pk])).content.decode()
    tap_list = page[page.index('class="tap-list"') :]
    # Those coming first (in name order), then the rest: Abe waits for a seat.
    assert tap_list.index("Xen") < tap_list.index("Zoe") < tap_list.index("Abe")
    response = client.post(reverse("scoring:evening_check_in_answered", args=[evening.pk]))
    assert response.status_code == 302
    here = Attendance.objects.filter(evening=evening).values_list("member__display_name", flat=True)
    assert set(here) == {"Zoe", "Yan", "Xen"}


def test_a_member_may_not_check_in_the_answers(client: Client, now: Any) -> None:
    (evening,) = _announce(factories.member("Olga", organiser=True))
    client.force_login(factories.member("Anna"))
    response = client.post(reverse("scoring:evening_check_in_answered", args=[evening.pk]))
    assert response.status_code == 403


def _events(body: bytes) -> list[Any]:
    return list(icalendar.Calendar.from_ical(body).walk("VEVENT"))


def test_the_clubs_feed_lists_every_evening(client: Client, now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    (friday,) = _announce(olga)
    (sunday,) = _announce(olga, played_on=datetime.date(2026, 12, 13), starts_at=None, place="")
    response = client.get(reverse("scoring:calendar_feed"))
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    events = _events(response.content)
    assert [str(e["UID"]) for e in events] == [
        f"evening-{friday.pk}@testserver",
        f"evening-{sunday.pk}@testserver",
    ]
    first = events[0]
    # 19:00 in Moscow (UTC+3), four hours long.
    assert first.decoded("DTSTART") == datetime.datetime(
        2026, 12, 11, 19, 0, tzinfo=first.decoded("DTSTART").tzinfo
    )
    assert first.decoded("DTSTART").utcoffset() == datetime.timedelta(hours=3)
    assert first.decoded("DTEND") - first.decoded("DTSTART") == datetime.timedelta(hours=4)
    assert str(first["LOCATION"]) == "Hall"
    assert str(first["URL"]).endswith(f"/evenings/{friday.pk}/")
    # No start time: the whole day.
    assert events[1].decoded("DTSTART") == datetime.date(2026, 12, 13)
    assert b"BEGIN:VTIMEZONE" in response.content


def test_a_members_own_feed_lists_what_he_said_coming_or_maybe_to(client: Client, now: Any) -> None:
    olga = factories.member("Olga", organiser=True)
    first, second, third, fourth = _announce(
        olga, seats=3, until=FRIDAY + datetime.timedelta(weeks=3)
    )
    anna = factories.member("Anna")
    for other in (factories.member(n) for n in "ABC"):
        services.evening_answer(evening=fourth, member=other, answer="yes")
    services.evening_answer(evening=first, member=anna, answer="yes")
    services.evening_answer(evening=second, member=anna, answer="maybe")
    services.evening_answer(evening=third, member=anna, answer="no")
    services.evening_answer(evening=fourth, member=anna, answer="yes")  # waits
    token = services.calendar_link_reset(member=anna)
    response = Client().get(reverse("scoring:member_calendar_feed", args=[token]))
    events = _events(response.content)
    assert [(str(e["UID"]).split("@")[0], str(e["STATUS"])) for e in events] == [
        (f"evening-{first.pk}", "CONFIRMED"),
        (f"evening-{second.pk}", "TENTATIVE"),
        (f"evening-{fourth.pk}", "TENTATIVE"),
    ]


def test_a_new_private_link_ends_the_old_one(client: Client, now: Any) -> None:
    anna = factories.member("Anna")
    old = services.calendar_link_reset(member=anna)
    client.force_login(anna)
    response = client.post(reverse("scoring:calendar_link_reset"))
    assert response["Location"] == reverse("scoring:evening_calendar")
    anna.refresh_from_db()
    assert anna.calendar_token != old
    feed = reverse("scoring:member_calendar_feed", args=[old])
    assert client.get(feed).status_code == 404
    page = client.get(reverse("scoring:evening_calendar")).content.decode()
    assert f"/evenings/calendar/{anna.calendar_token}.ics" in page


def test_an_unknown_or_inactive_members_link_finds_nothing(client: Client, now: Any) -> None:
    anna = factories.member("Anna")
    token = services.calendar_link_reset(member=anna)
    assert client.get(reverse("scoring:member_calendar_feed", args=["nope"])).status_code == 404
    Member.objects.filter(pk=anna.pk).update(is_active=False)
    assert client.get(reverse("scoring:member_calendar_feed", args=[token])).status_code == 404


def test_an_organiser_calls_off_one_evening_of_a_series(
    client: Client, now: Any, organiser: Member
) -> None:
    first, second = _announce(organiser, until=FRIDAY + datetime.timedelta(weeks=1))
    services.evening_answer(evening=second, member=factories.member("Anna"), answer="yes")
    page = client.get(reverse("scoring:evening_detail", args=[second.pk])).content.decode()
    assert "Call the evening off" in page
    response = client.post(reverse("scoring:evening_cancel", args=[second.pk]))
    assert response["Location"] == reverse("scoring:evening_calendar")
    assert list(Evening.objects.all()) == [first]
    assert not EveningAnswer.objects.exists()


def test_an_evening_that_has_begun_is_not_called_off(
    client: Client, now: Any, organiser: Member
) -> None:
    (evening,) = _announce(organiser)
    Attendance.objects.create(evening=evening, member=factories.member("Anna"))
    response = client.post(reverse("scoring:evening_cancel", args=[evening.pk]), follow=True)
    assert "it cannot be called off" in response.content.decode()
    assert Evening.objects.filter(pk=evening.pk).exists()
