"""How the runs wait for a server they started (bench/load.py's ``wait_until_answering``):
the load runs for their gunicorns and nginx, the deploy check for its image's /healthz."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.load import free_port, wait_until_answering

# A server answering every GET with a 503 after a moment, as /healthz does with its
# database down: an answer, which the caller reads.
ANSWERS_503 = """
import http.server, sys, time
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(503)
        self.end_headers()
time.sleep(0.5)
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
"""


def test_an_error_status_is_an_answer() -> None:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", ANSWERS_503, str(port)])
    try:
        wait_until_answering(f"http://127.0.0.1:{port}", server, "server", path="/healthz")
        assert server.poll() is None
    finally:
        server.kill()
        server.wait()


def test_a_server_that_ends_is_reported_with_its_log(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("Address already in use\n")
    server = subprocess.Popen([sys.executable, "-c", "pass"])
    server.wait()

    with pytest.raises(RuntimeError, match="server did not start: Address already in use"):
        wait_until_answering(f"http://127.0.0.1:{free_port()}", server, "server", log)


def test_a_server_that_never_answers_is_given_up_on() -> None:
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with pytest.raises(RuntimeError, match="server did not answer /healthz in 1 s"):
            wait_until_answering(
                f"http://127.0.0.1:{free_port()}", server, "server", path="/healthz", seconds=1
            )
    finally:
        server.kill()
        server.wait()
