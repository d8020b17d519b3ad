"""E-mail as background work: every message the site sends goes through the Django task
``send_email``, enqueued by ``email_later`` once the current transaction commits.

With ``TASKS`` on the built-in ``ImmediateBackend`` (clubsite/settings.py) the task runs
at once, inside the request; a database-backed worker is only a settings change, since the
task is a module-level function whose arguments are plain text (JSON, as any queue stores
them; an attachment's bytes as base64). Either way a failed send never breaks the request:
under the worker it is logged as a warning and tried again later (``again_later``,
``SEND_RETRIES``); at the last try, or at once under the immediate backend, the task
fails, and ``django.tasks`` logs it at ERROR with its traceback. A failure to enqueue is
logged here.
"""

from __future__ import annotations

import base64
import logging
from datetime import timedelta
from email.headerregistry import Address
from email.utils import parseaddr
from functools import partial
from typing import Any, TypedDict

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.tasks import Task, task
from django.utils import timezone

logger = logging.getLogger(__name__)

SEND_RETRIES = (timedelta(minutes=1), timedelta(minutes=10))
"""How long the worker waits before each further try of a send that failed (a mail server
or the Telegram Bot API down for a moment); after the last, the task is recorded as
failed."""


class Attachment(TypedDict):
    """A file sent with an e-mail, as a task's JSON argument carries it."""

    filename: str
    content: str  # base64
    mimetype: str


def attachment(filename: str, content: bytes, mimetype: str) -> Attachment:
    """``content`` made fit for a task's arguments."""
    return {
        "filename": filename,
        "content": base64.b64encode(content).decode("ascii"),
        "mimetype": mimetype,
    }


def from_address(sender: str) -> str:
    """``DEFAULT_FROM_EMAIL`` under the name ``sender`` (the club's, as its pages show it:
    «"Клуб «Семь пик»" <club@example.org>»), or as it is when it names itself already
    (``DJANGO_DEFAULT_FROM_EMAIL="Клуб <club@club.example>"``) or no name is given."""
    address: str = settings.DEFAULT_FROM_EMAIL
    named, bare = parseaddr(address)
    if named or not sender or not bare:
        return address
    return str(Address(sender, addr_spec=bare))


@task
def send_email(
    *,
    subject: str,
    body: str,
    to: list[str],
    attachments: list[Attachment] | None = None,
    sender: str = "",
    attempt: int = 1,
) -> str:
    """Send one plain-text message from ``DEFAULT_FROM_EMAIL``, named ``sender`` (the
    club), through the default mailer. A failed send is tried again later
    (``again_later``)."""
    message = EmailMessage(subject, body, from_address(sender), to=to)
    for item in attachments or []:
        message.attach(item["filename"], base64.b64decode(item["content"]), item["mimetype"])
    try:
        message.send(using="default")
    except Exception as error:  # whatever the mail server or its connection answers
        return again_later(
            send_email,
            error,
            attempt=attempt,
            what=f"an e-mail to {len(to)} recipient(s)",
            subject=subject,
            body=body,
            to=to,
            **({"attachments": attachments} if attachments else {}),
            **({"sender": sender} if sender else {}),
        )
    return "sent"


def again_later(
    retried: Task[Any, Any], error: Exception, *, attempt: int, what: str, **kwargs: Any
) -> str:
    """Called by a sending task whose try ``attempt`` failed with ``error``: enqueue the
    task again (the same ``kwargs``) after the next delay of ``SEND_RETRIES``, and log a
    warning. After the last try, or under a backend that cannot run a task later (the
    immediate one), re-raise ``error``: the task fails and ``django.tasks`` logs it."""
    logger.warning("Could not send %s (try %d): %s", what, attempt, error, exc_info=error)
    if attempt > len(SEND_RETRIES) or not retried.get_backend().supports_defer:
        raise error
    delay = SEND_RETRIES[attempt - 1]
    retry = retried.using(run_after=timezone.now() + delay).enqueue(attempt=attempt + 1, **kwargs)
    logger.warning("Trying %s again in %s as task %s", what, delay, retry.id)
    return f"failed; tried again as task {retry.id}"


def email_later(*, subject: str, body: str, to: list[str], sender: str = "") -> None:
    """Send the message as a task, after the current transaction commits (at once outside
    one): a rolled-back invitation mails nobody, and a worker never looks for rows that
    are not there yet. Newlines in the subject are joined, as mail headers need."""
    one_line = " ".join(subject.split())
    named = {"sender": sender} if sender else {}
    transaction.on_commit(
        partial(enqueue_logged, send_email, subject=one_line, body=body, to=to, **named)
    )


def enqueue_logged(queued: Task[Any, Any], **kwargs: Any) -> None:
    """Enqueue ``queued``, logging (not raising) a failure: called after a commit, where
    the page the member asked for must still answer."""
    try:
        queued.enqueue(**kwargs)
    except Exception:
        # Reached only if the queue itself fails (a worker backend's database, say).
        logger.exception("Could not enqueue the task %s", queued.module_path)
