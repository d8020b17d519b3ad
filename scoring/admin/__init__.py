"""The organisers' editor: house tariffs and seasons in Django's admin. Importing the
package registers every model admin (Django's autodiscovery imports ``scoring.admin``)."""

from scoring.admin import seasons, tariffs

__all__ = ["seasons", "tariffs"]
