"""The read side that needs the engine: a table's deal log replayed into its sheet.

Nothing computed is stored in the database for a table in play: the sheet is always the
replay of its deal log, so a correction anywhere in the log is reflected everywhere at
once. Since a table's revision changes with every write, the replayed game of a revision
never changes, and pages take it from a per-revision snapshot kept in the process instead
of reading and replaying every deal again.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Count, Max, Min, Q, QuerySet, Sum

from scoring.engine import boston, preferans
from scoring.engine.boston import BostonRules, BostonTable
from scoring.engine.preferans import PreferansRules, Pulka
from scoring.engine.standings import Standing, rank_standings
from scoring.models import DealRecord, Rating, Season, Seat, Table

Game = Pulka | BostonTable


@dataclass(frozen=True)
class TableState:
    """A table replayed: the engine object after every live deal, the ids of those deals in
    order, and their rows: all of them, or only the latest when that is all a page shows."""

    table: Table
    players: tuple[str, ...]
    game: Game
    deal_ids: list[int]
    records: list[DealRecord]

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
            result = dataclasses.replace(result, deals=())
        if isinstance(self.game, Pulka):
            document = preferans.record.result_document(result)
            document["complete"] = self.game.complete or not self.table.is_open
            return document
        return boston.record.result_document(result)


def table_revision(pk: int) -> int | None:
    """A table's revision (None: no such table). Every idle viewer asks it every two
    seconds, so it is plain SQL: building the ORM's query costs twice as much as running it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT revision FROM scoring_table WHERE id = %s", [pk])
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def seat_names(table: Table) -> tuple[str, ...]:
    """The players' names in seat order (uses prefetched seats when present)."""
    return tuple(seat.name for seat in sorted(table.seats.all(), key=lambda s: s.position))


def live_deals(table: Table) -> list[DealRecord]:
    """The deals that count, in the order they were played."""
    return [d for d in table.deal_records.all() if not d.deleted]


def parse_deal(table: Table, players: tuple[str, ...], data: Any, n: int) -> Any:
    """A stored deal (game-record form) as the engine's deal; ``RuleError`` if it is bad."""
    if table.game == Table.PREFERANS:
        return preferans.record.parse_deal(data, players, n)
    return boston.record.parse_deal(data, players, n)


def new_game(
    table: Table,
    players: tuple[str, ...],
    rules: PreferansRules | BostonRules | None = None,
) -> Game:
    """An engine game for ``table`` with no deals played (optionally under other rules)."""
    setup = table.setup(players)
    if rules is not None:
        setup = dataclasses.replace(setup, rules=rules)  # type: ignore[arg-type]
    if isinstance(setup, preferans.PulkaSetup):
        return Pulka(setup)
    return BostonTable(setup)


def replay(
    table: Table,
    records: Sequence[DealRecord] | None = None,
    rules: PreferansRules | BostonRules | None = None,
) -> TableState:
    """Replay ``table``'s live deals (or ``records``) through the engine."""
    players = seat_names(table)
    records = live_deals(table) if records is None else list(records)
    game = new_game(table, players, rules)
    for n, record in enumerate(records, start=1):
        game.play(parse_deal(table, players, record.data, n))
    if isinstance(game, Pulka) and not table.is_open:
        game.close()
    return TableState(table, players, game, [r.pk for r in records], records)


def current(table: Table, latest: int | None = None) -> TableState:
    """``table`` as it stands, with the rows of its ``latest`` deals only (all if None).

    The game comes from this revision's snapshot when there is one (a copy, so the caller
    may advance it); otherwise the table is replayed and the snapshot kept.
    """
    snapshot = SNAPSHOTS.get(table.cache_key("table-state"))
    if snapshot is None:
        state = replay(table)
        remember(state)
        return state
    game, deal_ids = snapshot
    wanted = deal_ids if latest is None else deal_ids[max(0, len(deal_ids) - latest) :]
    records = list(DealRecord.objects.filter(pk__in=wanted).order_by("sequence"))
    return TableState(table, seat_names(table), game.copy(), list(deal_ids), records)


def remember(state: TableState) -> None:
    """Keep a copy of ``state``'s game as the snapshot of its table's revision.

    A reader racing a write may keep the newer deals under the older revision; only
    readers that saw the older revision ask for that key, and their ETag sends them back
    for the newer sheet two seconds later.
    """
    key = state.table.cache_key("table-state")
    SNAPSHOTS.put(key, (state.game.copy(), tuple(state.deal_ids)))


class Snapshots:
    """The replayed games of the latest table revisions in this process, least recently
    used first out. Not Django's cache: that pickles every value, which for a long pulka
    costs more than the rest of saving a deal, while a game copies in microseconds (its
    deal results are immutable and shared between the revisions' copies)."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._games: OrderedDict[str, tuple[Game, tuple[int, ...]]] = OrderedDict()
        self._lock = threading.Lock()  # gunicorn serves requests from several threads

    def get(self, key: str) -> tuple[Game, tuple[int, ...]] | None:
        with self._lock:
            found = self._games.get(key)
            if found is not None:
                self._games.move_to_end(key)
            return found

    def put(self, key: str, snapshot: tuple[Game, tuple[int, ...]]) -> None:
        with self._lock:
            self._games[key] = snapshot
            self._games.move_to_end(key)
            while len(self._games) > self.kept:
                self._games.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._games.clear()


SNAPSHOTS = Snapshots(kept=50)


# -- standings ----------------------------------------------------------------------------


def finished_seats(game: str, season: Season | None = None) -> QuerySet[Seat]:
    """The seats of finished tables of ``game`` (in ``season``'s dates, if given)."""
    seats = Seat.objects.filter(table__game=game, table__status=Table.FINISHED)
    if season is not None:
        seats = seats.filter(table__played_on__range=(season.starts_on, season.ends_on))
    return seats


def standings(game: str, season: Season | None = None) -> tuple[list[Standing], list[Standing]]:
    """The leaderboard of ``game`` for a season (or all time): ranked members, then
    those below the season's minimum. Two queries whatever the number of tables."""
    rows = (
        finished_seats(game, season)
        .values("member_id", "member__display_name", "member__username")
        .annotate(
            games=Count("id"),
            total=Sum("result"),
            money=Sum("money"),
            best=Max("result"),
            worst=Min("result"),
            wins=Count("id", filter=Q(won=True)),
        )
    )
    ratings = dict(Rating.objects.filter(game=game).values_list("member_id", "ordinal"))
    lines = [
        Standing(
            member=row["member_id"],
            name=row["member__display_name"] or row["member__username"],
            games=row["games"],
            total=row["total"],
            money=row["money"],
            best=row["best"],
            worst=row["worst"],
            wins=row["wins"],
            rating=Decimal(str(round(ratings.get(row["member_id"], 0.0), 2))),
        )
        for row in rows
    ]
    order = season.order if season is not None else ("money", "average", "wins")
    return rank_standings(lines, order, season.min_games if season is not None else 0)
