"""Reading what the site e-mailed (``django.core.mail.outbox``: the test run's locmem
mailer) and running the e-mail tasks the way a committed request would."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.core import mail
from django.test import TestCase

LINK = re.compile(r"http://testserver(/members/password-reset/[^/\s]+/[^/\s]+/)")
NEW_PASSWORD = "Rospis-Pulki-2026"  # noqa: S105 - passes every password validator
"""A password the set-password forms accept (``PASSWORD`` of the factories is too short)."""


@contextmanager
def committed() -> Iterator[list[Callable[[], object]]]:
    """Runs what the block leaves for after its transaction commits (``email_later``
    enqueues the e-mail task there), as a real request's commit would; a test's own
    transaction never commits."""
    with TestCase.captureOnCommitCallbacks(execute=True) as callbacks:
        yield callbacks


def only_mail() -> mail.EmailMessage:
    """The one message sent; fails if there are none or several."""
    assert len(mail.outbox) == 1, [message.subject for message in mail.outbox]
    return mail.outbox[0]


def password_link(message: mail.EmailMessage) -> str:
    """The path of the set-password link in ``message`` (there must be exactly one)."""
    links = LINK.findall(message.body)
    assert len(links) == 1, message.body
    return str(links[0])
