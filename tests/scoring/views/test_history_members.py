"""The members' CSV on the paper history page, in Russian: the dry run with its refused
rows, then the import, which invites the members and mails those with an address."""

from __future__ import annotations

import base64
import html

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from members.models import Member
from tests import factories
from tests.mailbox import committed

pytestmark = pytest.mark.django_db

HISTORY = reverse("scoring:history_upload")
FILE = "username,name,email\nmila,Мила,mila@club.example\npetr,Пётр,\n".encode()


@pytest.fixture
def olga() -> Client:
    """Olga, an organiser, on a Russian page."""
    client = Client(headers={"accept-language": "ru"})
    client.force_login(factories.member("Olga", organiser=True, username="olga"))
    return client


def dry_run(client: Client, content: bytes) -> str:
    upload = SimpleUploadedFile("члены.csv", content, "text/csv")
    response = client.post(reverse("scoring:history_members"), {"members-file": upload})
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def test_a_refused_row_is_shown_with_its_line_and_nothing_is_offered(olga: Client) -> None:
    page = dry_run(olga, FILE + b"olga,Olga,bad\n")

    assert "1 строка отклонена" in page
    assert "<td>bad — не адрес электронной почты</td>" in page
    assert "Пригласить" not in page
    assert Member.objects.count() == 1


def test_the_dry_run_then_the_import_invites_and_mails(olga: Client) -> None:
    assert 'name="members-file"' in olga.get(HISTORY).content.decode()
    page = dry_run(olga, FILE)
    assert "2 участника к приглашению" in page
    assert "Пригласить 2 участников" in page
    assert Member.objects.count() == 1  # the dry run writes nothing

    with committed():
        response = olga.post(
            reverse("scoring:history_members_confirm"),
            {"content": base64.b64encode(FILE).decode(), "file_name": "члены.csv"},
        )

    assert response["Location"] == HISTORY
    assert set(Member.objects.values_list("username", "display_name")) == {
        ("olga", "Olga"),
        ("mila", "Мила"),
        ("petr", "Пётр"),
    }
    assert [m.to for m in mail.outbox] == [["mila@club.example"]]  # Пётр has no address
    assert "Приглашено 2 участника" in olga.get(HISTORY).content.decode()
