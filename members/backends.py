"""How a member signs in and how his session's member is loaded on each request."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

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


class MemberBackend(ModelBackend):
    """Django's model backend (username and password, permissions), with the member of a
    session loaded together with whether he is an organiser: the pages a member sees
    ask it (``Member.is_organiser``) for the buttons they offer, and it was a query of
    its own on every one of his requests."""

    def get_user(self, user_id: Any) -> Member | None:
        try:
            member = Member.objects.annotate(in_organisers=IN_ORGANISERS).get(pk=user_id)
        except Member.DoesNotExist:
            return None
        return member if self.user_can_authenticate(member) else None
