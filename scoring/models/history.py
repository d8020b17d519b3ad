"""The club's paper history brought in (issue 34): one row per CSV file of past results
imported (``services.history``), so that the same file uploaded again is refused."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class HistoryImport(models.Model):
    """A file of past results imported: its digest (SHA-256 of its bytes, a byte-order
    mark left out), who brought it in, when, and what it made."""

    digest = models.CharField(_("digest"), max_length=64, unique=True)
    file_name = models.CharField(_("file"), max_length=200, blank=True)
    tables = models.PositiveIntegerField(_("tables"))
    guests = models.PositiveIntegerField(_("new guests"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("imported by"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    at = models.DateTimeField(_("imported at"), auto_now_add=True)

    class Meta:
        ordering = ("-at", "-id")
        verbose_name = _("history import")
        verbose_name_plural = _("history imports")

    def __str__(self) -> str:
        return self.file_name or self.digest[:12]
