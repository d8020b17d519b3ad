"""The database's epoch: a token that names this database's history, so that nothing kept
outside it (sheets in a shared cache, a process's replay snapshots, a browser's ETag) is
ever taken for a different history that happens to reuse the same table numbers and
revisions.

A restore brings tables back with their ids, opening times and revisions, and the first
write after it makes a revision that a cache may already hold from before the restore,
drawn from other deals. Every key of ``scoring.live`` starts with the epoch, and every
restore, flush and migrate gives the database a new one (``scoring.live.keys``).
"""

from __future__ import annotations

import secrets
from typing import ClassVar

from django.db import models
from django.db.models import Q

MISSING = "-"
"""The epoch of a database without the row (just flushed): tables opened after a flush
have new opening times, so their keys are new all the same."""


def new_token() -> str:
    """A token no database of this site had before (64 random bits)."""
    return secrets.token_hex(8)


class Epoch(models.Model):
    """The one row holding the database's epoch (its primary key is always 1)."""

    ONLY_PK = 1

    token = models.CharField(max_length=32)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(condition=Q(id=1), name="epoch_is_one_row"),
        ]

    def __str__(self) -> str:
        return self.token

    @classmethod
    def current(cls) -> str:
        """The database's epoch (one query)."""
        token = cls.objects.filter(pk=cls.ONLY_PK).values_list("token", flat=True).first()
        return token or MISSING

    @classmethod
    def renew(cls) -> str:
        """Give the database a new epoch, and return it."""
        token = new_token()
        cls.objects.update_or_create(pk=cls.ONLY_PK, defaults={"token": token})
        return token
