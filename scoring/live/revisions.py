"""Each table's revision kept in the shared cache, so that an idle viewer's poll (the live
sheet's ETag, ``selectors.table_version``) is answered without asking the database.

The revision is written when the write that moved it commits (``table_moved``, called
by every service that moves a revision, inside its transaction), and rebuilt from the
database by the first poll that misses it (Redis flushed, restarted, or the key expired).
Three rules keep it from ever standing for long at a revision the table has left:

- the write drops the kept revision as it is made, inside its transaction: until it
  commits the polls read the database, which still has the revision before it;
- when it commits, the revision is read back from the database and stored, and a store
  never lowers the one kept (``_keep``: an atomic maximum in Redis). Two writes to one
  table commit in turn (its row lock), but their callbacks, or a poll that read the
  database just before a commit, may reach Redis in either order: the higher stays;
- it expires after ``REVISION_SECONDS``: a server killed between a commit and its
  callback leaves a poll at most that far behind (and costs one query per table then,
  not one per viewer);
- it is kept only in a cache every process shares (Redis): in one process's own memory
  (no ``REDIS_URL``) a write in another process would leave it behind for up to
  ``REVISION_SECONDS``, so each poll then reads the database (``shared``).

The key carries the database's epoch (``keys.table_revision_key``), itself kept in the
cache (``keys.epoch_key``) and dropped when a restore, ``migrate`` or ``flush`` renews it.

The idle poll itself reads the cache at most once a second per table and process
(``remembered``, ``POLL_MEMO_SECONDS``): on two busy cores a Redis round trip cost as much
as the bare view's whole request. A plain poll may so be answered a second late; a fetch
that names a revision past the remembered one (the page shows it, or a pushed event told
it: ``selectors.polled_table_version``) reads the cache, and a write in this process
forgets the table's version as it is made and again when it commits.
"""

from __future__ import annotations

import logging
import time
from functools import partial

from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.db import connection, transaction
from redis.exceptions import RedisError

from clubsite.cache import shared
from scoring.live import keys, push
from scoring.models.epoch import MISSING

REVISION_SECONDS = 300
"""How long a kept revision (and the epoch) is trusted without a write renewing it."""

logger = logging.getLogger(__name__)

_RAISE_TO = """
local kept = tonumber(redis.call('GET', KEYS[1]))
if kept == nil or kept < tonumber(ARGV[1]) then
    redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
    return 1
end
return 0
"""
"""Store ARGV[1] under KEYS[1] unless a higher revision is there (Django's Redis backend
stores an int as its digits, so ``cache.get`` reads it back as an int)."""

EPOCH_MEMO_SECONDS = 1.0
"""How long a process trusts the epoch it read from the cache: an idle poll is then one
round trip to Redis, not two. A restore in another process is seen that much later in
the ETags (a viewer's 304 a second longer); the keys of what is rendered read the
database's epoch (``keys.epoch``), never this one."""

_epoch_memo: tuple[str, float] | None = None

_clock = time.monotonic
"""The memos' clock (the tests move it)."""


def _cached_epoch() -> str | None:
    global _epoch_memo
    memo, now = _epoch_memo, _clock()
    if memo is not None and now < memo[1]:
        return memo[0]
    token: str | None = cache.get(keys.epoch_key())
    _epoch_memo = None if token is None else (token, now + EPOCH_MEMO_SECONDS)
    return token


def forget_epoch() -> None:
    """This process renewed the epoch: read it again at once (``keys.renew_epoch``), and
    every table's version this process remembers with it (``remembered``)."""
    global _epoch_memo
    _epoch_memo = None
    _versions.clear()


POLL_MEMO_SECONDS = 1.0
"""How long a process trusts a table's version it read for the idle poll (``remembered``):
under a crowd of viewers most polls then make no round trip to Redis, which cost as much as
the bare view's whole request. A write in another process is seen by a plain poll that
much later; never by a fetch that names a later revision (``remembered``'s ``at_least``)."""

POLL_MEMO_TABLES = 10_000
"""How many tables' versions a process remembers before it starts again (the tables in
play of a federation's evening; a finished table's poll stops)."""

_versions: dict[int, tuple[str, int, float]] = {}
"""Table → (its version, its revision, until when it is trusted): shared by the process's
threads (one dictionary read or write at a time under the GIL; a lost race is a miss)."""


def remembered(pk: int, *, at_least: int | None = None) -> str | None:
    """Table ``pk``'s version as this process read it less than ``POLL_MEMO_SECONDS``
    ago, unless its revision is below ``at_least`` (what the page asking shows, or was told
    by a pushed event: a version older than that is stale by the page's own word)."""
    memo = _versions.get(pk)
    if memo is None or _clock() >= memo[2]:
        return None
    version, revision, _ = memo
    if at_least is not None and revision < at_least:
        return None
    return version


def remember(pk: int, version: str) -> None:
    """Trust ``version`` (``epoch.revision``, just read) for table ``pk``'s polls for
    ``POLL_MEMO_SECONDS`` in this process."""
    if len(_versions) >= POLL_MEMO_TABLES:
        _versions.clear()
    revision = int(version.rpartition(".")[2])
    _versions[pk] = (version, revision, _clock() + POLL_MEMO_SECONDS)


def forget(pk: int | None = None) -> None:
    """Drop what this process remembers of table ``pk``'s version (every table's, and the
    epoch, when None)."""
    global _epoch_memo
    if pk is None:
        _epoch_memo = None
        _versions.clear()
    else:
        _versions.pop(pk, None)


def cached_version(pk: int) -> str | None:
    """The table's version as ``selectors.table_version`` gives it (``epoch.revision``),
    from the shared cache alone; None when either part is not kept."""
    if not shared():
        return None
    token = _cached_epoch()
    if token is None:
        return None
    revision = cache.get(keys.table_revision_key(token, pk))
    if revision is None:
        return None
    return f"{token}.{revision}"


def keep(pk: int, token: str, revision: int) -> None:
    """Remember that table ``pk`` is at ``revision`` at least, in the epoch ``token`` (read
    together from the database), in the shared cache (nothing without one)."""
    if not shared():
        return
    cache.add(keys.epoch_key(), token, REVISION_SECONDS)
    backend = caches[DEFAULT_CACHE_ALIAS]
    key = backend.make_and_validate_key(keys.table_revision_key(token, pk))
    try:
        client = backend._cache.get_client(key, write=True)  # type: ignore[attr-defined]
        client.eval(_RAISE_TO, 1, key, revision, REVISION_SECONDS)
    except RedisError as error:  # a dead Redis is a miss, as everywhere (clubsite.cache)
        logger.warning("The table's revision was not kept: %s", error)


def read(pk: int) -> tuple[int, str] | None:
    """The table's revision and the database's epoch, in one query (None: no such
    table)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT revision, (SELECT token FROM scoring_epoch WHERE id = 1)"
            " FROM scoring_table WHERE id = %s",
            [pk],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    revision, token = row
    return revision, token or MISSING


def table_moved(pk: int) -> None:
    """Table ``pk``'s revision moves in the caller's transaction: drop the kept revision
    now, and keep the new one and announce it (``live.push``) once the transaction commits."""
    forget(pk)
    token = cache.get(keys.epoch_key())
    if token is not None:
        cache.delete(keys.table_revision_key(token, pk))
    transaction.on_commit(partial(_committed, pk))


def _committed(pk: int) -> None:
    forget(pk)  # a poll between the drop and the commit may have remembered the one before
    found = read(pk)
    if found is None:  # deleted meanwhile
        return
    revision, token = found
    keep(pk, token, revision)
    try:
        push.announce(pk, revision)
    except Exception:  # an announcement that fails must not fail the saved write
        logger.exception("Announcing table %s's revision %s failed", pk, revision)
