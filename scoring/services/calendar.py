"""Evenings announced ahead (docs/evenings.md, "Evenings announced ahead"): an organiser
schedules one evening or a weekly series, a member answers «приду / может быть / не
приду», the check-in starts from the answers, and a member's private calendar link.

Bad input raises ``RuleError`` (a message for the member) and changes nothing.
"""

from __future__ import annotations

import datetime
import secrets

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.models import Attendance, Evening, EveningAnswer, EveningSeries
from scoring.selectors import calendar as selectors
from scoring.services import locking, notifications
from scoring.services.evenings import evening_create
from scoring.services.home import home_changed

SERIES_WEEKS = 53
"""The most evenings one weekly series schedules: a year of one weekday."""


def evening_schedule(
    *,
    organiser: Member,
    played_on: datetime.date,
    starts_at: datetime.time | None,
    place: str,
    game: str,
    table_size: int,
    seats: int | None,
    until: datetime.date | None = None,
) -> list[Evening]:
    """One evening on ``played_on``, or (``until``) one every week on its weekday until
    ``until``, all in one transaction: a refusal schedules none."""
    if played_on < timezone.localdate():
        raise RuleError(_("an evening is scheduled for today or a later day"), field="played_on")
    if seats is not None and seats < 3:
        raise RuleError(_("an evening has at least 3 seats"), field="seats")
    days = [played_on]
    if until is not None:
        if until < played_on:
            raise RuleError(_("the series ends on or after its first evening"), field="until")
        weeks = (until - played_on).days // 7 + 1
        if weeks > SERIES_WEEKS:
            raise RuleError(
                _("a series is at most %(n)s weeks long") % {"n": SERIES_WEEKS}, field="until"
            )
        days = [played_on + datetime.timedelta(weeks=w) for w in range(weeks)]
    with transaction.atomic():
        series = (
            EveningSeries.objects.create(starts_at=starts_at, until=until)
            if until is not None
            else None
        )
        evenings = []
        for day in days:
            evening = evening_create(
                organiser=organiser, played_on=day, place=place, game=game, table_size=table_size
            )
            evening.starts_at, evening.seats, evening.series = starts_at, seats, series
            evening.save(update_fields=["starts_at", "seats", "series"])
            evenings.append(evening)
        return evenings


def evening_answer(*, evening: Evening, member: Member, answer: str) -> EveningAnswer:
    """``member``'s answer to ``evening``. Saying «приду» again keeps his place; saying it
    after another answer puts him last in line (first come, first served)."""
    if answer not in (EveningAnswer.YES, EveningAnswer.MAYBE, EveningAnswer.NO):
        raise RuleError(_("answer coming, maybe or not coming"), field="answer")
    if not member.is_active:
        raise RuleError(_("this member is not active"), field="member")
    with transaction.atomic():
        locked = locking.lock_row(evening)  # one answer at a time: the line stays in order
        if locked.closed_at is not None or locked.played_on < timezone.localdate():
            raise RuleError(_("this evening is over: answers are closed"), field="answer")
        before = selectors.roll(locked).coming_ids
        row = EveningAnswer.objects.filter(evening=locked, member=member).first()
        if row is None:
            row = EveningAnswer(evening=locked, member=member)
        if answer != EveningAnswer.YES:
            row.queued_at = None
        elif row.answer != EveningAnswer.YES:
            row.queued_at = timezone.now()
        row.answer = answer
        row.save()
        # Someone who was waiting has a seat now (this member took his «приду» back):
        # tell him, once the answer commits.
        seated = selectors.roll(locked).coming_ids - before - {member.pk}
        notifications.after_seating(locked, seated)
        return row


def evening_check_in_answered(*, evening: Evening, by: Member) -> int:
    """Check in at once every active member who has a seat by his «приду» (not those
    waiting): how many were checked in."""
    with transaction.atomic():
        locked = locking.lock_row(evening)
        here = set(locked.attendances.values_list("member_id", flat=True))
        coming = [a.member for a in selectors.roll(locked).coming]
        new = [m for m in coming if m.is_active and m.pk not in here]
        Attendance.objects.bulk_create(
            Attendance(evening=locked, member=m, checked_in_by=by) for m in new
        )
        if new:
            home_changed()  # who is here tonight
        return len(new)


def calendar_link_reset(*, member: Member) -> str:
    """A new private link for ``member``'s calendar feed; the old one stops working."""
    member.calendar_token = secrets.token_urlsafe(32)
    member.save(update_fields=["calendar_token"])
    return member.calendar_token


def evening_cancel(*, evening: Evening) -> None:
    """Call off an evening announced ahead (one evening of a series, say, on a holiday),
    its answers with it. Refused once it has begun: someone checked in, or a table."""
    with transaction.atomic():
        locked = locking.lock_row(evening)
        if locked.closed_at is not None or locked.played_on < timezone.localdate():
            raise RuleError(_("this evening is over: it cannot be called off"), field="evening")
        if locked.attendances.exists() or locked.links.exists():
            raise RuleError(
                _("this evening has begun (check-ins or tables): it cannot be called off"),
                field="evening",
            )
        locked.delete()
        home_changed()  # no longer tonight's, nor the next, on the home page
