"""A guest's name (issue 35, item 4): never a member's shown name — compared after NFKC,
case folding, trimming and collapsing the inner spaces — never only invisible characters,
and never with bidi controls in it; refused in words, in Russian and English, with nothing
stored. Through the open-a-table form, the evening's guest check-in and an import."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from members.models import Member
from scoring.models import Guest, Table
from scoring.services import evenings as evening_services
from tests import factories
from tests.fuzz_strategies import db_snapshot

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 3, 10)
MEMBER_LIKE = ["Anna", "anna", "  ANNA ", "Ａｎｎａ", "An\u200bna", "\ufeffAnna", "\u202eAnna"]
INVISIBLE = ["\ufeff", "\u202e", "\u200b\u2060", "\u2066 \u2069", "\u200c\u200d\u202a"]


@pytest.fixture
def anna() -> Member:
    return factories.member("Anna", username="anna")


def as_(member: Member, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(member)
    return client


def open_with_guest(client: Client, members: list[Member], guest: str) -> Any:
    return client.post(
        reverse("scoring:table_open", args=["preferans"]),
        {
            "version": factories.preferans_version().pk,
            "first_dealer": 0,
            "pool_target": 20,
            "price": "1",
            "player_0": members[0].pk,
            "player_1": members[1].pk,
            "guest_2": guest,
        },
    )


@pytest.mark.parametrize("name", MEMBER_LIKE)
def test_a_guest_may_not_be_named_like_a_member(anna, name):
    boris = factories.member("Boris", username="boris")
    before = db_snapshot()
    response = open_with_guest(as_(anna), [anna, boris], name)
    assert response.status_code == 200
    assert "Anna is a member&#x27;s name: choose the member" in response.content.decode()
    assert db_snapshot() == before


def test_the_refusal_speaks_russian(anna):
    boris = factories.member("Борис", username="boris")
    response = open_with_guest(as_(anna, "ru"), [anna, boris], "борис")
    page = response.content.decode()
    assert "Борис — так зовут участника клуба: выберите участника" in page
    assert not Table.objects.exists()


@pytest.mark.parametrize("name", INVISIBLE)
def test_a_guest_name_of_invisible_characters_only_is_refused(anna, name):
    boris = factories.member("Boris", username="boris")
    before = db_snapshot()
    response = open_with_guest(as_(anna), [anna, boris], name)
    assert response.status_code == 200
    assert "a guest&#x27;s name must have letters one can see" in response.content.decode()
    assert db_snapshot() == before


def test_bidi_controls_are_taken_out_of_a_guest_name(anna):
    boris = factories.member("Boris", username="boris")
    response = open_with_guest(as_(anna), [anna, boris], "\u202eПётр\u202c \ufeffИванов")
    assert response.status_code == 302
    assert Guest.objects.get().name == "Пётр Иванов"
    table = Table.objects.get()
    assert [s.name for s in table.seats.order_by("position")] == ["Anna", "Boris", "Пётр Иванов"]


def test_an_evening_refuses_a_guest_named_like_a_member(anna):
    olga = factories.member("Olga", organiser=True, username="olga")
    evening = evening_services.evening_create(
        organiser=olga, played_on=DAY, place="", game=Table.PREFERANS, table_size=3
    )
    client = as_(olga)
    url = reverse("scoring:evening_check_in_guest", args=[evening.pk])
    before = db_snapshot()
    for name, words in (
        ("ａｎｎａ", "Anna is a member&#x27;s name"),
        ("\u202e", "a guest&#x27;s name must have letters one can see"),
    ):
        response = client.post(url, {"name": name}, follow=True)
        assert words in response.content.decode()
    assert db_snapshot() == before
    client.post(url, {"name": "\u2067Пётр"})
    assert Guest.objects.get().name == "Пётр"


def test_an_import_refuses_a_guest_named_like_a_member(anna):
    boris = factories.member("Boris", username="boris")
    record = {
        "format": "pulka/1",
        "game": "preferans",
        "players": ["Anna", "Boris", "BORIS "],
        "members": ["anna", "boris", None],
        "pool_target": 10,
        "deals": [{"kind": "passout", "tricks": {"Anna": 5, "Boris": 5, "BORIS ": 0}}],
    }
    content = json.dumps(record).encode()
    before = db_snapshot()
    response = as_(anna).post(
        reverse("scoring:table_import"),
        {"record": SimpleUploadedFile("game.json", content), "game": "preferans"},
    )
    assert response.status_code == 200
    assert "Boris is a member&#x27;s name" in response.content.decode()
    assert db_snapshot() == before
    assert boris.seats.count() == 0
