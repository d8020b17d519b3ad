"""The replayed games of the latest table revisions in this process."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import NamedTuple

from scoring.engine.boston import BostonTable
from scoring.engine.preferans import Pulka
from scoring.live.keys import revision_key
from scoring.models import DealRecord, Table

Game = Pulka | BostonTable

LATEST_ROWS = 10
"""How many of the latest deals' rows a snapshot keeps: as many as the sheet's log shows
(``scoring.pages.tables.LOG_SHOWN``), so that neither a page nor a save reads them again."""


class Snapshot(NamedTuple):
    """A revision's replayed game, the ids of its live deals in order, and the rows of the
    latest of those deals (at most ``LATEST_ROWS``, in order; fewer when the writer that
    kept it had fewer at hand)."""

    game: Game
    deal_ids: tuple[int, ...]
    latest: tuple[DealRecord, ...]


class Snapshots:
    """The replayed games of the latest table revisions, least recently used first out.
    Not Django's cache: that pickles every value, which for a long pulka costs more than
    the rest of saving a deal, while a game copies in microseconds (its deal results are
    immutable and shared between the revisions' copies)."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._games: OrderedDict[str, Snapshot] = OrderedDict()
        self._lock = threading.Lock()  # gunicorn serves requests from several threads

    def get(self, key: str) -> Snapshot | None:
        with self._lock:
            found = self._games.get(key)
            if found is not None:
                self._games.move_to_end(key)
            return found

    def put(self, key: str, snapshot: Snapshot) -> None:
        with self._lock:
            self._games[key] = snapshot
            self._games.move_to_end(key)
            while len(self._games) > self.kept:
                self._games.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._games.clear()


SNAPSHOTS = Snapshots(kept=50)


def recall(table: Table) -> Snapshot | None:
    """A copy of the snapshot of ``table``'s revision, if this process has one (the game
    may be advanced by the caller; the rows are shared, for reading)."""
    found = SNAPSHOTS.get(revision_key(table, "table-state"))
    if found is None:
        return None
    return found._replace(game=found.game.copy())


def remember(
    table: Table,
    game: Game,
    deal_ids: Sequence[int],
    records: Sequence[DealRecord],
) -> None:
    """Keep a copy of ``game`` (with ``deal_ids`` played) as the snapshot of ``table``'s
    revision, with the rows of its latest deals among ``records`` (the last rows of the
    log: those of its latest deals).

    A reader racing a write may keep the newer deals under the older revision; only
    readers that saw the older revision ask for that key, and their ETag sends them back
    for the newer sheet two seconds later.
    """
    latest = tuple(records[-LATEST_ROWS:])
    if [r.pk for r in latest] != list(deal_ids[len(deal_ids) - len(latest) :]):
        latest = ()  # not the latest deals' rows: the next reader reads them
    snapshot = Snapshot(game.copy(), tuple(deal_ids), latest)
    SNAPSHOTS.put(revision_key(table, "table-state"), snapshot)
