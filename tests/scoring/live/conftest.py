"""``shared_cache``: the tests that take it run twice, with each process's own memory and
with a real Redis (127.0.0.1:6379, database 5, or TEST_REDIS_URL) as Django's cache."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/5")


def redis_or_skip() -> None:
    """Skip (fail under REQUIRE_REDIS=1, as CI runs) when no Redis answers at REDIS_URL."""
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        if os.environ.get("REQUIRE_REDIS") == "1":
            raise
        pytest.skip(f"no Redis at {REDIS_URL} ({error}): set TEST_REDIS_URL")


@pytest.fixture(params=["local-memory", "redis"])
def shared_cache(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    """Django's cache for the test: local memory as in the quick start, or Redis under a
    key prefix of the test's own (the database may be shared: only its keys are deleted)."""
    if request.param == "local-memory":
        yield request.param
        return
    use_redis(settings)
    yield request.param
    clear_cache()


def use_redis(settings: Any, backend: str = "django.core.cache.backends.redis.RedisCache") -> None:
    """Django's cache for the test: ``backend`` on the Redis at REDIS_URL, under a key prefix
    of the test's own (empty it with ``clear_cache``)."""
    redis_or_skip()
    settings.CACHES = {
        "default": {
            "BACKEND": backend,
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
        }
    }


def clear_cache() -> None:
    """Empty the test's cache: under ``shared_cache``'s Redis only the keys of the test's
    own prefix. Django's ``cache.clear()`` empties the whole Redis database, the keys of
    the tests other workers run at the same time included."""
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        backend.clear()
        return
    client = backend._cache.get_client()
    for key in client.scan_iter(match=backend.make_key("*")):
        client.delete(key)


def redis_keys(pattern: str) -> list[str]:
    """The keys of the test's Redis cache that match ``pattern`` (prefix and version cut)."""
    from django.core.cache import cache

    client = cache._cache.get_client()  # type: ignore[attr-defined]
    prefix = cache.make_key("")
    return [
        key.decode().removeprefix(prefix) for key in client.scan_iter(match=cache.make_key(pattern))
    ]
