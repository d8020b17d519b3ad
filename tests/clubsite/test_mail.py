"""The development mailer (clubsite/mail.py): a message printed as a person reads it."""

from __future__ import annotations

import io

from django.core.mail import EmailMessage

from clubsite.mail import ReadableConsoleBackend

LINK = "http://127.0.0.1:8001/members/password-reset/Mw/dj5qav-b32bd8d03be3e01ed6f2a03fa9e715a0/"


def test_a_russian_message_is_printed_as_written_not_as_base64() -> None:
    """Issue 30, finding 10: Django's console backend printed the reset e-mail in base64,
    so the link in the ``make run`` output could not be read."""
    body = (
        "Кто-то — надеемся, что вы, — запросил новый пароль для учётной записи anna на сайте "
        f"«Клуб «Семь пик»». Чтобы выбрать его, откройте ссылку:\n\n{LINK}\n\n— Клуб «Семь пик»\n"
    )
    message = EmailMessage(
        "Новый пароль для сайта клуба", body, '"Клуб «Семь пик»" <club@localhost>', ["a@b.example"]
    )
    stream = io.StringIO()

    sent = ReadableConsoleBackend(stream=stream).send_messages([message])

    printed = stream.getvalue()
    assert sent == 1
    assert "Content-Transfer-Encoding: 8bit" in printed
    assert "base64" not in printed
    assert "Subject: Новый пароль для сайта клуба" in printed
    assert 'From: "Клуб «Семь пик»" <club@localhost>' in printed
    assert f"\n{LINK}\n" in printed
    assert body in printed.replace("\r\n", "\n")
