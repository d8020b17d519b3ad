"""The messages sent to members, one row each (docs/evenings.md, "Reminders and
messages"): what makes a message go out at most once."""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Notice(models.Model):
    """One message to one member: its kind, the event it is about (``key``: ``evening:12``,
    ``table:40:3`` for a revision of a finish) and the channel. Written in the transaction
    that enqueues its sending task, under a unique constraint: a second run of the
    scheduled command, a retried task or a second worker meets the first one's row (or
    waits for it to commit) and enqueues nothing."""

    # ``kind`` and ``channel`` are ``members.models.NOTICE_KINDS`` and ``CHANNELS`` (the
    # members' choices' own words; scoring's models do not import members').
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices"
    )
    kind = models.CharField(_("message"), max_length=20)
    key = models.CharField(_("about"), max_length=60)
    channel = models.CharField(_("by"), max_length=10)
    created_at = models.DateTimeField(_("sent at"), auto_now_add=True)

    class Meta:
        verbose_name = _("message sent")
        verbose_name_plural = _("messages sent")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=("member", "kind", "key", "channel"), name="notice_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} {self.channel} → {self.member_id}"
