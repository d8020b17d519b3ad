"""The development mailer: every message written to the console as a person reads it.

Django's console backend prints a message as it would go over the wire, and a Russian
body goes as base64 (Python's heuristic picks it for Cyrillic lines longer than 78
characters), so a password link in the ``make run`` output could not be read or copied.
This one prints the same message with its text in 8 bits and its headers in UTF-8: the
body, the subject and the link as they were written.
"""

from __future__ import annotations

import email.policy
from typing import Any

from django.core.mail.backends.console import EmailBackend

READABLE = email.policy.default.clone(utf8=True, max_line_length=998, cte_type="8bit")
"""A policy that keeps text as it is: UTF-8 headers, and lines up to RFC 5322's 998
characters in 8 bits rather than base64 or quoted-printable."""


class ReadableConsoleBackend(EmailBackend):
    """Django's console backend, the message printed readable (see the module)."""

    def write_message(self, message: Any) -> None:
        text = message.message(policy=READABLE).as_bytes().decode("utf-8", "replace")
        self.stream.write(f"{text}\n")
        self.stream.write("-" * 79)
        self.stream.write("\n")
