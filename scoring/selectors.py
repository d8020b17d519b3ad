"""The read side that needs the engine: a table's deal log replayed into its sheet.

Nothing computed is stored for a table in play; every page replays its deals (a
1,000-deal pulka replays in about ten milliseconds), so a correction anywhere in the log
is reflected everywhere at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scoring.engine import boston, preferans
from scoring.engine.boston import BostonRules, BostonTable
from scoring.engine.preferans import PreferansRules, Pulka
from scoring.models import DealRecord, Table

Game = Pulka | BostonTable


@dataclass(frozen=True)
class TableState:
    """A table replayed: the engine object after every live deal, and the deal rows."""

    table: Table
    players: tuple[str, ...]
    game: Game
    records: Sequence[DealRecord]

    @property
    def result(self) -> Any:
        return self.game.result()

    def document(self) -> dict[str, Any]:
        """The result document (game-format.md) of the table as it stands."""
        if isinstance(self.game, Pulka):
            document = preferans.record.result_document(self.game.result())
            document["complete"] = self.game.complete or not self.table.is_open
            return document
        return boston.record.result_document(self.game.result())


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
    records = live_deals(table) if records is None else records
    game = new_game(table, players, rules)
    for n, record in enumerate(records, start=1):
        game.play(parse_deal(table, players, record.data, n))
    if isinstance(game, Pulka) and not table.is_open:
        game.close()
    return TableState(table=table, players=players, game=game, records=records)
