"""Pushpin (Debian's ``pushpin``), the push server in front of the app servers: its
configuration for one run, and the server started as a child process on loopback ports.

The layout is docs/deploy.md's: nginx sends ``/events/`` to Pushpin, Pushpin proxies each
such request to an app server, which answers at once with GRIP instructions (hold this
stream, on these channels: django-eventstream), and the connection is Pushpin's from then
on; the app servers publish to Pushpin's publish port (``GRIP_URL``) when a table's revision
moves. The load run and the push tests start it with this module."""

from __future__ import annotations

import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.load import free_port

PUSHPIN_CONF = """\
# Pushpin for one run, every socket on the loopback or in this folder (docs/deploy-by-hand.md has
# the production file: the same but the folders and ports).
[global]
include={{libdir}}/internal.conf
rundir={folder}/run
ipc_prefix=pushpin-
port_offset=0
stats_connection_ttl=120

[runner]
# condure holds the clients' connections, zurl makes Pushpin's requests to the app servers.
services=condure,zurl,pushpin-proxy,pushpin-handler
http_port=127.0.0.1:{port}
logdir={folder}/log
log_level=2
client_buffer_size=8192
client_maxconn=50000
condure_bin=condure
zurl_bin=zurl

[proxy]
routesfile={folder}/routes
# The app servers trust a request signed with this key (GRIP_URL's key).
sig_iss=pushpin
sig_key={key}
updates_check=off
# Debian's internal.conf looks for zurl in /var/run/zurl: the runner's own is in rundir.
zurl_out_specs=ipc://{{rundir}}/{{ipc_prefix}}zurl-in
zurl_out_stream_specs=ipc://{{rundir}}/{{ipc_prefix}}zurl-in-stream
zurl_in_specs=ipc://{{rundir}}/{{ipc_prefix}}zurl-out

[handler]
push_in_spec=tcp://127.0.0.1:{push_in}
push_in_sub_specs=tcp://127.0.0.1:{push_in_sub}
push_in_sub_connect=false
# The publish port the app servers post to (GRIP_URL).
push_in_http_addr=127.0.0.1
push_in_http_port={publish}
command_spec=tcp://127.0.0.1:{command}
stats_spec=ipc://{{rundir}}/{{ipc_prefix}}stats
message_rate=10000
message_hwm=100000
"""


@dataclass(frozen=True)
class Pushpin:
    base: str
    """Where clients (or nginx) connect."""
    grip_url: str
    """What the app servers publish to and verify Pushpin's signature with (GRIP_URL)."""


def free_run(avoid: set[int]) -> int:
    """A free port whose two next ports are free too and not in ``avoid`` (ports already
    chosen): Pushpin's internal ones are three in a row (``pushpin``'s ``other``), and a
    busy one of them stops it from starting."""
    while True:
        base = free_port()
        if avoid & {base, base + 1, base + 2}:
            continue
        try:
            for port in (base + 1, base + 2):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base


def routes(upstreams: list[int]) -> str:
    """Every request to the app servers, tried in turn."""
    return "* " + " ".join(f"127.0.0.1:{port}" for port in upstreams) + "\n"


@contextmanager
def pushpin(port: int, publish: int, upstreams: list[int], *, other: int) -> Iterator[Pushpin]:
    """Pushpin listening on ``port``, publishing on ``publish``, in front of ``upstreams``;
    ``other`` and the two ports after it are its internal ones. A child process with its
    configuration, sockets and logs in a temporary folder, stopped when the block ends."""
    binary = shutil.which("pushpin") or "/usr/bin/pushpin"
    if not Path(binary).exists():
        raise RuntimeError("pushpin is not installed (apt-get install pushpin)")
    folder = Path(tempfile.mkdtemp(prefix="clubsite-pushpin-"))
    (folder / "run").mkdir()
    (folder / "log").mkdir()
    key = secrets.token_hex(16)
    config = folder / "pushpin.conf"
    config.write_text(
        PUSHPIN_CONF.format(
            folder=folder,
            port=port,
            key=key,
            publish=publish,
            push_in=other,
            push_in_sub=other + 1,
            command=other + 2,
        )
    )
    (folder / "routes").write_text(routes(upstreams))
    log = folder / "pushpin.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [binary, "--config", str(config), "--merge-output"],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        _wait_for_publish(publish, process, log)
        _wait_for_proxy(port, process, log)
        yield Pushpin(
            base=f"http://127.0.0.1:{port}",
            grip_url=f"http://127.0.0.1:{publish}?key={key}&verify-iss=pushpin",
        )
    finally:
        process.send_signal(signal.SIGTERM)  # the runner stops its services with it
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)


def _wait_for_publish(publish: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Back when Pushpin's publish port answers (20 s at most)."""
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{publish}/", timeout=1).read()
            return
        except urllib.error.HTTPError:
            return  # it answers (404 for a GET of the root)
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"pushpin did not start: {log.read_text()}") from None
            time.sleep(0.2)
    raise RuntimeError(f"pushpin did not answer: {log.read_text()}")


def _wait_for_proxy(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Back when a request to Pushpin's client port gets an answer, whatever it is (the
    app server's, or 502 while none is up): the publish port answering does not mean the
    proxy behind the client port has its routes yet, and a stream asked for before then
    once waited 30 s for nothing (a push test in CI, at load). 20 s at most."""
    for _ in range(20):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"pushpin did not start: {log.read_text()}") from None
            time.sleep(0.2)
    raise RuntimeError(f"pushpin's proxy did not answer: {log.read_text()}")
