"""The Telegram Bot API, as far as the club needs it: post a message or a picture to the
club's chat (``TELEGRAM_BOT_TOKEN``, ``TELEGRAM_CHAT_ID``; docs/operations.md, Telegram).

Plain HTTPS through the standard library (``urllib``): two methods of the API, each one
POST whose answer is ``{"ok": true, "result": …}``, need no client library. The token is
part of every URL, so no URL is ever logged or put in an error's message: the token goes
into the URL percent-encoded (one with a space or a slash pasted in by mistake still makes
a well-formed URL, which the API refuses, rather than an ``InvalidURL`` error quoting it),
and an error's message has any trace of the token replaced (``_without_token``).

The callers are tasks (``scoring.services.notifications``), which try a failed call again
later when ``TelegramError.retry`` says it may help.
"""

from __future__ import annotations

import http.client
import json
import secrets
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from django.conf import settings
from django.core import checks

CAPTION_LIMIT = 1024
"""The longest caption of a picture the API takes, in characters."""

TEXT_LIMIT = 4096
"""The longest message text the API takes, in characters."""


class TelegramError(Exception):
    """A call that failed. ``retry``: whether the same call may work later (the server
    or the network failed, or the API asked to slow down) rather than never (a wrong
    token or chat, a message the API refuses)."""

    def __init__(self, message: str, *, retry: bool) -> None:
        super().__init__(message)
        self.retry = retry


def configured() -> bool:
    """Whether the club has a bot and a chat to post to."""
    return bool(settings.TELEGRAM_BOT_TOKEN and settings.TELEGRAM_CHAT_ID)


def check_settings(**kwargs: object) -> list[checks.CheckMessage]:
    """A system check: a token without a chat (or a chat without a token) posts nothing,
    silently, which is surely not what whoever set one meant."""
    if bool(settings.TELEGRAM_BOT_TOKEN) == bool(settings.TELEGRAM_CHAT_ID):
        return []
    missing = "TELEGRAM_CHAT_ID" if settings.TELEGRAM_BOT_TOKEN else "TELEGRAM_BOT_TOKEN"
    return [
        checks.Warning(
            f"{missing} is not set, so nothing is posted to the club's Telegram chat",
            hint="set both TELEGRAM_BOT_TOKEN and TELEGRAM_CHAT_ID, or neither "
            "(docs/operations.md, Telegram)",
            id="scoring.W002",
        )
    ]


def send_message(text: str, *, chat_id: int | str | None = None) -> Any:
    """Post ``text`` (at most ``TEXT_LIMIT`` characters, plain text) to the club's chat, or
    to ``chat_id``: a member's own chat with the bot."""
    return _call("sendMessage", {"text": text}, chat_id=chat_id)


def linking_configured() -> bool:
    """Whether members can link their own chat: a bot, its username for the link, and the
    webhook's secret (docs/operations.md, Telegram)."""
    return bool(
        settings.TELEGRAM_BOT_TOKEN
        and settings.TELEGRAM_BOT_USERNAME
        and settings.TELEGRAM_WEBHOOK_SECRET
    )


def start_link(token: str) -> str:
    """The link that opens a chat with the bot and sends it ``/start <token>``."""
    return f"https://t.me/{urllib.parse.quote(settings.TELEGRAM_BOT_USERNAME)}?start={token}"


def send_photo(png: bytes, caption: str) -> Any:
    """Post the picture ``png`` with ``caption`` (plain text, at most ``CAPTION_LIMIT``)."""
    return _call("sendPhoto", {"caption": caption}, photo=png)


def _call(
    method: str,
    fields: dict[str, str],
    *,
    photo: bytes | None = None,
    chat_id: int | str | None = None,
) -> Any:
    """POST ``method`` with ``fields`` (and ``photo`` as a file) to the club's chat (or
    ``chat_id``); the API's ``result``, or ``TelegramError``."""
    chat = settings.TELEGRAM_CHAT_ID if chat_id is None else str(chat_id)
    fields = {"chat_id": chat, **fields}
    if photo is None:
        body = urllib.parse.urlencode(fields).encode()
        content_type = "application/x-www-form-urlencoded"
    else:
        body, content_type = _multipart(fields, photo)
    token = urllib.parse.quote(settings.TELEGRAM_BOT_TOKEN, safe=":")
    url = f"{settings.TELEGRAM_API_URL}/bot{token}/{method}"
    request = urllib.request.Request(  # noqa: S310 - the configured https URL
        url, data=body, headers={"Content-Type": content_type}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=settings.TELEGRAM_TIMEOUT) as response:  # noqa: S310
            answer = json.load(response)
    except urllib.error.HTTPError as error:
        raise _refused(method, error) from None
    except (OSError, http.client.HTTPException, ValueError) as error:
        # No answer, a broken one, or a timeout (URLError and socket errors are OSErrors;
        # a connection closed mid-answer is an HTTPException; bad JSON a ValueError).
        message = _without_token(f"{method}: {type(error).__name__}: {error}")
        raise TelegramError(message, retry=True) from None
    if not isinstance(answer, dict) or answer.get("ok") is not True:
        raise TelegramError(f"{method}: the API answered {str(answer)[:200]}", retry=False)
    return answer.get("result")


def _refused(method: str, error: urllib.error.HTTPError) -> TelegramError:
    """The error for an HTTP error status: 429 (too many requests) and 5xx may pass."""
    try:
        description = json.load(error).get("description", "")
    except (OSError, ValueError, AttributeError):
        description = ""
    retry = error.code == 429 or error.code >= 500
    message = _without_token(f"{method}: HTTP {error.code} {description}".strip())
    return TelegramError(message, retry=retry)


def _without_token(message: str) -> str:
    """``message`` with the token, as configured and as the URL carries it, blanked: the
    message is logged and kept in the task's row."""
    token = settings.TELEGRAM_BOT_TOKEN
    for form in {token, urllib.parse.quote(token, safe=":"), token.strip()} - {""}:
        message = message.replace(form, "<token>")
    return message


def _multipart(fields: dict[str, str], photo: bytes) -> tuple[bytes, str]:
    """``fields`` and the picture as ``multipart/form-data`` (the API takes a file only
    so)."""
    boundary = secrets.token_hex(16)
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; '
        'filename="sheet.png"\r\nContent-Type: image/png\r\n\r\n'.encode()
        + photo
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"
