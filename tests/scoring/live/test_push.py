"""Pushed updates (``scoring.live.push``, ``clubsite.events``): a real Pushpin started for
the test on loopback ports, in front of the test's live server, and a real HTTP client
holding a table's event stream through it while a deal is saved."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from typing import Any

import django_grip
import pytest
from django.test import Client
from django.urls import reverse

from bench.load import free_port
from bench.pushpin import Pushpin, pushpin
from scoring.live import push
from scoring.models import Table
from tests.factories import FIRST_GAME, PASSOUT, post_deal

needs_pushpin = pytest.mark.skipif(
    shutil.which("pushpin") is None, reason="Debian's pushpin is not installed"
)


@pytest.fixture
def push_server(live_server: Any, settings: Any) -> Iterator[Pushpin]:
    """Pushpin in front of the live server, and the site publishing to it."""
    other = free_port()
    with pushpin(free_port(), free_port(), [live_server.thread.port], other=other) as server:
        settings.GRIP_URL = server.grip_url
        django_grip._pubcontrol = None  # made again from GRIP_URL by the next publish
        yield server
    django_grip._pubcontrol = None


class Stream:
    """An event stream read in a thread of its own: each event as (type, data)."""

    def __init__(self, base: str, path: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=30)
        self.connection.request("GET", path, headers={"Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        self.events: list[tuple[str, str]] = []
        self.opened = threading.Event()
        self.arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            self._read_events()
        except (OSError, ValueError, AttributeError):  # closed by the test
            return

    def _read_events(self) -> None:
        kind, data = "message", ""
        for raw in self.response:
            line = raw.decode().rstrip("\r\n")
            if line.startswith("event:"):
                kind = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                data = line.removeprefix("data:").strip()
            elif not line:
                if kind == "stream-open":
                    self.opened.set()
                with self.arrived:
                    self.events.append((kind, data))
                    self.arrived.notify_all()
                kind, data = "message", ""

    def revisions(self, count: int, timeout: float = 10) -> list[dict[str, Any]]:
        """The first ``count`` revision events (fewer if they did not come in time)."""
        with self.arrived:
            self.arrived.wait_for(lambda: len(self._revisions()) >= count, timeout=timeout)
            return self._revisions()[:count]

    def _revisions(self) -> list[dict[str, Any]]:
        return [json.loads(data) for kind, data in self.events if kind == push.EVENT]

    def close(self) -> None:
        # Shut the socket first: closing the response waits for the reading thread, which
        # would wait for Pushpin's next keep-alive (20 s).
        if self.connection.sock is not None:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


@needs_pushpin
@pytest.mark.slow
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_viewer_s_stream_hears_of_each_saved_deal_and_no_other_table_s(
    push_server, table, client, anna
):
    stream = Stream(push_server.base, reverse("events_table", args=[table.pk]))
    other = Stream(push_server.base, reverse("events_table", args=[table.pk + 1000]))
    in_play = Stream(push_server.base, reverse("events_in_play"))
    try:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type").startswith("text/event-stream")
        for each in (stream, other, in_play):
            assert each.opened.wait(10)
        post_deal(client, table, FIRST_GAME)
        post_deal(client, Table.objects.get(pk=table.pk), PASSOUT)
        heard = stream.revisions(2)
        heard_in_play = in_play.revisions(2)
        heard_by_other = other.revisions(1, timeout=0.5)
    finally:
        for each in (stream, other, in_play):
            each.close()
    revision = Table.objects.get(pk=table.pk).revision
    assert (
        heard
        == heard_in_play
        == [
            {"table": table.pk, "revision": revision - 1},
            {"table": table.pk, "revision": revision},
        ]
    )
    assert heard_by_other == []


@pytest.mark.django_db
def test_a_stream_not_held_by_the_push_server_is_told_to_stop(table):
    # Straight to an app server (no Pushpin in front, or a proxy that let it through): 204
    # makes the browser's EventSource give up, and the page polls (static/js/live.js).
    response = Client().get(reverse("events_table", args=[table.pk]))
    assert response.status_code == 204
    assert response.content == b""


@pytest.mark.django_db
def test_nothing_is_published_without_a_push_server(table, settings, monkeypatch):
    settings.GRIP_URL = ""
    sent: list[Any] = []
    monkeypatch.setattr(push, "send_event", lambda *args, **kwargs: sent.append(args))
    push.announce(table.pk, 3)
    assert sent == []
    settings.GRIP_URL = "http://127.0.0.1:1"
    push.announce(table.pk, 3)
    assert sent == [
        ("table-" + str(table.pk), "revision", {"table": table.pk, "revision": 3}),
        ("in-play", "revision", {"table": table.pk, "revision": 3}),
    ]


@pytest.mark.django_db
def test_the_live_regions_name_their_streams(table, client):
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    assert f'data-live-events="/events/tables/{table.pk}/"' in page
    assert 'hx-trigger="every 2s, live-changed"' in page
    assert "js/live.js" in page
    home = client.get(reverse("scoring:home")).content.decode()
    assert 'data-live-events="/events/in-play/"' in home
