"""Table writes: opening, deals (add, edit, strike, undo), finishing, reopening, export
and import.

Each function checks the change with the engine before writing anything, so bad input
raises ``RuleError`` (a message for the member) and leaves the database as it was.
"""

from __future__ import annotations

import copy
import dataclasses
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import partial
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, PositiveIntegerField
from django.db.models.expressions import RawSQL
from django.utils import timezone

from members.models import Member
from scoring import games, selectors
from scoring.engine.errors import N_, Grouped, RuleError
from scoring.engine.money import to_cents, two_decimals
from scoring.engine.record import MAX_DEALS, check_head, record_digest
from scoring.engine.standings import table_places
from scoring.engine.stats import stats_by_holder
from scoring.engine.tournament.substitute import Substitution, seatings
from scoring.live import revisions, snapshots
from scoring.models import AuditEntry, DealRecord, Guest, Seat, SeatChange, Table, WriteKey
from scoring.models.tables import validate_played_on
from scoring.permissions import can_accept, can_reject, is_organiser
from scoring.selectors.deal_caps import deals_played
from scoring.services import locking
from scoring.services.guest_names import guest_name_check
from scoring.services.home import home_changed
from scoring.services.notifications import after_table_finish
from scoring.services.ratings import ratings_after_finish, ratings_after_reopen
from scoring.services.standings import (
    standings_after_finish,
    standings_before_reopen,
    standings_changed,
)

ADJUST = "adjust"
"""The deal kind of an adjustment in every game's record: a correction, not a deal played."""


Player = Member | Guest
"""Who takes a seat: a member, or a guest (a name, no account; docs/evenings.md)."""


def table_open(
    *,
    game: str,
    version: Any,
    members: Sequence[Player],
    by: Member,
    first_dealer: int = 0,
    pool_target: int = 20,
    price: Decimal = Decimal(1),
    control_time: Any = None,
    control_time_deal: int | None = None,
    double_tour_from: int | None = None,
    preference_suit: str | None = None,
    played_on: Any = None,
    deal_cap: int | None = None,
) -> Table:
    """Open a table with ``members`` (members or guests; a guest not saved yet is saved
    with the table) seated in clockwise order. A Boston table's
    ``preference_suit`` is the suit turned at the first deal; the open-a-table form asks for
    it, but it may be ``None`` (an imported record that has none scores its deals by the
    class they give). ``control_time_deal``: a record's, when it is imported."""
    stored = [(type(m), m.pk) for m in members if not m._state.adding]
    if len(set(stored)) != len(stored):
        raise RuleError(N_("each member can take one seat only"), field="players")
    for player in members:  # a new guest's name: no member's, nothing invisible
        if isinstance(player, Guest) and player._state.adding:
            player.name = guest_name_check(name=player.name)
    names = seat_names_for(members)
    kind = games.of(game)
    with transaction.atomic():
        for player in members:
            if isinstance(player, Guest) and player._state.adding:
                player.save()
        table = Table(
            game=game,
            first_dealer=first_dealer,
            pool_target=pool_target,
            price=price,
            control_time=control_time,
            control_time_deal=control_time_deal,
            double_tour_from=double_tour_from,
            preference_suit=preference_suit,
            opened_by=by,
            deal_cap=deal_cap,
        )
        setattr(table, kind.version_field, version)
        if played_on is not None:
            table.played_on = played_on
        kind.setup(table, names)  # the engine checks the player count, dealer, target, suit
        table.save()
        revisions.table_moved(table.pk)
        home_changed()  # the home page's tables in play change
        Seat.objects.bulk_create(
            Seat(table=table, position=i, name=name, **_seated(player))
            for i, (player, name) in enumerate(zip(members, names, strict=True))
        )
        return table


def _seated(player: Player) -> dict[str, Any]:
    return {"guest": player} if isinstance(player, Guest) else {"member": player}


def seat_names_for(members: Sequence[Player]) -> tuple[str, ...]:
    """The names the sheet shows: display names, a member's made unique with his username;
    a guest's name as typed (an export names him by it, and an import makes a guest of
    it again). Two players the names cannot tell apart are refused."""
    names = [m.name for m in members]
    shown = tuple(
        f"{name} ({m.username})" if isinstance(m, Member) and names.count(name) > 1 else name
        for name, m in zip(names, members, strict=True)
    )
    if len(set(shown)) != len(shown):
        raise RuleError(N_("two guests by one name: tell them apart"), field="players")
    return shown


def seat_identity(player: Player) -> str | None:
    """How a game record's ``members`` field names a seat: a member by his username, a
    guest by nothing (``null``: the record's player name is the guest's)."""
    return player.username if isinstance(player, Member) else None


def _locked(table: Table) -> Table:
    """The table row, locked until the transaction ends (one writer at a time)."""
    return locking.lock_row(table)


class StaleWrite(RuleError):
    """A write made on a page drawn at an older revision of the table than it has now:
    somebody changed the table meanwhile, so the write might double a deal or strike the
    wrong one. Nothing is stored; ``seen`` is the revision the page showed."""

    def __init__(self, seen: int, now: int) -> None:
        super().__init__(N_("the table changed since this page was drawn"), field="revision")
        self.seen, self.now = seen, now


class AlreadyStored(Exception):
    """The write with this idempotency key is stored already (the same request sent
    again): nothing more is stored, and the caller answers as for the first one:
    ``revision`` is the table's revision that write made, ``deal`` its deal's id."""

    def __init__(self, revision: int, deal: int | None = None) -> None:
        super().__init__(revision)
        self.revision, self.deal = revision, deal


class KeyReused(RuleError):
    """A write carries the key of another write (another kind, another deal or another
    table): answering it as that write's success would say it was done when it was not.
    Nothing is stored."""

    def __init__(self) -> None:
        super().__init__(
            N_(
                "this form's key belongs to another write, so nothing was saved; open the "
                "table again and repeat"
            ),
            field="write_key",
        )


@dataclass(frozen=True)
class Drawn:
    """What a write at a table carries of the page it was made on (docs/architecture.md,
    "Every write carries the revision and a key"): the table's ``revision`` the page
    showed and the write's idempotency ``key``. ``None``: not checked (the admin, the
    commands, the tests of the services)."""

    revision: int | None = None
    key: uuid.UUID | None = None


ANY = Drawn()
"""A write that checks neither (the admin and the commands write what they are told)."""


def _check_drawn(table: Table, drawn: Drawn, action: str, deal: DealRecord | None = None) -> None:
    """Under the row lock: ``AlreadyStored`` when this key's ``action`` (on ``deal``, for
    a write that names one) is stored already, whatever revision the resend carries;
    ``KeyReused`` when the key was another write's; else ``StaleWrite`` when the table
    moved on since the page was drawn.

    The key is looked up first, on every write: an outbox that sends a deal again after
    its answer was lost may send it at the table's revision as it now stands (the deal's
    own), and must be answered as the first was, not store it again."""
    if drawn.key is not None:
        stored = WriteKey.objects.filter(key=drawn.key).first()
        if stored is not None:
            if stored.table_id != table.pk or (
                stored.action
                and (
                    stored.action != action
                    or (deal is not None and stored.deal_id not in (None, deal.pk))
                )
            ):
                raise KeyReused
            raise AlreadyStored(stored.revision, stored.deal_id)
    if drawn.revision is not None and drawn.revision != table.revision:
        raise StaleWrite(drawn.revision, table.revision)


def _keep_key(
    table: Table, drawn: Drawn, revision: int, action: str, deal: DealRecord | None = None
) -> None:
    """Remember the write's key, what it did and to which deal, in the write's own
    transaction (so a resent request finds it exactly when the write is stored)."""
    if drawn.key is not None:
        WriteKey.objects.create(
            table=table, key=drawn.key, revision=revision, action=action, deal=deal
        )


def _require_open(table: Table) -> None:
    if not table.is_open:
        raise RuleError(N_("the table is finished; an organiser can reopen it"), field="table")


def _canonical(table: Table, players: tuple[str, ...], data: Any, n: int) -> dict[str, Any]:
    """A deal in the game record's own form, checked for shape (RuleError otherwise)."""
    kind = games.of_table(table)
    return kind.deal_record(kind.parse_deal(data, players, n), players)


def _next_sequence(table: Table) -> Any:
    """The sequence number after the table's last deal's (struck ones count: a number is
    never given twice), read inside the deal's own INSERT (the database returns it). Under
    the row lock that statement sees every deal stored before it: it begins after the lock
    was granted, unlike the locking statement itself, which reads the deals as they were
    when it began waiting."""
    # Plain SQL: the ORM's subquery took longer to build than the whole INSERT to run.
    return RawSQL(  # noqa: S611 - a constant statement; the table's id goes as a parameter
        f'SELECT COALESCE(MAX("sequence"), 0) + 1 FROM "{DealRecord._meta.db_table}"'  # noqa: S608
        ' WHERE "table_id" = %s',
        (table.pk,),
        output_field=PositiveIntegerField(),
    )


def _touch(table: Table) -> None:
    Table.objects.filter(pk=table.pk).update(revision=F("revision") + 1)
    revisions.table_moved(table.pk)


@dataclass(frozen=True)
class SavedDeal:
    """A deal just stored, and the table as it stands after it."""

    record: DealRecord
    state: selectors.TableState


def deal_create(
    table: Table,
    data: Any,
    *,
    by: Member | None,
    drawn: Drawn = ANY,
    seen: selectors.TableState | None = None,
) -> SavedDeal:
    """Add the next deal. ``drawn`` is the revision the form was drawn at and the write's
    key: if someone changed the table meanwhile, the deal is refused (``StaleWrite``)
    rather than stored twice; if this very request was stored already, ``AlreadyStored``.

    ``seen`` is the caller's replay of the table: if the table has not changed since (same
    revision, checked under the row lock), a copy of it is advanced by the new deal rather
    than the table replayed again. The state returned is the table after the deal.

    Once the table's control time has passed, the deal also marks it (``_clock_mark``).

    One write path on every database: the row lock, the checks, the deal, its history
    entry, the revision and the key, each a statement of the ORM. A one-statement append
    beside it on PostgreSQL saved about a quarter of the save's time in the bench, short
    of the third that would pay for keeping two paths equivalent by hand (issue 28,
    docs/performance.md).
    """
    with transaction.atomic():
        locked = _locked(table)
        _check_drawn(locked, drawn, AuditEntry.ADD)
        _require_open(locked)
        if seen is not None and seen.table.revision == locked.revision:
            base = seen
        else:
            base = selectors.current(locked, latest=0)
        canonical, game = _played(locked, base, data)
        check_deal_cap(locked, base.game, base.count, canonical)
        record = DealRecord.objects.create(
            table=locked, sequence=_next_sequence(locked), data=canonical, created_by=by
        )
        revision = locked.revision + 1
        AuditEntry.objects.create(
            table=locked,
            deal=record,
            action=AuditEntry.ADD,
            actor=by,
            after=canonical,
            revision=revision,
        )
        mark = _clock_mark(locked, game, canonical)
        if mark is not None:
            Table.objects.filter(pk=locked.pk).update(control_time_deal=mark)
            AuditEntry.objects.create(
                table=locked,
                action=AuditEntry.CLOCK,
                actor=by,
                after={"control_time_deal": mark},
                revision=revision,
            )
        _touch(locked)
        _keep_key(locked, drawn, revision, AuditEntry.ADD, record)
        return _saved(base, game, record, mark)


def check_deal_cap(table: Table, before: Any, count: int, deal: dict[str, Any]) -> None:
    """Refuse a deal beyond the table's cap (a tour of fixed deals, Gambler's 18); an
    adjustment is no deal and is always let through."""
    if table.deal_cap is None or deal["kind"] == ADJUST:
        return
    if deals_played(before, count) >= table.deal_cap:
        raise RuleError(
            N_("the tour's %(cap)s deals are all played: nothing was saved; finish the table"),
            field="deal",
            cap=table.deal_cap,
        )


def _played(table: Table, base: selectors.TableState, data: Any) -> tuple[dict[str, Any], Any]:
    """The next deal in the game record's form, and a copy of ``base``'s game with it
    played (``RuleError`` if the rules refuse it, or the table holds the most deals)."""
    n = base.count + 1
    if n > MAX_DEALS:  # a table is a game record: its export must import again
        raise RuleError(
            N_(
                "the table has %(limit)s deals, the most a game may have; finish it "
                "and open a new table"
            ),
            field="deal",
            limit=Grouped(MAX_DEALS),
        )
    canonical = _canonical(table, base.players, data, n)
    game = base.game.copy()
    game.play(games.of_table(table).parse_deal(canonical, base.players, n))
    return canonical, game


def _saved(
    base: selectors.TableState, game: Any, record: DealRecord, mark: int | None = None
) -> SavedDeal:
    """The deal ``record`` stored after ``base``: the table one revision on (``base``'s
    table copied, its seats prefetched), its snapshot kept once the write commits."""
    after = copy.copy(base.table)
    after.revision = base.table.revision + 1
    if mark is not None:
        after.control_time_deal = mark
    state = selectors.TableState(
        after, base.players, game, [*base.deal_ids, record.pk], [*base.records, record]
    )
    transaction.on_commit(partial(snapshots.remember, after, game, state.deal_ids, state.records))
    return SavedDeal(record, state)


def _clock_mark(table: Table, game: Any, deal: dict[str, Any]) -> int | None:
    """The control time the clock marks as ``deal`` is saved (``game``: the table after
    it), or ``None``: only a deal played (an adjustment is not one, §13.12) once the
    table's control time has passed (``Table.clock_has_struck``), at a table not marked
    yet and not complete.

    The mark counts the deal being saved as played when the time was reached: it was on
    the table when the clock struck, and a deal once dealt is played out. So the circle it
    belongs to is the one finished. Counting it after the mark instead gives the same
    deals wherever the deal is, except when its dealer is the first dealer: then
    ``finish_circle`` would make the pulka complete before that very deal, and refuse it.
    """
    if deal["kind"] == ADJUST or table.control_time_deal is not None:
        return None
    kind = games.of_table(table)
    if not kind.last_round or kind.is_complete(game) or not table.clock_has_struck():
        return None
    return kind.mark_control_time(game)


def control_time_mark(table: Table, *, by: Member | None, drawn: Drawn = ANY) -> Table:
    """The scorer marks the control time by hand (preferans.md §13.12): the deals on the
    sheet now are those played when it was reached, so a deal being played when the clock
    struck is entered first. The round is finished from here."""
    with transaction.atomic():
        locked = _locked(table)
        _check_drawn(locked, drawn, AuditEntry.MARK)
        _require_open(locked)
        kind = games.of_table(locked)
        if not kind.last_round:
            raise RuleError(N_("this game has no control time"), field="table")
        if locked.control_time_deal is not None:
            raise RuleError(N_("the control time is marked already"), field="table")
        game = selectors.replay(locked).game
        if kind.is_complete(game):
            raise RuleError(N_("the pulka is complete already"), field="table")
        locked.control_time_deal = kind.mark_control_time(game)
        locked.revision += 1
        locked.save(update_fields=["control_time_deal", "revision"])
        revisions.table_moved(locked.pk)
        AuditEntry.objects.create(
            table=locked,
            action=AuditEntry.MARK,
            actor=by,
            after={"control_time_deal": locked.control_time_deal},
            revision=locked.revision,
        )
        _keep_key(locked, drawn, locked.revision, AuditEntry.MARK)
        return locked


def control_time_clear(
    table: Table, *, by: Member | None, reason: str, drawn: Drawn = ANY
) -> Table:
    """An organiser clears a control-time mark made by mistake (the view checks who): the
    table plays on as before it. If its control time has passed, the next deal saved
    marks it again (``_clock_mark``). Without the mark no deal is refused that was not
    before, so the deals need no new check."""
    _require_reason(reason)
    with transaction.atomic():
        locked = _locked(table)
        _check_drawn(locked, drawn, AuditEntry.UNMARK)
        _require_open(locked)
        if locked.control_time_deal is None:
            raise RuleError(N_("the control time is not marked"), field="table")
        before = {"control_time_deal": locked.control_time_deal}
        locked.control_time_deal = None
        locked.revision += 1
        locked.save(update_fields=["control_time_deal", "revision"])
        revisions.table_moved(locked.pk)
        AuditEntry.objects.create(
            table=locked,
            action=AuditEntry.UNMARK,
            actor=by,
            reason=reason,
            before=before,
            revision=locked.revision,
        )
        _keep_key(locked, drawn, locked.revision, AuditEntry.UNMARK)
        return locked


def deal_preview(table: Table, data: Any) -> Any:
    """What a deal would write if saved now (the engine's deal result), saving nothing."""
    state = selectors.current(table, latest=0)
    n = state.count + 1
    return state.game.play(games.of_table(table).parse_deal(data, state.players, n))


def deal_edit(
    record: DealRecord, data: Any, *, by: Member | None, reason: str, drawn: Drawn = ANY
) -> DealRecord:
    """Replace a deal; every later deal must still be legal after the change. Two
    corrections drawn at one revision: the second is refused (``StaleWrite``)."""
    _require_reason(reason)
    with transaction.atomic():
        table = _locked(record.table)
        _check_drawn(table, drawn, AuditEntry.EDIT, record)
        _require_open(table)
        records = selectors.live_deals(table)
        position = _position(records, record)
        players = selectors.seat_names(table)
        canonical = _canonical(table, players, data, position + 1)
        before = record.data
        record.data = canonical
        records[position] = record
        selectors.replay(table, records)
        record.save(update_fields=["data"])
        AuditEntry.objects.create(
            table=table,
            deal=record,
            action=AuditEntry.EDIT,
            actor=by,
            reason=reason,
            before=before,
            after=canonical,
            revision=table.revision + 1,
        )
        _touch(table)
        _keep_key(table, drawn, table.revision + 1, AuditEntry.EDIT, record)
        return record


def deal_delete(
    record: DealRecord,
    *,
    by: Member | None,
    reason: str,
    action: str = AuditEntry.DELETE,
    drawn: Drawn = ANY,
) -> None:
    """Strike a deal from the log (it stays in the history); later deals must still be
    legal without it."""
    _require_reason(reason)
    with transaction.atomic():
        table = _locked(record.table)
        _check_drawn(table, drawn, action, record)
        _require_open(table)
        records = selectors.live_deals(table)
        _strike(table, records, record, by=by, reason=reason, action=action, drawn=drawn)


def _strike(
    table: Table,
    records: list[DealRecord],
    record: DealRecord,
    *,
    by: Member | None,
    reason: str,
    action: str,
    drawn: Drawn,
) -> None:
    """Strike ``record`` from ``records`` (the live deals of ``table``, locked)."""
    position = _position(records, record)
    selectors.replay(table, records[:position] + records[position + 1 :])
    DealRecord.objects.filter(pk=record.pk).update(deleted=True)
    AuditEntry.objects.create(
        table=table,
        deal=record,
        action=action,
        actor=by,
        reason=reason,
        before=record.data,
        revision=table.revision + 1,
    )
    _touch(table)
    _keep_key(table, drawn, table.revision + 1, action, record)


def deal_undo(table: Table, *, by: Member | None, drawn: Drawn = ANY) -> DealRecord:
    """Strike the last deal (the scorer's undo). The last deal is the one on the page the
    scorer saw only if the table has not moved on since: ``drawn.revision`` makes sure,
    so an undo never strikes a deal another scorer has just saved."""
    with transaction.atomic():
        locked = _locked(table)
        _check_drawn(locked, drawn, AuditEntry.UNDO)
        _require_open(locked)
        records = selectors.live_deals(locked)
        if not records:
            raise RuleError(N_("there is no deal to undo"), field="deal")
        _strike(
            locked, records, records[-1], by=by, reason="undo", action=AuditEntry.UNDO, drawn=drawn
        )
        return records[-1]


def _position(records: list[DealRecord], record: DealRecord) -> int:
    for i, live in enumerate(records):
        if live.pk == record.pk:
            return i
    raise RuleError(N_("this deal was deleted already"), field="deal")


def _require_reason(reason: str) -> None:
    if not reason or not reason.strip():
        raise RuleError(N_("say why (the history keeps it)"), field="reason")


def table_finish(
    table: Table,
    *,
    by: Member | None,
    reason: str = "",
    drawn: Drawn = ANY,
    standing: str | None = None,
) -> Table:
    """Finish a table: lock it and store its final result (for standings) and its game's
    digest (so that an import of the same game is refused).

    ``standing``: whether it counts in the standings (``Table.STANDINGS``): an organiser
    closing it early says ``COUNTED`` or ``LEFT_OUT``, an import ``PENDING``. ``None`` (a
    table played to the end) keeps what it was — a record awaiting acceptance, reopened
    and finished again, still awaits it — except that a table once closed early and left
    out counts now that it was played to the end. Only a counted table adds to the
    totals and the ratings."""
    with transaction.atomic():
        table = _locked(table)
        _check_drawn(table, drawn, AuditEntry.CLOSE)
        _require_open(table)
        state = selectors.replay(table)
        table.status = Table.FINISHED
        table.result = state.document()
        table.finished_at = timezone.now()
        table.revision += 1
        table.record_digest = table_digest(table, state)
        if standing is not None:
            table.standing = standing
        elif table.standing == Table.LEFT_OUT:
            table.standing = Table.COUNTED
        table.save(
            update_fields=[
                "status",
                "result",
                "finished_at",
                "revision",
                "record_digest",
                "standing",
            ]
        )
        revisions.table_moved(table.pk)
        home_changed()  # out of the home page's tables in play, into its latest finished
        _store_seat_results(table, state)
        AuditEntry.objects.create(
            table=table,
            action=AuditEntry.CLOSE,
            actor=by,
            reason=reason,
            revision=table.revision,
            after=None if table.counts else {"standing": table.standing},
        )
        _keep_key(table, drawn, table.revision, AuditEntry.CLOSE)
        if table.counts:
            standings_after_finish(table)
            ratings_after_finish(table)
        after_table_finish(table)  # e-mails and the club's chat, once this commits
        return table


def table_reopen(table: Table, *, by: Member | None, reason: str, drawn: Drawn = ANY) -> Table:
    """Reopen a finished table for corrections (organisers only; the view checks)."""
    _require_reason(reason)
    with transaction.atomic():
        table = _locked(table)
        _check_drawn(table, drawn, AuditEntry.REOPEN)
        if table.is_open:
            raise RuleError(N_("the table is in play already"), field="table")
        if table.totals_only:  # nothing to replay: its seats' results are all it has
            raise RuleError(N_("a table of paper history has no deals to correct"), field="table")
        if table.counts:  # a table that did not count added nothing to take off
            standings_before_reopen(table)  # while its seats still hold what they added
        table.status = Table.OPEN
        table.result = None
        table.finished_at = None
        table.revision += 1
        table.save(update_fields=["status", "result", "finished_at", "revision"])
        revisions.table_moved(table.pk)
        home_changed()  # in play again on the home page
        table.seats.update(result=None, money=None, place=None, won=False, stats={})
        if table.has_seat_changes:  # a leaver's statistics are counted again at the finish
            table.seat_changes.update(stats={})
        AuditEntry.objects.create(
            table=table, action=AuditEntry.REOPEN, actor=by, reason=reason, revision=table.revision
        )
        _keep_key(table, drawn, table.revision, AuditEntry.REOPEN)
        ratings_after_reopen(table)  # the table no longer counts until it finishes again
        return table


def table_decide(*, table: Table, by: Member, accepted: bool, drawn: Drawn = ANY) -> Table:
    """Accept (``accepted``) or reject a finished table awaiting acceptance, as ``by``
    (docs/permissions.md, "What counts in the standings"). An organiser's decision is the
    table's: accepted, it counts at once (its seats go into the totals and the ratings);
    rejected, it stays shown and never counts. A seated member's (where the club's setting
    lets the players accept) is his own: the table counts once every member seated at it
    has accepted since it was last finished, and is rejected by any one of them. Every
    decision is kept in the table's history (who, when, which)."""
    action = AuditEntry.ACCEPT if accepted else AuditEntry.REJECT
    with transaction.atomic():
        locked = _locked(table)
        _check_drawn(locked, drawn, action)
        allowed = can_accept(by, locked) if accepted else can_reject(by, locked)
        if not allowed:
            raise RuleError(N_("this table is not awaiting your decision"), field="table")
        if accepted and not is_organiser(by) and by.pk in _accepted_by(locked):
            raise RuleError(N_("you have accepted this table already"), field="table")
        locked.revision += 1
        AuditEntry.objects.create(table=locked, action=action, actor=by, revision=locked.revision)
        if not accepted:
            locked.standing = Table.REJECTED
        elif is_organiser(by) or _accepted_by(locked) >= _seated_members(locked):
            locked.standing = Table.COUNTED
        locked.save(update_fields=["standing", "revision"])
        revisions.table_moved(locked.pk)
        _keep_key(locked, drawn, locked.revision, action)
        if locked.counts:
            standings_after_finish(locked)  # and a new standings stamp
            ratings_after_finish(locked)
        else:
            standings_changed()  # the members' pages mark the table afresh
        return locked


def _seated_members(table: Table) -> set[int]:
    return set(table.seats.filter(member__isnull=False).values_list("member_id", flat=True))


def _accepted_by(table: Table) -> set[int]:
    """The seated members who accepted ``table`` since it was last finished."""
    finished = (
        AuditEntry.objects.filter(table=table, action=AuditEntry.CLOSE)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    accepted = AuditEntry.objects.filter(
        table=table, action=AuditEntry.ACCEPT, id__gt=finished or 0, actor__isnull=False
    )
    return set(accepted.values_list("actor_id", flat=True)) & _seated_members(table)


MEMBERS_FIELD = "members"
"""The record's optional head field that names each player by username, in seat order: a
display name changes, a username does not, so an export imports again (docs/operations.md)."""


def table_export(table: Table) -> dict[str, Any]:
    """The table as a game record (game-format.md), with ``members`` after ``players``.

    A table where substitutes came mid-pulka (docs/tournaments.md) says so in the
    record's ``substitutes`` (the engine's ``parse_substitutes``): who left which seat
    after which deal, with the leaver's username as ``member`` when he is a member. The
    deals before a change name the leaver, as they were played; ``players`` and
    ``members`` are the seats' holders at the end, as the table's seats are."""
    state = selectors.replay(table)
    kind = games.of_table(table)
    substitutions = _substitutions(state)
    record = kind.to_record(kind.setup(table, state.players), _deals(table, state), substitutions)
    seats = Seat.objects.filter(table=table).order_by("position")
    usernames = list(seats.values_list("member__username", flat=True))  # a guest's: null
    if substitutions:
        left = dict(SeatChange.objects.filter(table=table).values_list("name", "member__username"))
        for entry in record["substitutes"]:
            if left.get(entry["left"]) is not None:
                entry["member"] = left[entry["left"]]
    exported: dict[str, Any] = {}
    for key, value in record.items():
        exported[key] = value
        if key == "players":
            exported[MEMBERS_FIELD] = usernames
    return exported


def _substitutions(state: selectors.TableState) -> list[Substitution]:
    """The substitutes the replay seated, as a game record numbers them: after how many
    of the live deals each came (a struck deal is not in the record)."""
    return [
        Substitution(
            after_deal=sum(r.sequence <= departed.change.after_sequence for r in state.records),
            seat=departed.change.position,
            left=departed.change.name,
            came=departed.newcomer,
        )
        for departed in state.departures
    ]


def _renamed(substitutions: Sequence[Substitution], players: Sequence[str]) -> list[Substitution]:
    """``substitutions`` with each newcomer named as ``players`` (the seats' holders at
    the end, under other names) or as the leaver who followed him in the seat."""
    holders = list(players)
    renamed = []
    for substitution in reversed(substitutions):
        renamed.append(dataclasses.replace(substitution, came=holders[substitution.seat]))
        holders[substitution.seat] = substitution.left
    return list(reversed(renamed))


def _deals(table: Table, state: selectors.TableState) -> list[Any]:
    """The table's live deals as the engine's."""
    kind = games.of_table(table)
    if state.departures:  # each deal names the players who held the seats then
        changes = [departed.change for departed in state.departures]
        seatings = selectors.holders(state.players, changes)
        return [
            kind.parse_deal(
                r.data, seatings[sum(c.after_sequence < r.sequence for c in changes)], n
            )
            for n, r in enumerate(state.records, 1)
        ]
    return [kind.parse_deal(r.data, state.players, n) for n, r in enumerate(state.records, 1)]


PRICE_FIELDS = ("whist_price", "chip_price")
"""The record's price of a whist (Preferans) or a chip (Boston)."""


class AlreadyImported(RuleError):
    """An import of a game that is in the club already, as table ``table`` (its pk)."""

    def __init__(self, table: int) -> None:
        super().__init__(
            N_("this game is in the club already: table %(table)s"), field="record", table=table
        )
        self.table = table


def game_digest(
    kind: games.Game,
    setup: games.Setup,
    deals: Sequence[Any],
    usernames: Sequence[str | None],
    substitutions: Sequence[Substitution] = (),
) -> str:
    """What makes two tables the same game (docs/operations.md, "Duplicate imports"): the game, its
    rules, the members in their seats (by username, whatever names the record gave
    them), the setup (dealer, pool, price…) and the deals in order, all as the engine
    writes a record — so spacing, key order, a preset named or spelt out, and the
    deals' notes make no difference; the date and who imported it are not part of it. A
    guest (no username) is his name at the table, marked as a guest's."""
    players = (
        username if username is not None else f"guest:{name}"
        for username, name in zip(usernames, setup.players, strict=True)
    )
    seated = dataclasses.replace(setup, players=tuple(players))
    # A leaver is his name at the table; a newcomer, as the seats' players are.
    record = kind.to_record(seated, deals, _renamed(substitutions, seated.players))
    for price in PRICE_FIELDS:  # a table keeps cents: "1" and "1.00" are one price
        if price in record:
            record[price] = str(Decimal(record[price]).normalize())
    return record_digest(record)


def table_digest(table: Table, state: selectors.TableState) -> str:
    """The digest of ``table``'s game as it stands (``state``: the table replayed)."""
    kind = games.of_table(table)
    seats = Seat.objects.filter(table=table).order_by("position")
    usernames = list(seats.values_list("member__username", flat=True))
    setup = kind.setup(table, state.players)
    return game_digest(kind, setup, _deals(table, state), usernames, _substitutions(state))


def table_digests_fill(*, every: bool = False) -> tuple[int, list[int]]:
    """Store the digest of each finished table that has none (``every``: of every finished
    table, after a release that changes how a record is written). Returns how many were
    stored and the tables whose deals no longer replay (left as they are)."""
    tables = (
        # A table of paper history has no deals: its digest is of its seats (history.py).
        Table.objects.filter(status=Table.FINISHED, totals_only=False)
        .defer("result")
        .select_related(*(game.version_field for game in games.GAMES.values()))
        .prefetch_related("seats", "deal_records")
        .order_by("pk")
    )
    if not every:
        tables = tables.filter(record_digest__isnull=True)
    stored, broken = 0, []
    for table in tables.iterator(chunk_size=100):
        try:
            digest = table_digest(table, selectors.replay(table))
        except RuleError:
            broken.append(table.pk)
            continue
        # Not a change anyone sees: the revision (and every cached sheet) stays.
        Table.objects.filter(pk=table.pk).update(record_digest=digest)
        stored += 1
    return stored, broken


def table_import(
    data: Any, *, version: Any, members: Sequence[Player], by: Member, played_on: Any = None
) -> Table:
    """A game record brought in as a new finished table, seated by ``members`` (members,
    or guests named as the record's players) in the record's order; its rules are the
    record's, checked against ``version``. A game the club has already (the same digest)
    is refused with ``AlreadyImported``."""
    record = check_head(data)
    if played_on is not None:
        try:
            validate_played_on(played_on)
        except ValidationError as error:
            raise RuleError(" ".join(error.messages), field="played_on") from None
    kind = games.of(record["game"])
    setup, deals = kind.parse_record(record)
    if setup.rules != version.to_rules():
        raise RuleError(
            N_("the record's rules differ from the chosen tariff version"), field="rules"
        )
    if len(members) != len(setup.players):
        raise RuleError(N_("choose %(count)s members"), field="players", count=len(setup.players))
    substitutions = kind.substitutions(record, setup, len(deals))
    digest = game_digest(kind, setup, deals, [seat_identity(m) for m in members], substitutions)
    with transaction.atomic():
        # Two imports of one game lock the same members' rows, so the second sees the first.
        ids = [m.pk for m in members if isinstance(m, Member)]
        locking.lock_rows(Member.objects.filter(pk__in=ids))
        here = Table.objects.filter(record_digest=digest).order_by("pk")
        first = here.values_list("pk", flat=True).first()
        if first is not None:
            raise AlreadyImported(first)
        table = table_open(
            game=kind.code,
            version=version,
            members=members,
            by=by,
            played_on=played_on,
            **kind.table_options(setup),
        )
        names = selectors.seat_names(table)
        substitutions = _renamed(substitutions, names)
        held = seatings(names, substitutions)
        for sequence, deal in enumerate(deals, start=1):
            DealRecord.objects.create(
                table=table,
                sequence=sequence,
                created_by=by,
                data=kind.deal_record(
                    deal, held[sum(s.after_deal < sequence for s in substitutions)]
                ),
            )
        if substitutions:
            _import_leavers(table, record, substitutions, by=by)
        AuditEntry.objects.create(
            table=table, action=AuditEntry.IMPORT, actor=by, after={"deals": len(deals)}
        )
        # Shown at once, counted only once accepted (services.acceptance): a record is
        # whatever its file says, and anyone with an account may upload one.
        return table_finish(table, by=by, reason="imported", standing=Table.PENDING)


def _import_leavers(
    table: Table, record: Any, substitutions: Sequence[Substitution], *, by: Member
) -> None:
    """An imported record's substitutes as the table's ``SeatChange`` rows: each leaver
    is the member the record's ``member`` names (his username), or else a guest of his
    name. What he settled is worked out when the table finishes."""
    entries = record["substitutes"]
    taken = set(selectors.seat_names(table))
    for substitution, entry in zip(substitutions, entries, strict=True):
        field = "substitutes"
        if substitution.left in taken:
            raise RuleError(N_("names must be distinct"), field=field)
        taken.add(substitution.left)
        member = Member.objects.filter(username=entry.get("member") or "").first()
        if member is not None and table.seats.filter(member=member).exists():
            raise RuleError(N_("%(player)s sits at this table"), field=field, player=member.name)
        guest = None
        if member is None:
            guest = Guest(name=guest_name_check(name=substitution.left, field=field))
            guest.save()
        SeatChange.objects.create(
            table=table,
            position=substitution.seat,
            from_deal=substitution.after_deal + 1,
            after_sequence=substitution.after_deal,
            member=member,
            guest=guest,
            name=substitution.left,
            result=Decimal(0),  # the finish works them out
            money=Decimal(0),
            by=by,
            reason="imported",
        )
    table.has_seat_changes = True
    table.save(update_fields=["has_seat_changes"])


def seat_results(table: Table, state: selectors.TableState) -> list[SeatResult]:
    """What each seat of ``table`` (``state``: the table replayed) stores when it finishes,
    in seat order: its final balance, money, place, whether it won and its statistics."""
    result = state.result
    balances, stats = games.of_table(table).seat_results(state.game, _deals(table, state), result)
    money = list(result.money)
    if state.departures:
        balances, money, _ = _with_departures(table, state)
        stats = _stats_by_holder(table, state)[0]
    places = table_places(balances)
    return [
        SeatResult(balance, amount, place, place == 1, seat_stats)
        for balance, amount, place, seat_stats in zip(balances, money, places, stats, strict=True)
    ]


def _with_departures(
    table: Table, state: selectors.TableState
) -> tuple[list[Decimal], list[Decimal], list[tuple[Decimal, Decimal]]]:
    """A table where substitutes came (docs/tournaments.md, "A substitute mid-pulka"): each
    seat's balance is the end's plus what each leaver settled with it, and each leaver's
    is what he settled on leaving; the money is rounded over them all, so it still adds
    up to zero. Returns the seats' balances and money, and each leaver's (result, money)
    in the order they left."""
    exact: list[Fraction] = [Fraction(b) for b in state.result.balances]
    for departed in state.departures:
        for seat, amount in departed.departure.settled.items():
            exact[seat] += amount
    leavers = [departed.departure.balance for departed in state.departures]
    money = to_cents([*exact, *leavers], table.price)
    shown = [Decimal(two_decimals(b)) for b in (*exact, *leavers)]
    n = len(exact)
    return shown[:n], money[:n], list(zip(shown[n:], money[n:], strict=True))


def stats_as_stored_before_substitutes(
    table: Table, state: selectors.TableState
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A table where substitutes came: each seat's statistics as the site stored them
    before a leaver kept his own deals' (every deal of the seat; a backup made then holds
    these), and each leaver's as they are stored now, for a restore to write."""
    kind = games.of_table(table)
    whole = kind.seat_results(state.game, _deals(table, state), state.result)[1]
    return whole, _stats_by_holder(table, state)[1]


def _stats_by_holder(
    table: Table, state: selectors.TableState
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A table where substitutes came: the statistics of each seat's player at the end and
    of each leaver (in the order they left), each over the deals he played himself
    (Kodeks 3.1.2; docs/tournaments.md, "A substitute mid-pulka")."""
    kind = games.of_table(table)
    deals = _deals(table, state)
    results = state.result.deals
    changes = [departed.change for departed in state.departures]
    seating = [sum(c.after_sequence < r.sequence for c in changes) for r in state.records]
    segments = [
        kind.deal_stats(
            state.game,
            [deal for deal, k in zip(deals, seating, strict=True) if k == segment],
            [one for one, k in zip(results, seating, strict=True) if k == segment],
        )
        for segment in range(len(changes) + 1)
    ]
    return stats_by_holder(segments, [change.position for change in changes])


@dataclass(frozen=True)
class SeatResult:
    """A finished table's seat as standings read it (``Seat``'s computed fields)."""

    result: Decimal
    money: Decimal
    place: int
    won: bool
    stats: dict[str, Any]


def _store_seat_results(table: Table, state: selectors.TableState) -> None:
    """Each seat's final balance, money, place and statistics, for standings."""
    seats = sorted(table.seats.all(), key=lambda seat: seat.position)
    for seat, computed in zip(seats, seat_results(table, state), strict=True):
        seat.result, seat.money, seat.place = computed.result, computed.money, computed.place
        seat.won, seat.stats = computed.won, computed.stats
    Seat.objects.bulk_update(seats, ["result", "money", "place", "won", "stats"])
    if state.departures:  # each leaver keeps what he settled (an earlier deal edited moves it)
        changes = [departed.change for departed in state.departures]
        leavers = zip(
            _with_departures(table, state)[2], _stats_by_holder(table, state)[1], strict=True
        )
        for change, ((result, money), stats) in zip(changes, leavers, strict=True):
            change.result, change.money, change.stats = result, money, stats
        SeatChange.objects.bulk_update(changes, ["result", "money", "stats"])
