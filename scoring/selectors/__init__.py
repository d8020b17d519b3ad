"""The read side, by topic: tables replayed into their sheets, standings, profiles.
Call sites use ``selectors.<name>``; the topic modules hold the code."""

from scoring.selectors.standings import finished_seats, standings
from scoring.selectors.tables import (
    Change,
    TableState,
    changes_since,
    current,
    live_deals,
    replay,
    seat_names,
    table_version,
)

__all__ = [
    "Change",
    "TableState",
    "changes_since",
    "current",
    "finished_seats",
    "live_deals",
    "replay",
    "seat_names",
    "standings",
    "table_version",
]
