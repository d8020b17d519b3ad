from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MembersConfig(AppConfig):
    name = "members"
    verbose_name = _("Members")

    def ready(self) -> None:
        from members import (
            checks,  # noqa: F401  (registers the system checks)
            rows,  # noqa: F401  (drops a kept member's row as it changes)
        )
