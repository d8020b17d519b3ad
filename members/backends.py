"""How a member signs in and how his session's member is loaded on each request."""

from __future__ import annotations

from typing import Any

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.contrib.auth import check_password_with_timing_attack_mitigation
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from django.http import HttpRequest
from django.views.decorators.debug import sensitive_variables

from members import rows
from members.models import ORGANISERS, Member

_MEMBERSHIP = Member.groups.through._meta.db_table
_GROUP = Group._meta.db_table

IN_ORGANISERS = RawSQL(  # noqa: S611 - a constant statement; the group's name is a parameter
    f'EXISTS (SELECT 1 FROM "{_MEMBERSHIP}" m JOIN "{_GROUP}" g ON g."id" = m."group_id"'  # noqa: S608
    f' WHERE m."member_id" = "{Member._meta.db_table}"."id" AND g."name" = %s)',
    (ORGANISERS,),
    output_field=BooleanField(),
)
"""Whether the member of the row is in the Organisers group, as a column of his query
(plain SQL: the ORM's ``Exists`` took longer to build than the query to run)."""


UNKNOWN_USERNAME_LIMIT = 20
"""Sign-ins with a username that is no member's, from one address, after which every
sign-in from that address is refused for ``AXES_COOLOFF_TIME`` (docs/deploy.md)."""


def _unknown_key(address: str) -> str:
    return f"sign-in-unknown:{address}"


class MemberBackend(ModelBackend):
    """Django's model backend (username and password, permissions), with the member of a
    session loaded together with whether he is an organiser: the pages a member sees
    ask it (``Member.is_organiser``) for the buttons they offer, and it was a query of
    its own on every one of his requests. With a shared cache the row is read from it
    (``members.rows``), not from the database.

    And a limit per address that django-axes leaves out: axes counts failures per username
    and address, so guesses at usernames that do not exist were never limited, and each
    cost a password hash (Django hashes for a missing member too, so that the time does
    not tell). Such sign-ins are counted per address in the cache (Redis, shared, with
    ``REDIS_URL``; else each process counts its own); from the ``UNKNOWN_USERNAME_LIMIT``th
    on, every sign-in from that address — any username, so the refusal tells nothing of
    who is a member — is refused before any hashing, with the lockout page, until
    ``AXES_COOLOFF_TIME`` has passed since the first."""

    @sensitive_variables("password")
    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Member | None:
        address = _address(request)
        if request is not None and address is not None and _address_paused(address):
            request.axes_locked_out = True  # type: ignore[attr-defined]  # the lockout page
            request.sign_in_paused_for_address = True  # type: ignore[attr-defined]
            raise PermissionDenied  # stops authenticate() here: no other backend, no hash
        if username is None:
            username = kwargs.get(Member.USERNAME_FIELD)
        if username is None or password is None:
            return None
        try:
            member = Member._default_manager.get_by_natural_key(username)
        except Member.DoesNotExist:
            member = None
            if address is not None:
                _count_unknown(address)
        if check_password_with_timing_attack_mitigation(
            member, password
        ) and self.user_can_authenticate(member):
            return member
        return None

    def get_user(self, user_id: Any) -> Member | None:
        member = rows.recall(user_id, lambda: _signed_in(user_id))
        return member if member is not None and self.user_can_authenticate(member) else None


def _signed_in(pk: Any) -> Member | None:
    try:
        return Member.objects.annotate(in_organisers=IN_ORGANISERS).get(pk=pk)
    except Member.DoesNotExist:
        return None


def _address(request: HttpRequest | None) -> str | None:
    """The client's address as django-axes took it (``AXES_CLIENT_IP_CALLABLE``)."""
    if request is None:
        return None
    found = getattr(request, "axes_ip_address", None) or get_client_ip_address(request)
    return str(found) if found else None


def _address_paused(address: str) -> bool:
    return int(cache.get(_unknown_key(address), 0)) >= UNKNOWN_USERNAME_LIMIT


def paused(request: HttpRequest) -> bool:
    """Whether sign-ins from ``request``'s address are paused (``MemberBackend``)."""
    address = _address(request)
    return address is not None and _address_paused(address)


def _count_unknown(address: str) -> None:
    key = _unknown_key(address)
    window = int(settings.AXES_COOLOFF_TIME.total_seconds())
    cache.add(key, 0, timeout=window)  # the window starts at the first one
    try:
        cache.incr(key)
    except ValueError:  # expired between the two calls: a new window
        cache.add(key, 1, timeout=window)
