"""The read side, by topic: tables replayed into their sheets, standings, profiles.
Call sites use ``selectors.<name>``; the topic modules hold the code."""

from scoring.selectors.leagues import League, league
from scoring.selectors.standings import (
    stamp_column,
    standings,
    standings_cached,
    standings_stamp,
)
from scoring.selectors.tables import (
    Change,
    TableState,
    changes_since,
    current,
    decisions,
    entry_deal,
    history,
    holders,
    live_deals,
    polled_table_version,
    replay,
    seat_changes,
    seat_names,
    table_version,
)

__all__ = [
    "Change",
    "League",
    "TableState",
    "changes_since",
    "current",
    "decisions",
    "entry_deal",
    "history",
    "holders",
    "league",
    "live_deals",
    "polled_table_version",
    "replay",
    "seat_changes",
    "seat_names",
    "stamp_column",
    "standings",
    "standings_cached",
    "standings_stamp",
    "table_version",
]
