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
"""

from __future__ import annotations

from django.db import connection

from scoring.models import Epoch, HomeStamp, StandingsStamp, Table
from scoring.models.epoch import MISSING

VERSION_SQL = (
    f'SELECT (SELECT "stamp" FROM "{HomeStamp._meta.db_table}" WHERE "id" = 1),'  # noqa: S608
    f' (SELECT "stamp" FROM "{StandingsStamp._meta.db_table}" WHERE "id" = 1),'
    f' (SELECT "token" FROM "{Epoch._meta.db_table}" WHERE "id" = 1),'
    ' COUNT(*), COALESCE(SUM("revision"), 0)'
    f' FROM "{Table._meta.db_table}" WHERE "status" = %s'
)
"""The version's statement (no input but the status): plain SQL, as the standings stamp's,
since the ORM took longer to build a query than the database to answer it."""


def home_version() -> str | None:
    """What the home page shows, as a version (see the module's words): one query; None
    when the database has no home stamp (just flushed: the page is made for each request
    until a change writes one)."""
    with connection.cursor() as cursor:
        cursor.execute(VERSION_SQL, [Table.OPEN])
        home, standings, epoch, in_play, revisions = cursor.fetchone()
    if not home:
        return None
    return f"{home}.{standings or '-'}.{epoch or MISSING}.{in_play}.{revisions}"
