"""The organisers' editor: the club's identity, house tariffs and seasons in Django's admin,
the tables' list (read-only: whether each counts in the standings) and the record book of
the paper history's imports (read-only).
Importing the package registers every model admin (Django's autodiscovery imports
``scoring.admin``)."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from scoring.admin import club, history, seasons, tables, tariffs, tournaments

# The organisers read the club's admin, not "Django administration".
admin.site.site_header = _("Club administration")
admin.site.site_title = _("Club administration")
admin.site.index_title = _("What the organisers edit")

__all__ = ["club", "history", "seasons", "tables", "tariffs", "tournaments"]
