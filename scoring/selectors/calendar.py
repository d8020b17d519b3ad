"""Reads of the evenings announced ahead: who answered what, who has a seat and who waits
(docs/evenings.md, "Evenings announced ahead"), the calendar's evenings and the feeds'.

The seats are never stored: the «приду» answers in the order they were given
(``EveningAnswer.queued_at``) fill the evening's seats and the rest wait in that order,
so the waiting list moves up by itself the moment someone takes his answer back.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.utils import timezone

from scoring.models import Evening, EveningAnswer

FEED_DAYS_BACK = 30
"""How far back the iCal feeds go: a calendar app keeps last month's evenings in view."""

FEED_LIMIT = 200
"""The most evenings a feed lists (two evenings a week for well over a year)."""


@dataclass
class Roll:
    """An evening's answers: ``coming`` have a seat, ``waiting`` wait for one (both in the
    order they said «приду»), ``maybe`` and ``not_coming`` by answer."""

    seats: int | None
    coming: list[EveningAnswer] = field(default_factory=list)
    waiting: list[EveningAnswer] = field(default_factory=list)
    maybe: list[EveningAnswer] = field(default_factory=list)
    not_coming: list[EveningAnswer] = field(default_factory=list)

    def mine(self, member_id: int | None) -> tuple[str, int]:
        """``member_id``'s answer (``""``: none) and, when he waits, his place in line
        (1 = next); 0 otherwise."""
        for place, answer in enumerate(self.waiting, start=1):
            if answer.member_id == member_id:
                return answer.answer, place
        for answer in (*self.coming, *self.maybe, *self.not_coming):
            if answer.member_id == member_id:
                return answer.answer, 0
        return "", 0

    @property
    def coming_ids(self) -> set[int]:
        return {a.member_id for a in self.coming}


def roll_of(seats: int | None, answers: Iterable[EveningAnswer]) -> Roll:
    """``answers`` (one evening's, in ``queued_at`` order) sorted into a roll."""
    roll = Roll(seats=seats)
    for answer in answers:
        if answer.answer == EveningAnswer.YES:
            full = seats is not None and len(roll.coming) >= seats
            (roll.waiting if full else roll.coming).append(answer)
        elif answer.answer == EveningAnswer.MAYBE:
            roll.maybe.append(answer)
        else:
            roll.not_coming.append(answer)
    return roll


def rolls(evenings: Iterable[Evening]) -> dict[int, Roll]:
    """Each evening's roll, by id, in one query."""
    seats = {e.pk: e.seats for e in evenings}
    answers: dict[int, list[EveningAnswer]] = {pk: [] for pk in seats}
    found = EveningAnswer.objects.filter(evening_id__in=seats).select_related("member")
    for answer in found.order_by("queued_at", "answered_at", "id"):
        answers[answer.evening_id].append(answer)
    return {pk: roll_of(seats[pk], answers[pk]) for pk in seats}


def roll(evening: Evening) -> Roll:
    return rolls([evening])[evening.pk]


def upcoming() -> list[Evening]:
    """The evenings from today on that are not closed, soonest first."""
    today = timezone.localdate()
    found = Evening.objects.filter(played_on__gte=today, closed_at__isnull=True)
    return list(found.select_related("organiser").order_by("played_on", "starts_at", "id"))


def feed_evenings(*, member_id: int | None = None) -> list[Evening]:
    """The evenings an iCal feed lists: from a month ago on; a member's own feed, those
    he said «приду» or «может быть» to."""
    since = timezone.localdate() - datetime.timedelta(days=FEED_DAYS_BACK)
    found = Evening.objects.filter(played_on__gte=since)
    if member_id is not None:
        found = found.filter(
            answers__member_id=member_id,
            answers__answer__in=(EveningAnswer.YES, EveningAnswer.MAYBE),
        )
    return list(found.order_by("played_on", "starts_at", "id")[:FEED_LIMIT])
