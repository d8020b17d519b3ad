"""Per-member hourly limits (issue #35 item 3): tables opened (``CLUB_TABLES_PER_HOUR``)
and game records imported (``CLUB_IMPORTS_PER_HOUR``), refused in the member's language
with nothing stored; organisers exempt; 0 is no limit."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from scoring.models import AuditEntry, Table
from tests import factories
from tests.scoring.engine.test_record import record

pytestmark = pytest.mark.django_db

OPEN = reverse("scoring:table_open", args=["preferans"])
IMPORT = reverse("scoring:table_import")


@pytest.fixture
def players():
    return [factories.member(name) for name in ("Anna", "Boris", "Vera")]


def open_table(client, players, **headers):
    version = factories.preferans_version()
    form = {"version": version.pk, "first_dealer": 0, "pool_target": 20, "price": "1"}
    form |= {f"player_{i}": p.pk for i, p in enumerate(players)}
    return client.post(OPEN, form, **headers)


def import_record(client, deals: int, **headers):
    upload = SimpleUploadedFile(
        "game.json", json.dumps(record("preferans", deals)).encode(), "application/json"
    )
    return client.post(IMPORT, {"record": upload, "game": "preferans"}, **headers)


def an_hour_passes() -> None:
    earlier = timezone.now() - timedelta(hours=1, seconds=1)
    Table.objects.update(opened_at=earlier)
    AuditEntry.objects.update(at=earlier)


def test_a_member_opens_tables_up_to_the_hours_limit(client, players, settings):
    settings.CLUB_TABLES_PER_HOUR = 2
    client.force_login(players[0])
    assert open_table(client, players).status_code == 302
    assert open_table(client, players).status_code == 302
    refused = open_table(client, players)
    assert refused.status_code == 200
    said = "you have opened as many tables this hour as a member may (2)"
    assert said in refused.content.decode()
    assert Table.objects.count() == 2
    russian = open_table(client, players, HTTP_ACCEPT_LANGUAGE="ru")
    said = "за этот час вы открыли столько столов, сколько можно участнику (2)"
    assert said in russian.content.decode()
    assert Table.objects.count() == 2
    an_hour_passes()
    assert open_table(client, players).status_code == 302
    assert Table.objects.count() == 3


def test_another_members_tables_do_not_count(client, players, settings):
    settings.CLUB_TABLES_PER_HOUR = 1
    client.force_login(players[0])
    assert open_table(client, players).status_code == 302
    client.force_login(players[1])
    assert open_table(client, players).status_code == 302


def test_organisers_and_a_limit_of_0_are_unlimited(client, players, settings):
    settings.CLUB_TABLES_PER_HOUR = 1
    client.force_login(factories.member(organiser=True))
    for _ in range(3):
        assert open_table(client, players).status_code == 302
    settings.CLUB_TABLES_PER_HOUR = 0
    client.force_login(players[0])
    for _ in range(3):
        assert open_table(client, players).status_code == 302


def test_a_member_imports_up_to_the_hours_limit(client, players, settings):
    settings.CLUB_IMPORTS_PER_HOUR = 1
    settings.CLUB_TABLES_PER_HOUR = 1  # imports are counted apart from tables opened
    client.force_login(players[0])
    assert import_record(client, 3).status_code == 302
    refused = import_record(client, 4)
    assert refused.status_code == 200
    said = "you have imported as many games this hour as a member may (1)"
    assert said in refused.content.decode()
    russian = import_record(client, 4, HTTP_ACCEPT_LANGUAGE="ru")
    said = "за этот час вы импортировали столько игр, сколько можно участнику (1)"
    assert said in russian.content.decode()
    assert Table.objects.count() == 1
    assert open_table(client, players).status_code == 302
    an_hour_passes()
    assert import_record(client, 4).status_code == 302
    assert Table.objects.count() == 3


def test_organisers_import_without_limit(client, players, settings):
    settings.CLUB_IMPORTS_PER_HOUR = 1
    client.force_login(factories.member(organiser=True))
    assert import_record(client, 3).status_code == 302
    assert import_record(client, 4).status_code == 302
