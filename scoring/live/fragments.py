"""Rendered fragments (the sheet region, the drawing, the history, the empty deal form, the
sheet's PNG picture, a QR code), made once per key and then read from Django's cache."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.core.cache import cache

CACHE_SECONDS = 24 * 3600
logger = logging.getLogger(__name__)
"""Logs each fragment made (DEBUG): the load run counts them per revision."""


def cached[Made: (str, bytes)](key: str, make: Callable[[], Made]) -> Made:
    """``make()``, made once and then read from the cache: the keys carry what the text (or
    a picture's bytes) is made from (the table's revision, the form's shape), so it never
    goes stale. Rendered HTML stays a SafeString through the cache.

    When a deal lands, every viewer's poll asks for the new sheet at about the same moment;
    the threads of a process that miss wait for the one making it rather than each making
    it again (single flight: the wait is shorter than making it, as threads share the GIL)."""
    text = cache.get(key)
    if text is None:
        with _MAKING_GUARD:
            lock = _MAKING.setdefault(key, threading.Lock())
        try:
            with lock:
                text = cache.get(key)
                if text is None:
                    text = make()
                    cache.set(key, text, CACHE_SECONDS)
                    logger.debug("made %s", key)
        finally:
            # Whoever comes later finds the text in the cache; at worst (the entry was
            # evicted at once) a thread makes it again, which is slower but never wrong.
            _MAKING.pop(key, None)
    return text  # type: ignore[no-any-return]


_MAKING: dict[str, threading.Lock] = {}
"""The keys being made in this process, each with the lock its makers queue on."""
_MAKING_GUARD = threading.Lock()
