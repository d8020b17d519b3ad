"""One shown name per member: the display name, else the first and last name, else the
username, the same on the standings (page and CSV), the profile and a new table's seats."""

from __future__ import annotations

import csv
import datetime
import io

import pytest
from django.test import Client
from django.urls import reverse

from members.models import Member, shown_name
from scoring.models import Table
from tests import factories
from tests.factories import finished_pulka


@pytest.mark.parametrize(
    ("display", "first", "last", "username", "shown"),
    [
        ("Ваня", "Ivan", "Petrov", "ivan", "Ваня"),
        ("", "Ivan", "Petrov", "ivan", "Ivan Petrov"),
        ("", "Ivan", "", "ivan", "Ivan"),
        ("", "", "Petrov", "ivan", "Petrov"),
        ("", "", "", "ivan", "ivan"),
    ],
)
def test_shown_name(display, first, last, username, shown):
    assert shown_name(display, first, last, username) == shown


@pytest.fixture
def ivan(db) -> Member:
    """A member with a first and a last name but no display name."""
    return Member.objects.create_user(
        username="ivan",
        password="pw",  # noqa: S106 - test password
        first_name="Ivan",
        last_name="Petrov",
    )


@pytest.fixture
def played(ivan) -> list[Member]:
    """Ivan wins a finished pulka against Boris and Vera."""
    club = [ivan, factories.member("Boris", username="boris"), factories.member("Vera")]
    finished_pulka(club, ivan, datetime.date(2026, 3, 1))
    return club


def test_the_member_and_the_model_agree(ivan):
    assert ivan.name == str(ivan) == "Ivan Petrov"


def test_the_standings_show_the_first_and_last_name(client: Client, played):
    html = client.get(reverse("scoring:standings", args=[Table.PREFERANS])).content.decode()
    ivan_link = f'<a href="{reverse("members:detail", args=["ivan"])}">'

    assert f"{ivan_link}Ivan Petrov</a>" in html
    assert f"{ivan_link}ivan</a>" not in html

    body = client.get(reverse("scoring:standings_csv", args=[Table.PREFERANS]))
    rows = list(csv.reader(io.StringIO(body.content.decode("utf-8-sig"))))
    assert rows[1][:2] == ["1", "Ivan Petrov"]


def test_the_profile_shows_the_first_and_last_name(client: Client, played):
    own = client.get(reverse("members:detail", args=["ivan"])).content.decode()
    assert "<h1>Ivan Petrov</h1>" in own

    # Boris's head-to-head lists Ivan as a rival.
    rival = client.get(reverse("members:detail", args=["boris"])).content.decode()
    assert f'<a href="{reverse("members:detail", args=["ivan"])}">Ivan Petrov</a>' in rival


def test_a_new_table_seats_him_as_ivan_petrov(client: Client, ivan):
    others = [factories.member("Boris"), factories.member("Vera")]
    client.force_login(ivan)
    response = client.post(
        reverse("scoring:table_open", args=["preferans"]),
        {
            "version": factories.preferans_version().pk,
            "first_dealer": 0,
            "pool_target": 20,
            "price": "1",
            "player_0": ivan.pk,
            "player_1": others[0].pk,
            "player_2": others[1].pk,
        },
    )

    assert response.status_code == 302
    table = Table.objects.get()
    assert [s.name for s in table.seats.order_by("position")] == ["Ivan Petrov", "Boris", "Vera"]


# -- a new name reaches the cached standings pages (scoring.services.member_save) -----------


def stamp() -> str:
    from scoring.models import StandingsStamp

    return StandingsStamp.objects.get(pk=1).stamp


def test_a_name_changed_in_the_settings_is_on_the_boards_at_once(client: Client, played):
    board = reverse("scoring:standings", args=[Table.PREFERANS])
    profile = reverse("members:detail", args=["boris"])
    assert "Ivan Petrov" in client.get(board).content.decode()  # both pages now cached
    assert "Ivan Petrov" in client.get(profile).content.decode()
    ivan = Client()
    ivan.force_login(played[0])

    response = ivan.post(reverse("members:settings"), {"display_name": "Ваня"})

    assert response.status_code == 302
    assert ">Ваня</a>" in client.get(board).content.decode()
    assert ">Ваня</a>" in client.get(profile).content.decode()  # Boris's head-to-head


def test_what_a_member_wants_e_mailed_leaves_the_pages_cached(client: Client, played):
    before = stamp()
    client.force_login(played[0])

    response = client.post(reverse("members:settings"), {"email_table_finished": "on"})

    assert response.status_code == 302
    assert Member.objects.get(username="ivan").email_evening_summary is False
    assert stamp() == before


def member_change(client: Client, member: Member, **changes: str) -> object:
    """The member admin's change form, as rendered, with ``changes``, saved."""
    from tests.html_forms import form_data

    url = reverse("admin:members_member_change", args=[member.pk])
    data = form_data(client.get(url).content.decode(), "member_form")
    return client.post(url, data | changes | {"_save": "Save"})


def test_a_name_changed_in_the_member_admin_is_on_the_boards_at_once(client: Client, played):
    admin = factories.member("Root", username="root", is_staff=True, is_superuser=True)
    board = reverse("scoring:standings", args=[Table.PREFERANS])
    assert "Ivan Petrov" in client.get(board).content.decode()
    client.force_login(admin)

    response = member_change(client, played[0], last_name="Sidorov")

    assert response.status_code == 302
    assert Member.objects.get(username="ivan").name == "Ivan Sidorov"
    assert ">Ivan Sidorov</a>" in Client().get(board).content.decode()


def test_a_member_admin_edit_that_keeps_the_names_leaves_the_stamp(client: Client, played):
    admin = factories.member("Root", username="root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    before = stamp()

    response = member_change(client, played[0], email="ivan@example.org")

    assert response.status_code == 302
    assert Member.objects.get(username="ivan").email == "ivan@example.org"
    assert stamp() == before
