"""The calendar of evenings announced ahead as an iCal feed (RFC 5545), built with the
``icalendar`` library: the club's feed and a member's own (docs/evenings.md)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from icalendar import Calendar, Event
from icalendar.enums import STATUS

from scoring.models import Evening, EveningAnswer
from scoring.permissions import can_answer, can_run_evening, can_see_answers
from scoring.selectors.calendar import Roll

EVENING_HOURS = 4
"""How long an evening with a start time lasts in a calendar app (one without is a whole
day)."""


def answer_context(request: HttpRequest, evening: Evening, roll: Roll) -> dict[str, Any]:
    """What the answer region of one evening shows (the calendar's and the evening page's)."""
    mine, place = roll.mine(request.user.pk)
    return {
        "evening": evening,
        "roll": roll,
        "mine": mine,
        "place": place,
        "can_answer": can_answer(request.user, evening),
        "names": can_see_answers(request.user),
        "runs": can_run_evening(request.user),
    }


def _when(evening: Evening) -> tuple[datetime.date, datetime.date]:
    if evening.starts_at is None:
        return evening.played_on, evening.played_on + datetime.timedelta(days=1)
    start = datetime.datetime.combine(
        evening.played_on, evening.starts_at, tzinfo=ZoneInfo(settings.TIME_ZONE)
    )
    return start, start + datetime.timedelta(hours=EVENING_HOURS)


def _counts(roll: Roll) -> str:
    seats = (
        _("coming: %(n)s of %(seats)s seats") % {"n": len(roll.coming), "seats": roll.seats}
        if roll.seats is not None
        else _("coming: %(n)s") % {"n": len(roll.coming)}
    )
    return " · ".join(
        [
            seats,
            _("waiting: %(n)s") % {"n": len(roll.waiting)},
            _("maybe: %(n)s") % {"n": len(roll.maybe)},
        ]
    )


def feed(
    *,
    name: str,
    evenings: list[Evening],
    rolls: dict[int, Roll],
    url_of: Callable[[Evening], str],
    host: str,
    member_id: int | None = None,
) -> bytes:
    """The feed of ``evenings``; a member's own (``member_id``) says «tentative» where he
    said «может быть» or waits for a seat."""
    stamp = timezone.now()
    calendar = Calendar.new(name=name, prodid="-//clubsite//evenings//EN")
    for evening in evenings:
        roll = rolls[evening.pk]
        mine, waits = roll.mine(member_id)
        sure = member_id is None or (mine == EveningAnswer.YES and not waits)
        start, end = _when(evening)
        title = f"{_('Club evening')} · {evening.get_game_display()}"
        calendar.add_component(
            Event.new(
                uid=f"evening-{evening.pk}@{host}",
                stamp=stamp,
                start=start,
                end=end,
                summary=title,
                location=evening.place or None,
                description=_counts(roll),
                url=url_of(evening),
                status=STATUS.CONFIRMED if sure else STATUS.TENTATIVE,
            )
        )
    calendar.add_missing_timezones()
    return bytes(calendar.to_ical())
