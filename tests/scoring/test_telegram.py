"""The Telegram settings' system check (scoring/telegram.py): half a configuration posts
nothing, so it is warned about."""

from __future__ import annotations

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
