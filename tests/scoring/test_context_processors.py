"""What every page's template gets (scoring/context_processors.py): the admin in the menu,
for the organisers who may use it (issue 30, finding 11: they were never told where it
was)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests import factories

pytestmark = pytest.mark.django_db

ADMIN_LINK = re.compile(r'<a href="/admin/">([^<]*)</a>')


def menu_links(client: Client, user: object | None) -> list[str]:
    if user is not None:
        client.force_login(user)
    return ADMIN_LINK.findall(client.get("/", headers={"accept-language": "ru"}).content.decode())


@pytest.mark.parametrize(
    ("who", "shown"),
    [
        ("an organiser with staff access", ["Админка", "Админка"]),  # the nav and the ☰ menu
        ("a superuser", ["Админка", "Админка"]),
        ("an organiser without staff access", []),  # the admin would refuse him
        ("staff who is not an organiser", []),
        ("a member", []),
        ("a visitor", []),
    ],
)
def test_the_menu_offers_the_admin_to_those_who_may_use_it(who: str, shown: list[str]) -> None:
    user = {
        "an organiser with staff access": lambda: factories.member(organiser=True, is_staff=True),
        "a superuser": lambda: factories.member(is_staff=True, is_superuser=True),
        "an organiser without staff access": lambda: factories.member(organiser=True),
        "staff who is not an organiser": lambda: factories.member(is_staff=True),
        "a member": lambda: factories.member(),
        "a visitor": lambda: None,
    }[who]()

    assert menu_links(Client(), user) == shown
