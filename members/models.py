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

NOTICE_KINDS = ("reminder", "table_finished", "seated", "evening_summary")
"""The messages a member may ask for: the day-before reminder of an evening he answered,
his table finished, his seat found (moved off the waiting list), the evening's summary."""

CHANNELS = ("email", "telegram", "push")
"""How a message reaches him: e-mail, his own Telegram chat with the club's bot, a web
push to each device he subscribed."""


def choice_name(channel: str, kind: str) -> str:
    """The column of the member's choice of ``kind`` by ``channel``: ``email_reminder``."""
    if channel not in CHANNELS or kind not in NOTICE_KINDS:
        raise ValueError(f"Not a message choice: {channel!r}, {kind!r}")
    return f"{channel}_{kind}"


NOTICE_CHOICES = tuple(choice_name(c, k) for c in CHANNELS for k in NOTICE_KINDS)
"""Every choice's column, channel by channel."""


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
    # The same choices by the other ways (docs/evenings.md, "Reminders and messages"): on
    # by default, taking effect once he has an address, a linked Telegram chat or a device
    # subscribed to web push; each is his own explicit step.
    email_reminder = models.BooleanField(_("the day-before reminder by e-mail"), default=True)
    email_seated = models.BooleanField(_("a seat found by e-mail"), default=True)
    telegram_reminder = models.BooleanField(_("the day-before reminder by Telegram"), default=True)
    telegram_table_finished = models.BooleanField(_("my table finished by Telegram"), default=True)
    telegram_seated = models.BooleanField(_("a seat found by Telegram"), default=True)
    telegram_evening_summary = models.BooleanField(
        _("the evening's summary by Telegram"), default=True
    )
    push_reminder = models.BooleanField(_("the day-before reminder by web push"), default=True)
    push_table_finished = models.BooleanField(_("my table finished by web push"), default=True)
    push_seated = models.BooleanField(_("a seat found by web push"), default=True)
    push_evening_summary = models.BooleanField(_("the evening's summary by web push"), default=True)
    # His own chat with the club's bot, once he linked it (``/start <token>`` from the deep
    # link on his settings page); the token is made when he asks and works once.
    telegram_chat_id = models.BigIntegerField(null=True, blank=True, editable=False)
    telegram_token = models.CharField(
        max_length=43, null=True, blank=True, unique=True, editable=False
    )
    # The private link of his own calendar feed (/evenings/calendar/<token>.ics): made and
    # made anew only when he asks; a new one stops the old link.
    calendar_token = models.CharField(
        max_length=43, null=True, blank=True, unique=True, editable=False
    )

    # Not a column: the member of a session kept in the shared cache comes with the
    # session's check of his password, not the password (members.rows).
    kept_session_hash: str | None = None

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

    def wants(self, kind: str, channel: str) -> bool:
        """Whether to send this member ``kind`` by ``channel``: he asked for it, is still
        a member, and has the way (an address; a linked chat). Web push also needs a
        device subscribed, which the sender looks up."""
        chosen = getattr(self, choice_name(channel, kind))  # a ValueError for no such choice
        if not (self.is_active and chosen):
            return False
        if channel == "email":
            return bool(self.email)
        if channel == "telegram":
            return self.telegram_chat_id is not None
        return True

    def get_session_auth_hash(self) -> str:
        """Django's check of the session against the password, or the one kept with the
        row in the shared cache (``members.rows``), which keeps no password: while the
        password is not loaded (a new one set is, and is checked)."""
        if self.kept_session_hash is not None and "password" not in self.__dict__:
            return self.kept_session_hash
        return super().get_session_auth_hash()

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


class PushSubscription(models.Model):
    """One device's web push subscription (the browser's ``PushSubscription`` as JSON):
    where to post (``endpoint``, the browser maker's push service) and the keys that
    encrypt the message for that device alone. Deleted when the member turns it off or
    the push service answers that it is gone (404, 410)."""

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("web push subscription")
        verbose_name_plural = _("web push subscriptions")

    def __str__(self) -> str:
        return f"{self.member_id}: {self.endpoint[:60]}"

    def as_info(self) -> dict[str, Any]:
        """The subscription as ``pywebpush.webpush`` takes it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}
