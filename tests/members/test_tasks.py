"""E-mail as a Django task (members/tasks.py): sent after the transaction commits, never
when it rolls back, and a mail server that fails is logged without breaking the page."""

from __future__ import annotations

import json
import logging
import socket

import pytest
from django.core import mail
from django.db import transaction
from django.tasks import Task, task_backends
from django.test import Client
from django.urls import reverse

from members.models import Member
from members.tasks import email_later, send_email
from tests import factories
from tests.mailbox import committed, only_mail

pytestmark = pytest.mark.django_db


class Rollback(Exception):
    pass


def test_the_message_is_sent_once_the_transaction_commits() -> None:
    with committed() as callbacks, transaction.atomic():
        email_later(subject="Тема\nвторая строка", body="Текст", to=["a@club.example"])
        assert mail.outbox == []  # not before the commit

    assert len(callbacks) == 1
    message = only_mail()
    assert (message.subject, message.body, message.to) == (
        "Тема вторая строка",  # a header is one line
        "Текст",
        ["a@club.example"],
    )


def test_a_rolled_back_transaction_sends_nothing() -> None:
    with committed() as callbacks, pytest.raises(Rollback), transaction.atomic():
        email_later(subject="s", body="b", to=["a@club.example"])
        raise Rollback

    assert callbacks == []
    assert mail.outbox == []


def test_the_task_is_a_module_level_task_of_plain_json_arguments(settings: object) -> None:
    """What a queue in a database stores: the DummyBackend keeps the enqueued task instead
    of running it, so a worker backend is a change of settings only."""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    assert isinstance(send_email, Task)
    assert send_email.module_path == "members.tasks.send_email"

    with committed():
        email_later(subject="s", body="b", to=["a@club.example"])

    (result,) = task_backends["default"].results
    assert result.task.module_path == "members.tasks.send_email"
    assert json.loads(json.dumps(result.kwargs)) == {
        "subject": "s",
        "body": "b",
        "to": ["a@club.example"],
    }
    assert mail.outbox == []


def closed_port() -> int:
    """A local port nobody listens on: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def unreachable_mail_server(settings: object) -> None:
    """The real SMTP backend, pointed at a port that refuses connections."""
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": closed_port(), "timeout": 5},
        }
    }


def failed_sends(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        record
        for record in caplog.records
        if record.name == "django.tasks"
        and record.levelno == logging.ERROR
        and "members.tasks.send_email" in record.getMessage()
        and "FAILED" in record.getMessage()
    ]


def test_a_failed_reset_e_mail_is_logged_and_the_page_answers(
    client: Client, unreachable_mail_server: None, caplog: pytest.LogCaptureFixture
) -> None:
    factories.member("Анна", username="anna", email="anna@club.example")

    with committed():
        response = client.post(reverse("members:password_reset"), {"email": "anna@club.example"})

    assert response.status_code == 302
    assert response["Location"] == reverse("members:password_reset_done")
    (record,) = failed_sends(caplog)
    assert record.exc_info is not None
    assert isinstance(record.exc_info[1], ConnectionRefusedError)


def test_a_failed_invitation_is_logged_and_the_account_is_made(
    client: Client, unreachable_mail_server: None, caplog: pytest.LogCaptureFixture
) -> None:
    client.force_login(factories.member("Ольга", username="olga", organiser=True))

    with committed():
        response = client.post(
            reverse("members:invite"), {"username": "mila", "email": "mila@club.example"}
        )

    assert response.status_code == 302
    assert Member.objects.filter(username="mila").exists()
    assert len(failed_sends(caplog)) == 1
