"""The shared cache as a cache, not a dependency (clubsite/cache.py): a Redis of the test's
own (a ``redis-server`` process on a free port) stopped under the site and started again."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from clubsite import cache as fail_soft
from scoring.models import DealRecord
from tests.clubsite.test_operations import console_output
from tests.factories import FIRST_GAME, HTMX, post_deal


class OwnRedis:
    """A ``redis-server`` on the loopback that the test stops and starts."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port)]
        command += ["--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@pytest.fixture
def redis(settings: Any) -> Iterator[OwnRedis]:
    """Django's cache as production sets it (the fail-soft backend, its timeouts) on a
    Redis of the test's own, running."""
    if shutil.which("redis-server") is None:
        if os.environ.get("REQUIRE_REDIS") == "1":
            raise RuntimeError("redis-server is not installed")
        pytest.skip("needs redis-server")
    server = OwnRedis()
    server.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "clubsite.cache.FailSoftRedisCache",
            "LOCATION": server.url,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 1},
        }
    }
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.slow  # a redis-server of its own, stopped and started
def test_a_stopped_redis_is_a_miss_at_no_cost_and_in_use_again_once_back(redis):
    cache.set("kept", "value")
    assert cache.get("kept") == "value"

    redis.stop()
    started = time.monotonic()
    with console_output() as log:
        assert cache.get("kept") is None
        assert cache.get("kept", "default") == "default"
        cache.set("kept", "other")
        assert cache.add("claim", 1) is True  # claimed: the caller makes the fragment itself
        assert cache.get_many(["kept", "claim"]) == {}
        assert cache.delete("kept") is False
        cache.delete_many(["kept"])
        assert cache.get_or_set("made", lambda: "from the database") == "from the database"
    assert time.monotonic() - started < 0.5
    # One line says it, not one per operation.
    assert log.getvalue().count("The cache (Redis) failed, the site goes on without it") == 1

    redis.start()
    with console_output() as log:
        deadline = time.monotonic() + fail_soft.RETRY_AFTER_SECONDS + 1
        while cache.get("back") is None and time.monotonic() < deadline:
            cache.set("back", "yes")
            time.sleep(0.05)
    assert cache.get("back") == "yes"
    assert "The cache (Redis) answers again" in log.getvalue()


def test_one_redis_client_serves_every_operation(redis):
    client = cache._cache.get_client()  # type: ignore[attr-defined]
    cache.set("kept", "value")
    assert cache.get("kept") == "value"
    assert cache._cache.get_client(write=True) is client  # type: ignore[attr-defined]
    assert cache._cache.get_client("kept") is client  # type: ignore[attr-defined]


@pytest.mark.slow  # a redis-server of its own, stopped and started
def test_a_dead_redis_is_left_alone_between_tries(redis, monkeypatch):
    """Within ``RETRY_AFTER_SECONDS`` of a failure no operation touches the network."""
    redis.stop()
    cache.get("a")  # fails: the window opens
    tried = []
    monkeypatch.setattr(
        cache._cache,  # type: ignore[attr-defined]
        "get_client",
        lambda *args, **kwargs: tried.append(1),
    )
    for _ in range(100):
        assert cache.get("a") is None
    assert tried == []


@pytest.mark.slow  # a redis-server of its own, stopped and started
@pytest.mark.django_db
def test_with_redis_down_pages_are_served_and_a_save_answers_saved(redis, client, table, anna):
    redis.stop()
    live = reverse("scoring:table_live", args=[table.pk])

    assert client.get(reverse("scoring:table_detail", args=[table.pk])).status_code == 200
    saved = post_deal(client, table, FIRST_GAME, **HTMX)
    assert saved.status_code == 200
    assert saved["HX-Retarget"] == "#sheet"
    assert DealRecord.objects.filter(table=table).count() == 1
    assert "Boris" in client.get(live).content.decode()
    health = Client().get("/healthz")
    assert (health.status_code, health.json()) == (
        200,
        {"status": "degraded", "database": "ok", "cache": "error"},
    )
