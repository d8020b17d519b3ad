"""A member's edit as the standings see it: his shown name is on every board and
head-to-head that lists him, and his username is in their links to his page.

The write lives here, not in ``members.services``: that module is this one's sibling layer
and imports nothing of scoring (``members.models`` lies below scoring's models), so it could
not keep the standings in step. The members' settings page and the member admin, above
both, call ``member_save``; the members' other writes (an invitation, a password, being
deactivated) change no name and stay in ``members.services``."""

from __future__ import annotations

from django.db import transaction

from members.models import NAME_FIELDS, Member
from scoring.services.standings import standings_changed


def member_save(*, member: Member) -> Member:
    """Save a member's edit (validated by the caller's form). When it changes a name
    column, the standings stamp moves, in the same transaction, so that no cached page
    shows the old name; any other change (an e-mail choice, signing in) leaves the pages
    alone. A new member is on no board yet."""
    with transaction.atomic():
        stored = (
            Member.objects.filter(pk=member.pk).values_list(*NAME_FIELDS).first()
            if member.pk is not None
            else None
        )
        member.save()
        if stored is not None and stored != tuple(getattr(member, f) for f in NAME_FIELDS):
            standings_changed()
        return member
