"""Rendered fragments (the sheet region, the drawing, the history, the empty deal form, the
sheet's PNG picture, a QR code), made once per key and then read from Django's cache; and
per table, the hints a new revision's drawing starts from (``RevisionCache``).

The cache is each process's own memory, or with ``REDIS_URL`` one Redis that every app
server shares (``CACHES`` in clubsite/settings.py): then a revision's sheet is made once
for all of them."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.core.cache import cache

from scoring.live.keys import claim_key, revision_key, table_key
from scoring.models import Table

CACHE_SECONDS = 24 * 3600
MAKING_SECONDS = 10
"""How long a claim to make a fragment holds: a maker that died (a worker killed in the
middle) holds up the others this long at most, then one of them makes it instead."""
WAIT_STEP_SECONDS = 0.005
"""How often a thread waiting for another's fragment looks for it (rendering a sheet
takes a few milliseconds)."""

logger = logging.getLogger(__name__)
"""Logs each fragment made (DEBUG): the load run counts them per revision."""


def cached[Made: (str, bytes)](key: str, make: Callable[[], Made]) -> Made:
    """``make()``, made once and then read from the cache: the keys carry what the text (or
    a picture's bytes) is made from (the table's revision, the form's shape), so it never
    goes stale. Rendered HTML stays a SafeString through the cache.

    When a deal lands, every viewer's poll asks for the new sheet at about the same moment;
    those that miss wait for the one making it rather than each making it again (single
    flight), by one mechanism: a claim in the cache (``cache.add`` is atomic, in Redis as
    in a process's memory). Whoever claims ``key`` first makes it; every other thread, of
    this process or of any worker of any app server sharing the cache, looks for it every
    ``WAIT_STEP_SECONDS`` until it is there."""
    made = cache.get(key)
    if made is not None:
        return made  # type: ignore[no-any-return]
    claim = claim_key(key)
    while not cache.add(claim, 1, MAKING_SECONDS):
        time.sleep(WAIT_STEP_SECONDS)
        made = cache.get(key)
        if made is not None:
            return made  # type: ignore[no-any-return]
    try:
        made = cache.get(key)  # made between our miss and our claim
        if made is None:
            made = make()
            cache.set(key, made, CACHE_SECONDS)
            logger.debug("made %s", key)
    finally:
        cache.delete(claim)
    return made  # type: ignore[no-any-return]


class RevisionCache:
    """What a game draws this revision of ``table`` through (``pages.games.Cache``): fragments
    kept under the revision's keys, which never go stale, and hints under the table's, for
    its next revisions (``keys.table_key``)."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def __call__(self, key: str, render: Callable[[], str], /) -> str:
        return cached(revision_key(self.table, key), render)

    def hint(self, kind: str) -> int | None:
        value = cache.get(table_key(self.table, kind))
        return value if isinstance(value, int) else None

    def keep_hint(self, kind: str, value: int) -> None:
        cache.set(table_key(self.table, kind), value, CACHE_SECONDS)
