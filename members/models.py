"""Club members: Django users with the name the club knows them by."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _

ORGANISERS = "Organisers"
"""The group whose members edit tariffs and seasons and may reopen tables."""


EMAIL_CHOICES = ("email_table_finished", "email_evening_summary")
"""The member's e-mail choices (``Member.wants_email``), as their columns are called."""


NAME_FIELDS = ("display_name", "first_name", "last_name", "username")
"""The columns a member's shown name is made of."""


def shown_name(display_name: str, first_name: str, last_name: str, username: str) -> str:
    """The name the club sees for a member, everywhere: the display name, else the first
    and last name, else the username."""
    return display_name or f"{first_name} {last_name}".strip() or username


def name_fields(prefix: str) -> tuple[str, ...]:
    """The ``values()`` names of a related member's name columns, e.g. ``member__``."""
    return tuple(prefix + field for field in NAME_FIELDS)


def shown_name_of(row: Mapping[str, Any], prefix: str) -> str:
    """The shown name from a ``values()`` row that has ``name_fields(prefix)`` (the
    standings, the profile's rivals), the same as ``Member.name``."""
    return shown_name(*(row[name] for name in name_fields(prefix)))


class Member(AbstractUser):
    """A club member. ``name`` (see ``shown_name``) is what sheets, standings and the
    profile show."""

    display_name = models.CharField(
        _("display name"),
        max_length=60,
        blank=True,
        help_text=_("The name shown on sheets and standings (defaults to the username)."),
    )
    # What the member wants e-mailed (sent by a later part of the site). On by default:
    # they take effect only once the member has an e-mail address (``wants_email``).
    email_table_finished = models.BooleanField(
        _("e-mail me when my table finishes"),
        default=True,
        help_text=_("A message when a table you played at is finished."),
    )
    email_evening_summary = models.BooleanField(
        _("e-mail me the evening's summary"),
        default=True,
        help_text=_("A message after each club evening: its tables and results."),
    )
    # The private link of his own calendar feed (/evenings/calendar/<token>.ics): made and
    # made anew only when he asks; a new one stops the old link.
    calendar_token = models.CharField(
        max_length=43, null=True, blank=True, unique=True, editable=False
    )

    # Not ``Meta(AbstractUser.Meta)``: that Meta holds only ``abstract`` (which Django resets
    # for subclasses) and the two names replaced here, and its stub types them as plain str.
    class Meta:
        verbose_name = _("member")
        verbose_name_plural = _("members")
        ordering = ("display_name", "username")

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        """The member's shown name (``shown_name``)."""
        return shown_name(self.display_name, self.first_name, self.last_name, self.username)

    def wants_email(self, choice: str) -> bool:
        """Whether to e-mail this member about ``choice`` (``"email_table_finished"`` or
        ``"email_evening_summary"``): the member asked for it, has an address, and is
        still a member (active)."""
        if choice not in EMAIL_CHOICES:
            raise ValueError(f"Not an e-mail choice: {choice!r}")
        return bool(self.is_active and self.email and getattr(self, choice))

    @property
    def is_organiser(self) -> bool:
        """Organisers edit tariffs and seasons; superusers count as organisers. The member
        signed in comes with the answer (``members.backends``); any other is asked."""
        if self.is_superuser:
            return True
        loaded = getattr(self, "in_organisers", None)
        if loaded is not None:
            return bool(loaded)
        return any(group.name == ORGANISERS for group in self.groups.all())
