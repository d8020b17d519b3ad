"""The Telegram settings' system check (scoring/telegram.py): half a configuration posts
nothing, so it is warned about."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from django.core import checks

from scoring import telegram


@pytest.mark.parametrize(("token", "chat"), [("", ""), ("1:x", "-100")])
def test_both_or_neither_is_fine(settings: Any, token: str, chat: str) -> None:
    settings.TELEGRAM_BOT_TOKEN, settings.TELEGRAM_CHAT_ID = token, chat
    assert telegram.check_settings() == []


@pytest.mark.parametrize(
    ("token", "chat", "missing"),
    [("1:x", "", "TELEGRAM_CHAT_ID"), ("", "-100", "TELEGRAM_BOT_TOKEN")],
)
def test_half_a_configuration_is_warned_about(
    settings: Any, token: str, chat: str, missing: str
) -> None:
    settings.TELEGRAM_BOT_TOKEN, settings.TELEGRAM_CHAT_ID = token, chat
    (warning,) = telegram.check_settings()
    assert warning.id == "scoring.W002"
    assert warning.msg.startswith(f"{missing} is not set")


def test_the_check_is_registered() -> None:
    assert telegram.check_settings in checks.registry.registry.get_checks()


@pytest.mark.parametrize("token", ["123456:AA bb", "123456:AA/bb", "123456:AA\nbb"])
def test_a_mistyped_token_is_not_in_the_error(settings: Any, token: str) -> None:
    """A token pasted with a space made an invalid URL, and urllib's error quoted the URL,
    token and all, into the message that is logged and kept in the task's row."""
    with socket.socket() as probe:  # a local port nobody listens on: refused at once
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.TELEGRAM_BOT_TOKEN, settings.TELEGRAM_CHAT_ID = token, "-100"
    settings.TELEGRAM_API_URL = f"http://127.0.0.1:{port}"

    with pytest.raises(telegram.TelegramError) as raised:
        telegram.send_message("Стол 1 закончен")

    assert "AA" not in str(raised.value)
    assert "bb" not in str(raised.value)
    assert raised.value.retry
