"""A member's password: changing it signed in, and resetting it through a link e-mailed to
the member's address (Django's auth views with the site's pages), in both languages."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from members.models import Member
from scoring.models import Club
from tests import factories
from tests.factories import PASSWORD
from tests.mailbox import NEW_PASSWORD, committed, only_mail, password_link

pytestmark = pytest.mark.django_db

SIGN_IN = reverse("members:login")
RESET = reverse("members:password_reset")
RESET_SENT = reverse("members:password_reset_done")
RESET_COMPLETE = reverse("members:password_reset_complete")
CHANGE = reverse("members:password_change")
CHANGE_DONE = reverse("members:password_change_done")


@pytest.fixture
def anna() -> Member:
    return factories.member("Анна", username="anna", email="anna@club.example")


def ask_for_a_link(client: Client, email: str) -> str:
    """Post the reset form; the page it leads to."""
    with committed():
        response = client.post(RESET, {"email": email})
    assert response.status_code == 302
    assert response["Location"] == RESET_SENT
    return client.get(RESET_SENT).content.decode()


def set_password(client: Client, link: str, password: str = NEW_PASSWORD) -> str:
    """Open the e-mailed link and choose ``password``; where the form sends the member."""
    opened = client.get(link)
    assert opened.status_code == 302  # Django moves the token into the session first
    form = client.get(opened["Location"])
    assert form.status_code == 200
    assert form.context["validlink"] is True
    response = client.post(
        opened["Location"], {"new_password1": password, "new_password2": password}
    )
    assert response.status_code == 302
    return str(response["Location"])


def signs_in(username: str, password: str) -> bool:
    """Whether a fresh browser signs in with these credentials."""
    browser = Client(headers={"accept-language": "en"})
    response = browser.post(SIGN_IN, {"username": username, "password": password})
    return response.status_code == 302 and "_auth_user_id" in browser.session


# -- changing one's password -----------------------------------------------------------


def test_changing_the_password_needs_signing_in(client: Client) -> None:
    response = client.get(CHANGE)

    assert response.status_code == 302
    assert response["Location"] == f"{SIGN_IN}?next={CHANGE}"


def test_a_member_changes_their_password_and_stays_signed_in(client: Client, anna: Member) -> None:
    other_device = Client()
    other_device.force_login(anna)
    client.force_login(anna)
    page = client.get(CHANGE)
    assert page.status_code == 200
    assert 'name="old_password"' in page.content.decode()
    assert "style=" not in page.content.decode()

    response = client.post(
        CHANGE,
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response.status_code == 302
    assert response["Location"] == CHANGE_DONE
    assert "Your new password is set" in client.get(CHANGE_DONE).content.decode()
    assert client.get(reverse("members:settings")).status_code == 200  # still signed in
    # The other device's session was made with the old password: it is signed out.
    assert other_device.get(reverse("members:settings")).status_code == 302
    assert signs_in("anna", NEW_PASSWORD)
    assert not signs_in("anna", PASSWORD)


@pytest.mark.parametrize(
    ("old", "new1", "new2", "field"),
    [
        ("wrong", NEW_PASSWORD, NEW_PASSWORD, "old_password"),
        (PASSWORD, NEW_PASSWORD, NEW_PASSWORD + "x", "new_password2"),
        (PASSWORD, "12345678", "12345678", "new_password2"),  # all digits, and common
        (PASSWORD, "short", "short", "new_password2"),
    ],
)
def test_a_refused_password_change_says_why_and_keeps_the_password(
    client: Client, anna: Member, old: str, new1: str, new2: str, field: str
) -> None:
    client.force_login(anna)

    response = client.post(
        CHANGE, {"old_password": old, "new_password1": new1, "new_password2": new2}
    )

    assert response.status_code == 200
    assert response.context["form"].errors[field]
    assert "errorlist" in response.content.decode()
    assert signs_in("anna", PASSWORD)


# -- resetting it by e-mail ------------------------------------------------------------


def test_the_reset_link_sets_the_password_and_signs_nobody_in(client: Client, anna: Member) -> None:
    assert client.get(RESET).status_code == 200

    ask_for_a_link(client, "anna@club.example")

    message = only_mail()
    assert message.to == ["anna@club.example"]
    # Sent and signed by the club, under the name its pages show (the Club row's).
    assert message.from_email == f"Preferans and Boston club <{settings.DEFAULT_FROM_EMAIL}>"
    assert message.body.rstrip().endswith("\n— Preferans and Boston club")
    assert message.subject == "A new password for the club's site"
    assert "Hello, Анна." in message.body
    assert "for the account anna" in message.body
    assert "The link works once, within 3 days." in message.body
    link = password_link(message)
    assert set_password(client, link) == RESET_COMPLETE
    assert "_auth_user_id" not in client.session
    complete = client.get(RESET_COMPLETE).content.decode()
    assert "Your password is set" in complete
    assert f'href="{SIGN_IN}"' in complete
    assert signs_in("anna", NEW_PASSWORD)
    assert not signs_in("anna", PASSWORD)
    # Used once, the link is spent: the password it was made for has changed.
    again = client.get(link, follow=True)
    assert again.context["validlink"] is False
    assert "The link no longer works" in again.content.decode()


def test_the_address_is_matched_regardless_of_case(client: Client, anna: Member) -> None:
    ask_for_a_link(client, "ANNA@Club.Example")

    assert only_mail().to == ["anna@club.example"]


def test_the_reset_page_answers_alike_for_any_address(client: Client, anna: Member) -> None:
    """The page never tells whether an address belongs to a member: the same redirect and
    the same page follow a member's address, a stranger's and a deactivated member's."""
    factories.member("Лёва", username="leva", email="leva@club.example", is_active=False)

    pages = [
        ask_for_a_link(client, address)
        for address in ("anna@club.example", "nobody@club.example", "leva@club.example")
    ]

    assert pages[0] == pages[1] == pages[2]
    assert "If the address belongs to a member of the club" in pages[0]
    assert [message.to for message in mail.outbox] == [["anna@club.example"]]


@pytest.mark.parametrize("email", ["", "not an address", "a@" + "b" * 300 + ".example"])
def test_a_malformed_address_is_refused_on_the_form(
    client: Client, anna: Member, email: str
) -> None:
    with committed():
        response = client.post(RESET, {"email": email})

    assert response.status_code == 200
    assert response.context["form"].errors["email"]
    assert mail.outbox == []


def test_a_member_without_a_password_yet_sets_one_by_reset(client: Client) -> None:
    """An invited member whose link expired, or one restored from a backup, has no
    password: the reset serves them too."""
    gleb = factories.member("Глеб", username="gleb", email="gleb@club.example")
    gleb.set_unusable_password()
    gleb.save()

    ask_for_a_link(client, "gleb@club.example")

    assert set_password(client, password_link(only_mail())) == RESET_COMPLETE
    assert signs_in("gleb", NEW_PASSWORD)


def test_the_reset_e_mail_and_pages_are_russian_by_default(anna: Member) -> None:
    client = Client()  # no Accept-Language: the site's Russian

    page = client.get(RESET).content.decode()
    sent = ask_for_a_link(client, "anna@club.example")

    assert "Новый пароль" in page
    assert "Отправить ссылку" in page
    assert "Проверьте почту" in sent
    message = only_mail()
    assert message.subject == "Новый пароль для сайта клуба"
    assert "Здравствуйте, Анна." in message.body
    assert "Ссылка действует один раз, 3 дня." in message.body
    assert "Hello" not in message.body


def test_the_e_mails_name_the_club_in_the_members_language(anna: Member) -> None:
    """The reset and invitation e-mails said «Клуб преферанса и бостона», the first name
    a fresh database gives the club, whatever the club had called itself since."""
    Club.objects.update(name="Клуб «Семь пик»", name_en="Seven Spades Club")
    organiser = factories.member("Ольга", username="olga", organiser=True)
    english = Client(headers={"accept-language": "en"})
    english.force_login(organiser)

    ask_for_a_link(Client(), "anna@club.example")  # the site's Russian
    with committed():
        english.post(reverse("members:invite"), {"username": "mila", "email": "mila@club.example"})

    reset, invitation = mail.outbox
    assert "на сайте «Клуб «Семь пик»»" in reset.body
    assert "on the site of Seven Spades Club," in invitation.body
    for message in (reset, invitation):
        assert "преферанса и бостона" not in message.body


# -- links that do not work ------------------------------------------------------------


def link_for(member: Member, token: str) -> str:
    uid = urlsafe_base64_encode(force_bytes(member.pk))
    return reverse("members:password_reset_confirm", args=[uid, token])


class MadeAt(PasswordResetTokenGenerator):
    """Django's token generator, making its tokens as of ``moment`` (``_now`` is the hook
    Django's own tests use for this)."""

    def __init__(self, moment: datetime) -> None:
        super().__init__()
        self.moment = moment

    def _now(self) -> datetime:
        return self.moment


@pytest.mark.parametrize(
    ("age", "works"),
    [
        # PASSWORD_RESET_TIMEOUT is 3 days = 259 200 s: a minute inside it works, a second
        # past it does not.
        (timedelta(seconds=259_200 - 60), True),
        (timedelta(seconds=259_200 + 1), False),
    ],
)
def test_a_link_works_for_three_days(
    client: Client, anna: Member, age: timedelta, works: bool
) -> None:
    assert settings.PASSWORD_RESET_TIMEOUT == 259_200
    token = MadeAt(datetime.now() - age).make_token(anna)

    response = client.get(link_for(anna, token), follow=True)

    assert response.context["validlink"] is works


@pytest.mark.parametrize(
    "token",
    ["wrong-token", "dixqyv-0123456789abcdef0123456789abcdef", "set-password", "x" * 500],
)
def test_a_wrong_token_shows_that_the_link_does_not_work(
    client: Client, anna: Member, token: str
) -> None:
    response = client.get(link_for(anna, token), follow=True)

    assert response.status_code == 200
    assert response.context["validlink"] is False
    html = response.content.decode()
    assert "The link no longer works" in html
    assert 'name="new_password1"' not in html
    # A POST with a wrong token changes nothing either.
    client.post(link_for(anna, token), {"new_password1": "x", "new_password2": "x"})
    assert signs_in("anna", PASSWORD)


@pytest.mark.parametrize(
    "uid",
    [
        "!!!",  # not base64
        "MTIzNDU2Nzg5",  # "123456789": no such member
        "YW5uYQ",  # "anna": not a number
        "\x00",
    ],
)
def test_a_link_for_nobody_does_not_work(client: Client, anna: Member, uid: str) -> None:
    token = PasswordResetTokenGenerator().make_token(anna)

    response = client.get(f"/members/password-reset/{uid}/{token}/", follow=True)

    assert response.status_code == 200
    assert response.context["validlink"] is False


def test_a_link_without_a_member_is_not_a_page(client: Client, anna: Member) -> None:
    token = PasswordResetTokenGenerator().make_token(anna)

    assert client.get(f"/members/password-reset//{token}/").status_code == 404


def test_a_deactivated_members_link_does_not_work(client: Client, anna: Member) -> None:
    token = PasswordResetTokenGenerator().make_token(anna)
    Member.objects.filter(pk=anna.pk).update(is_active=False)

    response = client.get(link_for(anna, token), follow=True)

    assert response.context["validlink"] is False


def test_a_link_stops_working_when_the_address_changes(client: Client, anna: Member) -> None:
    token = PasswordResetTokenGenerator().make_token(anna)
    anna.email = "anna@elsewhere.example"
    anna.save()

    response = client.get(link_for(anna, token), follow=True)

    assert response.context["validlink"] is False


# -- the reset ends a lockout ----------------------------------------------------------


def lock_out(client: Client, username: str) -> None:
    """Five wrong passwords (AXES_FAILURE_LIMIT) from the test client's address."""
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post(SIGN_IN, {"username": username, "password": "wrong"})
    locked = client.post(SIGN_IN, {"username": username, "password": PASSWORD})
    assert locked.status_code == 429


def test_a_locked_out_member_resets_the_password_and_signs_in_at_once(
    client: Client, anna: Member
) -> None:
    lock_out(client, "anna")
    lockout_page = client.post(SIGN_IN, {"username": "anna", "password": PASSWORD})
    assert f'href="{RESET}"' in lockout_page.content.decode()

    ask_for_a_link(client, "anna@club.example")
    set_password(client, password_link(only_mail()))

    response = client.post(SIGN_IN, {"username": "anna", "password": NEW_PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(anna.pk)


def test_the_lockout_page_says_what_a_member_can_do(client: Client, anna: Member) -> None:
    lock_out(client, "anna")

    html = client.post(SIGN_IN, {"username": "anna", "password": PASSWORD}).content.decode()

    assert "Choose a new one</a> through a link we e-mail to your address" in html
    assert "Ask an organiser: they can clear the lockout at once." in html
    assert "Ask an organiser to set a new one" not in html


def test_the_sign_in_page_offers_the_reset(client: Client) -> None:
    html = client.get(SIGN_IN).content.decode()

    assert f'<a href="{RESET}">Forgotten your password?</a>' in html
