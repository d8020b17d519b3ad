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

from scoring.live.keys import claim_key, render_slot_key, revision_key, table_key
from scoring.models import Table

CACHE_SECONDS = 24 * 3600
MAKING_SECONDS = 10
"""How long a claim to make a fragment holds: a maker that died (a worker killed in the
middle) holds up the others this long at most, then one of them makes it instead."""
WAIT_STEP_SECONDS = 0.005
"""How often a thread waiting for another's fragment looks for it (rendering a sheet
takes a few milliseconds)."""

SLOT_STEP_SECONDS = 0.05
"""How often a thread waiting for a costly fragment (one made in a render slot) looks for
it, or for a free slot: it takes a second or so, and a burst of waiters polling the cache
every few milliseconds would take the CPU from the render and from ``/healthz``."""

logger = logging.getLogger(__name__)
"""Logs each fragment made (DEBUG): the load run counts them per revision."""


class Busy(Exception):
    """Every render slot stayed taken, or another's making of the same key outlasted the
    wait (``cached``'s ``slots`` and ``wait``): answer "try again shortly"."""


def cached[Made: (str, bytes)](
    key: str, make: Callable[[], Made], *, slots: int | None = None, wait: float | None = None
) -> Made:
    """``make()``, made once and then read from the cache: the keys carry what the text (or
    a picture's bytes) is made from (the table's revision, the form's shape), so it never
    goes stale. Rendered HTML stays a SafeString through the cache.

    When a deal lands, every viewer's poll asks for the new sheet at about the same moment;
    those that miss wait for the one making it rather than each making it again (single
    flight), by one mechanism: a claim in the cache (``cache.add`` is atomic, in Redis as
    in a process's memory). Whoever claims ``key`` first makes it; every other thread, of
    this process or of any worker of any app server sharing the cache, looks for it every
    ``WAIT_STEP_SECONDS`` until it is there.

    What is costly to make (the sheet's picture) is made in one of ``slots`` render slots,
    claimed in the cache the same way: at most that many at once in every process sharing
    the cache, so a burst of them never holds every worker. With ``wait``, a thread that
    gets neither the fragment nor a slot within that many seconds gives up with ``Busy``
    rather than hold its worker longer."""
    made = cache.get(key)
    if made is not None:
        return made  # type: ignore[no-any-return]
    deadline = None if wait is None else time.monotonic() + wait
    claim = claim_key(key)
    step = WAIT_STEP_SECONDS if slots is None else SLOT_STEP_SECONDS
    while not cache.add(claim, 1, MAKING_SECONDS):
        if deadline is not None and time.monotonic() > deadline:
            raise Busy(key)
        time.sleep(step)
        made = cache.get(key)
        if made is not None:
            return made  # type: ignore[no-any-return]
    try:
        made = cache.get(key)  # made between our miss and our claim
        if made is None:
            slot = None if slots is None else _render_slot(slots, deadline)
            try:
                made = make()
            finally:
                if slot is not None:
                    cache.delete(slot)
            cache.set(key, made, CACHE_SECONDS)
            logger.debug("made %s", key)
    finally:
        cache.delete(claim)
    return made  # type: ignore[no-any-return]


def _render_slot(slots: int, deadline: float | None) -> str:
    """The key of a render slot claimed (held ``MAKING_SECONDS`` at most, as a claim: a
    worker killed mid-render frees it then), once one of ``slots`` is free; ``Busy`` past
    ``deadline``."""
    while True:
        for slot in range(slots):
            key = render_slot_key(slot)
            if cache.add(key, 1, MAKING_SECONDS):
                return key
        if deadline is not None and time.monotonic() > deadline:
            raise Busy("every render slot")
        time.sleep(SLOT_STEP_SECONDS)


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
