"""Who may do what: the one place views, the admin and templates ask (docs/permissions.md
is the table these functions implement)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone

from clubsite.http import once_per_request
from scoring.models import Attendance, Club, Evening, Guest, Seat, Table, Tournament, TourTable
from scoring.models.evenings import party_key


def is_organiser(user: Any) -> bool:
    """Organisers (the Organisers group, and superusers) edit tariffs and seasons, close
    and reopen any table, and score at any table."""
    return bool(user.is_authenticated and user.is_organiser)


def is_seated(user: Any, table: Table) -> bool:
    """Whether ``user`` holds a seat at ``table`` (uses prefetched seats when present)."""
    return bool(user.is_authenticated) and any(s.member_id == user.pk for s in table.seats.all())


def can_score(user: Any, table: Table) -> bool:
    """Seated members and organisers enter and correct deals."""
    return is_seated(user, table) or is_organiser(user)


def can_write(user: Any, table: Table) -> bool:
    """Whether ``user`` may change ``table`` now: may score, and the table is in play."""
    return table.is_open and can_score(user, table)


def can_close_early(user: Any, table: Table) -> bool:
    """Only organisers close a table in play that is not complete (with a reason): players
    finish a complete one (``can_score``)."""
    return table.is_open and is_organiser(user)


def can_clear_control_time(user: Any, table: Table) -> bool:
    """Only organisers clear a control-time mark (with a reason); scorers make it."""
    return table.is_open and is_organiser(user)


def can_reopen(user: Any, table: Table) -> bool:
    """Only organisers reopen a finished table; a table of paper history has no deals to
    correct, so nobody reopens it."""
    return not table.is_open and not table.totals_only and is_organiser(user)


def players_may_accept(table: Table) -> bool:
    """Whether the members seated at ``table`` may accept it for the standings themselves
    (every one of them): the club's setting allows it, and two members or more sit there
    — a member alone with guests would be accepting his own record."""
    if not hasattr(table, "_players_may_accept"):  # asked by several checks on one page
        table._players_may_accept = (  # type: ignore[attr-defined]
            sum(s.member_id is not None for s in table.seats.all()) >= 2
            and Club.load().import_acceptance == Club.PLAYERS
        )
    return table._players_may_accept  # type: ignore[attr-defined,no-any-return]


def can_accept(user: Any, table: Table) -> bool:
    """Who accepts a finished table awaiting acceptance (an imported record) so that it
    counts in the standings: an organiser always (a rejected one too), and, where the
    club's setting allows it, each member seated at it (it counts once all have)."""
    if table.is_open or table.standing not in (Table.PENDING, Table.REJECTED):
        return False
    if is_organiser(user):
        return True
    return table.standing == Table.PENDING and is_seated(user, table) and players_may_accept(table)


def can_reject(user: Any, table: Table) -> bool:
    """Who rejects a finished table awaiting acceptance (it stays shown, never counted):
    an organiser, and, where the club's setting allows members to accept, any member
    seated at it."""
    if table.is_open or table.standing != Table.PENDING:
        return False
    return is_organiser(user) or (is_seated(user, table) and players_may_accept(table))


def standings_are_public() -> bool:
    """Whether visitors who are not signed in see the standings (STANDINGS_PUBLIC)."""
    return bool(getattr(settings, "STANDINGS_PUBLIC", True))


def can_see_standings(request: HttpRequest) -> bool:
    """Standings are public unless the club turns STANDINGS_PUBLIC off."""
    return standings_are_public() or bool(request.user.is_authenticated)


def can_use_admin(request: HttpRequest) -> bool:
    """Whether the signed-in member may use the organisers' admin: an active staff
    organiser (kept on the request: the admin asks many times per page)."""
    user = request.user
    return once_per_request(
        request,
        "can_use_admin",
        lambda: bool(user.is_active and user.is_staff and getattr(user, "is_organiser", False)),
    )


def can_manage_members(user: Any) -> bool:
    """Organisers (superusers included) look after the club's members on the members page:
    they invite a member, send a link to set a password, deactivate and reactivate a
    member, and clear a sign-in lockout. Unlike the admin, this needs no staff flag."""
    return is_organiser(user)


def can_change_membership(user: Any, member: Any) -> bool:
    """Whether ``user`` may deactivate or reactivate ``member``: an organiser may, for
    anyone but himself (he would shut himself out of the page that undoes it) and but an
    administrator, whom only another administrator deactivates or reactivates."""
    if not can_manage_members(user) or member.pk == user.pk:
        return False
    return bool(user.is_superuser or not member.is_superuser)


def can_run_evening(user: Any) -> bool:
    """Organisers create club evenings, check anyone in, take "not together" requests,
    draw the seating, edit it and open its tables."""
    return is_organiser(user)


def can_check_in(user: Any, member: Any) -> bool:
    """An organiser checks anyone in (or out, or as sitting out), guests too; a member
    himself."""
    if not user.is_authenticated:
        return False
    return is_organiser(user) or (not isinstance(member, Guest) and user.pk == member.pk)


def can_import_history(user: Any) -> bool:
    """Only organisers bring the club's paper history in (``services.history``): a file
    of past results writes tables every member's standings count."""
    return is_organiser(user)


def can_merge_guest(user: Any) -> bool:
    """Only organisers merge a guest's history into a member (it rewrites finished
    tables' seats, and is recorded in each table's audit)."""
    return is_organiser(user)


def can_settle(user: Any, payee: str) -> bool:
    """A payment of the evening's ledger is marked as paid by an organiser, or by the
    member who received it (``payee``: his party key; the club's money, organisers only)."""
    if not user.is_authenticated:
        return False
    return is_organiser(user) or payee == party_key(user.pk)


def can_see_payments(user: Any, evening: Evening) -> bool:
    """Whether the evening's ledger shows ``user`` which payments are marked as paid: the
    organisers and the evening's players (checked in at it, or seated at one of its
    tables). Who pays whom is public, like the tables it adds up; who has paid is the
    players' business (docs/evenings.md)."""
    if not user.is_authenticated:
        return False
    if is_organiser(user) or evening.organiser_id == user.pk:
        return True
    here = Attendance.objects.filter(evening=evening, member=user)
    seated = Seat.objects.filter(table__evening_link__evening=evening, member=user)
    return here.exists() or seated.exists()


def can_run_tournament(user: Any) -> bool:
    """Organisers create a tournament (in the admin), enter the field, check players in
    and start it."""
    return is_organiser(user)


def is_judge(user: Any, tournament: Tournament) -> bool:
    """Whether ``user`` is one of ``tournament``'s judges (kept on the tournament: a page
    asks many times)."""
    if not user.is_authenticated:
        return False
    if not hasattr(tournament, "_judge_ids"):
        tournament._judge_ids = set(  # type: ignore[attr-defined]
            tournament.judges.values_list("pk", flat=True)
        )
    return user.pk in tournament._judge_ids  # type: ignore[attr-defined]


def can_judge(user: Any, tournament: Tournament) -> bool:
    """The tournament's judges and the organisers seat the next tour, close a tour, give
    a table extra time, add and reverse penalties, and decide (or reverse the decision
    on) who goes on from a tie at the cut."""
    return is_organiser(user) or is_judge(user, tournament)


def can_judge_table(user: Any, table: Table) -> bool:
    """A judge's decisions at a table (two seats swapped and the record replayed): the
    judges of the table's tournament, and the organisers at any table. Not a table of paper
    history: it has no record to replay."""
    if not user.is_authenticated or table.totals_only:
        return False
    if is_organiser(user):
        return True
    link = TourTable.objects.filter(table=table).select_related("tour__tournament").first()
    return link is not None and is_judge(user, link.tour.tournament)


def can_check_in_entry(user: Any, tournament: Tournament, entry: Any) -> bool:
    """An entry is checked in by an organiser or a judge, or by the member himself."""
    if not user.is_authenticated:
        return False
    return can_judge(user, tournament) or (
        entry.member_id is not None and entry.member_id == user.pk
    )


def can_confirm_for_table(user: Any, tournament: Tournament | None) -> bool:
    """Who confirms a provisional table's result for all its players at once (a guest
    cannot tap, a player has left): a judge of its tournament, or an organiser."""
    if tournament is not None:
        return can_judge(user, tournament)
    return is_organiser(user)


def can_confirm(user: Any, table: Table, finality: Any, tournament: Tournament | None) -> bool:
    """Who confirms a provisional table (``finality``: ``selectors.confirmations``): each
    member seated at it, once, and for the whole table a judge or an organiser."""
    if not user.is_authenticated or not finality.provisional:
        return False
    if is_seated(user, table) and user.pk not in finality.confirmed_ids:
        return True
    return can_confirm_for_table(user, tournament)


def can_reopen_confirmed(
    user: Any, table: Table, finality: Any, tournament: Tournament | None
) -> bool:
    """Who reopens a finished table that needs its players' confirmation: while it is
    provisional, a member seated at it (to correct a deal) besides those who always may;
    once final, at a tournament only its judges (and organisers), at the club only an
    organiser — always with a reason. A table that needs no confirmation: ``can_reopen``."""
    if table.is_open or table.totals_only or not user.is_authenticated:
        return False
    if not finality.needed:
        return can_reopen(user, table)
    if finality.provisional and is_seated(user, table):
        return True
    return can_judge(user, tournament) if tournament is not None else is_organiser(user)


def can_schedule_evening(user: Any) -> bool:
    """Organisers announce evenings ahead: one, or a weekly series."""
    return is_organiser(user)


def can_answer(user: Any, evening: Evening) -> bool:
    """A signed-in member answers an evening for himself («приду / может быть / не
    приду») until it is over: closed, or its day gone by."""
    if not (user.is_authenticated and user.is_active):
        return False
    return evening.closed_at is None and evening.played_on >= timezone.localdate()


def can_see_calendar(request: HttpRequest) -> bool:
    """The calendar of evenings and the club's iCal feed: public when the standings are
    (the counts say who is coming, not who)."""
    return can_see_standings(request)


def can_keep_calendar_link(user: Any) -> bool:
    """A signed-in member makes (and makes anew) the private link of his own feed."""
    return bool(user.is_authenticated)


def can_choose_messages(user: Any) -> bool:
    """A signed-in member links (and unlinks) his own Telegram chat and subscribes (and
    unsubscribes) his own devices to web push; nobody does it for another."""
    return bool(user.is_authenticated and user.is_active)


def can_answer_by_link(member: Any, evening: Evening) -> bool:
    """A one-tap answer link from a reminder answers for the member it was made for, and
    only him, without signing in (the link is signed for that member and evening:
    ``notices.answer_token``), while he could answer himself."""
    return can_answer(member, evening)


def can_see_answers(user: Any) -> bool:
    """Who answered what, by name: the members (a visitor sees the counts only)."""
    return bool(user.is_authenticated)


def can_keep_accounts(user: Any) -> bool:
    """Organisers keep the members' accounts: they record top-ups, refunds and
    corrections in the cash book, read every entry and export them as CSV."""
    return is_organiser(user)


def can_see_balance(user: Any, member: Any) -> bool:
    """A member's account balance is his business and the organisers': shown to him on
    his own page and to organisers (their members list, the cash book)."""
    if not user.is_authenticated:
        return False
    return is_organiser(user) or user.pk == member.pk


def can_settle_by_account(user: Any) -> bool:
    """A payment of the evening's ledger is settled through the accounts, instead of cash,
    by an organiser: at the door, once payer and payee have both said yes."""
    return is_organiser(user)


def can_pay_for_guest(user: Any) -> bool:
    """A member's account pays a guest's table money on the evening's page, recorded by an
    organiser at the door: the member said so, and the organiser holds the cash book."""
    return is_organiser(user)
