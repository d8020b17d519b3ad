"""A member's own ways of being told (scoring/views/notices.py): his Telegram linked by the
Bot API's webhook (the bot's replies go to the fake Bot API, tests/fake_telegram.py), his
devices subscribed to web push and a push sent to a fake push service on 127.0.0.1 and
decrypted as the browser would (tests/fake_push.py), and a reminder's one-tap answer
link. A tampered token or link changes nothing and says why."""

from __future__ import annotations

import base64
import datetime
import json
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core import mail
from django.test import Client
from django.urls import reverse

from members.models import Member, PushSubscription
from scoring.models import Evening, EveningAnswer, Notice
from scoring.services import calendar, notices
from tests import factories
from tests.fake_push import Device, FakePushService
from tests.fake_push import serve as serve_push
from tests.fake_telegram import FakeBotApi, serve
from tests.mailbox import committed

pytestmark = pytest.mark.django_db

TOKEN = "123456:TEST-token"  # noqa: S105 - the fake's
SECRET = "webhook-secret-1"  # noqa: S105 - the test's
NOW = datetime.datetime(2026, 12, 6, 12, 0)


@pytest.fixture
def bot_api(settings: Any) -> Iterator[FakeBotApi]:
    for api in serve():
        settings.TELEGRAM_API_URL = api.url
        settings.TELEGRAM_BOT_TOKEN = TOKEN
        settings.TELEGRAM_CHAT_ID = ""
        settings.TELEGRAM_BOT_USERNAME = "club_bot"
        settings.TELEGRAM_WEBHOOK_SECRET = SECRET
        yield api


@pytest.fixture
def anna() -> Member:
    return factories.member("Anna", username="anna", email="anna@club.example")


def _signed_in(member: Member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def _update(text: str, chat_id: int = 4242, chat_type: str = "private") -> dict[str, Any]:
    return {
        "update_id": 1,
        "message": {"message_id": 7, "chat": {"id": chat_id, "type": chat_type}, "text": text},
    }


def _webhook(update: object, secret: str | None = SECRET) -> Any:
    headers = {"HTTP_X_TELEGRAM_BOT_API_SECRET_TOKEN": secret} if secret is not None else {}
    with committed():
        return Client().post(
            reverse("scoring:telegram_webhook"),
            json.dumps(update),
            content_type="application/json",
            **headers,
        )


# -- Telegram -----------------------------------------------------------------------------------


def test_the_link_button_sends_the_member_to_the_bot_with_a_new_token(
    bot_api: FakeBotApi, anna: Member
) -> None:
    response = _signed_in(anna).post(reverse("scoring:telegram_link"))

    anna.refresh_from_db()
    assert anna.telegram_token is not None
    assert response.status_code == 302
    assert response["Location"] == f"https://t.me/club_bot?start={anna.telegram_token}"


def test_the_bot_links_the_chat_of_the_member_whose_token_it_gets(
    bot_api: FakeBotApi, anna: Member
) -> None:
    _signed_in(anna).post(reverse("scoring:telegram_link"))
    anna.refresh_from_db()

    response = _webhook(_update(f"/start {anna.telegram_token}"))

    assert response.status_code == 200
    anna.refresh_from_db()
    assert (anna.telegram_chat_id, anna.telegram_token) == (4242, None)
    (call,) = bot_api.calls
    assert call.fields["chat_id"] == "4242"
    assert call.fields["text"].startswith("Здравствуйте, Anna! Выбранные вами сообщения клуба")


def test_a_token_used_up_or_tampered_links_nothing_and_the_chat_is_told_why(
    bot_api: FakeBotApi, anna: Member
) -> None:
    _signed_in(anna).post(reverse("scoring:telegram_link"))
    anna.refresh_from_db()
    token = anna.telegram_token
    assert token is not None

    _webhook(_update(f"/start {token[:-1]}x", chat_id=666))
    _webhook(_update(f"/start {token}"))  # Anna's own: linked
    _webhook(_update(f"/start {token}", chat_id=777))  # the same link again: used up

    anna.refresh_from_db()
    assert anna.telegram_chat_id == 4242
    refusals = [c.fields for c in bot_api.calls if c.fields["chat_id"] in ("666", "777")]
    assert [r["chat_id"] for r in refusals] == ["666", "777"]
    assert all(r["text"].startswith("Эта ссылка недействительна") for r in refusals)


def test_the_webhook_without_the_secret_is_refused_and_changes_nothing(
    bot_api: FakeBotApi, anna: Member
) -> None:
    Member.objects.filter(pk=anna.pk).update(telegram_token="t" * 43)

    wrong = _webhook(_update("/start " + "t" * 43), secret="guess")  # noqa: S106 - a wrong one
    missing = _webhook(_update("/start " + "t" * 43), secret=None)

    assert (wrong.status_code, missing.status_code) == (403, 403)
    assert "секрет вебхука не указан или неверен" in wrong.content.decode()
    anna.refresh_from_db()
    assert (anna.telegram_chat_id, anna.telegram_token) == (None, "t" * 43)
    assert bot_api.calls == []


@pytest.mark.parametrize(
    "body", [[], {"message": "x"}, {"message": {"chat": {"id": "1"}, "text": "/start a"}}, None]
)
def test_an_update_the_bot_cannot_use_is_taken_and_ignored(
    bot_api: FakeBotApi, anna: Member, body: object
) -> None:
    assert _webhook(body).status_code == 200
    assert bot_api.calls == []


def test_a_webhook_body_that_is_not_json_is_a_400(bot_api: FakeBotApi) -> None:
    response = Client().post(
        reverse("scoring:telegram_webhook"),
        "{not json",
        content_type="application/json",
        HTTP_X_TELEGRAM_BOT_API_SECRET_TOKEN=SECRET,
    )
    assert response.status_code == 400


def test_unlinking_stops_the_bot(bot_api: FakeBotApi, anna: Member) -> None:
    Member.objects.filter(pk=anna.pk).update(telegram_chat_id=4242)

    response = _signed_in(anna).post(reverse("scoring:telegram_unlink"), follow=True)

    anna.refresh_from_db()
    assert anna.telegram_chat_id is None
    assert "Telegram отвязан: бот вам больше не пишет." in response.content.decode()


def test_without_a_bot_the_settings_page_says_telegram_is_off(anna: Member) -> None:
    page = _signed_in(anna).get(reverse("members:settings")).content.decode()
    assert "Клуб не настроил своего бота в Telegram: сообщения в Telegram выключены." in page
    assert "Клуб не настроил уведомления браузера: они выключены." in page


# -- web push -----------------------------------------------------------------------------------


def _vapid_keys() -> tuple[str, str]:
    """A VAPID pair as the environment carries it: the private key as base64url DER, the
    public key as the browser's applicationServerKey (the uncompressed point)."""
    key = ec.generate_private_key(ec.SECP256R1())
    der = key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    point = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    encode = base64.urlsafe_b64encode
    return encode(der).rstrip(b"=").decode(), encode(point).rstrip(b"=").decode()


@pytest.fixture
def push_service(settings: Any) -> Iterator[FakePushService]:
    private, public = _vapid_keys()
    settings.VAPID_PRIVATE_KEY = private
    settings.VAPID_PUBLIC_KEY = public
    settings.VAPID_SUBJECT = "mailto:club@club.example"
    settings.SITE_URL = "https://club.example"
    yield from serve_push()


def test_a_push_reaches_the_device_encrypted_for_it(
    push_service: FakePushService, anna: Member
) -> None:
    device = Device()
    subscription = PushSubscription.objects.create(
        member=anna,
        endpoint=f"{push_service.url}/push/anna-phone",
        p256dh=device.p256dh,
        auth=device.auth_b64,
    )

    result = notices.push_message.call(
        subscription_id=subscription.pk, title="Завтра", text="Вечер клуба", url="/evenings/1/"
    )

    assert result == "pushed"
    (push,) = push_service.pushes
    assert push.path == "/push/anna-phone"
    assert push.headers["content-encoding"] == "aes128gcm"
    assert push.headers["authorization"].startswith("vapid t=")
    assert json.loads(device.decrypt(push.body)) == {
        "title": "Завтра",
        "body": "Вечер клуба",
        "url": "/evenings/1/",
    }


@pytest.mark.parametrize("status", [404, 410])
def test_a_device_gone_is_forgotten(
    push_service: FakePushService, anna: Member, status: int
) -> None:
    device = Device()
    subscription = PushSubscription.objects.create(
        member=anna, endpoint=f"{push_service.url}/push/old", p256dh=device.p256dh, auth="a" * 22
    )
    push_service.failures = [status]

    assert notices.push_message.call(
        subscription_id=subscription.pk, title="t", text="x", url="/"
    ) == ("gone: deleted")
    assert not PushSubscription.objects.filter(pk=subscription.pk).exists()


def test_the_reminder_is_pushed_to_each_device_once(
    push_service: FakePushService, anna: Member, clock: Any
) -> None:
    clock.at(NOW)
    phone, laptop = Device(), Device()
    for name, device in (("phone", phone), ("laptop", laptop)):
        PushSubscription.objects.create(
            member=anna,
            endpoint=f"{push_service.url}/push/{name}",
            p256dh=device.p256dh,
            auth=device.auth_b64,
        )
    Member.objects.filter(pk=anna.pk).update(email="")  # push only
    olga = factories.member("Olga", organiser=True)
    (evening,) = calendar.evening_schedule(
        organiser=olga,
        played_on=datetime.date(2026, 12, 7),
        starts_at=None,
        place="",
        game="preferans",
        table_size=4,
        seats=None,
    )
    calendar.evening_answer(evening=evening, member=anna, answer="maybe")

    assert notices.reminders_send() == 1
    assert notices.reminders_send() == 0

    assert sorted(p.path for p in push_service.pushes) == ["/push/laptop", "/push/phone"]
    message = json.loads(phone.decrypt(push_service.pushes[0].body))
    if push_service.pushes[0].path == "/push/laptop":
        message = json.loads(laptop.decrypt(push_service.pushes[0].body))
    assert message["title"] == "Завтра вечер клуба, 7 декабря"
    assert message["body"].startswith("Завтра, 7 декабря: вечер клуба.\nВы ответили «может быть»")
    assert message["url"] == f"https://club.example/evenings/{evening.pk}/"
    assert Notice.objects.filter(channel="push").count() == 1


def _subscription(endpoint: str = "https://push.example/send/abc") -> dict[str, Any]:
    return {"endpoint": endpoint, "keys": {"p256dh": Device().p256dh, "auth": "A" * 22}}


def test_a_device_is_subscribed_and_unsubscribed(
    push_service: FakePushService, anna: Member
) -> None:
    client = _signed_in(anna)
    url = reverse("scoring:push_subscribe")

    response = client.post(url, json.dumps(_subscription()), content_type="application/json")

    assert response.status_code == 200
    assert response.json() == {"message": "Теперь это устройство получает уведомления."}
    (row,) = PushSubscription.objects.all()
    assert (row.member, row.endpoint) == (anna, "https://push.example/send/abc")
    response = client.post(
        reverse("scoring:push_unsubscribe"),
        json.dumps({"endpoint": row.endpoint}),
        content_type="application/json",
    )
    assert response.json() == {"message": "Это устройство больше не получает уведомлений."}
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        "{not json",
        json.dumps(
            {
                "endpoint": "http://push.example/plain-http",
                "keys": {"p256dh": "A" * 87, "auth": "A" * 22},
            }
        ),
        json.dumps(
            {"endpoint": "https://push.example/x", "keys": {"p256dh": "<script>", "auth": "A" * 22}}
        ),
        json.dumps({"endpoint": "https://push.example/x"}),
        json.dumps([1, 2]),
    ],
)
def test_a_subscription_that_is_not_one_is_refused_and_says_why(
    push_service: FakePushService, anna: Member, body: str
) -> None:
    response = _signed_in(anna).post(
        reverse("scoring:push_subscribe"), body, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {"error": "это не подписка браузера на уведомления"}
    assert not PushSubscription.objects.exists()


def test_without_vapid_keys_nothing_is_subscribed(anna: Member) -> None:
    response = _signed_in(anna).post(
        reverse("scoring:push_subscribe"),
        json.dumps(_subscription()),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json() == {"error": "Клуб не настроил уведомления браузера."}
    assert not PushSubscription.objects.exists()


def test_another_members_device_is_not_unsubscribed(
    push_service: FakePushService, anna: Member
) -> None:
    boris = factories.member("Boris", username="boris")
    PushSubscription.objects.create(
        member=boris, endpoint="https://push.example/boris", p256dh="B" * 87, auth="B" * 22
    )
    _signed_in(anna).post(
        reverse("scoring:push_unsubscribe"),
        json.dumps({"endpoint": "https://push.example/boris"}),
        content_type="application/json",
    )
    assert PushSubscription.objects.filter(member=boris).count() == 1


# -- the one-tap answer link --------------------------------------------------------------------


@pytest.fixture
def evening(anna: Member, clock: Any) -> Evening:
    clock.at(NOW)
    olga = factories.member("Olga", organiser=True)
    (evening,) = calendar.evening_schedule(
        organiser=olga,
        played_on=datetime.date(2026, 12, 7),
        starts_at=datetime.time(19, 0),
        place="Зал",
        game="preferans",
        table_size=4,
        seats=None,
    )
    calendar.evening_answer(evening=evening, member=anna, answer="yes")
    return evening


def _link(evening: Evening, member: Member) -> str:
    return reverse(
        "scoring:evening_answer_link", args=[evening.pk, notices.answer_token(evening, member)]
    )


def test_opening_the_link_answers_nothing(evening: Evening, anna: Member) -> None:
    page = Client().get(_link(evening, anna))

    assert page.status_code == 200
    assert "Anna, ваш ответ сейчас: «приду»." in page.content.decode()
    assert EveningAnswer.objects.get(member=anna).answer == "yes"


def test_a_tap_answers_for_the_member_without_signing_in(evening: Evening, anna: Member) -> None:
    client = Client(enforce_csrf_checks=True)
    client.get(_link(evening, anna))
    page = client.post(
        _link(evening, anna),
        {"answer": "no", "csrfmiddlewaretoken": client.cookies["csrftoken"].value},
    )

    assert page.status_code == 200
    assert "Записано: Anna — «не приду»." in page.content.decode()
    assert EveningAnswer.objects.get(member=anna).answer == "no"


def test_a_tampered_link_answers_nothing_and_says_why(evening: Evening, anna: Member) -> None:
    token = notices.answer_token(evening, anna)
    for bad in (token[:-2], token.replace(":", ":x", 1), "x"):
        url = reverse("scoring:evening_answer_link", args=[evening.pk, bad])
        page = Client().post(url, {"answer": "no"})
        assert page.status_code == 400
        assert "Эта ссылка для ответа недействительна" in page.content.decode()
    other = factories.member("Boris", username="boris")
    # Anna's link on another evening's address is no link at all.
    (later,) = calendar.evening_schedule(
        organiser=other,
        played_on=datetime.date(2026, 12, 8),
        starts_at=None,
        place="",
        game="preferans",
        table_size=4,
        seats=None,
    )
    url = reverse("scoring:evening_answer_link", args=[later.pk, token])
    assert Client().post(url, {"answer": "no"}).status_code == 400
    assert EveningAnswer.objects.get(member=anna).answer == "yes"
    assert not EveningAnswer.objects.filter(evening=later).exists()


def test_a_link_to_an_evening_over_answers_nothing(
    evening: Evening, anna: Member, clock: Any
) -> None:
    url = _link(evening, anna)
    clock.at(datetime.datetime(2026, 12, 8, 12, 0))

    page = Client().post(url, {"answer": "no"})

    assert page.status_code == 403
    assert "этот вечер прошёл: ответы закрыты" in page.content.decode()
    assert EveningAnswer.objects.get(member=anna).answer == "yes"


def test_a_bad_answer_by_link_is_refused(evening: Evening, anna: Member) -> None:
    page = Client().post(_link(evening, anna), {"answer": "sometimes"})
    assert page.status_code == 400
    assert EveningAnswer.objects.get(member=anna).answer == "yes"
    assert mail.outbox == []


def test_a_subscription_nested_past_the_parsers_limit_is_a_clear_400(
    push_service: FakePushService, anna: Member
) -> None:
    body = "[" * 100_000 + "]" * 100_000  # more than 64 kB: not even parsed
    deep = "[" * 5_000 + "]" * 5_000  # parsed: deeper than Python's recursion limit
    for sent in (body, deep):
        response = _signed_in(anna).post(
            reverse("scoring:push_subscribe"), sent, content_type="application/json"
        )
        assert response.status_code == 400
    assert not PushSubscription.objects.exists()
