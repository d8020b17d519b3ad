"""A judge's decisions at a table (issue 32, item 5): two seats swapped for the whole
record and the table replayed; a substitute seated mid-pulka (Kodeks 3.1.2).

A judge (of the table's tournament) or an organiser (at any table) decides; each decision
is one transaction, kept in the table's history with who and why, and refused in words,
changing nothing, when it cannot apply (docs/tournaments.md, "The judges at a table").
"""

from __future__ import annotations

from decimal import Decimal
from functools import partial

from django.db import transaction

from members.models import Member
from scoring import selectors
from scoring.engine.errors import N_, RuleError
from scoring.engine.money import to_cents, two_decimals
from scoring.engine.preferans.pulka import Pulka
from scoring.engine.tournament.substitute import substitute_seat
from scoring.live import push, revisions
from scoring.models import AuditEntry, Guest, Seat, SeatChange, Table, TourSeat, TourTable
from scoring.models.tournaments import tournament_format
from scoring.services.guest_names import guest_name_check
from scoring.services.ratings import ratings_after_reopen
from scoring.services.standings import standings_after_finish, standings_before_reopen
from scoring.services.tables import (
    ANY,
    Drawn,
    _check_drawn,
    _keep_key,
    _locked,
    _require_reason,
    _store_seat_results,
    table_digest,
)
from scoring.services.tournaments import tour_scores

SEAT_FIELDS = ("member", "guest", "name", "result", "money", "place", "won", "stats")
"""What a seat carries to the other seat when its player moves there: who he is, and,
until the replay stores them again, what the totals hold for him."""


def table_seats_swap(
    *, table: Table, first: int, second: int, by: Member | None, reason: str, drawn: Drawn = ANY
) -> Table:
    """The players of seats ``first`` and ``second`` exchange their seats for the whole
    record, as if they had sat so from the start: every deal keeps the players it names
    (who declared, who whisted), and the deal passes round the seats as they are now, so
    the dealer, the 4-player dealer who sits out and the overflow's order (§13.9) follow
    the new seating. The table is replayed; a deal that no longer replays (a player named
    where he now deals and sits out) refuses the swap, and nothing changes.

    A finished table keeps its standing: its seats' results are stored again from the
    replay (the totals and the ratings with them), and if it is a table of a closed tour,
    the tour's points are counted again through the format's rule."""
    _require_reason(reason)
    with transaction.atomic():
        locked = _locked(table)
        _check_drawn(locked, drawn, AuditEntry.SWAP)
        if locked.totals_only:
            raise RuleError(N_("a table of paper history has no deals to replay"), field="table")
        seats = sorted(Seat.objects.filter(table=locked), key=lambda seat: seat.position)
        positions = [seat.position for seat in seats]
        if first == second or first not in positions or second not in positions:
            raise RuleError(N_("choose two different seats of this table"), field="seats")
        before = [seat.name for seat in seats]
        _exchange(locked, seats[first], seats[second])
        if locked.has_seat_changes:  # who held each seat before a substitute moves too
            changes = list(SeatChange.objects.filter(table=locked, position__in=(first, second)))
            for change in changes:
                change.position = second if change.position == first else first
            SeatChange.objects.bulk_update(changes, ["position"])
        # A deal that no longer replays raises here: the transaction undoes the exchange.
        fresh = Table.objects.prefetch_related("seats", "deal_records").get(pk=locked.pk)
        state = selectors.replay(fresh)
        locked.revision += 1
        fields = ["revision"]
        if not locked.is_open:
            if locked.counts:  # the seats still hold what they added to the totals
                standings_before_reopen(locked)
            _store_seat_results(fresh, state)
            locked.result = state.document()
            locked.record_digest = table_digest(locked, state)
            fields += ["result", "record_digest"]
            if locked.counts:
                standings_after_finish(locked)
                ratings_after_reopen(locked)  # its rows rated again in the update it enqueues
        locked.save(update_fields=fields)
        revisions.table_moved(locked.pk)
        AuditEntry.objects.create(
            table=locked,
            action=AuditEntry.SWAP,
            actor=by,
            reason=" ".join(reason.split())[:500],
            before={"seats": before},
            after={"seats": list(state.players), "swapped": [before[first], before[second]]},
            revision=locked.revision,
        )
        _keep_key(locked, drawn, locked.revision, AuditEntry.SWAP)
        _tour_follows(locked, first, second)
        return locked


def table_seat_substitute(
    *,
    table: Table,
    position: int,
    newcomer: Member | str,
    from_deal: int | None = None,
    by: Member | None,
    reason: str,
    drawn: Drawn = ANY,
) -> SeatChange:
    """A substitute takes seat ``position`` from the next deal (Kodeks 3.1.2;
    docs/tournaments.md, "A substitute mid-pulka"): ``newcomer`` is a member or a guest's
    name. The leaver settles as the sheet stands with each player who stays, and the
    newcomer enters with the others' average pool and mountain, rounded against him
    (the engine's ``substitute_seat``). The seat's row becomes the newcomer's; the leaver
    and what he settled are kept in a ``SeatChange``, which the replay reads.

    ``from_deal`` (the next deal's number when omitted) must be the next deal: the deals
    already played name the leaver. Refused in words, changing nothing: a finished table,
    a Boston table, no deal played yet, a seat that is not the table's, a newcomer who
    sits at the table or left it already."""
    _require_reason(reason)
    with transaction.atomic():
        locked = _locked(table)
        _check_drawn(locked, drawn, AuditEntry.SUBSTITUTE)
        if locked.game != Table.PREFERANS:
            raise RuleError(N_("a substitute mid-pulka is a Preferans rule"), field="table")
        if not locked.is_open or locked.totals_only:
            raise RuleError(N_("a finished table takes no substitute"), field="table")
        seats = sorted(Seat.objects.filter(table=locked), key=lambda seat: seat.position)
        seat = next((s for s in seats if s.position == position), None)
        if seat is None:
            raise RuleError(N_("choose a seat of this table"), field="seat")
        fresh = Table.objects.prefetch_related("seats", "deal_records").get(pk=locked.pk)
        state = selectors.replay(fresh)
        next_deal = state.count + 1
        if state.count == 0:
            raise RuleError(
                N_("no deal has been played yet: seat the player instead"), field="from_deal"
            )
        if from_deal is not None and from_deal != next_deal:
            raise RuleError(
                N_("a substitute takes the seat from the next deal, %(n)s"),
                field="from_deal",
                n=next_deal,
            )
        member, guest, name = _newcomer(newcomer, seats, selectors.seat_changes(locked))
        game = state.game.copy()
        assert isinstance(game, Pulka)  # noqa: S101 - a Preferans table's engine
        departure = substitute_seat(game, position)
        money = to_cents([departure.balance, *departure.settled.values()], locked.price)[0]
        change = SeatChange.objects.create(
            table=locked,
            position=position,
            from_deal=next_deal,
            after_sequence=state.records[-1].sequence,
            member=seat.member,
            guest=seat.guest,
            name=seat.name,
            result=Decimal(two_decimals(departure.balance)),
            money=money,
            by=by,
            reason=" ".join(reason.split())[:500],
        )
        if guest is not None and guest._state.adding:
            guest.save()
        seat.member, seat.guest, seat.name = member, guest, name
        seat.save(update_fields=["member", "guest", "name"])
        locked.has_seat_changes = True
        locked.revision += 1
        locked.save(update_fields=["has_seat_changes", "revision"])
        revisions.table_moved(locked.pk)
        entry = departure.entry
        AuditEntry.objects.create(
            table=locked,
            action=AuditEntry.SUBSTITUTE,
            actor=by,
            reason=change.reason,
            before={"seat": position, "player": change.name},
            after={
                "seat": position,
                "player": name,
                "left": change.name,
                "from_deal": next_deal,
                "pool": entry.pool,
                "mountain": str(entry.mountain),
                "settled": str(change.result),
            },
            revision=locked.revision,
        )
        _keep_key(locked, drawn, locked.revision, AuditEntry.SUBSTITUTE)
        return change


def _newcomer(
    newcomer: Member | str, seats: list[Seat], left: list[SeatChange]
) -> tuple[Member | None, Guest | None, str]:
    """The newcomer's member or guest (a new guest, unsaved) and his name on the sheet,
    or ``RuleError`` when he sits at the table now or left it before (each name stands
    for one player in the deals)."""
    taken = {seat.name for seat in seats} | {change.name for change in left}
    if isinstance(newcomer, Member):
        if any(change.member_id == newcomer.pk for change in left):
            raise RuleError(
                N_("%(player)s played at this table already"),
                field="newcomer",
                player=newcomer.name,
            )
        if any(seat.member_id == newcomer.pk for seat in seats):
            raise RuleError(
                N_("%(player)s sits at this table"), field="newcomer", player=newcomer.name
            )
        name = newcomer.name
        if name in taken:
            name = f"{name} ({newcomer.username})"
        if name in taken:
            raise RuleError(
                N_("%(player)s played at this table already"), field="newcomer", player=name
            )
        return newcomer, None, name
    name = guest_name_check(name=newcomer, field="newcomer")
    if name in taken:
        raise RuleError(
            N_("%(player)s played at this table already"), field="newcomer", player=name
        )
    return None, Guest(name=name), name


def _exchange(table: Table, one: Seat, other: Seat) -> None:
    """Seat ``one``'s player at ``other``'s position and the other way round. A seat's
    player, name and position are each unique at its table, so the two rows are made again
    rather than changed in place (nothing refers to a seat's row)."""
    Seat.objects.filter(pk__in=(one.pk, other.pk)).delete()
    Seat.objects.bulk_create(
        Seat(table=table, position=position, **{f: getattr(seat, f) for f in SEAT_FIELDS})
        for seat, position in ((one, other.position), (other, one.position))
    )


def _tour_follows(table: Table, first: int, second: int) -> None:
    """A tournament's table: its seating follows the swap and, once its tour is closed,
    the tour's points are counted again from the table's new results (as ``tour_close``
    counts them). The tournament's pages are told once this commits."""
    link = TourTable.objects.filter(table=table).select_related("tour__tournament").first()
    if link is None:
        return
    rows = list(TourSeat.objects.filter(table=link, position__in=(first, second)))
    for row in rows:
        row.position = second if row.position == first else first
    TourSeat.objects.bulk_update(rows, ["position"])
    tour = link.tour
    if tour.is_closed:
        changed = tour_scores(tour, tournament_format(tour.tournament))
        TourSeat.objects.bulk_update(changed, ["result", "place", "points", "calc"])
    transaction.on_commit(partial(push.tournament_changed, tour.tournament_id), robust=True)
