"""A tour's table of a fixed number of deals, or a pool with a cap (Gambler's 18 deals):
how many deals it has played and whether it has played them all (``Table.deal_cap``,
copied from its tour when it opens). The table page shows «раздача 7 из 18»; the deal
beyond the cap is refused (``services.tables.check_deal_cap``); at the cap the table is
complete and its players finish it.
"""

from __future__ import annotations

from typing import Any

from scoring.models import Table


def deals_played(game: Any, count: int) -> int:
    """The deals played (adjustments are not deals): the pulka counts them itself; a
    Boston game's are its ``count`` of live deals."""
    played = getattr(game, "played", None)
    return played if isinstance(played, int) else count


def cap_reached(table: Table, game: Any, count: int) -> bool:
    """Whether ``table`` has played all the deals its tour allows."""
    return table.deal_cap is not None and deals_played(game, count) >= table.deal_cap
