"""The members' CSV of the paper history page (issue 34 item 4): its dry run refuses each
bad row with its line and reason, and its import invites every member or nobody."""

from __future__ import annotations

import pytest

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.services.history_members import MembersRefused, members_import, members_plan
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def olga() -> Member:
    return factories.member("Olga", organiser=True, username="olga")


def test_the_dry_run_lists_the_new_members_and_writes_nothing(olga: Member) -> None:
    content = "username,name,email\nmila,Мила,mila@club.example\n\npetr,Пётр\n".encode()

    plan = members_plan(content=content)

    assert [(m.line, m.username, m.name, m.email) for m in plan.members] == [
        (2, "mila", "Мила", "mila@club.example"),
        (4, "petr", "Пётр", ""),  # line 3 is blank; the e-mail is optional
    ]
    assert plan.refused == () and plan.ready
    assert Member.objects.count() == 1  # Olga


def test_every_bad_row_is_refused_with_its_line_and_reason(olga: Member) -> None:
    content = (
        "username;name;email\n"  # a Russian spreadsheet's semicolons
        "mila;Мила;mila@club.example\n"
        "MILA;Мила Вторая;\n"
        "petr;Пётр;petr(at)club\n"
        "OLGA;Ольга;\n"
        "bad name;Имя;\n"
        "gleb;;\n"
    ).encode()

    plan = members_plan(content=content)

    assert [m.username for m in plan.members] == ["mila"]
    assert [(r.line, r.error.message) for r in plan.refused] == [
        (3, "MILA is on line 2 already"),
        (4, "petr(at)club is not an e-mail address"),
        (5, "OLGA is a member's username already"),
        (6, "bad name is not a username: letters, digits and @ . + - _ only, at most 150"),
        (7, "the name is required, at most 60 characters"),
    ]
    assert not plan.ready


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"login,name\nmila,Mila\n", "the header must be username,name,email"),
        (b"username,name,phone\nmila,Mila,1\n", "the header must be username,name,email"),
        (b"", "the file is empty: it needs a header and rows"),
        ("username,name\nмила,Мила\n".encode("cp1251"), "the file is not UTF-8 text"),
    ],
)
def test_a_file_that_cannot_be_read_is_refused_whole(content: bytes, message: str) -> None:
    with pytest.raises(RuleError) as refused:
        members_plan(content=content)

    assert refused.value.message.startswith(message)


def test_the_import_invites_every_member_without_a_password(olga: Member) -> None:
    content = b"username,name,email\nmila,Mila,mila@club.example\npetr,Petr,\n"

    created = members_import(content=content, by=olga)

    assert [(m.username, m.display_name, m.email) for m in created] == [
        ("mila", "Mila", "mila@club.example"),
        ("petr", "Petr", ""),
    ]
    for member in Member.objects.filter(username__in=["mila", "petr"]):
        assert member.is_active and not member.has_usable_password()


def test_one_refused_row_imports_nobody(olga: Member) -> None:
    content = b"username,name,email\nmila,Mila,mila@club.example\nolga,Olga Two,\n"

    with pytest.raises(MembersRefused) as refused:
        members_import(content=content, by=olga)

    assert [r.line for r in refused.value.plan.refused] == [3]
    assert list(Member.objects.values_list("username", flat=True)) == ["olga"]
