"""The organisers' members page: inviting a member by e-mail, sending the link again,
deactivating and reactivating a member, and clearing a sign-in lockout."""

from __future__ import annotations

from typing import Any

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core import mail
from django.test import Client
from django.urls import reverse

from members.models import Member
from tests import factories
from tests.factories import PASSWORD
from tests.mailbox import NEW_PASSWORD, committed, only_mail, password_link

pytestmark = pytest.mark.django_db

MANAGE = reverse("members:manage")
INVITE = reverse("members:invite")
SIGN_IN = reverse("members:login")


@pytest.fixture
def olga(client: Client) -> Member:
    """Ольга, an organiser (not staff), signed in on ``client``."""
    member = factories.member("Ольга", username="olga", organiser=True)
    client.force_login(member)
    return member


@pytest.fixture
def boris() -> Member:
    return factories.member("Борис", username="boris", email="boris@club.example")


def browser() -> Client:
    return Client(headers={"accept-language": "en"})


def signs_in(username: str, password: str = PASSWORD) -> bool:
    visitor = browser()
    response = visitor.post(SIGN_IN, {"username": username, "password": password})
    return response.status_code == 302 and "_auth_user_id" in visitor.session


def messages_after(client: Client, response: Any) -> str:
    """The page the action's redirect leads to (its message is shown there)."""
    assert response.status_code == 302
    assert response["Location"] == MANAGE
    return client.get(MANAGE).content.decode()


def action(name: str, member: Member) -> str:
    return reverse(f"members:{name}", args=[member.username])


# -- the page ----------------------------------------------------------------------------


def test_the_page_lists_every_member_with_their_state(
    client: Client, olga: Member, boris: Member
) -> None:
    factories.member("Лёва", username="leva", is_active=False)
    invited = factories.member("Глеб", username="gleb", email="gleb@club.example")
    invited.set_unusable_password()
    invited.save()

    response = client.get(MANAGE)

    assert response.status_code == 200
    html = response.content.decode()
    rows = {row.member.username: row for row in response.context["rows"]}
    assert set(rows) == {"olga", "boris", "leva", "gleb"}
    assert rows["gleb"].needs_password and not rows["boris"].needs_password
    assert "deactivated" in html
    assert "no password yet" in html
    assert "boris@club.example" in html
    assert f'action="{action("deactivate", boris)}"' in html
    assert f'action="{action("reactivate", Member.objects.get(username="leva"))}"' in html
    assert f'action="{action("send_link", invited)}"' in html
    assert f'action="{action("send_link", boris)}"' not in html  # Boris has a password
    assert f'action="{action("deactivate", olga)}"' not in html  # not oneself
    assert 'name="username"' in html  # the invitation form
    assert "style=" not in html


@pytest.mark.parametrize("members", [3, 12])
def test_the_page_costs_the_same_queries_for_any_number_of_members(
    client: Client, olga: Member, django_assert_num_queries: Any, members: int
) -> None:
    for i in range(members):
        factories.member(f"Игрок {i}", organiser=i % 2 == 0)

    # The session and its member (2); the organiser with their groups (2); the lockouts
    # (1); every member, then all their groups (2); every balance (1); the club's name (1).
    with django_assert_num_queries(9):
        response = client.get(MANAGE)

    assert len(response.context["rows"]) == members + 1


def test_a_member_who_is_not_an_organiser_is_refused(client: Client, boris: Member) -> None:
    client.force_login(boris)

    assert client.get(MANAGE).status_code == 403
    assert client.post(INVITE, {"username": "x", "email": "x@club.example"}).status_code == 403
    assert not Member.objects.filter(username="x").exists()


# -- inviting ---------------------------------------------------------------------------


def invite(client: Client, **data: str) -> Any:
    fields = {"username": "mila", "display_name": "Мила", "email": "mila@club.example"}
    with committed():
        return client.post(INVITE, fields | data)


def test_an_invitation_from_the_form_to_the_first_sign_in(client: Client, olga: Member) -> None:
    response = invite(client)

    page = messages_after(client, response)
    assert "Мила is invited: the link to set a password is on its way to mila@club.example." in page
    mila = Member.objects.get(username="mila")
    assert (mila.display_name, mila.email, mila.is_active) == ("Мила", "mila@club.example", True)
    assert not mila.has_usable_password()
    assert not signs_in("mila", "")
    message = only_mail()
    assert message.to == ["mila@club.example"]
    assert message.subject == "Your account on the club's site"
    assert "Hello, Мила." in message.body
    assert "Ольга has made you an account" in message.body
    assert "Your username is mila." in message.body
    assert "The link works once, within 3 days." in message.body

    # Mila, in her own browser, opens the link and chooses a password.
    mila_browser = browser()
    link = password_link(message)
    opened = mila_browser.get(link)
    assert opened.status_code == 302
    form = mila_browser.get(opened["Location"])
    assert "For the account mila." in form.content.decode()
    chosen = mila_browser.post(
        opened["Location"], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert chosen["Location"] == reverse("members:password_reset_complete")
    assert "_auth_user_id" not in mila_browser.session  # the link signs nobody in
    assert signs_in("mila", NEW_PASSWORD)
    assert mila_browser.get(link, follow=True).context["validlink"] is False
    # The members page now shows her as an ordinary member.
    rows = {row.member.username: row for row in client.get(MANAGE).context["rows"]}
    assert not rows["mila"].needs_password


@pytest.mark.parametrize(
    ("data", "field", "error"),
    [
        ({"username": "boris"}, "username", "A member with that username already exists."),
        ({"username": "BORIS"}, "username", "A member with that username already exists."),
        ({"username": "ｂｏｒｉｓ"}, "username", "A member with that username already exists."),
        ({"username": "ｓｅｔｔｉｎｇｓ"}, "username", "This username is the name of a page"),
        ({"username": "settings"}, "username", "This username is the name of a page"),
        ({"username": "manage"}, "username", "This username is the name of a page"),
        ({"username": "mi la"}, "username", "Enter a valid username"),
        ({"username": "mi/la"}, "username", "Enter a valid username"),
        ({"username": ""}, "username", "This field is required."),
        ({"email": ""}, "email", "This field is required."),
        ({"email": "mila"}, "email", "Enter a valid email address."),
        ({"email": "Boris@Club.example"}, "email", "Another member already uses this address."),
        ({"display_name": "М" * 61}, "display_name", "at most 60 characters"),
    ],
)
def test_a_refused_invitation_says_why_and_changes_nothing(
    client: Client, olga: Member, boris: Member, data: dict[str, str], field: str, error: str
) -> None:
    before = list(Member.objects.order_by("pk").values_list("username", "email"))

    response = invite(client, **data)

    assert response.status_code == 200
    errors = response.context["invite"].errors
    assert any(error in text for text in errors[field]), errors
    assert "errorlist" in response.content.decode()
    assert list(Member.objects.order_by("pk").values_list("username", "email")) == before
    assert mail.outbox == []


def test_the_invitation_is_in_the_organisers_language() -> None:
    olga = factories.member("Ольга", username="olga", organiser=True)
    russian = Client()  # no Accept-Language: the site's Russian
    russian.force_login(olga)

    invite(russian)

    message = only_mail()
    assert message.subject == "Ваша учётная запись на сайте клуба"
    assert "Здравствуйте, Мила." in message.body
    assert "Ваше имя пользователя — mila." in message.body


def test_the_link_is_sent_again_to_a_member_without_a_password(
    client: Client, olga: Member
) -> None:
    invite(client)
    first = password_link(only_mail())
    mail.outbox.clear()
    mila = Member.objects.get(username="mila")

    with committed():
        response = client.post(action("send_link", mila))

    assert "The link to set a password is on its way to mila@club.example." in messages_after(
        client, response
    )
    second = password_link(only_mail())
    # Both work until a password is set (the token is made from the account as it is).
    assert browser().get(first, follow=True).context["validlink"] is True
    assert browser().get(second, follow=True).context["validlink"] is True


@pytest.mark.parametrize(
    ("state", "refusal"),
    [
        ({}, "Борис has a password already; they can reset it from the sign-in page."),
        ({"is_active": False}, "Борис is deactivated."),
        ({"email": "", "password": None}, "Борис has no e-mail address."),
    ],
)
def test_the_link_is_not_sent_where_it_cannot_help(
    client: Client, olga: Member, boris: Member, state: dict[str, Any], refusal: str
) -> None:
    if state.pop("password", "keep") is None:
        boris.set_unusable_password()
    for name, value in state.items():
        setattr(boris, name, value)
    boris.save()

    with committed():
        response = client.post(action("send_link", boris))

    assert refusal in messages_after(client, response)
    assert mail.outbox == []


# -- deactivating and reactivating ------------------------------------------------------


def test_a_deactivated_member_is_signed_out_cannot_sign_in_and_keeps_their_tables(
    client: Client, olga: Member, boris: Member
) -> None:
    anna, vera = factories.member("Анна"), factories.member("Вера")
    table = factories.pulka([anna, boris, vera], finished=True)
    boris_browser = browser()
    boris_browser.force_login(boris)

    response = client.post(action("deactivate", boris))

    page = messages_after(client, response)
    assert "Борис is deactivated: they can no longer sign in. Their tables stay." in page
    boris.refresh_from_db()
    assert boris.is_active is False
    # His open session ends at his next page; signing in is refused.
    assert boris_browser.get(reverse("members:settings")).status_code == 302
    assert not signs_in("boris")
    # His history stays: the finished table still seats him, his page still shows it.
    assert table.seats.filter(member=boris).exists()
    own_page = browser().get(reverse("members:detail", args=["boris"]))
    assert [line.table_id for line in own_page.context["profile"].lines] == [table.pk]
    # A new table does not offer him a seat.
    seat_form = client.get(reverse("scoring:table_open", args=["preferans"])).content.decode()
    assert f'name="player_1" value="{anna.pk}" id="id_player_1_1"><span>Анна</span>' in seat_form
    assert f'name="player_1" value="{boris.pk}"' not in seat_form


def test_a_reactivated_member_signs_in_again(client: Client, olga: Member, boris: Member) -> None:
    client.post(action("deactivate", boris))
    assert not signs_in("boris")

    response = client.post(action("reactivate", boris))

    assert "Борис is a member again and can sign in." in messages_after(client, response)
    assert signs_in("boris")


def test_deactivating_twice_changes_nothing_the_second_time(
    client: Client, olga: Member, boris: Member
) -> None:
    client.post(action("deactivate", boris))

    response = client.post(action("deactivate", boris))

    assert "Борис is deactivated already." in messages_after(client, response)
    assert Member.objects.get(pk=boris.pk).is_active is False


@pytest.mark.parametrize(
    ("actor", "target", "allowed", "refusal"),
    [
        ("organiser", "member", True, ""),
        ("organiser", "organiser", True, ""),
        ("organiser", "self", False, "You cannot deactivate or reactivate yourself."),
        (
            "organiser",
            "administrator",
            False,
            "Only an administrator can deactivate or reactivate an administrator.",
        ),
        ("administrator", "administrator", True, ""),
        ("administrator", "self", False, "You cannot deactivate or reactivate yourself."),
    ],
)
def test_who_deactivates_whom(
    client: Client, actor: str, target: str, allowed: bool, refusal: str
) -> None:
    people = {
        "organiser": factories.member("Ольга", username="olga", organiser=True),
        "administrator": factories.member("Ада", username="ada", is_superuser=True),
        "member": factories.member("Борис", username="boris"),
    }
    people["self"] = people[actor]
    if target == "organiser":
        people["organiser-2"] = factories.member("Олег", username="oleg", organiser=True)
        target = "organiser-2"
    if target == "administrator" and actor == "administrator":
        people["administrator-2"] = factories.member("Рут", username="root", is_superuser=True)
        target = "administrator-2"
    client.force_login(people[actor])

    response = client.post(action("deactivate", people[target]))

    page = messages_after(client, response)
    assert Member.objects.get(pk=people[target].pk).is_active is (not allowed)
    if refusal:
        assert refusal in page


def test_an_unknown_member_is_404(client: Client, olga: Member) -> None:
    for name in ("deactivate", "reactivate", "unlock", "send_link"):
        assert client.post(reverse(f"members:{name}", args=["nobody"])).status_code == 404


def test_the_actions_take_posts_only(client: Client, olga: Member, boris: Member) -> None:
    for name in ("deactivate", "reactivate", "unlock", "send_link"):
        assert client.get(action(name, boris)).status_code == 405
    assert client.get(INVITE).status_code == 405
    assert Member.objects.get(pk=boris.pk).is_active is True


# -- clearing a lockout -----------------------------------------------------------------


def lock_out(username: str, address: str = "127.0.0.1") -> Client:
    """Five wrong passwords for ``username`` from ``address``: the sixth try, even with
    the right password, is refused (429)."""
    visitor = Client(REMOTE_ADDR=address, headers={"accept-language": "en"})
    for _ in range(settings.AXES_FAILURE_LIMIT):
        visitor.post(SIGN_IN, {"username": username, "password": "wrong"})
    assert visitor.post(SIGN_IN, {"username": username, "password": PASSWORD}).status_code == 429
    return visitor


def test_an_organiser_clears_a_lockout_and_the_member_signs_in_at_once(
    client: Client, olga: Member, boris: Member
) -> None:
    visitor = lock_out("boris")
    rows = {row.member.username: row for row in client.get(MANAGE).context["rows"]}
    assert rows["boris"].locked_out and not rows["olga"].locked_out
    assert f'action="{action("unlock", boris)}"' in client.get(MANAGE).content.decode()

    response = client.post(action("unlock", boris))

    page = messages_after(client, response)
    assert "Борис can sign in again: the failed attempts are cleared." in page
    assert "signing in locked" not in page
    assert not AccessAttempt.objects.filter(username="boris").exists()
    signed_in = visitor.post(SIGN_IN, {"username": "boris", "password": PASSWORD})
    assert signed_in.status_code == 302


def test_clearing_ends_the_lockout_from_every_address(
    client: Client, olga: Member, boris: Member
) -> None:
    first, second = lock_out("boris", "10.0.0.1"), lock_out("boris", "10.0.0.2")

    client.post(action("unlock", boris))

    for visitor in (first, second):
        response = visitor.post(SIGN_IN, {"username": "boris", "password": PASSWORD})
        assert response.status_code == 302


def test_four_failures_are_not_a_lockout(client: Client, olga: Member, boris: Member) -> None:
    visitor = browser()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        visitor.post(SIGN_IN, {"username": "boris", "password": "wrong"})

    rows = {row.member.username: row for row in client.get(MANAGE).context["rows"]}

    assert not rows["boris"].locked_out


def test_clearing_a_member_who_is_not_locked_out_says_so(
    client: Client, olga: Member, boris: Member
) -> None:
    response = client.post(action("unlock", boris))

    assert "Борис had no failed sign-ins to clear." in messages_after(client, response)


def test_clearing_one_member_leaves_anothers_lockout(
    client: Client, olga: Member, boris: Member
) -> None:
    factories.member("Вера", username="vera")
    lock_out("boris")
    lock_out("vera")

    client.post(action("unlock", boris))

    assert set(AccessAttempt.objects.values_list("username", flat=True)) == {"vera"}
