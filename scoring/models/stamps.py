"""A one-row stamp that pages are kept under (the standings', the home page's): a fresh
random value written by every change to what they show, in the change's transaction, so
that no page kept under the old one is served again. Random: a restored or another database
never meets a page kept for this one."""

from __future__ import annotations

import uuid

from django.db import models


class Stamp(models.Model):
    """The row (``pk`` 1) and its ``stamp``; each kind of stamp is a model of its own."""

    stamp = models.CharField(max_length=32)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.stamp

    @classmethod
    def renew(cls) -> None:
        """Write a new stamp (inside the change's transaction); the row is made if missing
        (a database just flushed)."""
        stamp = uuid.uuid4().hex
        if not cls._default_manager.filter(pk=1).update(stamp=stamp):
            cls._default_manager.update_or_create(pk=1, defaults={"stamp": stamp})
