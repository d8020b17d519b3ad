"""Whom the pages were made for (clubsite/viewer.py; issue 35, item 6): a signed-in page is
private and never stored, every answer names its viewer for the service worker, and every
way a member's pages end (a sign-out through the site or the admin, a session that ended,
another member signing in) tells the browser to drop its cache of the site."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse

from clubsite.viewer import COOKIE, HEADER
from tests import factories

pytestmark = pytest.mark.django_db


def signed_in(member: Any) -> Client:
    client = Client(headers={"accept-language": "en"})
    client.post(reverse("members:login"), {"username": member.username, "password": "pw"})
    return client


def test_a_visitor_s_page_names_nobody_and_keeps_its_caching() -> None:
    response = Client().get(reverse("scoring:evening_list"))
    assert response[HEADER] == ""
    assert COOKIE not in response.cookies
    assert "Cache-Control" not in response
    assert "Clear-Site-Data" not in response


def test_a_member_s_page_is_private_never_stored_and_names_his_session() -> None:
    client = signed_in(factories.member("Anna", username="anna"))
    marker = client.cookies[COOKIE]
    assert marker.value and not marker["httponly"] and marker["samesite"] == "Lax"
    response = client.get(reverse("scoring:evening_list"))
    assert response["Cache-Control"] == "private, no-store"
    assert response[HEADER] == marker.value
    assert "Clear-Site-Data" not in response
    assert COOKIE not in response.cookies  # set once, with the session's age


def test_a_member_s_live_sheet_keeps_its_revalidation_made_private(table: Any) -> None:
    client = signed_in(table.seats.get(position=0).member)
    response = client.get(reverse("scoring:table_live", args=[table.pk]))
    assert set(response["Cache-Control"].split(", ")) == {"no-cache", "private"}
    assert Client().get(reverse("scoring:table_live", args=[table.pk]))["Cache-Control"] == (
        "no-cache"
    )


@pytest.mark.parametrize("sign_out", ["members:logout", "admin:logout"])
def test_every_sign_out_clears_the_browser_s_cache(sign_out: str) -> None:
    member = factories.member("Olga", organiser=True, is_staff=True, username="olga")
    client = signed_in(member)
    response = client.post(reverse(sign_out))
    assert response.status_code == 302
    assert response["Clear-Site-Data"] == '"cache"'
    assert response.cookies[COOKIE]["max-age"] == 0  # the marker goes
    assert "private" in response["Cache-Control"]
    page = client.get(reverse("scoring:evening_list"))
    assert page[HEADER] == ""
    assert "Clear-Site-Data" not in page


def test_a_session_that_ended_clears_the_cache_and_the_next_member_gets_a_new_marker() -> None:
    client = signed_in(factories.member("Anna", username="anna"))
    anna = client.cookies[COOKIE].value
    Session.objects.all().delete()  # it expired on the server

    response = client.get(reverse("scoring:evening_list"))
    assert response["Clear-Site-Data"] == '"cache"'
    assert response[HEADER] == ""
    assert response.cookies[COOKIE]["max-age"] == 0

    client.cookies[COOKIE] = anna  # as if the browser still had it: Boris signs in
    factories.member("Boris", username="boris")
    response = client.post(reverse("members:login"), {"username": "boris", "password": "pw"})
    assert response["Clear-Site-Data"] == '"cache"'
    assert response.cookies[COOKIE].value not in ("", anna)


def test_the_service_worker_forgets_on_both_sign_outs_and_reads_the_marker() -> None:
    text = Client().get("/sw.js").content.decode()
    assert '"signOut": ["/members/sign-out/", "/admin/logout/"]' in text
    assert f'"viewerCookie": "{COOKIE}"' in text


def test_an_idle_member_s_poll_costs_no_query_more(
    table: Any, django_assert_num_queries: Any
) -> None:
    client = signed_in(table.seats.get(position=0).member)
    url = reverse("scoring:table_live", args=[table.pk])
    etag = client.get(url)["ETag"]
    with django_assert_num_queries(0):  # the table's version is in the cache (live.revisions)
        response = client.get(url, headers={"if-none-match": etag})
    assert response.status_code == 304
    assert HEADER not in response
