"""The shared cache (Redis, ``REDIS_URL``) as a cache, not a dependency.

Everything kept in it can be made again from the database (clubsite/settings.py,
"What is derived from a table revision"). Django's own Redis backend raises when Redis
does not answer, and every page that reads a fragment then answered 500 — a deal's save
too, after its transaction had committed: the scorer was told it failed and the deal was
stored (issue #35). Here a Redis that does not answer is a miss: ``get`` answers the
default, ``set`` and ``delete`` do nothing, and ``add`` answers True, as if the claim
were taken (``scoring.live.fragments``: the process then makes the fragment itself
rather than wait for a claim nobody holds).

A dead Redis must cost little per request. After a failure the cache is left alone for
``RETRY_AFTER_SECONDS`` (every thread of the process then misses at once, without a
socket), and the first operation after that tries Redis again: a Redis that is back is in
use again within that time. Connecting gives up after ``socket_connect_timeout`` (the
settings: half a second), so an unreachable host costs one request per process that
long every ``RETRY_AFTER_SECONDS``; a stopped one on a reachable host refuses at once.

One WARNING line says when the process stops using Redis, and one when it is back;
``/healthz`` says ``"cache": "error"`` meanwhile (with 200: the site still serves).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 2.0


def shared() -> bool:
    """Whether Django's cache is one every process shares (Redis), where a write in one
    process is seen by all; what must never be stale is kept only in such a cache."""
    return isinstance(caches[DEFAULT_CACHE_ALIAS], RedisCache)


class OneClientPerPool(RedisCacheClient):
    """Django's Redis client, keeping one ``redis.Redis`` per connection pool. Django's
    makes a new one for every operation, and building it (redis-py fills a
    case-insensitive table of its 169 response callbacks) took 57 µs of a 130 µs GET on
    this machine: a signed-in scorer's table page makes seven. A ``redis.Redis`` on a pool
    is safe to share between threads."""

    def __init__(self, servers: list[str], **options: Any) -> None:
        super().__init__(servers, **options)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django's own two private names (django-stubs leaves them out), as its get_client.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))
        if client is None:
            made = self._client(connection_pool=pool)  # type: ignore[attr-defined]
            client = self._clients.setdefault(id(pool), made)
        return client


class FailSoftRedisCache(RedisCache):
    """Django's Redis cache, with Redis's failures taken as misses (module docstring)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = OneClientPerPool
        self._down_until = 0.0
        self._down = False
        self._lock = threading.Lock()

    def _soft[T](self, operation: Callable[[], T], missed: T) -> T:
        if self._down and time.monotonic() < self._down_until:
            return missed
        try:
            answer = operation()
        except RedisError as error:
            with self._lock:
                if not self._down:
                    logger.warning(
                        "The cache (Redis) failed, the site goes on without it: %s: %s",
                        type(error).__name__,
                        error,
                    )
                self._down = True
                self._down_until = time.monotonic() + RETRY_AFTER_SECONDS
            return missed
        if self._down:
            with self._lock:
                if self._down:
                    self._down = False
                    logger.warning("The cache (Redis) answers again")
        return answer

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        return self._soft(
            lambda: super(FailSoftRedisCache, self).add(key, value, timeout, version), True
        )

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._soft(
            lambda: super(FailSoftRedisCache, self).get(key, default, version), default
        )

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        self._soft(lambda: super(FailSoftRedisCache, self).set(key, value, timeout, version), None)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return self._soft(
            lambda: super(FailSoftRedisCache, self).touch(key, timeout, version), False
        )

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._soft(lambda: super(FailSoftRedisCache, self).delete(key, version), False)

    def get_many(self, keys: Any, version: int | None = None) -> dict[Any, Any]:
        return self._soft(lambda: super(FailSoftRedisCache, self).get_many(keys, version), {})

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self._soft(lambda: super(FailSoftRedisCache, self).has_key(key, version), False)

    def set_many(
        self, data: dict[Any, Any], timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> list[Any]:
        return self._soft(
            lambda: super(FailSoftRedisCache, self).set_many(data, timeout, version), list(data)
        )

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        self._soft(lambda: super(FailSoftRedisCache, self).delete_many(keys, version), None)

    def clear(self) -> None:
        self._soft(lambda: super(FailSoftRedisCache, self).clear(), None)
