"""Reminders and a member's own messages (docs/evenings.md, "Reminders and messages"): the
day-before reminder of an evening he answered, his table finished, a seat found for him
off the waiting list, the evening's summary; by e-mail, by his own Telegram chat with the
club's bot, and by web push to each device he subscribed. Each is his choice
(``Member.wants``).

**Never twice.** Each message is a ``Notice`` row, one per (member, message, event,
channel) under a unique constraint, written in the same transaction as the enqueue of the
task that sends it (``notice_send``). A second run of ``manage.py send_reminders``, a
retried task, or two workers at once meet the first one's row (PostgreSQL makes the second
insert wait for the first transaction, then refuses it) and enqueue nothing. Under the
database task backend the task and the row commit together or not at all.

The sending tasks (``telegram_message``, ``push_message``; e-mail is ``send_email``) are
retried on their own as the club's chat posts are (``again_later``). A device whose push
service answers 404 or 410 has gone (the browser dropped the subscription): its row is
deleted and nothing is tried again.

The texts are in the site's language (``LANGUAGE_CODE``): a worker has no request.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core import signing
from django.db import IntegrityError, transaction
from django.tasks import task
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from members.models import CHANNELS, Member, PushSubscription
from members.tasks import again_later, send_email
from scoring import telegram
from scoring.engine.errors import RuleError
from scoring.engine.ledger import evening_ledger
from scoring.models import Club, Evening, EveningAnswer, Notice, Table
from scoring.selectors import calendar as calendar_selectors

logger = logging.getLogger(__name__)

ANSWER_SALT = "scoring.evening-answer"
"""The salt of the signed answer links in a reminder (``answer_token``)."""

ANSWER_LINK_DAYS = 14
"""How long an answer link works (an evening also refuses answers once it is over)."""


@dataclass(frozen=True)
class Message:
    """One message as every channel says it: ``subject`` (the e-mail's subject, the push
    notification's title), ``text`` (the Telegram message, the notification's body and the
    e-mail's first lines) and ``url`` (the page it is about)."""

    subject: str
    text: str
    url: str


def webpush_configured() -> bool:
    """Whether web push is on: the VAPID key pair and the contact are all set."""
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY and settings.VAPID_SUBJECT)


def telegram_linking_configured() -> bool:
    """Whether members can link their own Telegram chat (``telegram.linking_configured``)."""
    return telegram.linking_configured()


def site_url(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def _reaches(member: Member, kind: str, channel: str) -> bool:
    if channel == "telegram" and not settings.TELEGRAM_BOT_TOKEN:
        return False
    if channel == "push" and not webpush_configured():
        return False
    return member.wants(kind, channel)


def notice_send(
    *,
    member: Member,
    kind: str,
    key: str,
    message: Message,
    channels: Iterable[str] = CHANNELS,
) -> list[str]:
    """Send ``message`` (about ``key``, as ``kind``) to ``member`` by each of ``channels``
    he wants it by, unless it went out already; the channels it is sent by now. Each is
    its ``Notice`` row and its task(s), in a savepoint of the caller's transaction."""
    sent = []
    for channel in channels:
        if not _reaches(member, kind, channel):
            continue
        subscriptions = list(member.push_subscriptions.all()) if channel == "push" else []
        if channel == "push" and not subscriptions:
            continue
        try:
            with transaction.atomic():
                Notice.objects.create(member=member, kind=kind, key=key, channel=channel)
                _enqueue(member, channel, message, subscriptions)
        except IntegrityError:
            continue  # sent already (or being sent by a transaction that has just committed)
        sent.append(channel)
    return sent


def _enqueue(
    member: Member, channel: str, message: Message, subscriptions: list[PushSubscription]
) -> None:
    if channel == "email":
        club = Club.shown(settings.LANGUAGE_CODE).name
        footer = _(
            "You get this message because you asked for it. To stop it, turn it off in "
            "your settings on the site: %(url)s"
        ) % {"url": site_url(reverse("members:settings"))}
        body = f"{message.text}\n\n{message.url}\n\n{footer}\n\n— {club}\n"
        send_email.enqueue(
            subject=" ".join(message.subject.split()), body=body, to=[member.email], sender=club
        )
    elif channel == "telegram":
        assert member.telegram_chat_id is not None  # noqa: S101 - member.wants checked it
        # The summary ends with its link already; another message gets it on a line below.
        ends = message.text.rstrip().endswith(message.url)
        text = message.text if ends else f"{message.text}\n{message.url}"
        text = text[: telegram.TEXT_LIMIT]
        telegram_message.enqueue(chat_id=member.telegram_chat_id, text=text)
    else:
        for subscription in subscriptions:
            push_message.enqueue(
                subscription_id=subscription.pk,
                title=message.subject,
                text=message.text,
                url=message.url,
            )


@task
def telegram_message(*, chat_id: int, text: str, attempt: int = 1) -> str:
    """Send ``text`` to a member's own chat with the bot. A failure that may pass is tried
    again later; one that will not (he blocked the bot, say) fails the task at once."""
    try:
        telegram.send_message(text, chat_id=chat_id)
    except telegram.TelegramError as error:
        if not error.retry:
            raise
        return again_later(
            telegram_message,
            error,
            attempt=attempt,
            what="a Telegram message",
            chat_id=chat_id,
            text=text,
        )
    return "sent"


@task
def push_message(*, subscription_id: int, title: str, text: str, url: str, attempt: int = 1) -> str:
    """Push the notification (``title``, ``text``, opening ``url`` when tapped) to one
    device, encrypted for it (``pywebpush``, signed with the club's VAPID key). A device
    gone (404, 410) is deleted; another failure is tried again later."""
    from pywebpush import WebPushException, webpush  # its import costs every process 0.1 s

    subscription = PushSubscription.objects.filter(pk=subscription_id).first()
    if subscription is None:
        return "the device was unsubscribed"
    payload = json.dumps({"title": title, "body": text, "url": url}, ensure_ascii=False)
    try:
        webpush(
            subscription_info=subscription.as_info(),
            data=payload,
            vapid_private_key=settings.VAPID_PRIVATE_KEY,
            vapid_claims={"sub": settings.VAPID_SUBJECT},
            timeout=settings.WEBPUSH_TIMEOUT,
            ttl=24 * 60 * 60,
        )
    except WebPushException as error:
        status = getattr(error.response, "status_code", None)
        if status in (404, 410):
            subscription.delete()
            logger.info("Web push: device %s is gone (%s), deleted", subscription_id, status)
            return "gone: deleted"
        return again_later(
            push_message,
            error,
            attempt=attempt,
            what="a web push",
            subscription_id=subscription_id,
            title=title,
            text=text,
            url=url,
        )
    except OSError as error:  # requests' connection errors are OSErrors
        return again_later(
            push_message,
            error,
            attempt=attempt,
            what="a web push",
            subscription_id=subscription_id,
            title=title,
            text=text,
            url=url,
        )
    return "pushed"


# -- what each message says -----------------------------------------------------------------


def _when(evening: Evening) -> str:
    day = formats.date_format(evening.played_on, "j E")
    if evening.starts_at is None:
        return day
    return f"{day}, {formats.time_format(evening.starts_at, 'H:i')}"


def _amount(money: Decimal) -> str:
    shown = formats.number_format(abs(money), 2)
    return f"+{shown}" if money > 0 else f"-{shown}" if money < 0 else shown


def answer_token(evening: Evening, member: Member) -> str:
    """The signed part of a one-tap answer link: this evening, this member, nothing else."""
    return signing.dumps({"e": evening.pk, "m": member.pk}, salt=ANSWER_SALT, compress=False)


def answer_token_read(token: str, evening_id: int) -> int | None:
    """The member a one-tap answer link of ``evening_id`` answers for, or ``None`` when
    the link was changed, cut short, is for another evening or too old."""
    try:
        data = signing.loads(
            token, salt=ANSWER_SALT, max_age=datetime.timedelta(days=ANSWER_LINK_DAYS)
        )
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("e") != evening_id:
        return None
    member_id = data.get("m")
    return member_id if isinstance(member_id, int) else None


def reminder_message(evening: Evening, member: Member, answer: str, place: int) -> Message:
    """The day-before reminder: his answer (or his place in line) and the one-tap links."""
    where = f" — {evening.place}" if evening.place else ""
    lead = _("Tomorrow, %(when)s%(where)s: the club's evening.") % {
        "when": _when(evening),
        "where": where,
    }
    if place:
        said = _(
            "You are on the waiting list, number %(n)s: we will write to you when a seat is found."
        ) % {"n": place}
    elif answer == EveningAnswer.YES:
        said = _("You said you are coming: your seat is kept.")
    else:
        said = _("You said maybe: please answer, so that the organiser can count the seats.")
    link = site_url(
        reverse("scoring:evening_answer_link", args=[evening.pk, answer_token(evening, member)])
    )
    answer_line = _("Answer in one tap: %(url)s") % {"url": link}
    subject = _("Tomorrow: the club's evening, %(when)s") % {"when": _when(evening)}
    url = site_url(reverse("scoring:evening_detail", args=[evening.pk]))
    return Message(subject, f"{lead}\n{said}\n{answer_line}", url)


def reminders_send(*, today: datetime.date | None = None) -> int:
    """The day-before reminders of the evenings on the day after ``today`` (by default,
    the club's today): to each member who said «приду» or «может быть», and to each one
    waiting for a seat (told his place). Safe to run again at any time: a reminder sent
    is not sent again, one answered since is. How many messages it enqueued."""
    tomorrow = (today or timezone.localdate()) + datetime.timedelta(days=1)
    evenings = Evening.objects.filter(played_on=tomorrow, closed_at__isnull=True).order_by("pk")
    count = 0
    with translation.override(settings.LANGUAGE_CODE):
        for evening in evenings:
            roll = calendar_selectors.roll(evening)
            told = [(a, 0) for a in (*roll.coming, *roll.maybe)]
            told += [(a, n) for n, a in enumerate(roll.waiting, start=1)]
            with transaction.atomic():
                for answer, place in sorted(told, key=lambda pair: pair[0].member_id):
                    message = reminder_message(evening, answer.member, answer.answer, place)
                    count += len(
                        notice_send(
                            member=answer.member,
                            kind="reminder",
                            key=f"evening:{evening.pk}",
                            message=message,
                        )
                    )
    return count


def seated_send(*, evening_id: int, member_ids: Iterable[int]) -> int:
    """Tell each of ``member_ids`` who has a seat at the evening now that he has (he was
    waiting: someone took his «приду» back, or seats were added). Once an evening."""
    evening = Evening.objects.filter(pk=evening_id, closed_at__isnull=True).first()
    if evening is None:
        return 0
    roll = calendar_selectors.roll(evening)
    seated = [a.member for a in roll.coming if a.member_id in set(member_ids)]
    count = 0
    with translation.override(settings.LANGUAGE_CODE):
        subject = _("A seat for you: the club's evening, %(when)s") % {"when": _when(evening)}
        text = _(
            "A seat was found for you at the club's evening of %(when)s: you are off the "
            "waiting list. If you cannot come, answer «not coming», so that the next one "
            "gets it."
        ) % {"when": _when(evening)}
        message = Message(
            subject, text, site_url(reverse("scoring:evening_detail", args=[evening.pk]))
        )
        with transaction.atomic():
            for member in sorted(seated, key=lambda m: m.pk):
                count += len(
                    notice_send(
                        member=member, kind="seated", key=f"evening:{evening.pk}", message=message
                    )
                )
    return count


@task
def seated_task(*, evening_id: int, member_ids: list[int], attempt: int = 1) -> str:
    """``seated_send`` as background work, enqueued when an answer seats someone."""
    try:
        return f"{seated_send(evening_id=evening_id, member_ids=member_ids)} message(s)"
    except Exception as error:
        return again_later(
            seated_task,
            error,
            attempt=attempt,
            what=f"the seat messages of evening {evening_id}",
            evening_id=evening_id,
            member_ids=member_ids,
        )


def table_lines(table: Table) -> dict[int, str]:
    """Each seated member's own line about the finished ``table``, by member id: «Стол 12
    завершён: +13,33; вы платите: Борис — 6,67»: his money and whom he pays or who pays
    him to settle this table alone (the evening's ledger nets its tables together)."""
    seats = list(table.seats.select_related("member").order_by("position"))
    names = {seat.party: seat.member.name if seat.member else seat.name for seat in seats}
    money = {seat.party: seat.money or Decimal(0) for seat in seats}
    transfers = evening_ledger([money])
    lines = {}
    for seat in seats:
        if seat.member_id is None:
            continue
        parts = [
            _("Table %(n)s finished: %(money)s")
            % {"n": table.pk, "money": _amount(money[seat.party])}
        ]
        for t in transfers:
            amount = formats.number_format(t.amount, 2)
            if t.payer == seat.party:
                parts.append(
                    _("you pay %(name)s %(amount)s") % {"name": names[t.payee], "amount": amount}
                )
            elif t.payee == seat.party:
                parts.append(
                    _("%(name)s pays you %(amount)s") % {"name": names[t.payer], "amount": amount}
                )
        lines[seat.member_id] = "; ".join(parts)
    return lines


def table_notices(table: Table, *, revision: int, url: str, subject: str) -> int:
    """The finished table's own line to each seated member by Telegram and web push (the
    e-mail carries it above the result, ``notifications``), once for this finish."""
    lines = table_lines(table)
    members = (
        Member.objects.filter(pk__in=lines).order_by("pk").prefetch_related("push_subscriptions")
    )
    count = 0
    for member in members:
        message = Message(subject, lines[member.pk], url)
        count += len(
            notice_send(
                member=member,
                kind="table_finished",
                key=f"table:{table.pk}:{revision}",
                message=message,
                channels=("telegram", "push"),
            )
        )
    return count


def summary_notices(evening: Evening, members: Iterable[Member], text: str, url: str) -> int:
    """The evening's summary to each of ``members`` by Telegram (the whole text, cut to one
    message) and web push (its first line, and the ledger's page)."""
    subject = _("The evening's summary, %(when)s") % {"when": _when(evening)}
    count = 0
    for member in members:
        count += len(
            notice_send(
                member=member,
                kind="evening_summary",
                key=f"evening:{evening.pk}",
                message=Message(subject, text, url),
                channels=("telegram", "push"),
            )
        )
    return count


# -- a member's Telegram chat and devices ----------------------------------------------------

START = re.compile(r"^/start(?:@\w+)?\s+([A-Za-z0-9_-]{1,64})\s*$")
"""The text the bot receives when a member opens his link and presses Start."""


def telegram_link_start(*, member: Member) -> str:
    """A new one-time token for ``member``'s Telegram link; the link that sends it to the
    bot (``t.me/<bot>?start=<token>``). An older link stops working."""
    member.telegram_token = secrets.token_urlsafe(32)
    member.save(update_fields=["telegram_token"])
    return telegram.start_link(member.telegram_token)


def telegram_unlink(*, member: Member) -> None:
    """The bot writes to ``member`` no more; his link is made again when he asks."""
    member.telegram_chat_id = None
    member.telegram_token = None
    member.save(update_fields=["telegram_chat_id", "telegram_token"])


def telegram_update(update: object) -> str:
    """One update from the Bot API's webhook: ``/start <token>`` from a member's link
    stores the chat as his and uses the token up. Anything else changes nothing; the
    chat is told why when the text was a ``/start``. What happened, for the log."""
    message = update.get("message") if isinstance(update, dict) else None
    if not isinstance(message, dict):
        return "not a message"
    chat = message.get("chat")
    if not isinstance(chat, dict):
        return "no chat"
    text = message.get("text")
    chat_id = chat.get("id")
    if not isinstance(chat_id, int) or isinstance(chat_id, bool) or not isinstance(text, str):
        return "no chat or text"
    if not text.startswith("/start"):
        return "not a /start"
    found = START.match(text)
    with translation.override(settings.LANGUAGE_CODE), transaction.atomic():
        member = None
        if found and chat.get("type", "private") == "private":
            member = (
                Member.objects.select_for_update()
                .filter(telegram_token=found.group(1), is_active=True)
                .first()
            )
        if member is None:
            reply = _(
                "This link is not valid: it was used already, changed or cut short. Open "
                "your settings on the club's site and press «Link Telegram» again."
            )
            outcome = "refused: no such token"
        else:
            # Saved one by one, not updated in bulk: a save drops the member's row kept in
            # the shared cache (members.rows). A chat is linked to one member at most.
            for unlinked in Member.objects.filter(telegram_chat_id=chat_id).exclude(pk=member.pk):
                unlinked.telegram_chat_id = None
                unlinked.save(update_fields=["telegram_chat_id"])
            member.telegram_chat_id = chat_id
            member.telegram_token = None
            member.save(update_fields=["telegram_chat_id", "telegram_token"])
            reply = _(
                "Hello, %(name)s! The club's messages you chose will come here. Change them "
                "in your settings on the site."
            ) % {"name": member.name}
            outcome = f"linked member {member.pk}"
        transaction.on_commit(lambda: telegram_message.enqueue(chat_id=chat_id, text=reply))
    return outcome


def push_subscribe(*, member: Member, subscription: object) -> PushSubscription:
    """Keep the browser's push subscription (its JSON) as one of ``member``'s devices; a
    device subscribed before (the same endpoint) is his now, with the new keys."""
    info: dict[str, Any] = subscription if isinstance(subscription, dict) else {}
    keys: dict[str, Any] = info["keys"] if isinstance(info.get("keys"), dict) else {}
    endpoint, p256dh, auth = info.get("endpoint"), keys.get("p256dh"), keys.get("auth")
    fits = (
        isinstance(endpoint, str)
        and endpoint.startswith("https://")
        and len(endpoint) <= 1000
        and isinstance(p256dh, str)
        and re.fullmatch(r"[A-Za-z0-9_-]{20,200}={0,2}", p256dh)
        and isinstance(auth, str)
        and re.fullmatch(r"[A-Za-z0-9_-]{8,100}={0,2}", auth)
    )
    if not fits:
        raise RuleError(_("this is not a browser's push subscription"), field="subscription")
    assert isinstance(endpoint, str) and isinstance(p256dh, str) and isinstance(auth, str)  # noqa: S101
    row, _created = PushSubscription.objects.update_or_create(
        endpoint=endpoint, defaults={"member": member, "p256dh": p256dh, "auth": auth}
    )
    return row


def push_unsubscribe(*, member: Member, endpoint: str) -> int:
    """Forget ``member``'s device at ``endpoint`` (another member's is left alone)."""
    deleted, _kinds = PushSubscription.objects.filter(member=member, endpoint=endpoint).delete()
    return deleted
