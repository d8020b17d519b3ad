"""The browser tests' live server (tests/browser/conftest.py)."""

from __future__ import annotations

import threading

import pytest
from django.core.servers.basehttp import WSGIRequestHandler
from django.db import connections

from tests.browser.conftest import SharedConnectionServer


@pytest.mark.django_db
def test_a_request_ending_after_the_server_stopped_sharing_leaves_the_connection_alone() -> None:
    connection = connections["default"]  # the test's own, as pytest-django's LiveServer takes it
    if not (connection.vendor == "sqlite" and connection.is_in_memory_db()):
        pytest.skip(
            "needs the in-memory SQLite test database (make test DB=sqlite): only there does "
            "the live server share the test's connection with its threads"
        )
    # Shared with no thread, as after the module's server stopped (LiveServer.stop()).
    server = SharedConnectionServer(
        ("localhost", 0), WSGIRequestHandler, connections_override={"default": connection}
    )
    raised: list[Exception] = []

    def a_request_ends() -> None:
        connections["default"] = connection  # as the server's process_request_thread does
        try:
            server._close_connections()
        except Exception as error:  # what Django's own server raised here: DatabaseError
            raised.append(error)

    try:
        request = threading.Thread(target=a_request_ends)
        request.start()
        request.join()
    finally:
        server.server_close()

    assert raised == []
    assert connection.is_usable()
