"""Reminders and a member's own messages (scoring/services/notices.py): the day-before
reminder by ``manage.py send_reminders``, never twice (run again, or two runs at once on
PostgreSQL); a seat found off the waiting list; his table finished, with what he pays or
is paid (by Telegram, to the fake Bot API on 127.0.0.1, tests/fake_telegram.py).

The evening: Monday 7 December 2026 at 19:00, «Зал», three seats; the clock is Sunday the
6th at noon (tomorrow is the evening). Anna, Boris and Gleb said «приду» in that order and
have the seats; Vera said «приду» last and waits (number 1); Dima said «может быть»; Zoya
«не приду» (no reminder). Everyone has an address but Dima; Anna turned the e-mail
reminder off.
"""

from __future__ import annotations

import datetime
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from members.models import Member
from scoring.models import Evening, EveningAnswer, Notice
from scoring.services import calendar, notices
from tests import factories
from tests.fake_telegram import FakeBotApi, serve
from tests.mailbox import committed

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 6, 12, 0)
MONDAY = datetime.date(2026, 12, 7)
TOKEN = "123456:TEST-token"  # noqa: S105 - the fake's


@pytest.fixture
def now(clock: Any) -> Any:
    clock.at(NOW)
    return clock


@pytest.fixture
def bot_api(settings: Any) -> Iterator[FakeBotApi]:
    """The fake Bot API with the club's bot configured to it (no club chat: only the
    members' own chats)."""
    for api in serve():
        settings.TELEGRAM_API_URL = api.url
        settings.TELEGRAM_BOT_TOKEN = TOKEN
        settings.TELEGRAM_CHAT_ID = ""
        settings.SITE_URL = "https://club.example"
        yield api


def _club() -> dict[str, Member]:
    names = ("Anna", "Boris", "Gleb", "Vera", "Dima", "Zoya")
    members = {
        name: factories.member(
            name,
            username=name.lower(),
            email="" if name == "Dima" else f"{name.lower()}@club.example",
        )
        for name in names
    }
    Member.objects.filter(username="anna").update(email_reminder=False)
    return {name: Member.objects.get(pk=m.pk) for name, m in members.items()}


def _evening(members: dict[str, Member], clock: Any) -> Evening:
    olga = factories.member("Olga", organiser=True)
    (evening,) = calendar.evening_schedule(
        organiser=olga,
        played_on=MONDAY,
        starts_at=datetime.time(19, 0),
        place="Зал",
        game="preferans",
        table_size=3,
        seats=3,
    )
    for name, answer in [
        ("Anna", "yes"),
        ("Boris", "yes"),
        ("Gleb", "yes"),
        ("Vera", "yes"),
        ("Dima", "maybe"),
        ("Zoya", "no"),
    ]:
        _later(clock)
        calendar.evening_answer(evening=evening, member=members[name], answer=answer)
    return evening


def _later(clock: Any) -> None:
    """A minute on: the line is kept in the order the answers come."""
    clock.at(clock() + datetime.timedelta(minutes=1))


@pytest.fixture
def evening(now: Any) -> Evening:
    return _evening(_club(), now)


def _by_address() -> dict[str, str]:
    return {message.to[0]: message.body for message in mail.outbox}


# -- the day-before reminder ------------------------------------------------------------------


def test_the_reminder_goes_to_who_answered_coming_maybe_or_waits(evening: Evening) -> None:
    sent = notices.reminders_send()

    # Boris and Gleb (seated), Vera (waiting); Anna turned it off, Dima has no address,
    # Zoya is not coming.
    assert sent == 3
    bodies = _by_address()
    assert sorted(bodies) == ["boris@club.example", "gleb@club.example", "vera@club.example"]
    assert bodies["boris@club.example"].startswith(
        "Завтра, 7 декабря, 19:00 — Зал: вечер клуба.\n"
        "Вы ответили «приду»: ваше место за вами.\n"
        "Ответить в одно касание: http://127.0.0.1:8000/evenings/"
    )
    assert (
        "Вы в листе ожидания, номер 1: мы напишем, когда найдётся место."
        in (bodies["vera@club.example"])
    )
    assert {m.subject for m in mail.outbox} == {"Завтра вечер клуба, 7 декабря, 19:00"}


def test_the_command_run_again_sends_nothing_twice(evening: Evening) -> None:
    call_command("send_reminders")
    call_command("send_reminders")

    assert len(mail.outbox) == 3
    assert Notice.objects.filter(kind="reminder", channel="email").count() == 3


def test_a_member_who_answers_after_a_run_gets_his_at_the_next(evening: Evening) -> None:
    call_command("send_reminders")
    zoya = Member.objects.get(username="zoya")
    calendar.evening_answer(evening=evening, member=zoya, answer="maybe")
    call_command("send_reminders")

    assert [m.to for m in mail.outbox[3:]] == [["zoya@club.example"]]


def test_only_tomorrows_evenings_are_reminded(evening: Evening) -> None:
    assert notices.reminders_send(today=MONDAY) == 0  # the evening is today, not tomorrow
    assert notices.reminders_send(today=datetime.date(2026, 12, 5)) == 0
    assert mail.outbox == []


def test_the_command_refuses_a_day_that_is_not_a_date(evening: Evening) -> None:
    with pytest.raises(CommandError, match=re.escape("not a date YYYY-MM-DD: '7.12.2026'")):
        call_command("send_reminders", "--today", "7.12.2026")
    assert Notice.objects.count() == 0


@pytest.mark.slow
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_two_runs_at_once_send_each_reminder_once(now: Any) -> None:
    """The second run's insert waits for the first run's rows to commit, then finds them:
    it sends nothing (PostgreSQL; SQLite has one writer at a time anyway)."""
    if connection.vendor != "postgresql":
        pytest.skip("two writers at once need PostgreSQL")
    _evening(_club(), now)
    first_inserted = threading.Event()
    counts: dict[str, int] = {}
    waited: list[float] = []

    def first() -> None:
        try:
            with transaction.atomic():
                counts["first"] = notices.reminders_send()
                first_inserted.set()
                time.sleep(0.5)  # the second run starts meanwhile and must wait
        finally:
            first_inserted.set()
            connection.close()

    def second() -> None:
        try:
            first_inserted.wait(10)
            started = time.monotonic()
            counts["second"] = notices.reminders_send()
            waited.append(time.monotonic() - started)
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert counts == {"first": 3, "second": 0}
    assert waited[0] >= 0.3  # it did wait on the first run's rows
    assert len(mail.outbox) == 3
    assert Notice.objects.count() == 3


# -- the one-tap answer link ------------------------------------------------------------------


def test_the_answer_token_names_one_member_and_one_evening(evening: Evening) -> None:
    boris = Member.objects.get(username="boris")
    token = notices.answer_token(evening, boris)

    assert notices.answer_token_read(token, evening.pk) == boris.pk
    assert notices.answer_token_read(token, evening.pk + 1) is None
    assert (
        notices.answer_token_read(token[:-1] + ("A" if token[-1] != "A" else "B"), evening.pk)
        is None
    )


# -- a seat found off the waiting list --------------------------------------------------------


def test_a_cancellation_tells_the_one_who_gets_the_seat_once(evening: Evening, now: Any) -> None:
    gleb, vera = Member.objects.get(username="gleb"), Member.objects.get(username="vera")
    _later(now)
    with committed():
        calendar.evening_answer(evening=evening, member=gleb, answer="no")

    (message,) = mail.outbox
    assert message.to == ["vera@club.example"]
    assert message.subject == "Место для вас: вечер клуба, 7 декабря, 19:00"
    assert message.body.startswith(
        "Для вас нашлось место на вечере клуба 7 декабря, 19:00: вы больше не в листе ожидания."
    )
    # Gleb comes back (he waits now), and Vera's seat does not move: nothing more.
    _later(now)
    with committed():
        calendar.evening_answer(evening=evening, member=gleb, answer="yes")
        calendar.evening_answer(evening=evening, member=vera, answer="yes")
    assert len(mail.outbox) == 1
    # Vera cancels and answers again: she waits behind Gleb, who gets the seat; when she
    # is seated again later she is not told a second time.
    _later(now)
    with committed():
        calendar.evening_answer(evening=evening, member=vera, answer="no")
    assert [m.to for m in mail.outbox[1:]] == [["gleb@club.example"]]
    _later(now)
    with committed():
        calendar.evening_answer(evening=evening, member=vera, answer="yes")  # she waits
        calendar.evening_answer(evening=evening, member=gleb, answer="no")  # she is seated
    assert len(mail.outbox) == 2  # told once already


def test_an_answer_that_seats_nobody_sends_nothing(evening: Evening) -> None:
    dima = Member.objects.get(username="dima")
    with committed():
        calendar.evening_answer(evening=evening, member=dima, answer="no")
    assert mail.outbox == []
    assert EveningAnswer.objects.get(member=dima).answer == "no"


# -- Telegram: the members' own chats ---------------------------------------------------------


def test_a_reminder_by_telegram_goes_to_the_linked_chat(
    bot_api: FakeBotApi, evening: Evening
) -> None:
    Member.objects.filter(username="anna").update(telegram_chat_id=5551)
    Member.objects.filter(username="dima").update(telegram_chat_id=5552, telegram_reminder=False)

    notices.reminders_send()

    (call,) = bot_api.calls  # Dima turned the Telegram reminder off
    assert call.path == f"/bot{TOKEN}/sendMessage"
    assert call.fields["chat_id"] == "5551"
    assert call.fields["text"].startswith(
        "Завтра, 7 декабря, 19:00 — Зал: вечер клуба.\nВы ответили «приду»"
    )
    assert call.fields["text"].endswith(f"https://club.example/evenings/{evening.pk}/")
    assert Notice.objects.filter(channel="telegram").count() == 1


def test_the_finished_table_tells_each_player_what_he_pays_or_is_paid(
    bot_api: FakeBotApi, now: Any
) -> None:
    """Anna +66.67, Boris −33.33, Vera −33.34 (tests/factories.py ``finished_pulka``):
    Vera pays Anna 33.34 and Boris pays her 33.33."""
    anna, boris, vera = (
        factories.member(n, username=n.lower(), email=f"{n.lower()}@club.example")
        for n in ("Anna", "Boris", "Vera")
    )
    Member.objects.filter(pk__in=[anna.pk, boris.pk]).update(telegram_chat_id=7000)
    Member.objects.filter(pk=boris.pk).update(telegram_chat_id=7001)
    with committed():
        table = factories.finished_pulka([anna, boris, vera], anna, datetime.date(2026, 12, 6))

    texts = {call.fields["chat_id"]: call.fields["text"] for call in bot_api.calls}
    assert texts == {
        # The engine's settlement pays the largest debt first.
        "7000": f"Стол {table.pk} завершён: +66,67; Vera платит вам 33,34; Boris платит "
        f"вам 33,33\nhttps://club.example/tables/{table.pk}/",
        "7001": f"Стол {table.pk} завершён: -33,33; вы платите: Anna — 33,33\n"
        f"https://club.example/tables/{table.pk}/",
    }
    # The e-mail carries each one's own line above the result.
    bodies = _by_address()
    assert bodies["vera@club.example"].startswith(
        f"Стол {table.pk} завершён: -33,34; вы платите: Anna — 33,34\n\n"
    )
    # Announced once: the task run again sends nothing more.
    notices.table_notices(table, revision=table.revision, url="u", subject="s")
    assert len(bot_api.calls) == 2
