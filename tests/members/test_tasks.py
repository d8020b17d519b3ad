"""E-mail as a Django task (members/tasks.py): sent after the transaction commits, never
when it rolls back, and a mail server that fails is logged without breaking the page."""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.core import mail
from django.db import connection, transaction
from django.tasks import Task, task_backends
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from members.models import Member
from members.tasks import email_later, send_email
from tests import factories
from tests.mailbox import committed, only_mail, password_link

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
    """The failed sends of password links (``members.services.send_password_link``)."""
    return [
        record
        for record in caplog.records
        if record.name == "django.tasks"
        and record.levelno == logging.ERROR
        and "members.services.send_password_link" in record.getMessage()
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


# -- password links: made by the task, never stored in its row --------------------------------


def queued(settings: Any) -> list[Any]:
    """Switch to the DummyBackend, which keeps what is enqueued without running it; the
    list it keeps (each result's task and JSON arguments, as a database row holds them)."""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    results: list[Any] = task_backends["default"].results
    return results


def test_no_password_link_is_stored_in_a_task_row(client: Client, settings: Any) -> None:
    """Reset and invitation links were rendered into the e-mail task's arguments: with
    DJANGO_TASKS=database every row held a working link until pruned (144 in a test
    database), and every pg_dump carried them. The rows hold the member's id; the task
    makes the link when it sends."""
    anna = factories.member("Анна", username="anna", email="anna@club.example")
    olga = factories.member("Ольга", username="olga", organiser=True)
    client.force_login(olga)
    results = queued(settings)

    with committed():
        client.post(reverse("members:invite"), {"username": "mila", "email": "mila@club.example"})
        client.post(reverse("members:password_reset"), {"email": "anna@club.example"})

    mila = Member.objects.get(username="mila")
    stored = json.dumps([result.kwargs for result in results], ensure_ascii=False)
    for member in (anna, mila):
        assert default_token_generator.make_token(member) not in stored
    assert "password-reset/" not in stored
    assert [result.task.module_path for result in results] == [
        "members.services.send_password_link",
        "members.services.send_password_reset",
    ]

    # Run as the worker would, the tasks mail working links.
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    for result in results:
        result.task.call(**json.loads(json.dumps(result.kwargs)))
    assert sorted(message.to[0] for message in mail.outbox) == [
        "anna@club.example",
        "mila@club.example",
    ]
    for message in mail.outbox:
        assert Client().get(password_link(message)).status_code == 302  # a working link


def test_a_reset_asks_the_same_of_the_request_for_any_address(
    client: Client, settings: Any
) -> None:
    """A member's address was answered in 11–14 ms and a stranger's in 4–8 ms (the
    member's link was rendered and its task stored in the request): one timed request
    told them apart 72 % of the time. Now each enqueues one task of the same arguments
    and reads no member."""
    factories.member("Анна", username="anna", email="anna@club.example")
    results = queued(settings)
    counts = []

    for address in ("anna@club.example", "nobody@club.example"):
        with committed(), CaptureQueriesContext(connection) as queries:
            response = client.post(reverse("members:password_reset"), {"email": address})
        assert response.status_code == 302
        counts.append(len(queries))

    assert counts[0] == counts[1]
    assert [(r.task.module_path, sorted(r.kwargs)) for r in results] == [
        ("members.services.send_password_reset", ["domain", "email", "language", "use_https"])
    ] * 2
    assert mail.outbox == []
