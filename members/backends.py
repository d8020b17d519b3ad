"""How a member signs in and how his session's member is loaded on each request."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.db.models import Exists, OuterRef

from members.models import ORGANISERS, Member


class MemberBackend(ModelBackend):
    """Django's model backend (username and password, permissions), with the member of a
    session loaded together with whether he is an organiser: the pages a member sees
    ask it (``Member.is_organiser``) for the buttons they offer, and it was a query of
    its own on every one of his requests."""

    def get_user(self, user_id: Any) -> Member | None:
        organisers = Member.groups.through.objects.filter(
            member_id=OuterRef("pk"), group__name=ORGANISERS
        )
        try:
            member = Member.objects.annotate(in_organisers=Exists(organisers)).get(pk=user_id)
        except Member.DoesNotExist:
            return None
        return member if self.user_can_authenticate(member) else None
