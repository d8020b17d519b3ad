"""The read side, by topic: tables replayed into their sheets, standings, profiles.
Call sites use ``selectors.<name>``; the topic modules hold the code."""

from scoring.selectors.tables import (
    SNAPSHOTS,
    Snapshots,
    TableState,
    current,
    finished_seats,
    live_deals,
    new_game,
    parse_deal,
    remember,
    replay,
    seat_names,
    standings,
    table_revision,
)

__all__ = [
    "SNAPSHOTS",
    "Snapshots",
    "TableState",
    "current",
    "finished_seats",
    "live_deals",
    "new_game",
    "parse_deal",
    "remember",
    "replay",
    "seat_names",
    "standings",
    "table_revision",
]
