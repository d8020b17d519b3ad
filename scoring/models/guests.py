"""Guests: a player with a name and no account (issue 17). A guest plays at any table and
in an evening's draw, is on the sheets, logs, exports and the evening's ledger, and stays
out of leaderboards, ratings and profiles (``SeatQuerySet.members_only``). An organiser
may later merge a guest's history into a member (``services.guests.guest_merge``)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


def guest_key(guest_id: int) -> str:
    """A guest's key in the draw and the ledger (a member's is ``m<id>``)."""
    return f"g{guest_id}"


class Guest(models.Model):
    """Someone who played without an account: a name, when he was first seated, and the
    evening he came to (when he came to one)."""

    name = models.CharField(_("name"), max_length=60)
    created_at = models.DateTimeField(auto_now_add=True)
    evening = models.ForeignKey(
        "scoring.Evening",
        verbose_name=_("evening"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="guests",
    )

    class Meta:
        ordering = ("name", "id")
        verbose_name = _("guest")
        verbose_name_plural = _("guests")

    def __str__(self) -> str:
        return self.name

    @property
    def key(self) -> str:
        return guest_key(self.pk)
