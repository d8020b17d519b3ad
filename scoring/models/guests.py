"""Guests: a player with a name and no account (issue 17). A guest plays at any table and
in an evening's draw, is on the sheets, logs, exports and the evening's ledger, and stays
out of leaderboards, ratings and profiles (``SeatQuerySet.members_only``). An organiser
may later merge a guest's history into a member (``services.guests.guest_merge``)."""

from __future__ import annotations

import re
import unicodedata

from django.db import models
from django.utils.translation import gettext_lazy as _

BIDI_CONTROLS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Marks and overrides that turn the text after them around (an RTL override makes
«Анна» read «аннА»): never part of a name, so taken out of every guest's name."""
INVISIBLE = BIDI_CONTROLS + "\ufeff\u200b\u200c\u200d\u2060"
"""Characters that show nothing: the bidi controls, the byte-order mark and the zero-width
ones. A name of these and spaces alone is no name."""
_STRIPPED = str.maketrans(dict.fromkeys(BIDI_CONTROLS + "\ufeff"))
_HIDDEN = str.maketrans(dict.fromkeys(INVISIBLE))


def guest_name_cleaned(name: str) -> str:
    """A guest's name as it is kept: without bidi controls or a byte-order mark, its
    spaces trimmed and collapsed; ``""`` when nothing visible is left (only invisible
    characters and spaces)."""
    cleaned = " ".join(name.translate(_STRIPPED).split())
    return cleaned if cleaned.translate(_HIDDEN).strip() else ""


def name_key(name: str) -> str:
    """What two names are compared by (a guest's against a member's shown name): NFKC
    (full-width letters as their plain ones), case folded, the invisible characters
    dropped, trimmed and the inner spaces collapsed — «ＡＮＮＡ», « anna » and «Anna» are
    one name."""
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_HIDDEN)
    return re.sub(r"\s+", " ", folded).strip()


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
