"""The ports the runs give their servers (bench/load.py, bench/push_load.py)."""

from __future__ import annotations

import socket

from bench.load import FIRST_PORT, _outgoing_ports_start, free_port
from bench.push_load import _ports


def test_a_free_port_is_one_no_outgoing_connection_can_take() -> None:
    ports = [free_port() for _ in range(50)]

    assert all(FIRST_PORT <= port < _outgoing_ports_start() for port in ports)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", ports[0]))


def test_the_push_runs_ports_are_apart_and_pushpins_three_in_a_row_free() -> None:
    *servers, internal = _ports(0)

    assert len(set(servers)) == 5
    assert not set(servers) & {internal, internal + 1, internal + 2}
    for port in (internal, internal + 1, internal + 2):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", port))


def test_a_first_port_given_is_used_as_it_is() -> None:
    assert list(_ports(20_000)) == [20_000, 20_001, 20_002, 20_003, 20_004, 20_005]
