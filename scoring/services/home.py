"""The home page's stamp (``scoring.models.HomeStamp``): moved by every service that changes
what the home page shows, where no table's revision and no standings stamp moves with it.

The page is kept under the stamp, the standings stamp, the database's epoch and the tables
in play's count and summed revisions, read in one statement (``scoring/selectors/home.py``):
a deal moves its table's revision, so the writes that happen all evening long at every table
touch no shared row; the rarer changes of which tables are in play, of tonight's evening and
of who is here call ``home_changed`` in their own transaction. docs/performance.md
("The home page kept") says why it is built this way.
"""

from __future__ import annotations

from scoring.models import HomeStamp


def home_changed() -> None:
    """Something the home page shows has changed that no table's revision nor the standings
    stamp says: a new stamp, so that no page kept under the old one is served again (call it
    inside the change's transaction)."""
    HomeStamp.renew()
