"""A fake Telegram Bot API on 127.0.0.1 for the notification tests: a small threaded HTTP
server that records each request (its method, its form fields, the uploaded photo) and
answers as the Bot API does (``{"ok": true, "result": …}``), or fails as told: an HTTP
error status with the API's error document, or a connection closed with no answer."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

PORTS = range(8180, 8190)
SLOW = 2.0
"""This worktree's ports (a test server listens on one of them, on loopback only)."""


@dataclass
class Call:
    path: str
    fields: dict[str, str]
    photo: bytes | None


@dataclass
class FakeBotApi:
    """``failures``: how to answer the next requests, one item each (an HTTP status such
    as 500, ``"close"`` the connection unanswered, or ``"slow"``: answer after
    ``SLOW`` seconds, past the client's timeout), then success."""

    url: str = ""
    calls: list[Call] = field(default_factory=list)
    failures: list[int | str] = field(default_factory=list)

    def methods(self) -> list[str]:
        return [call.path.rsplit("/", 1)[-1] for call in self.calls]


def _parse(content_type: str, body: bytes) -> tuple[dict[str, str], bytes | None]:
    if content_type.startswith("application/x-www-form-urlencoded"):
        return {k: v[0] for k, v in parse_qs(body.decode()).items()}, None
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    fields: dict[str, str] = {}
    photo = None
    for part in message.iter_parts():  # type: ignore[attr-defined]
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if name == "photo":
            photo = payload
        else:
            fields[name] = payload.decode()
    return fields, photo


def _handler(api: FakeBotApi) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            fields, photo = _parse(self.headers.get("Content-Type", ""), body)
            api.calls.append(Call(self.path, fields, photo))
            failure = api.failures.pop(0) if api.failures else None
            if failure == "slow":
                time.sleep(SLOW)
            elif failure == "close":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            elif failure is not None:
                self._answer(
                    int(failure), {"ok": False, "error_code": failure, "description": "Bad"}
                )
                return
            self._answer(200, {"ok": True, "result": {"message_id": len(api.calls)}})

        def _answer(self, status: int, document: dict[str, Any]) -> None:
            data = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            try:
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # a client that gave up waiting ("slow") has gone
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def serve() -> Iterator[FakeBotApi]:
    """Run the fake on the first free port of ``PORTS`` until the generator is closed."""
    api = FakeBotApi()
    for port in PORTS:
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), _handler(api))
            break
        except OSError:
            continue
    else:
        raise RuntimeError("no free port in 8180-8189")
    api.url = f"http://127.0.0.1:{port}"
    # Checked for shutdown every 10 ms, not the default 0.5 s: each test that stops the
    # fake waited that long (15 s across the notification tests).
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
