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
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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


READY_PATH = "/.pushpin-ready"
"""Held by ``_HoldEvery`` while Pushpin starts: a stream through it opens once Pushpin can
hold streams."""


def routes(upstreams: list[int], ready: int) -> str:
    """Every request to the app servers, tried in turn; ``READY_PATH`` to port ``ready``."""
    servers = " ".join(f"127.0.0.1:{port}" for port in upstreams)
    return f"*,path_beg={READY_PATH} 127.0.0.1:{ready}\n* {servers}\n"


class _HoldEvery(BaseHTTPRequestHandler):
    """An origin that answers every request with a GRIP hold, as the site's streams do."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Grip-Hold", "stream")
        self.send_header("Grip-Channel", "ready")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


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
    holder = ThreadingHTTPServer(("127.0.0.1", 0), _HoldEvery)
    threading.Thread(target=holder.serve_forever, daemon=True).start()
    (folder / "routes").write_text(routes(upstreams, holder.server_address[1]))
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
        _wait_for_streams(port, process, log)
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
        holder.shutdown()
        holder.server_close()
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


def _wait_for_streams(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Back when a stream through Pushpin's client port opens (``READY_PATH``): the publish
    port answering does not mean the proxy has its routes yet (a stream asked for before
    then once waited 30 s for nothing, in CI at load), and the proxy answering does not
    mean it can hand a held stream to the handler yet (500 "Accept service unavailable.":
    the first stream of a push test, one run in fourteen). About 20 s at most."""
    for _ in range(100):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{READY_PATH}", timeout=1):
                return
        except OSError:  # refused, timed out, or an HTTPError: not ready yet
            if process.poll() is not None:
                raise RuntimeError(f"pushpin did not start: {log.read_text()}") from None
            time.sleep(0.2)
    raise RuntimeError(f"pushpin did not hold a stream: {log.read_text()}")
