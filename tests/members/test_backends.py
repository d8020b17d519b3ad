"""The member of a session is loaded with whether he is an organiser (one query), and
sessions signed in under Django's ModelBackend keep working after the change."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import Group
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.urls import reverse

from members.backends import MemberBackend
from members.models import ORGANISERS
from tests import factories

pytestmark = pytest.mark.django_db

renaming = importlib.import_module("members.migrations.0003_sessions_name_the_member_backend")


def test_the_member_signed_in_knows_whether_he_organises_without_asking_again(
    django_assert_num_queries,
):
    olga = factories.member("Olga", organiser=True)
    anna = factories.member("Anna")
    boss = factories.member("Boss", is_superuser=True)
    backend = MemberBackend()
    loaded = {m.name: backend.get_user(m.pk) for m in (olga, anna, boss)}
    with django_assert_num_queries(0):
        assert {name: m.is_organiser for name, m in loaded.items()} == {
            "Olga": True,
            "Anna": False,
            "Boss": True,
        }


def test_an_organiser_taken_out_of_the_group_is_not_one_on_his_next_request(client):
    table = factories.pulka()
    olga = factories.member("Olga", organiser=True)
    client.force_login(olga)
    page = reverse("scoring:table_detail", args=[table.pk])
    assert "Close the table early" in client.get(page, HTTP_ACCEPT_LANGUAGE="en").text
    olga.groups.remove(Group.objects.get(name=ORGANISERS))
    assert "Close the table early" not in client.get(page, HTTP_ACCEPT_LANGUAGE="en").text


def test_an_inactive_member_is_not_loaded():
    anna = factories.member("Anna", is_active=False)
    assert MemberBackend().get_user(anna.pk) is None
    assert MemberBackend().get_user(10**9) is None


def test_sessions_that_name_the_model_backend_are_renamed_and_stay_signed_in(client):
    anna = factories.member("Anna")
    old = SessionStore()
    old[SESSION_KEY] = str(anna.pk)
    old[BACKEND_SESSION_KEY] = renaming.MODEL_BACKEND
    old[HASH_SESSION_KEY] = anna.get_session_auth_hash()
    old.create()
    other = SessionStore()
    other["unrelated"] = 1
    other.create()

    renaming.rename_backend(renaming.MODEL_BACKEND, renaming.MEMBER_BACKEND)(apps, None)

    renamed = SessionStore(old.session_key).load()
    assert renamed[BACKEND_SESSION_KEY] == "members.backends.MemberBackend"
    assert renamed[SESSION_KEY] == str(anna.pk)
    assert SessionStore(other.session_key).load() == {"unrelated": 1}
    client.cookies["sessionid"] = old.session_key
    assert client.get(reverse("members:settings")).status_code == 200  # still signed in
    assert Session.objects.count() == 2
