"""The members' write paths: an invitation, the e-mailed link that sets a password,
deactivating and reactivating a member, and clearing a sign-in lockout. Who may do each is
``scoring.permissions``' to say; the views ask it first.

A password link (a reset or an invitation) is made by the task that sends it, at send
time, from the member's id: the task's row (``DJANGO_TASKS=database``) holds the member's
id, the site's host and the page's language, never the link. The link is Django's
password-reset token, derived from the member's state (his password, last sign-in and
address), so the task makes the same one the request would have; rows kept until they
are pruned, and every ``pg_dump`` of them, carry nothing that sets a password.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from typing import Any

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import EmailMessage
from django.db import transaction
from django.tasks import Task, task
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from members.forms import same_address
from members.models import Member
from members.tasks import again_later, enqueue_logged, from_address
from scoring.models import Club

logger = logging.getLogger(__name__)

RESET = "reset"
INVITATION = "invitation"
_TEMPLATES = {
    RESET: ("members/email/password_reset_subject.txt", "members/email/password_reset.txt"),
    INVITATION: ("members/email/invitation_subject.txt", "members/email/invitation.txt"),
}


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
    takes it like any other), made by the task (``send_password_link``)."""
    _later(
        send_password_link,
        member_id=member.pk,
        kind=INVITATION,
        site=site,
        organiser=by.name,
    )


def password_reset_request(*, email: str, site: Site) -> None:
    """A reset asked for ``email``: the task ``send_password_reset`` looks for the members
    with that address and mails each a link. The request does the same work whoever the
    address belongs to — it enqueues one task and reads no member — so its time tells
    nothing of whether the address is a member's (the page answers alike too)."""
    _later(send_password_reset, email=email, site=site)


def _later(queued: Task[Any, Any], *, site: Site, **kwargs: object) -> None:
    """Enqueue ``queued`` once the transaction commits, in the current language, with the
    site's address."""
    transaction.on_commit(
        partial(
            enqueue_logged,
            queued,
            domain=site.domain,
            use_https=site.use_https,
            language=translation.get_language() or settings.LANGUAGE_CODE,
            **kwargs,
        )
    )


@task
def send_password_reset(*, email: str, domain: str, use_https: bool, language: str) -> str:
    """Mail a reset link to every active member whose address is ``email`` (case and
    Unicode compatibility forms aside, as Django's reset matches it), each by a task of
    his own (``send_password_link``), so that a failed send is tried again for him
    alone. A member without a password yet (invited, or restored from a backup) gets one
    too; a deactivated member gets none."""
    members = Member.objects.filter(email__iexact=email, is_active=True)
    found = [member for member in members if same_address(email, member.email)]
    for member in found:
        enqueue_logged(
            send_password_link,
            member_id=member.pk,
            kind=RESET,
            domain=domain,
            use_https=use_https,
            language=language,
        )
    return f"{len(found)} member(s)"


@task
def send_password_link(
    *,
    member_id: int,
    kind: str,
    domain: str,
    use_https: bool,
    language: str,
    organiser: str = "",
    attempt: int = 1,
) -> str:
    """Make the member's password link now and mail it: a reset (``kind="reset"``) or an
    invitation from ``organiser``, in ``language``. A member gone, deactivated or without
    an address meanwhile gets nothing; a failed send is tried again later
    (``members.tasks.again_later``), the link made afresh then."""
    member = Member.objects.filter(pk=member_id, is_active=True).first()
    if member is None or not member.email:
        return "nobody to send to"
    subject_template, body_template = _TEMPLATES[kind]
    context = {
        "member": member,
        "user": member,
        "organiser": organiser,
        "days": password_link_days(),
        "protocol": "https" if use_https else "http",
        "domain": domain,
        "uid": urlsafe_base64_encode(force_bytes(member.pk)),
        "token": default_token_generator.make_token(member),
    }
    with translation.override(language):
        club = Club.shown(language).name  # the club's own, as every page shows
        context["club"] = club
        subject = " ".join(render_to_string(subject_template, context).split())
        body = render_to_string(body_template, context)
    try:
        EmailMessage(subject, body, from_address(club), to=[member.email]).send(using="default")
    except Exception as error:  # whatever the mail server or its connection answers
        return again_later(
            send_password_link,
            error,
            attempt=attempt,
            what=f"a password link ({kind})",
            member_id=member_id,
            kind=kind,
            domain=domain,
            use_https=use_https,
            language=language,
            organiser=organiser,
        )
    return "sent"


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
