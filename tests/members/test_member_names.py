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
