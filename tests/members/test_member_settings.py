"""A member's own settings: display name, e-mail address and what to e-mail."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from members.models import EMAIL_CHOICES, NOTICE_CHOICES, Member, PushSubscription
from tests import factories
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

SETTINGS = reverse("members:settings")
BOTH_ON = {"email_table_finished": "on", "email_evening_summary": "on"}


@pytest.fixture
def anna(client: Client) -> Member:
    """Анна (username anna, no e-mail yet), signed in on ``client``."""
    member = factories.member("Анна", username="anna")
    client.force_login(member)
    return member


def save(client: Client, **data: str) -> Any:
    return client.post(SETTINGS, data)


def test_the_settings_page_needs_signing_in(client: Client) -> None:
    response = client.get(SETTINGS)

    assert response.status_code == 302
    assert response["Location"] == f"{reverse('members:login')}?next={SETTINGS}"


def test_the_page_shows_the_members_own_settings(client: Client, anna: Member) -> None:
    response = client.get(SETTINGS)

    assert response.status_code == 200
    html = response.content.decode()
    for name in ("display_name", "email", "current_password", *EMAIL_CHOICES):
        assert f'name="{name}"' in html
    assert 'value="Анна"' in html
    assert "Nothing is e-mailed until you give an address." in html
    assert f'href="{reverse("members:password_change")}"' in html
    assert f'href="{reverse("members:manage")}"' not in html  # not an organiser
    assert "style=" not in html


def test_an_organiser_finds_the_members_page_from_the_settings(client: Client) -> None:
    client.force_login(factories.member("Ольга", username="olga", organiser=True))

    html = client.get(SETTINGS).content.decode()

    assert f'href="{reverse("members:manage")}"' in html


def test_a_member_changes_their_display_name_without_the_password(
    client: Client, anna: Member
) -> None:
    response = save(client, display_name="Анна Петровна", **BOTH_ON)

    assert response.status_code == 302
    assert response["Location"] == SETTINGS
    assert "Your settings are saved." in client.get(SETTINGS).content.decode()
    anna.refresh_from_db()
    assert anna.display_name == "Анна Петровна"


def test_a_too_long_display_name_is_refused_with_the_form(client: Client, anna: Member) -> None:
    response = save(client, display_name="А" * 61, **BOTH_ON)

    assert response.status_code == 200
    assert response.context["form"].errors["display_name"]
    anna.refresh_from_db()
    assert anna.display_name == "Анна"


def test_a_new_address_needs_the_password(client: Client, anna: Member) -> None:
    for password in ("", "wrong"):
        response = save(
            client,
            display_name="Анна",
            email="anna@club.example",
            current_password=password,
            **BOTH_ON,
        )

        assert response.status_code == 200
        errors = response.context["form"].errors
        assert errors["current_password"] == ["Enter your password to change your e-mail address."]
        anna.refresh_from_db()
        assert anna.email == ""


def test_with_the_password_the_address_is_saved_with_its_domain_in_lower_case(
    client: Client, anna: Member
) -> None:
    response = save(
        client,
        display_name="Анна",
        email="Anna.P@Club.Example",
        current_password=PASSWORD,
        **BOTH_ON,
    )

    assert response.status_code == 302
    anna.refresh_from_db()
    assert anna.email == "Anna.P@club.example"


def test_an_unchanged_address_needs_no_password(client: Client, anna: Member) -> None:
    Member.objects.filter(pk=anna.pk).update(email="anna@club.example")

    response = save(client, display_name="Аня", email="anna@club.example", **BOTH_ON)

    assert response.status_code == 302
    anna.refresh_from_db()
    assert (anna.display_name, anna.email) == ("Аня", "anna@club.example")


@pytest.mark.parametrize("taken", ["boris@club.example", "BORIS@club.example"])
def test_another_members_address_is_refused(client: Client, anna: Member, taken: str) -> None:
    factories.member("Борис", username="boris", email="boris@club.example")

    response = save(client, display_name="Анна", email=taken, current_password=PASSWORD, **BOTH_ON)

    assert response.status_code == 200
    assert response.context["form"].errors["email"] == ["Another member already uses this address."]
    anna.refresh_from_db()
    assert anna.email == ""


@pytest.mark.parametrize("email", ["not-an-address", "a@b", "x" * 250 + "@club.example"])
def test_a_malformed_address_is_refused(client: Client, anna: Member, email: str) -> None:
    response = save(client, display_name="Анна", email=email, current_password=PASSWORD, **BOTH_ON)

    assert response.status_code == 200
    assert response.context["form"].errors["email"]
    anna.refresh_from_db()
    assert anna.email == ""


def test_the_e_mail_choices_start_on_and_are_kept_as_ticked(client: Client, anna: Member) -> None:
    assert (anna.email_table_finished, anna.email_evening_summary) == (True, True)

    # An unticked box is not posted at all.
    response = save(client, display_name="Анна", email_evening_summary="on")

    assert response.status_code == 302
    anna.refresh_from_db()
    assert (anna.email_table_finished, anna.email_evening_summary) == (False, True)


@pytest.mark.parametrize(
    ("email", "active", "table_finished", "wanted"),
    [
        ("anna@club.example", True, True, True),
        ("", True, True, False),  # nowhere to send it
        ("anna@club.example", True, False, False),  # the member said no
        ("anna@club.example", False, True, False),  # no longer a member
    ],
)
def test_a_member_is_e_mailed_only_with_an_address_and_their_yes(
    email: str, active: bool, table_finished: bool, wanted: bool
) -> None:
    member = factories.member(
        "Анна", email=email, is_active=active, email_table_finished=table_finished
    )

    assert member.wants_email("email_table_finished") is wanted
    assert member.wants_email("email_evening_summary") is (bool(email) and active)
    with pytest.raises(ValueError, match="Not an e-mail choice"):
        member.wants_email("is_staff")


def test_the_settings_change_only_the_signed_in_member(client: Client, anna: Member) -> None:
    boris = factories.member("Борис", username="boris")

    save(client, display_name="Мила", username="boris", pk=str(boris.pk), **BOTH_ON)

    boris.refresh_from_db()
    anna.refresh_from_db()
    assert (boris.display_name, boris.username) == ("Борис", "boris")
    assert (anna.display_name, anna.username) == ("Мила", "anna")


# -- the member's page -------------------------------------------------------------------


def test_ones_own_page_links_to_the_settings(client: Client, anna: Member) -> None:
    factories.member("Борис", username="boris")

    own = client.get(reverse("members:detail", args=["anna"])).content.decode()
    other = client.get(reverse("members:detail", args=["boris"])).content.decode()

    assert f'href="{SETTINGS}"' in own
    assert f'href="{reverse("members:password_change")}"' in own
    assert f'href="{SETTINGS}"' not in other


def test_an_organisers_own_page_links_to_the_members_page(client: Client) -> None:
    olga = factories.member("Ольга", username="olga", organiser=True)
    client.force_login(olga)

    html = client.get(reverse("members:detail", args=["olga"])).content.decode()

    assert f'href="{reverse("members:manage")}"' in html


def test_a_members_page_takes_no_posts(client: Client, anna: Member) -> None:
    """The display name moved to the settings page; the member's page only shows."""
    response = client.post(reverse("members:detail", args=["anna"]), {"display_name": "X"})

    assert response.status_code == 405
    anna.refresh_from_db()
    assert anna.display_name == "Анна"


# -- the messages' grid: each message by each way (docs/evenings.md, "Reminders and messages")


def test_the_grid_has_a_box_for_each_message_by_each_way(client: Client, anna: Member) -> None:
    html = client.get(SETTINGS).content.decode()

    for name in NOTICE_CHOICES:
        assert f'name="{name}"' in html
        assert f'id="id_{name}" checked' in html  # every box starts ticked
    # Four messages down, three ways across.
    assert html.count('<th scope="row">') == 4
    assert '<th scope="col">Telegram</th>' in html


def test_the_grid_is_kept_as_ticked(client: Client, anna: Member) -> None:
    response = save(client, display_name="Анна", telegram_reminder="on", push_seated="on")

    assert response.status_code == 302
    anna.refresh_from_db()
    assert {name for name in NOTICE_CHOICES if getattr(anna, name)} == {
        "telegram_reminder",
        "push_seated",
    }


@pytest.mark.parametrize(
    ("fields", "channel", "wanted"),
    [
        ({"email": "anna@club.example"}, "email", True),
        ({}, "email", False),  # no address
        ({"telegram_chat_id": 5}, "telegram", True),
        ({}, "telegram", False),  # no chat linked
        ({"telegram_chat_id": 5, "telegram_reminder": False}, "telegram", False),
        ({"telegram_chat_id": 5, "is_active": False}, "telegram", False),
        ({}, "push", True),  # the sender looks for his devices
        ({"push_reminder": False}, "push", False),
    ],
)
def test_a_message_goes_only_by_a_way_the_member_has_and_wants(
    fields: dict[str, Any], channel: str, wanted: bool
) -> None:
    member = factories.member("Анна", **fields)

    assert member.wants("reminder", channel) is wanted
    with pytest.raises(ValueError, match="Not a message choice"):
        member.wants("reminder", "pigeon")


def test_the_page_says_where_telegram_is_linked(
    client: Client, anna: Member, settings: Any
) -> None:
    settings.TELEGRAM_BOT_TOKEN = "1:x"  # noqa: S105 - the test's
    settings.TELEGRAM_BOT_USERNAME = "club_bot"
    settings.TELEGRAM_WEBHOOK_SECRET = "s"  # noqa: S105 - the test's
    assert "Link Telegram" in client.get(SETTINGS).content.decode()

    Member.objects.filter(pk=anna.pk).update(telegram_chat_id=5)
    html = client.get(SETTINGS).content.decode()

    assert "Your Telegram chat is linked" in html
    assert f'action="{reverse("scoring:telegram_unlink")}"' in html


def test_with_the_vapid_keys_the_page_counts_the_devices(
    client: Client, anna: Member, settings: Any
) -> None:
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = "B" * 87, "p" * 43
    settings.VAPID_SUBJECT = "mailto:club@club.example"
    for n in range(2):
        PushSubscription.objects.create(
            member=anna, endpoint=f"https://push.example/{n}", p256dh="B" * 87, auth="A" * 22
        )

    html = client.get(SETTINGS).content.decode()

    assert "2 devices of yours get web push." in html
    assert f'data-key="{"B" * 87}"' in html
    assert "js/push" in html
