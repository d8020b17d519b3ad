"""Signing in and out, and a member's page."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from members.models import ORGANISERS, Member
from tests import factories
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

SIGN_IN = reverse("members:login")
SIGN_OUT = reverse("members:logout")
HOME = reverse("scoring:home")


def six_spades(declarer: str, whister: str, passer: str) -> dict[str, Any]:
    """preferans.md §12 example 1: the declarer makes 6♠, one whist, greedy."""
    return {
        "kind": "game",
        "declarer": declarer,
        "contract": "6S",
        "answers": {whister: "whist", passer: "pass"},
        "tricks": {declarer: 6, whister: 3, passer: 1},
    }


@pytest.fixture
def russian_anna() -> Member:
    """Анна (username anna): the member pages are about members with Russian names, so
    these tests have their own club rather than the shared English one (tests/conftest.py)."""
    return factories.member("Анна", username="anna")


@pytest.fixture
def russian_club(russian_anna: Member) -> dict[str, Member]:
    """Анна, Борис, Вера and Глеб, by username."""
    others = {
        name: factories.member(display, username=name)
        for name, display in (("boris", "Борис"), ("vera", "Вера"), ("gleb", "Глеб"))
    }
    return {"anna": russian_anna, **others}


# -- signing in ---------------------------------------------------------------------------


def test_sign_in_page_shows_the_form(client: Client) -> None:
    response = client.get(SIGN_IN)

    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="username"' in html
    assert 'name="password"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert "style=" not in html
    assert "<style" not in html


def test_good_credentials_sign_in_and_go_home(client: Client, russian_anna: Member) -> None:
    response = client.post(SIGN_IN, {"username": "anna", "password": PASSWORD})

    assert response.status_code == 302
    assert response["Location"] == HOME
    assert client.session["_auth_user_id"] == str(russian_anna.pk)


@pytest.mark.parametrize(
    ("username", "password"),
    [("anna", "wrong"), ("nobody", PASSWORD), ("ANNA ", "wrong"), ("", "")],
)
def test_bad_credentials_answer_200_with_the_error_and_no_session(
    client: Client, russian_anna: Member, username: str, password: str
) -> None:
    response = client.post(SIGN_IN, {"username": username, "password": password})

    assert response.status_code == 200
    assert response.context["form"].errors
    assert "errorlist" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_an_inactive_member_cannot_sign_in(client: Client) -> None:
    factories.member("", username="left", is_active=False)

    response = client.post(SIGN_IN, {"username": "left", "password": PASSWORD})

    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"username": "anna"},
        {"password": PASSWORD},
        {"username": "x" * 5000, "password": "y" * 5000},
        {"username": "анна\x00", "password": "пароль"},
        {"username": "anna", "password": "wrong", "next": "\\\\evil.example"},
    ],
)
def test_odd_sign_in_input_never_errors(
    client: Client, russian_anna: Member, data: dict[str, str]
) -> None:
    response = client.post(SIGN_IN, data)

    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize(
    ("next_url", "expected"),
    [
        ("/tables/", "/tables/"),
        ("/members/anna/?tab=1", "/members/anna/?tab=1"),
        ("https://evil.example/", HOME),
        ("//evil.example/steal", HOME),
        ("http://testserver.evil.example/", HOME),
        ("javascript:alert(1)", HOME),
        ("", HOME),
        ("home", "home"),  # a relative path, never looked up as a URL name
        (f"{SIGN_IN}?next=/tables/", HOME),
    ],
)
def test_next_is_honoured_only_for_local_urls(
    client: Client, russian_anna: Member, next_url: str, expected: str
) -> None:
    response = client.post(
        f"{SIGN_IN}?next=x", {"username": "anna", "password": PASSWORD, "next": next_url}
    )

    assert response.status_code == 302
    assert response["Location"] == expected


def test_a_local_next_from_the_query_string_is_kept_in_the_form(client: Client) -> None:
    local = client.get(SIGN_IN, {"next": "/tables/"}).content.decode()
    foreign = client.get(SIGN_IN, {"next": "https://evil.example/"}).content.decode()

    assert 'name="next" value="/tables/"' in local
    assert 'name="next" value="https://evil.example/"' not in foreign


# -- signing out --------------------------------------------------------------------------


def test_sign_out_needs_post(client: Client, russian_anna: Member) -> None:
    client.force_login(russian_anna)

    response = client.get(SIGN_OUT)

    assert response.status_code == 405
    assert client.session["_auth_user_id"] == str(russian_anna.pk)


def test_sign_out_signs_out_and_goes_home(client: Client, russian_anna: Member) -> None:
    client.force_login(russian_anna)

    response = client.post(SIGN_OUT)

    assert response.status_code == 302
    assert response["Location"] == HOME
    assert "_auth_user_id" not in client.session


# -- a member's page ----------------------------------------------------------------------


def test_member_page_lists_tables_newest_first_with_results(
    client: Client, russian_club: dict[str, Member]
) -> None:
    anna, boris, vera, gleb = (russian_club[n] for n in ("anna", "boris", "vera", "gleb"))
    older = factories.pulka(
        [anna, boris, vera],
        deals=[six_spades("Анна", "Борис", "Вера")],
        finished=True,
        played_on=date(2026, 10, 5),
    )
    boston = factories.boston_table(
        [anna, boris, vera, gleb],
        deals=[
            {
                "kind": "ask",
                "declarer": "Анна",
                "partner": "Вера",
                "suit": "minor",
                "tricks": 9,
            }
        ],
        finished=True,
        played_on=date(2026, 10, 20),
    )
    in_play = factories.pulka(
        [gleb, anna, boris],
        deals=[six_spades("Глеб", "Анна", "Борис")],
        finished=False,
        played_on=date(2026, 11, 3),
    )
    factories.pulka([boris, vera, gleb], finished=True, played_on=date(2026, 11, 4))  # not Anna's

    response = client.get(reverse("members:detail", args=["anna"]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Анна</h1>" in html
    links = [reverse("scoring:table_detail", kwargs={"pk": t.pk}) for t in (in_play, boston, older)]
    assert links[-1] == f"/tables/{older.pk}/"
    positions = [html.index(f'href="{link}"') for link in links]
    assert positions == sorted(positions)  # newest first
    assert len(re.findall(r'href="/tables/\d+/"', html)) == 3
    lines = response.context["profile"].lines
    assert [line.table_id for line in lines] == [in_play.pk, boston.pk, older.pk]
    # §12 example 1: Anna's pool 2 is worth 13.33 whists against the average, Boris wrote 8;
    # the money's spare cent goes to the first of the equal cut-off fractions (§9).
    assert (lines[2].result, lines[2].money) == ("5.33", "5.34")
    # A supported minor ask made with 9: 2 + 2 × 1 = 4 chips from one opponent each.
    assert (lines[1].result, lines[1].money) == ("4", "4.00")
    assert (lines[0].result, lines[0].money) == (None, None)
    assert "5.33" in html
    assert "Сочи (Sochi)" in html
    assert "Бостон: тариф платежей (payment tariff)" in html
    assert "style=" not in html


def test_member_page_shows_the_other_players_own_results(
    client: Client, russian_club: dict[str, Member]
) -> None:
    factories.pulka(
        [russian_club["anna"], russian_club["boris"], russian_club["vera"]],
        deals=[six_spades("Анна", "Борис", "Вера")],
        finished=True,
        played_on=date(2026, 11, 1),
    )

    vera = client.get(reverse("members:detail", args=["vera"]))

    assert vera.context["profile"].lines[0].result == "-6.67"
    assert vera.context["profile"].lines[0].sign == "minus"


def test_member_page_for_an_unknown_member_is_404(client: Client) -> None:
    assert client.get(reverse("members:detail", args=["nobody"])).status_code == 404


def test_member_page_marks_organisers(client: Client, russian_anna: Member) -> None:
    organisers, _ = Group.objects.get_or_create(name=ORGANISERS)
    factories.member("Ольга", username="olga").groups.add(organisers)

    assert "organiser" in client.get(reverse("members:detail", args=["olga"])).content.decode()
    assert "organiser" not in client.get(reverse("members:detail", args=["anna"])).content.decode()


@pytest.mark.parametrize("tables", [1, 4])
def test_member_page_query_count_does_not_grow_with_tables(
    client: Client, russian_club: dict[str, Member], django_assert_num_queries: Any, tables: int
) -> None:
    anna, boris, vera, gleb = (russian_club[n] for n in ("anna", "boris", "vera", "gleb"))
    for i in range(tables):
        factories.pulka(
            [anna, boris, vera],
            deals=[six_spades("Анна", "Борис", "Вера")],
            finished=True,
            played_on=date(2026, 11, 1),
        )
        factories.boston_table(
            [anna, boris, vera, gleb],
            deals=[{"kind": "pass"}],
            finished=True,
            played_on=date(2026, 11, 2),
        )
        factories.pulka([anna, vera, gleb], played_on=date(2026, 9, i + 1))
    url = reverse("members:detail", args=["anna"])

    # The page's version (1: clubsite.pages), the member with his latest seat and the
    # standings stamp (the profile's cache key), his groups (2), his totals, rating
    # history, the seasons, the seats the chart draws, his latest tables and the
    # head-to-head (6): scoring/pages/profiles.py; the club's name (1).
    with django_assert_num_queries(10):
        response = client.get(url)
    # Again, nothing changed: the page is kept whole for visitors (its version only).
    with django_assert_num_queries(1):
        client.get(url)

    assert len(response.context["profile"].lines) == 3 * tables
