"""Notifications as background work (scoring/services/notifications.py): a finished table
and an evening's summary, e-mailed to the members who want them and posted to the club's
Telegram chat, here a fake Bot API on 127.0.0.1 (tests/fake_telegram.py).

The suite runs the immediate task backend: a task runs as it is enqueued, and the
enqueue itself waits for the commit (``committed()`` runs what a commit would). The
retries need a backend that can run a task later: those tests switch to the database
backend and run the enqueued task's function themselves.

The money: ``finished_pulka`` — Anna wins a pool-10 pulka with an unplayed 10 (both
defenders pass): her balance is 66.67 whists and the others' −33.33; at a whist's price
of 1 the money, to the cent and adding up to nothing, is Anna +66.67, Boris −33.33,
Vera −33.34 (the cent that does not divide goes to the last seat).
"""

from __future__ import annotations

import base64
import datetime
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core import mail
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from members.models import Member
from members.tasks import SEND_RETRIES, send_email
from scoring import services
from scoring.models import Attendance, Evening, EveningTable, Table
from scoring.services import notifications
from scoring.services.notifications import split_text, telegram_post
from scoring.telegram import TelegramError
from tests import factories
from tests.fake_telegram import FakeBotApi, serve
from tests.mailbox import committed
from tests.scoring.services.test_rating_tasks import run_worker  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 11, 20)
TOKEN = "123456:TEST-token"  # noqa: S105 - the fake's
CHAT = "-100777"
PNG = b"\x89PNG\r\n\x1a\n"


class Rollback(Exception):
    pass


@pytest.fixture
def bot_api(settings: Any) -> Iterator[FakeBotApi]:
    """The fake Bot API, running, with the club's chat configured to it."""
    for api in serve():
        settings.TELEGRAM_API_URL = api.url
        settings.TELEGRAM_BOT_TOKEN = TOKEN
        settings.TELEGRAM_CHAT_ID = CHAT
        settings.SITE_URL = "https://club.example"
        yield api


@pytest.fixture
def players() -> list[Member]:
    """Anna (wants every e-mail), Boris (turned the finished-table e-mail off) and Vera
    (no address)."""
    return [
        factories.member("Anna", username="anna", email="anna@club.example"),
        factories.member(
            "Boris", username="boris", email="boris@club.example", email_table_finished=False
        ),
        factories.member("Vera", username="vera"),
    ]


def finished(players: list[Member]) -> Table:
    with committed():
        return factories.finished_pulka(players, players[0], DAY)


# -- a finished table ---------------------------------------------------------------------------


def test_a_finished_table_mails_each_member_who_wants_it_the_result_and_the_sheet(
    bot_api: FakeBotApi, players: list[Member]
) -> None:
    table = finished(players)

    (message,) = mail.outbox  # Anna only: Boris turned it off, Vera has no address
    assert message.to == ["anna@club.example"]
    assert message.subject == f"Стол «Преферанс #{table.pk}» закончен"
    assert "1. Anna: +66,67\n2. Boris: -33,33\n2. Vera: -33,34\n" in message.body
    assert f"https://club.example/tables/{table.pk}/" in message.body
    # From the club, and signed by it, under the name its pages show (issue 30, finding 10).
    assert message.from_email == f"Клуб преферанса и бостона <{settings.DEFAULT_FROM_EMAIL}>"
    assert message.body.rstrip().endswith("\n— Клуб преферанса и бостона")
    ((filename, content, mimetype),) = message.attachments
    assert (filename, mimetype) == (f"table-{table.pk}.png", "image/png")
    assert content.startswith(PNG)
    # The picture is the page's own: /tables/<id>/sheet.png serves the same bytes.
    assert Client().get(reverse("scoring:table_sheet_png", args=[table.pk])).content == content


def test_a_finished_table_is_posted_to_the_club_chat_with_its_sheet(
    bot_api: FakeBotApi, players: list[Member]
) -> None:
    table = finished(players)

    (call,) = bot_api.calls
    assert call.path == f"/bot{TOKEN}/sendPhoto"
    assert call.fields["chat_id"] == CHAT
    assert call.fields["caption"] == (
        f"Преферанс #{table.pk}, 20 ноября 2026, закончен.\n"
        "Anna +66,67 · Boris -33,33 · Vera -33,34\n"
        f"https://club.example/tables/{table.pk}/"
    )
    assert call.photo is not None
    assert call.photo.startswith(PNG)


def test_a_boston_table_has_no_picture_the_chat_gets_a_message(
    bot_api: FakeBotApi, players: list[Member]
) -> None:
    four = [*players, factories.member("Gleb")]
    with committed():
        table = factories.boston_table(four, played_on=DAY)
        services.table_finish(table, by=four[0])

    (message,) = mail.outbox
    assert message.attachments == []
    assert "1. Anna: 0,00\n1. Boris: 0,00\n" in message.body
    (call,) = bot_api.calls
    assert call.path.endswith("/sendMessage")
    assert call.fields["text"].startswith(f"Бостон #{table.pk}, 20 ноября 2026, закончен.\n")
    assert call.photo is None


def test_nothing_is_sent_to_telegram_when_it_is_not_configured(
    bot_api: FakeBotApi, players: list[Member], settings: Any
) -> None:
    settings.TELEGRAM_BOT_TOKEN = ""
    finished(players)
    assert bot_api.calls == []
    assert len(mail.outbox) == 1  # the e-mail does not depend on it


def test_nothing_is_sent_without_a_chat_id(
    bot_api: FakeBotApi, players: list[Member], settings: Any
) -> None:
    settings.TELEGRAM_CHAT_ID = ""
    finished(players)
    assert bot_api.calls == []


def test_a_finish_that_rolls_back_announces_nothing(
    bot_api: FakeBotApi, players: list[Member]
) -> None:
    table = factories.pulka(players, pool_target=10, played_on=DAY)
    with committed() as callbacks, pytest.raises(Rollback), transaction.atomic():
        services.table_finish(table, by=players[0])
        raise Rollback
    assert callbacks == []
    assert (mail.outbox, bot_api.calls) == ([], [])


def test_a_table_reopened_before_the_task_ran_is_not_announced(
    bot_api: FakeBotApi, players: list[Member]
) -> None:
    table = factories.finished_pulka(players, players[0], DAY)  # no commit: nothing queued
    revision = table.revision
    services.table_reopen(table, by=players[0], reason="a wrong deal")

    result = notifications.table_finished_task.call(table_id=table.pk, revision=revision)

    assert result == "the table has moved on"
    assert (mail.outbox, bot_api.calls) == ([], [])


def test_a_finish_announced_is_not_announced_again(
    bot_api: FakeBotApi, players: list[Member]
) -> None:
    """The worker died after the notices were queued and before it marked its task done;
    come back, it runs the task again (manage.py task_worker): nothing more is sent."""
    table = factories.finished_pulka(players, players[0], DAY)  # no commit: nothing queued

    first = notifications.table_finished_task.call(table_id=table.pk, revision=table.revision)
    again = notifications.table_finished_task.call(table_id=table.pk, revision=table.revision)

    assert (first, again) == ("1 e-mail(s), 1 post(s)", "announced already")
    assert ([m.to for m in mail.outbox], len(bot_api.calls)) == ([["anna@club.example"]], 1)


def test_a_finish_reopened_and_finished_again_is_announced_again(
    bot_api: FakeBotApi, players: list[Member]
) -> None:
    table = factories.finished_pulka(players, players[0], DAY)
    notifications.table_finished_task.call(table_id=table.pk, revision=table.revision)
    services.table_reopen(table, by=players[0], reason="a wrong deal")
    table.refresh_from_db()
    services.table_finish(table, by=players[0])  # no commit: the test runs the task
    table.refresh_from_db()
    assert table.status == Table.FINISHED

    again = notifications.table_finished_task.call(table_id=table.pk, revision=table.revision)

    assert again == "1 e-mail(s), 1 post(s)"
    assert (len(mail.outbox), len(bot_api.calls)) == (2, 2)


def test_an_imported_game_is_not_announced(bot_api: FakeBotApi, players: list[Member]) -> None:
    table = factories.finished_pulka(players, players[0], DAY)
    record, version = services.table_export(table), table.version
    Table.objects.all().delete()
    with committed():
        imported = services.table_import(record, version=version, members=players, by=players[0])
    assert imported.status == Table.FINISHED
    assert (mail.outbox, bot_api.calls) == ([], [])


@pytest.mark.slow  # the whole demo club loaded
def test_the_demo_command_announces_nothing(bot_api: FakeBotApi) -> None:
    from django.core.management import call_command

    with committed():
        call_command("load_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115, PTH123
    assert Table.objects.filter(status=Table.FINISHED).exists()
    assert (mail.outbox, bot_api.calls) == ([], [])


# -- failures: logged, retried, and never the request's --------------------------------------


def _close_by_page(client: Client, table: Table) -> Any:
    """An organiser closes the table early through its page, as a request commits."""
    client.force_login(factories.member("Olga", organiser=True))
    with committed():
        finish = reverse("scoring:table_finish", args=[table.pk])
        return client.post(finish, {"reason": "late", "counts": "yes", **factories.drawn(table)})


@pytest.mark.parametrize(
    "failure", [500, "close", "slow"], ids=["http-500", "connection-closed", "timeout"]
)
def test_a_failed_post_is_logged_and_the_finish_goes_on(
    bot_api: FakeBotApi,
    players: list[Member],
    client: Client,
    caplog: pytest.LogCaptureFixture,
    settings: Any,
    failure: int | str,
) -> None:
    settings.TELEGRAM_TIMEOUT = 1  # the fake's "slow" answers after 2 seconds
    table = factories.pulka(players, pool_target=10, played_on=DAY)
    bot_api.failures = [failure]

    response = _close_by_page(client, table)

    assert response.status_code == 302
    assert "Table finished." in client.get(response["Location"]).content.decode()
    assert Table.objects.get(pk=table.pk).status == Table.FINISHED
    assert len(mail.outbox) == 1  # Anna's e-mail went all the same
    assert bot_api.methods() == ["sendPhoto"]
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.getMessage().startswith("Could not send a Telegram post (try 1): sendPhoto: ")
    assert TOKEN not in caplog.text  # the token is in the URL, never in the log


def test_a_failed_post_is_tried_again_later_under_the_worker(
    bot_api: FakeBotApi, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``SEND_RETRIES``: a minute later, then ten minutes; then the task fails."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    bot_api.failures = [502, "close", 503]
    before = timezone.now()

    first = telegram_post.call(text="Итоги")
    second = DBTaskResult.objects.get()
    assert first == f"failed; tried again as task {second.id}"
    assert second.args_kwargs["kwargs"] == {"text": "Итоги", "attempt": 2}
    assert before + SEND_RETRIES[0] <= second.run_after <= timezone.now() + SEND_RETRIES[0]

    telegram_post.call(**second.args_kwargs["kwargs"])
    third = DBTaskResult.objects.exclude(pk=second.pk).get()
    assert third.args_kwargs["kwargs"] == {"text": "Итоги", "attempt": 3}
    assert third.run_after >= before + SEND_RETRIES[1]

    with pytest.raises(TelegramError, match="HTTP 503"):
        telegram_post.call(**third.args_kwargs["kwargs"])
    assert DBTaskResult.objects.count() == 2  # no fourth try
    assert bot_api.methods() == ["sendMessage"] * 3
    assert [r.getMessage()[:40] for r in caplog.records if r.levelno == logging.WARNING][::2] == [
        "Could not send a Telegram post (try 1): ",
        "Could not send a Telegram post (try 2): ",
        "Could not send a Telegram post (try 3): ",
    ]


def test_a_retried_post_that_then_works_is_posted_once(bot_api: FakeBotApi, settings: Any) -> None:
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    bot_api.failures = [500]
    photo = base64.b64encode(PNG + b"picture").decode()

    telegram_post.call(text="caption", photo=photo)
    retry = DBTaskResult.objects.get()
    assert telegram_post.call(**retry.args_kwargs["kwargs"]) == "posted"

    assert [(c.fields["caption"], c.photo) for c in bot_api.calls] == [
        ("caption", PNG + b"picture"),
        ("caption", PNG + b"picture"),
    ]


def test_a_wrong_token_is_not_tried_again(bot_api: FakeBotApi, settings: Any) -> None:
    """401 will not pass by itself: the task fails at once (logged by django.tasks)."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    bot_api.failures = [401]
    with pytest.raises(TelegramError, match="HTTP 401 Bad"):
        telegram_post.call(text="x")
    assert not DBTaskResult.objects.exists()


def test_a_failed_e_mail_is_tried_again_later_under_the_worker(settings: Any) -> None:
    from tests.members.test_tasks import closed_port

    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": closed_port(), "timeout": 5},
        }
    }
    send_email.call(subject="s", body="b", to=["a@club.example"])
    retry = DBTaskResult.objects.get()
    assert retry.args_kwargs["kwargs"] == {
        "subject": "s",
        "body": "b",
        "to": ["a@club.example"],
        "attempt": 2,
    }


# -- the evening's summary --------------------------------------------------------------------


@pytest.fixture
def evening(players: list[Member]) -> Evening:
    """Anna, Boris and Vera played one table of the evening (Anna won); Gleb came and sat
    out; Boris and Gleb want the summary e-mailed, Anna turned it off."""
    irina = factories.member("Irina", organiser=True, username="irina")
    evening = Evening.objects.create(organiser=irina, played_on=DAY, place="Зал")
    gleb = factories.member("Gleb", username="gleb", email="gleb@club.example")
    Member.objects.filter(username="anna").update(email_evening_summary=False)
    for member in [*players, gleb]:
        Attendance.objects.create(evening=evening, member=member)
    table = factories.finished_pulka(players, players[0], DAY)
    EveningTable.objects.create(evening=evening, table=table, round=1)
    return evening


def _close(client: Client, evening: Evening) -> Any:
    client.force_login(evening.organiser)
    with committed():
        return client.post(reverse("scoring:evening_close", args=[evening.pk]))


def test_closing_the_evening_mails_its_summary_to_each_participant_who_wants_it(
    bot_api: FakeBotApi, evening: Evening, client: Client
) -> None:
    response = _close(client, evening)

    assert response.status_code == 302
    assert sorted(m.to[0] for m in mail.outbox) == ["boris@club.example", "gleb@club.example"]
    message = mail.outbox[0]
    assert message.subject == "Итоги клубного вечера 20 ноября 2026"
    table = evening.links.get().table
    assert message.body.startswith(
        "Клубный вечер 20 ноября 2026, Зал.\n\n"
        "Столы:\n"
        f"Преферанс #{table.pk}, тур 1: Anna +66,67, Boris -33,33, Vera -33,34\n\n"
        "Кто кому платит:\n"
        "Vera → Anna: 33,34\n"
        "Boris → Anna: 33,33\n\n"
        f"Расчёт: https://club.example/evenings/{evening.pk}/ledger/\n"
    )
    (call,) = bot_api.calls
    assert call.path == f"/bot{TOKEN}/sendMessage"
    assert message.body.startswith(call.fields["text"])
    page = client.get(response["Location"]).content.decode()
    assert "The evening is closed: its summary goes to 2 members by e-mail." in page


def test_the_summary_goes_to_each_participants_own_chat_who_wants_it(
    bot_api: FakeBotApi, evening: Evening, client: Client
) -> None:
    """Beside the club's chat: Boris linked his Telegram; Gleb too, but turned the summary
    by Telegram off (issue 34: the summary is one of a member's own messages)."""
    Member.objects.filter(username="boris").update(telegram_chat_id=501)
    Member.objects.filter(username="gleb").update(
        telegram_chat_id=502, telegram_evening_summary=False
    )

    _close(client, evening)

    own = [call.fields for call in bot_api.calls if call.fields["chat_id"] == "501"]
    assert [c.fields["chat_id"] for c in bot_api.calls] == [CHAT, "501"]
    (text,) = [c["text"] for c in own]
    assert text.startswith("Клубный вечер 20 ноября 2026, Зал.\n\nСтолы:\n")
    assert text.endswith(f"https://club.example/evenings/{evening.pk}/ledger/")
    # Closed once: the summary's task run again sends nobody anything more.
    notifications.evening_summary_task.call(evening_id=evening.pk)
    assert len([c for c in bot_api.calls if c.fields["chat_id"] == "501"]) == 1


def test_an_evening_is_closed_once_and_its_summary_sent_once(
    bot_api: FakeBotApi, evening: Evening, client: Client
) -> None:
    _close(client, evening)
    evening.refresh_from_db()
    assert evening.closed_by == evening.organiser
    assert evening.closed_at is not None
    sent = (len(mail.outbox), len(bot_api.calls))
    assert sent == (2, 1)

    again = _close(client, evening)

    assert "the evening is closed already" in client.get(again["Location"]).content.decode()
    assert (len(mail.outbox), len(bot_api.calls)) == sent
    page = client.get(reverse("scoring:evening_close", args=[evening.pk])).content.decode()
    assert "The evening was closed" in page
    assert "Close the evening and send the summary" not in page


def test_the_close_page_shows_the_summary_and_who_gets_it(evening: Evening, client: Client) -> None:
    client.force_login(evening.organiser)
    page = client.get(reverse("scoring:evening_close", args=[evening.pk])).content.decode()
    # The English page previews the summary in English, and says it is sent in Russian.
    table = evening.links.get().table
    assert (
        f"Preferans #{table.pk}, round 1: Anna +66.67, Boris -33.33, Vera -33.34\n\n"
        "Who pays whom:\n"
        "Vera → Anna: 33.34\n"
    ) in page
    assert "Кто кому платит" not in page
    assert "it is sent in the club's: Russian." in page
    assert "By e-mail to: Boris, Gleb." in page
    assert mail.outbox == []


def test_the_russian_close_page_previews_the_summary_as_it_is_sent(
    evening: Evening, client: Client
) -> None:
    client.force_login(evening.organiser)
    page = client.get(
        reverse("scoring:evening_close", args=[evening.pk]), HTTP_ACCEPT_LANGUAGE="ru"
    ).content.decode()
    assert "Кто кому платит:\nVera → Anna: 33,34\n" in page
    assert "на языке клуба" not in page


def test_the_evening_is_not_closed_while_a_table_is_in_play(
    bot_api: FakeBotApi, evening: Evening, client: Client, players: list[Member]
) -> None:
    table = factories.pulka(players, played_on=DAY)
    EveningTable.objects.create(evening=evening, table=table, round=2)

    response = _close(client, evening)

    assert (
        "1 table is still in play: finish it first"
        in client.get(response["Location"]).content.decode()
    )
    assert (mail.outbox, bot_api.calls) == ([], [])


def test_a_long_summary_is_posted_in_parts_each_within_the_limit(
    bot_api: FakeBotApi, evening: Evening, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("scoring.telegram.TEXT_LIMIT", 60)
    _close(client, evening)
    texts = [call.fields["text"] for call in bot_api.calls]
    assert len(texts) > 1
    assert all(len(text) <= 60 for text in texts)
    summary = mail.outbox[0].body.split("\n\nВы получили")[0]
    # The same text, in order: a part is cut at a line break where one fits, inside a line
    # longer than the limit otherwise (a table's line grows with its number), so the line
    # breaks may move but not one letter is lost or sent twice.
    assert "".join(texts).replace("\n", "") == summary.strip().replace("\n", "")


@pytest.mark.parametrize(
    ("text", "limit", "parts"),
    [
        ("a\nb\nc", 10, ["a\nb\nc"]),
        ("aaaa\nbbbb\ncc", 9, ["aaaa\nbbbb", "cc"]),
        ("aaaaaaa\nb", 3, ["aaa", "aaa", "a\nb"]),
        ("", 5, []),
        ("aa\n\nbb", 3, ["aa", "bb"]),
        ("aa\n\nbb", 6, ["aa\n\nbb"]),  # kept inside a part
    ],
)
def test_split_text(text: str, limit: int, parts: list[str]) -> None:
    assert split_text(text, limit) == parts


# -- the worker ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_worker_sends_what_a_committed_finish_enqueued(
    bot_api: FakeBotApi, settings: Any, request: pytest.FixtureRequest
) -> None:
    """``DJANGO_TASKS=database``: the finish's commit leaves one task; the worker runs it,
    it leaves the e-mail and the post (their arguments stored as JSON, the picture as
    base64), and the worker's next round sends both."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    players = [
        factories.member("Anna", username="anna", email="anna@club.example"),
        factories.member("Boris", username="boris"),
        factories.member("Vera", username="vera"),
    ]
    with notifications.paused():  # the deals' table, finished below by itself
        table = factories.pulka(players, pool_target=10, played_on=DAY)
    services.table_finish(table, by=players[0])  # autocommit: on_commit runs at once

    assert list(DBTaskResult.objects.values_list("task_path", flat=True)) == [
        "scoring.services.ratings.ratings_update_task",
        "scoring.services.notifications.table_finished_task",
    ]
    assert (mail.outbox, bot_api.calls) == ([], [])

    request.getfixturevalue("run_worker")()  # the rating tests' fixture, imported above

    assert DBTaskResult.objects.exclude(status="SUCCESSFUL").count() == 0
    assert DBTaskResult.objects.count() == 4
    (message,) = mail.outbox
    assert message.attachments[0][1].startswith(PNG)
    (call,) = bot_api.calls
    assert call.photo == message.attachments[0][1]


def test_an_announcement_that_fails_half_way_leaves_nothing_and_is_tried_again(
    bot_api: FakeBotApi, players: list[Member], settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finished table's task fails after Anna's e-mail was enqueued (the post's
    enqueue breaks): neither stays queued, and the whole task is tried again later."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    with notifications.paused():
        table = factories.finished_pulka(players, players[0], DAY)
    DBTaskResult.objects.all().delete()  # the rating's task

    queued_before: list[int] = []

    def broken(*args: Any) -> int:
        queued_before.append(DBTaskResult.objects.filter(task_path=send_email.module_path).count())
        raise ConnectionError("the queue went away")

    monkeypatch.setattr(notifications, "_post", broken)
    result = notifications.table_finished_task.call(table_id=table.pk, revision=table.revision)

    assert queued_before == [1]  # Anna's e-mail, rolled back with the rest
    (retry,) = DBTaskResult.objects.all()
    assert result == f"failed; tried again as task {retry.id}"
    assert retry.task_path == "scoring.services.notifications.table_finished_task"
    assert retry.args_kwargs["kwargs"] == {
        "table_id": table.pk,
        "revision": table.revision,
        "attempt": 2,
    }
    assert (mail.outbox, bot_api.calls) == ([], [])
