"""The home page's stamp: what its page kept for everyone is kept under, with the standings
stamp and the tables in play's revisions (``scoring/selectors/home.py``)."""

from __future__ import annotations

from scoring.models.stamps import Stamp


class HomeStamp(Stamp):
    """One row: a fresh random ``stamp`` written by every change to what the home page shows
    that neither a table's revision nor the standings stamp moves (an evening announced or
    called off, a check-in, a check-out or a sit-out, a table opened, finished, reopened or
    imported, the club's introduction), in the change's transaction
    (``scoring.services.home.home_changed``). Random, like the standings stamp: a restored
    database never meets another's kept pages."""
