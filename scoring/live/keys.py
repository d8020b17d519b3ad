"""The keys of what is kept per table: every write moves the table's revision on, so a
key with the revision in it names something that never changes.

Every key starts with the database's epoch (``scoring.models.Epoch``). A restore brings a
table back at an older revision, and its next write makes a revision number that a shared
cache (Redis outlives every app server) or a process's snapshots may hold already, from
deals the restore took away; a deploy may change how a sheet is rendered. Restores,
flushes and migrations renew the epoch, so each starts a key space of its own.

Every key of Django's cache that scoring and members use is composed here; callers name
what a fragment is made from, never how its key is spelt. Four keys are composed where
they are used, each in a namespace of its own that nothing here starts with: the pages
kept for visitors (``page:``, and ``page-last:`` for the last one made at an address,
``clubsite/pages.py``) and the health probe's (``healthz:``,
``clubsite/health.py``), because clubsite imports nothing of scoring (a contract: the
health check and the error pages must work whatever the apps do); the club's name
and welcome (``club-identity:``, ``scoring/models/club.py``), which the model drops from
the cache as its row is saved, and the models are a layer below this module; and the
signed-in member's row (``member-row:``, ``members/rows.py``), which the members app
keeps and drops without knowing of scoring.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache
from django.core.signals import request_started
from django.db import DEFAULT_DB_ALIAS, transaction
from django.db.models import CharField, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.signals import post_migrate
from django.dispatch import receiver
from django.utils.translation import get_language

from scoring.models import Epoch, Table
from scoring.models.epoch import MISSING


class _Memo(threading.local):
    epoch: str | None = None


_MEMO = _Memo()
"""The epoch as this thread's current request read it: one query per request at most."""


def epoch() -> str:
    """The database's epoch, read once per request (a restore is never in the middle of
    one: it commits before the next request reads the epoch)."""
    if _MEMO.epoch is None:
        _MEMO.epoch = Epoch.current()
    return _MEMO.epoch


def remember_epoch(token: str) -> None:
    """The epoch this request read along with something else (the live sheet's version)."""
    _MEMO.epoch = token


def renew_epoch() -> None:
    """Give the database a new epoch (in the caller's transaction): every key made before
    it is never asked for again. The epoch the idle poll reads from the cache
    (``live.revisions``) is dropped now and again when the renewal commits: the next poll
    reads the new one from the database."""
    from scoring.live import revisions  # it composes its keys here

    _MEMO.epoch = Epoch.renew()
    cache.delete(epoch_key())
    revisions.forget_epoch()

    def committed() -> None:
        cache.delete(epoch_key())
        revisions.forget_epoch()

    transaction.on_commit(committed)


@receiver(request_started)
def _forget_epoch(**kwargs: Any) -> None:
    _MEMO.epoch = None


@receiver(post_migrate)
def _renew_after_migrate(sender: Any, using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> None:
    """``migrate`` (a deploy, or after loading a database dump) and ``flush`` end here:
    the code or the data may differ from what the caches hold. Not when the migrations
    run stop short of the epoch's table (``migrate scoring 0014``, or unapplying)."""
    if getattr(sender, "name", None) != "scoring" or using != DEFAULT_DB_ALIAS:
        return
    state = kwargs.get("apps")
    try:
        if state is not None:
            state.get_model("scoring", "Epoch")
    except LookupError:
        return
    renew_epoch()


EPOCH_FIELD = "live_epoch"


_EPOCH_TOKEN = RawSQL(  # noqa: S611 - a constant statement: no input reaches it
    f'SELECT "token" FROM "{Epoch._meta.db_table}" WHERE "id" = %s',  # noqa: S608
    (Epoch.ONLY_PK,),
    output_field=CharField(),
)
"""The epoch's token as a column. Written as SQL because every table read carries it, and
the ORM's ``Subquery`` of the same statement took longer to build (0.5 ms) than the whole
row to read."""


def with_epoch(tables: QuerySet[Table]) -> QuerySet[Table]:
    """``tables`` each read with the database's epoch, in the same statement (no query of
    its own): the keys of a table read so name the epoch its row was read in."""
    return tables.annotate(**{EPOCH_FIELD: _EPOCH_TOKEN})


def _epoch_of(table: Table) -> str:
    token: str | None = getattr(table, EPOCH_FIELD, None)
    if token is None:
        return epoch()
    return token or MISSING


def _table(table: Table) -> str:
    # The opening time tells a table from an earlier one that had its number: SQLite
    # reuses a rolled-back id.
    return f"{table.pk}:{table.opened_at.timestamp()}"


def table_key(table: Table, kind: str) -> str:
    """The key of ``kind`` kept for ``table`` whatever its revision: a hint that the next
    revision starts from (the rung of its sheet's height), which costs only time when it is
    stale. The other keys of a table are this one and what else they derive from."""
    return f"{kind}:{_epoch_of(table)}:{_table(table)}"


def revision_key(table: Table, kind: str) -> str:
    """The key of ``kind`` derived from this revision of ``table``."""
    return f"{table_key(table, kind)}:{table.revision}"


def sheet_picture_key(table: Table, page: int = 1) -> str:
    """The key of ``page`` of this revision's sheet picture (PNG) in the active language:
    the words drawn on the sheet are in it (``scoring.pages.sheet``), so each language has
    its own."""
    return revision_key(table, f"sheet-png:{get_language()}:{page}")


def tariff_key(table: Table, kind: str) -> str:
    """The key of ``kind`` derived only from ``table``'s players and tariff version (the
    empty deal form of a shape), which outlives revisions."""
    version = table.preferans_version_id or table.boston_version_id
    return f"{table_key(table, kind)}:{version}"


def sheet_html_key(table: Table, language: str, *, editable: bool) -> str:
    """The key of this revision's sheet region in ``language``, as a scorer sees it
    (``editable``) or as a viewer does."""
    return revision_key(table, f"sheet-html:{language}:{int(editable)}")


def history_key(table: Table, language: str) -> str:
    """The key of this revision's latest history entries in ``language``."""
    return revision_key(table, f"history-html:{language}")


def mini_sheet_key(table: Table, language: str) -> str:
    """The key of this revision's mini sheet (the home page's card: each player's totals
    and the deal count) in ``language``."""
    return revision_key(table, f"mini-sheet:{language}")


def deal_fields_key(table: Table, language: str, shape: Iterable[object]) -> str:
    """The key of the empty deal form's fields of ``shape`` (who deals, the lowest
    contract: ``Game.empty_form_shape``) in ``language``."""
    return tariff_key(table, f"deal-fields:{language}:{','.join(map(str, shape))}")


def page_table_key(pk: int, version: str) -> str:
    """The key of table ``pk`` as its page reads it (its seats, its tariff) at ``version``
    (``selectors.table_version``: the database's epoch and the table's revision)."""
    return f"page-table:{pk}:{version}"


def qr_key(url: str) -> str:
    """The key of the QR code of ``url`` (a table's address), whatever the table."""
    return f"qr-svg:{url}"


def standings_key(stamp: str, page: str, *made_from: object) -> str:
    """The key of a standings ``page`` fragment (a board, a profile, the leaders) under the
    standings ``stamp``, made from ``made_from`` (its season, sorting, language, day…):
    every change the standings pages show replaces the stamp."""
    return ":".join(("standings", stamp, page, *map(str, made_from)))


def home_key(stamps: str, part: str, *made_from: object) -> str:
    """The key of a home page ``part`` (who is here tonight, a member's last results) under
    the home page's ``stamps`` (``selectors.home.HomeVersion.stamps``: the home stamp, the
    standings stamp and the epoch), made from ``made_from`` (the evening, the member, the
    language)."""
    return ":".join(("home", stamps, part, *map(str, made_from)))


def claim_key(key: str) -> str:
    """The key of the claim to make what is kept under ``key`` (``fragments.cached``)."""
    return f"making:{key}"


def render_slot_key(slot: int) -> str:
    """The key of render slot ``slot`` (``fragments.cached``'s ``slots``): whichever table,
    revision or epoch, so the slots bound every render the cache's sharers make."""
    return f"render-slot:{slot}"


def epoch_key() -> str:
    """The key of the database's epoch as the idle poll reads it (``live.revisions``):
    whatever the epoch, so a poll finds it without asking the database."""
    return "epoch"


def table_revision_key(token: str, pk: int) -> str:
    """The key of table ``pk``'s revision in the epoch ``token`` (``live.revisions``): a
    restore renews the epoch, so a revision from before it is never read after it."""
    return f"revision:{token}:{pk}"


def in_play_announced_key() -> str:
    """The key that says the tables in play were announced less than a second ago
    (``live.push``): whatever the epoch, as every app server sharing the cache publishes to
    the same channel."""
    return "announced:in-play"


def in_play_held_key() -> str:
    """The key of the latest announcement to the tables in play held back for the next
    second (``live.push``)."""
    return "held:in-play"
