"""The home page's version: what its page kept for everyone (``clubsite.pages``) is kept
under, read in one statement.

The page shows the tables in play (each one's mini sheet at its revision), tonight's evening
and who is here, the next evening, the latest finished tables, the leaders and the club's
introduction. Its version is made of:

- the home stamp (``scoring.models.HomeStamp``), which every change to the evenings, to who
  is here, to which tables are in play and to the club's introduction moves
  (``scoring.services.home_changed``);
- the standings stamp: the leaders, and the names and tariffs the page writes;
- the database's epoch: a restore that brings an old home stamp back meets none of the
  pages kept after it;
- the number of tables in play and the sum of their revisions: every write to a table in
  play moves its revision on by one at least, and while the stamp stands the same tables are
  in play, so the sum grows with every deal, correction or seat change. A deal so writes no
  row of the home page's own: the tables of a busy evening never wait for each other on one.

The same statement reads tonight's evening (as ``evenings.evening_on`` finds it), which a
member's own parts need: his check-in is looked up among who is here, kept under the stamps.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db import connection

from scoring.models import Epoch, Evening, HomeStamp, StandingsStamp, Table
from scoring.models.epoch import MISSING

VERSION_SQL = (
    f'SELECT (SELECT "stamp" FROM "{HomeStamp._meta.db_table}" WHERE "id" = 1),'  # noqa: S608
    f' (SELECT "stamp" FROM "{StandingsStamp._meta.db_table}" WHERE "id" = 1),'
    f' (SELECT "token" FROM "{Epoch._meta.db_table}" WHERE "id" = 1),'
    f' (SELECT "id" FROM "{Evening._meta.db_table}" WHERE "played_on" = %s'
    ' ORDER BY "created_at" DESC, "id" DESC LIMIT 1),'
    ' COUNT(*), COALESCE(SUM("revision"), 0)'
    f' FROM "{Table._meta.db_table}" WHERE "status" = %s'
)
"""The version's statement (no input but the day and the status): plain SQL, as the
standings stamp's, since the ORM took longer to build a query than the database to answer
it."""


@dataclass(frozen=True)
class HomeVersion:
    """The home page's version on a day: ``stamps`` (the home stamp, the standings stamp and
    the epoch: what moves with everything but a table's revision), ``in_play`` (the tables in
    play's count and summed revisions) and tonight's evening (its id; None: none tonight)."""

    stamps: str
    in_play: str
    tonight: int | None

    def __str__(self) -> str:
        return f"{self.stamps}.{self.in_play}"


def home_version(day: datetime.date) -> HomeVersion | None:
    """What the home page shows on ``day`` (see the module's words): one query; None when
    the database has no home stamp (just flushed: the page is made for each request until a
    change writes one)."""
    with connection.cursor() as cursor:
        cursor.execute(VERSION_SQL, [day, Table.OPEN])
        home, standings, epoch, tonight, in_play, revisions = cursor.fetchone()
    if not home:
        return None
    return HomeVersion(
        stamps=f"{home}.{standings or '-'}.{epoch or MISSING}",
        in_play=f"{in_play}.{revisions}",
        tonight=tonight,
    )
