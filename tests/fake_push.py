"""A fake web push service on 127.0.0.1 for the web push tests: it records each POST (its
path, headers and encrypted body) and answers 201 Created as a browser maker's push
service does, or the statuses it is told (410 Gone: the browser dropped the
subscription). A device for it (``Device``) holds the keys a browser would, so that a test
can decrypt what was pushed (``http_ece``, RFC 8291's aes128gcm)."""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.fake_telegram import PORTS


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass
class Push:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class FakePushService:
    """``failures``: the statuses of the next answers, one each, then 201."""

    url: str = ""
    pushes: list[Push] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)


@dataclass
class Device:
    """A browser's keys for one subscription: the ECDH pair and the auth secret."""

    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    @property
    def auth_b64(self) -> str:
        return b64url(self.auth)

    def decrypt(self, body: bytes) -> bytes:
        """What the browser reads from a push's body."""
        return bytes(
            http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        )


def _handler(service: FakePushService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            headers = {name.lower(): value for name, value in self.headers.items()}
            service.pushes.append(Push(self.path, headers, body))
            status = service.failures.pop(0) if service.failures else 201
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def serve() -> Iterator[FakePushService]:
    """Run the fake on a free port of this worktree's ``PORTS`` until closed."""
    service = FakePushService()
    for port in reversed(PORTS):  # from the top: the fake Bot API takes them from the bottom
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), _handler(service))
            break
        except OSError:
            continue
    else:
        raise RuntimeError("no free port in 8180-8189")
    service.url = f"http://127.0.0.1:{port}"
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
