"""The members' write paths: an invitation, the e-mailed link that sets a password,
deactivating and reactivating a member, and clearing a sign-in lockout. Who may do each is
``scoring.permissions``' to say; the views ask it first."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.template.loader import render_to_string
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from members.models import Member
from members.tasks import email_later

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Site:
    """Where the links in an e-mail point: the host the organiser's request came to (one
    of ``ALLOWED_HOSTS``) and its scheme, as Django's password reset builds its links."""

    domain: str
    use_https: bool


def password_link_days() -> int:
    """How many days an e-mailed password link works (``PASSWORD_RESET_TIMEOUT``), as
    the e-mails say it."""
    return max(1, settings.PASSWORD_RESET_TIMEOUT // (60 * 60 * 24))


def member_invite(
    *, username: str, display_name: str, email: str, by: Member, site: Site
) -> Member:
    """Make the account, without a password (it cannot sign in yet), and e-mail the
    member the link that sets one."""
    with transaction.atomic():
        member = Member(username=username, display_name=display_name, email=email)
        member.set_unusable_password()
        member.save()
    logger.info("%s invited %s", by.username, member.username)
    password_link_send(member=member, by=by, site=site)
    return member


def password_link_send(*, member: Member, by: Member, site: Site) -> None:
    """E-mail ``member`` the invitation: the link that sets a password (Django's password
    reset token, so it works once and for ``PASSWORD_RESET_TIMEOUT``; the reset page
    takes it like any other)."""
    context = {
        "member": member,
        "organiser": by.name,
        "days": password_link_days(),
        "protocol": "https" if site.use_https else "http",
        "domain": site.domain,
        "uid": urlsafe_base64_encode(force_bytes(member.pk)),
        "token": default_token_generator.make_token(member),
    }
    email_later(
        subject=render_to_string("members/email/invitation_subject.txt", context),
        body=render_to_string("members/email/invitation.txt", context),
        to=[member.email],
    )


def member_set_active(*, member: Member, active: bool, by: Member) -> None:
    """Deactivate a member (they can no longer sign in, and a session they have open ends
    at their next page; their tables, results and ratings stay) or make them a member
    again."""
    member.is_active = active
    member.save(update_fields=["is_active"])
    logger.info(
        "%s %s %s", by.username, "reactivated" if active else "deactivated", member.username
    )


def member_unlock(*, member: Member, by: Member | None = None) -> int:
    """Clear the member's failed sign-ins from every address (django-axes), so a lockout
    ends now; the number of records removed."""
    removed: int = axes_reset(username=member.username)
    if by is not None:
        logger.info("%s cleared the sign-in lockout of %s", by.username, member.username)
    return removed
