"""A signed-in member's row kept in the shared cache (members/rows.py): read without a
query on his next requests, never kept in a process's own memory, holding no password
hash, and dropped by every change that could sign him out or change what he may do."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from members import rows, services
from members.backends import MemberBackend
from members.models import ORGANISERS, Member
from tests import factories
from tests.scoring.live.conftest import clear_cache, use_redis

pytestmark = pytest.mark.django_db

SETTINGS = reverse("members:settings")
SIGN_IN = reverse("members:login")


@pytest.fixture
def shared(settings: Any) -> Iterator[None]:
    """The site's own Redis cache, under a key prefix of the test's own."""
    use_redis(settings, "clubsite.cache.FailSoftRedisCache")
    yield
    clear_cache()


@pytest.fixture
def olga() -> Member:
    """A member just saved: his row is marked dropped for ``MARKER_SECONDS`` (read from the
    database meanwhile); the tests start after that."""
    olga = factories.member("Olga", username="olga", email="olga@example.org")
    markers_expired(olga)
    return olga


def markers_expired(member: Member) -> None:
    """What ``MARKER_SECONDS`` do: the marker of ``member``'s dropped row goes."""
    cache.delete(rows._key(member.pk))


def signed_in(member: Member) -> Client:
    """A device of ``member``'s, signed in and with his row kept (signing in saves him)."""
    client = Client()
    client.force_login(member)
    markers_expired(member)
    assert is_signed_in(client)
    assert kept(member)
    return client


def is_signed_in(client: Client) -> bool:
    return client.get(SETTINGS).status_code == 200


def is_signed_out(client: Client) -> bool:
    """The settings page sends him to sign in (not merely fails to show)."""
    answer = client.get(SETTINGS)
    return answer.status_code == 302 and answer["Location"].startswith(SIGN_IN)


def kept(member: Member) -> bool:
    return isinstance(cache.get(rows._key(member.pk)), tuple)


def test_the_row_is_read_once_then_from_the_cache(shared, olga, django_assert_num_queries):
    backend = MemberBackend()
    with django_assert_num_queries(1):
        first = backend.get_user(olga.pk)
    with django_assert_num_queries(0):
        again = backend.get_user(olga.pk)
        assert (again.pk, again.username, again.email, again.is_organiser) == (
            olga.pk,
            "olga",
            "olga@example.org",
            False,
        )
        assert again.get_session_auth_hash() == first.get_session_auth_hash()


def test_no_password_hash_is_kept(shared, olga):
    MemberBackend().get_user(olga.pk)
    client = cache._cache.get_client()  # type: ignore[attr-defined]
    kept = [client.get(key) for key in client.scan_iter(match=cache.make_key("member-row:*"))]
    assert len(kept) == 1
    assert olga.password.encode() not in kept[0]
    assert olga.password.split("$")[-1].encode() not in kept[0]  # nor the hash alone


def test_a_page_that_needs_the_password_loads_it(shared, olga, django_assert_num_queries):
    MemberBackend().get_user(olga.pk)
    kept = MemberBackend().get_user(olga.pk)
    with django_assert_num_queries(1):
        assert kept.has_usable_password()


def test_without_a_shared_cache_nothing_is_kept(olga, django_assert_num_queries):
    backend = MemberBackend()
    backend.get_user(olga.pk)
    with django_assert_num_queries(1):
        backend.get_user(olga.pk)


def test_a_changed_password_signs_the_other_sessions_out_at_once(shared, olga):
    other_device = signed_in(olga)
    this_device = signed_in(olga)
    answer = this_device.post(
        reverse("members:password_change"),
        {
            "old_password": factories.PASSWORD,
            "new_password1": "Nov-2026!x",
            "new_password2": "Nov-2026!x",
        },
    )
    assert answer.status_code == 302
    assert is_signed_in(this_device)
    assert is_signed_out(other_device)


def test_a_member_made_inactive_is_signed_out_at_once(shared, olga):
    phone = signed_in(olga)
    services.member_set_active(member=olga, active=False, by=factories.member("Boss"))
    assert is_signed_out(phone)


def test_a_deleted_member_is_signed_out_at_once(shared, olga):
    phone = signed_in(olga)
    olga.delete()
    assert is_signed_out(phone)


@pytest.mark.parametrize(
    "change",
    [
        lambda olga, organisers: olga.groups.add(organisers),
        lambda olga, organisers: organisers.user_set.add(olga),
    ],
    ids=["his groups", "the group's members"],
)
def test_made_an_organiser_he_is_one_on_his_next_request(shared, olga, change):
    organisers = Group.objects.get(name=ORGANISERS)
    assert MemberBackend().get_user(olga.pk).is_organiser is False
    assert kept(olga)
    change(olga, organisers)
    assert MemberBackend().get_user(olga.pk).is_organiser is True


@pytest.mark.parametrize(
    "change",
    [
        lambda olga, organisers: olga.groups.remove(organisers),
        lambda olga, organisers: olga.groups.clear(),
        lambda olga, organisers: organisers.user_set.remove(olga),
        lambda olga, organisers: organisers.user_set.clear(),
        lambda olga, organisers: setattr(organisers, "name", "Former") or organisers.save(),
        lambda olga, organisers: organisers.delete(),
    ],
    ids=[
        "his groups, one",
        "his groups, all",
        "the group's members, one",
        "the group's members, all",
        "the group renamed",
        "the group deleted",
    ],
)
def test_no_longer_an_organiser_he_is_not_one_on_his_next_request(shared, change):
    olga = factories.member("Olga", organiser=True)
    markers_expired(olga)
    organisers = Group.objects.get(name=ORGANISERS)
    assert MemberBackend().get_user(olga.pk).is_organiser is True
    assert kept(olga)
    change(olga, organisers)
    assert MemberBackend().get_user(olga.pk).is_organiser is False


def test_a_row_read_before_a_change_is_not_kept_after_it(shared, olga):
    before = MemberBackend().get_user(olga.pk)
    olga.email = "new@example.org"
    olga.save()
    # A request that read the row just before the save keeps it just after: refused.
    assert rows.recall(olga.pk, lambda: before).email == "olga@example.org"
    assert MemberBackend().get_user(olga.pk).email == "new@example.org"


def test_rows_kept_under_another_secret_are_not_read(
    shared, olga, settings, django_assert_num_queries
):
    MemberBackend().get_user(olga.pk)
    settings.SECRET_KEY = "another-" + "s" * 50
    with django_assert_num_queries(1):
        MemberBackend().get_user(olga.pk)
