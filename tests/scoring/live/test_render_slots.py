"""The render slots (issue #35 item 3): costly fragments (the sheet's picture) are made at
most ``slots`` at a time by every process sharing the cache, and a thread that gets
neither the fragment nor a slot within its wait gives up with ``Busy``."""

from __future__ import annotations

import threading
import time

import pytest
from django.core.cache import cache

from scoring.live import fragments, keys


def race(count: int, run: object) -> list[object]:
    """``run(i)`` in ``count`` threads started together; what each returned or raised."""
    start = threading.Barrier(count)
    answers: list[object] = [None] * count

    def racer(i: int) -> None:
        start.wait()
        try:
            answers[i] = run(i)  # type: ignore[operator]
        except fragments.Busy as error:
            answers[i] = error

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


class Renders:
    """A render that takes a while, counting how many run and how many at once."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.lock = seconds, threading.Lock()
        self.made = self.running = self.most = 0

    def __call__(self) -> bytes:
        with self.lock:
            self.made += 1
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(self.seconds)
        with self.lock:
            self.running -= 1
        return b"png"


def test_twenty_requests_for_one_picture_render_it_once(shared_cache):
    render = Renders(0.1)
    answers = race(20, lambda i: fragments.cached("sheet-png:one", render, slots=1, wait=5))
    assert answers == [b"png"] * 20
    assert render.made == 1
    assert cache.get(keys.render_slot_key(0)) is None  # the slot is given back


def test_the_slots_bound_how_many_pictures_are_rendered_at_once(shared_cache):
    render = Renders(0.05)
    answers = race(8, lambda i: fragments.cached(f"sheet-png:{i}", render, slots=2, wait=10))
    assert answers == [b"png"] * 8
    assert (render.made, render.most) == (8, 2)


def test_a_request_that_finds_no_slot_within_its_wait_is_busy(shared_cache):
    cache.add(keys.render_slot_key(0), 1, 10)  # another worker's render, in the only slot
    render = Renders(0)
    started = time.monotonic()
    with pytest.raises(fragments.Busy):
        fragments.cached("sheet-png:waiting", render, slots=1, wait=0.2)
    assert 0.2 <= time.monotonic() - started < 2
    assert render.made == 0
    # Nothing kept, no claim left: the next request once the slot is free makes it.
    assert cache.get("sheet-png:waiting") is None
    assert cache.get(keys.claim_key("sheet-png:waiting")) is None
    cache.delete(keys.render_slot_key(0))
    assert fragments.cached("sheet-png:waiting", render, slots=1, wait=0.2) == b"png"


def test_waiting_for_anothers_render_gives_up_after_the_wait(shared_cache):
    cache.add(keys.claim_key("sheet-png:slow"), 1, 10)  # another request is rendering it
    with pytest.raises(fragments.Busy):
        fragments.cached("sheet-png:slow", Renders(0), slots=1, wait=0.1)
