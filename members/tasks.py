"""E-mail as background work: every message the site sends goes through the Django task
``send_email``, enqueued by ``email_later`` once the current transaction commits.

With ``TASKS`` on the built-in ``ImmediateBackend`` (clubsite/settings.py) the task runs
at once, inside the request; a database-backed worker is only a settings change, since the
task is a module-level function whose arguments are plain text (JSON, as any queue stores
them). Either way a failed send never breaks the request: the backend catches what the
task raises and ``django.tasks`` logs it at ERROR with its traceback, and a failure to
enqueue is logged here.
"""

from __future__ import annotations

import logging
from functools import partial

from django.core.mail import EmailMessage
from django.db import transaction
from django.tasks import task

logger = logging.getLogger(__name__)


@task
def send_email(*, subject: str, body: str, to: list[str]) -> None:
    """Send one plain-text message from ``DEFAULT_FROM_EMAIL`` through the default mailer.
    Raises what the mail server answers: the task backend records and logs it."""
    EmailMessage(subject, body, to=to).send(using="default")


def email_later(*, subject: str, body: str, to: list[str]) -> None:
    """Send the message as a task, after the current transaction commits (at once outside
    one): a rolled-back invitation mails nobody, and a worker never looks for rows that
    are not there yet. Newlines in the subject are joined, as mail headers need."""
    one_line = " ".join(subject.split())
    transaction.on_commit(partial(_enqueue, subject=one_line, body=body, to=to))


def _enqueue(*, subject: str, body: str, to: list[str]) -> None:
    try:
        send_email.enqueue(subject=subject, body=body, to=to)
    except Exception:
        # Reached only if the queue itself fails (a worker backend's database, say): the
        # page the member asked for still answers.
        logger.exception("Could not enqueue an e-mail to %d recipient(s)", len(to))
