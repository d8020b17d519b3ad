"""Who a new table is opened with: the members offered for its seats, the club's regulars
of the game first (issue 30)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce

from members.models import Member
from scoring.games import Game
from scoring.models import Seat

REGULARS = 12
"""How many members a seat offers as buttons: the club's regulars. When more members
could play, the others are one tap further (``SeatCandidates.others``)."""

RECENT_DAYS = 365
"""How far back a member's tables count towards being a regular."""


@dataclass(frozen=True)
class SeatCandidates:
    """The members a seat of a new table may take, by name: ``regulars`` (those who played
    the game most in the last ``RECENT_DAYS``, or everyone when the club is small) and
    ``others``; ``me``, the member opening it, when he plays (his seat is filled for him)."""

    regulars: tuple[Member, ...]
    others: tuple[Member, ...]
    me: Member | None

    @property
    def everyone(self) -> tuple[Member, ...]:
        return self.regulars + self.others


def seat_candidates(game: Game, day: datetime.date, me: Member | None) -> SeatCandidates:
    """The active members who may be seated at a table of ``game`` opened on ``day`` by
    ``me``, in one query. A staff account that has never sat at a table (the site's
    «Администратор») is not a player and is not offered — except to himself, who may
    choose to play; a member who has played, or any member who is not staff, is."""
    since = day - datetime.timedelta(days=RECENT_DAYS)
    recent = (
        Seat.objects.filter(
            member=OuterRef("pk"), table__game=game.code, table__played_on__gte=since
        )
        .order_by()
        .values("member")
        .annotate(n=Count("pk"))
        .values("n")
    )
    members = list(
        Member.objects.filter(is_active=True)
        .annotate(
            played=Exists(Seat.objects.filter(member=OuterRef("pk"))),
            recent=Coalesce(Subquery(recent, output_field=IntegerField()), Value(0)),
        )
        .filter(
            Q(played=True) | Q(is_staff=False, is_superuser=False) | Q(pk=getattr(me, "pk", None))
        )
        .order_by("display_name", "username")
    )
    mine = next((m for m in members if me is not None and m.pk == me.pk), None)
    plays = mine is not None and (mine.played or not (mine.is_staff or mine.is_superuser))
    if len(members) <= REGULARS:
        return SeatCandidates(tuple(members), (), mine if plays else None)
    busiest = [m.pk for m in sorted(members, key=lambda m: (-m.recent, m.name))[:REGULARS]]
    if plays and mine is not None and mine.pk not in busiest:
        busiest[-1] = mine.pk
    chosen = set(busiest)
    return SeatCandidates(
        regulars=tuple(m for m in members if m.pk in chosen),
        others=tuple(m for m in members if m.pk not in chosen),
        me=mine if plays else None,
    )
