"""The reads of the organisers' members page."""

from __future__ import annotations

from axes.helpers import get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.db.models import Sum
from django.utils import timezone

from members.models import Member


def locked_out_usernames() -> set[str]:
    """The usernames whose sign-in is paused from at least one address: that address's
    failed attempts within ``AXES_COOLOFF_TIME`` add up to ``AXES_FAILURE_LIMIT``. This is
    how django-axes' database handler decides it (one row per username, address and
    browser; summed per username and address, the lockout parameters in settings)."""
    attempts = AccessAttempt.objects.order_by()
    cool_off = get_cool_off()
    if cool_off is not None:
        attempts = attempts.filter(attempt_time__gte=timezone.now() - cool_off)
    locked = (
        attempts.values("username", "ip_address")
        .annotate(failures=Sum("failures_since_start"))
        .filter(failures__gte=get_failure_limit(None, None))
        .values_list("username", flat=True)
    )
    return {username for username in locked if username}


def members_for_organisers() -> list[Member]:
    """Every member, in the club's order (display name, username), with their groups
    (for "organiser")."""
    return list(Member.objects.prefetch_related("groups"))
