"""The organisers' editor: the club's identity, house tariffs and seasons in Django's admin.
Importing the package registers every model admin (Django's autodiscovery imports
``scoring.admin``)."""

from scoring.admin import club, seasons, tariffs

__all__ = ["club", "seasons", "tariffs"]
