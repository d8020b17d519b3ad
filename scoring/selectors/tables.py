"""A table's deal log replayed into its sheet.

Nothing computed is stored in the database for a table in play: the sheet is always the
replay of its deal log, so a correction anywhere in the log is reflected everywhere at
once. Since a table's revision changes with every write, the replayed game of a revision
never changes, and pages take it from the revision's snapshot (``scoring.live``) instead
of reading and replaying every deal again.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from scoring import games
from scoring.engine.boston import BostonRules
from scoring.engine.preferans import PreferansRules
from scoring.engine.preferans.pulka import Pulka
from scoring.engine.tournament.substitute import Departure, seat_holders, substitute_seat
from scoring.live import keys, revisions, snapshots
from scoring.live.snapshots import Game
from scoring.models import AuditEntry, DealRecord, SeatChange, Table


@dataclass(frozen=True)
class Departed:
    """A substitute seated mid-pulka, as the replay met it: the stored ``change`` (who
    left, from which deal), the engine's ``departure`` (what he settled with each player
    who stays, and the newcomer's pool and mountain) and the ``newcomer``'s name."""

    change: SeatChange
    departure: Departure
    newcomer: str


@dataclass(frozen=True)
class TableState:
    """A table replayed: the engine object after every live deal, the ids of those deals in
    order, and their rows: all of them, or only the latest when that is all a page shows."""

    table: Table
    players: tuple[str, ...]
    game: Game
    deal_ids: list[int]
    records: list[DealRecord]
    departures: tuple[Departed, ...] = ()
    """The substitutes the replay seated (empty from a snapshot: the finish replays)."""

    @property
    def count(self) -> int:
        """The number of live deals."""
        return len(self.deal_ids)

    @property
    def result(self) -> Any:
        return self.game.result()

    def document(self, *, with_deals: bool = True) -> dict[str, Any]:
        """The result document (game-format.md) of the table as it stands; without the
        per-deal entries when only the totals are shown."""
        result = self.game.result()
        if not with_deals:
            result = dataclasses.replace(result, deals=())  # type: ignore[arg-type]  # both results have deals
        return games.of_table(self.table).result_document(
            self.game, result, finished=not self.table.is_open
        )


MAX_ID = 2**63 - 1
"""The largest id a table can have (a 64-bit primary key, ``DEFAULT_AUTO_FIELD``)."""


def table_version(pk: int) -> str | None:
    """What the live sheet's ETag names of a table (None: no such table): the database's
    epoch and the table's revision, so that a browser's copy from before a restore is not
    taken for the restored table's sheet at the same revision. Every idle viewer asks it
    every two seconds (when nothing pushes the changes to it), so it is read from the
    cache, where the writes keep it (``live.revisions``), without a query; a miss is one
    query in plain SQL (building the ORM's query costs twice as much as running it), whose
    answer is kept for the next poll and whose epoch serves the rest of the request."""
    if not 0 < pk <= MAX_ID:  # no table has it, and SQLite cannot even take it as a value
        return None
    version = revisions.cached_version(pk)
    if version is not None:
        # The epoch read from the cache names only the ETag: the keys of what a changed
        # sheet renders read the database's (``keys.epoch``), as a restore leaves it.
        return version
    found = revisions.read(pk)
    if found is None:
        return None
    revision, token = found
    revisions.keep(pk, token, revision)
    keys.remember_epoch(token)
    return f"{keys.epoch()}.{revision}"


def polled_table_version(pk: int, *, at_least: int | None = None) -> str | None:
    """The table's version as the idle poll compares it with a viewer's ETag: the one this
    process read less than a second ago (``revisions.remembered``) unless the page asking
    shows or was told a revision past it (``at_least``), else ``table_version``'s, kept
    for the next polls. A plain poll may so be a second late; a page that names a later
    revision (a pushed event's, a scorer's own save) never gets the sheet before it."""
    version = revisions.remembered(pk, at_least=at_least)
    if version is None:
        version = table_version(pk)
        if version is not None:
            revisions.remember(pk, version)
    return version


def decisions(table: Table) -> list[AuditEntry]:
    """Every acceptance and rejection of ``table`` for the standings, oldest first, with
    who made it (its page lists them)."""
    return list(
        AuditEntry.objects.filter(table=table, action__in=(AuditEntry.ACCEPT, AuditEntry.REJECT))
        .select_related("actor")
        .order_by("at", "id")
    )


def seat_names(table: Table) -> tuple[str, ...]:
    """The players' names in seat order (uses prefetched seats when present)."""
    return tuple(seat.name for seat in sorted(table.seats.all(), key=lambda s: s.position))


def live_deals(table: Table) -> list[DealRecord]:
    """The deals that count, in the order they were played."""
    return [d for d in table.deal_records.all() if not d.deleted]


def replay(
    table: Table,
    records: Sequence[DealRecord] | None = None,
    rules: PreferansRules | BostonRules | None = None,
) -> TableState:
    """Replay ``table``'s live deals (or ``records``) through the engine."""
    players = seat_names(table)
    records = live_deals(table) if records is None else list(records)
    kind = games.of_table(table)
    changes = seat_changes(table)
    if changes:
        return _replay_with_changes(table, players, records, rules, changes)
    game = kind.new_table(table, players, rules)
    for n, record in enumerate(records, start=1):
        game.play(kind.parse_deal(record.data, players, n))
    if not table.is_open:
        kind.close(game)
    return TableState(table, players, game, [r.pk for r in records], records)


def seat_changes(table: Table) -> list[SeatChange]:
    """``table``'s substitutes in the order they came (a query only when it has some)."""
    if not table.has_seat_changes:
        return []
    return list(SeatChange.objects.filter(table=table).order_by("after_sequence", "id"))


def handovers(table: Table) -> list[tuple[str, str, int]]:
    """``table``'s substitutes as its drawn sheet notes them: who left, who came, and
    after which deal, numbered as the log numbers its live deals now (a deal struck before
    the change moves it). Queries only for a table that has some."""
    changes = seat_changes(table)
    if not changes:
        return []
    live = list(
        DealRecord.objects.filter(table=table, deleted=False).values_list("sequence", flat=True)
    )
    seatings = holders(seat_names(table), changes)
    return [
        (
            change.name,
            seatings[k + 1][change.position],
            sum(sequence <= change.after_sequence for sequence in live),
        )
        for k, change in enumerate(changes)
    ]


def holders(players: Sequence[str], changes: Sequence[SeatChange]) -> list[tuple[str, ...]]:
    """Who held the seats before each change and after the last one (``players``: the
    seats now): ``holders(...)[k]`` names the seats before change ``k``."""
    return seat_holders(players, [(change.position, change.name) for change in changes])


def _replay_with_changes(
    table: Table,
    players: tuple[str, ...],
    records: list[DealRecord],
    rules: PreferansRules | BostonRules | None,
    changes: list[SeatChange],
) -> TableState:
    """The replay of a table where substitutes came (docs/tournaments.md): each deal is
    read with the names of the players who held the seats then, and after the stored deal
    ``after_sequence`` the leaver settles and the newcomer takes the seat
    (``substitute_seat``). A change no deal follows yet is applied at the end, so the
    sheet is the newcomer's as the seats are."""
    kind = games.of_table(table)
    seatings = holders(players, changes)
    game = kind.new_table(table, seatings[0], rules)
    assert isinstance(game, Pulka)  # noqa: S101 - only a Preferans table takes substitutes
    departed: list[Departed] = []
    pending = list(changes)

    def seat_the_next() -> None:
        change = pending.pop(0)
        k = len(departed)
        departure = substitute_seat(game, change.position)
        game.setup = dataclasses.replace(game.setup, players=seatings[k + 1])
        departed.append(Departed(change, departure, seatings[k + 1][change.position]))

    for n, record in enumerate(records, start=1):
        while pending and pending[0].after_sequence < record.sequence:
            seat_the_next()
        game.play(kind.parse_deal(record.data, seatings[len(departed)], n))
    while pending:
        seat_the_next()
    if not table.is_open:
        kind.close(game)
    return TableState(
        table, players, game, [r.pk for r in records], records, departures=tuple(departed)
    )


def current(table: Table, latest: int | None = None) -> TableState:
    """``table`` as it stands, with the rows of its ``latest`` deals only (all if None).

    The game comes from this revision's snapshot when there is one (a copy, so the caller
    may advance it), and so do the rows when it keeps enough of them; otherwise the table
    is replayed and the snapshot kept.
    """
    snapshot = snapshots.recall(table)
    if snapshot is None:
        state = replay(table)
        snapshots.remember(table, state.game, state.deal_ids, state.records)
        return state
    game, deal_ids, kept = snapshot
    wanted = deal_ids if latest is None else deal_ids[max(0, len(deal_ids) - latest) :]
    if len(wanted) <= len(kept):
        records = list(kept[len(kept) - len(wanted) :])
    else:
        records = list(DealRecord.objects.filter(pk__in=wanted).order_by("sequence"))
    return TableState(table, seat_names(table), game, list(deal_ids), records)


@dataclass(frozen=True)
class Change:
    """One change made to a table (an audit entry) and, when it concerns a deal, that
    deal's number in the log and the deal as it stood after it (or before, once struck)."""

    action: str
    n: int | None
    deal: dict[str, Any] | None


def history(table: Table) -> QuerySet[AuditEntry]:
    """The table's change history, newest first, each entry with its actor, its deal and,
    as ``n``, that deal's number in the log as it stood at the change: one more than the
    deals before it then on the sheet (added by then, or imported, and not yet struck).
    So the history reads as it happened — «deal 3 added», later «deal 3 undone» — however
    many deals were struck since. One query, the number a subquery of it."""
    entry = OuterRef(OuterRef("pk"))
    added_later = AuditEntry.objects.filter(
        deal=OuterRef("pk"), action=AuditEntry.ADD, pk__gt=entry
    )
    struck_before = AuditEntry.objects.filter(
        deal=OuterRef("pk"), action__in=(AuditEntry.DELETE, AuditEntry.UNDO), pk__lt=entry
    )
    before = (
        DealRecord.objects.filter(table=OuterRef("table"), sequence__lt=OuterRef("deal__sequence"))
        .exclude(Exists(added_later))
        .exclude(Exists(struck_before))
        .order_by()
        .values("table")
        .annotate(count=Count("pk"))
        .values("count")
    )
    return table.audit.select_related("actor", "deal").annotate(n=Coalesce(Subquery(before), 0) + 1)


def entry_deal(entry: AuditEntry) -> dict[str, Any] | None:
    """The deal an audit entry concerns, as it stood after the change (or before it, once
    struck), or ``None`` for a change that is not a deal's."""
    for recorded in (entry.after, entry.before):
        if isinstance(recorded, dict) and "kind" in recorded:
            return recorded
    return None


def changes_since(table: Table, revision: int) -> list[Change]:
    """What was written at ``table`` after its ``revision``, oldest first: what a scorer
    whose page showed that revision has not seen (a stale write is refused with it)."""
    entries = (
        AuditEntry.objects.filter(table=table, revision__gt=revision)
        .select_related("deal")
        .only("action", "before", "after", "deal__sequence")
        .order_by("id")
    )
    live = list(
        DealRecord.objects.filter(table=table, deleted=False)
        .order_by("sequence")
        .values_list("sequence", flat=True)
    )
    changes = []
    for entry in entries:
        n = None if entry.deal is None else bisect.bisect_left(live, entry.deal.sequence) + 1
        changes.append(Change(entry.action, n, entry_deal(entry)))
    return changes
