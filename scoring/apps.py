from django.apps import AppConfig
from django.core import checks
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self) -> None:
        # Its signal receivers renew the database's epoch after migrate and flush, and
        # forget it at each request's start.
        import scoring.live.keys  # noqa: F401
        from scoring.pages.share import check_fonts
        from scoring.telegram import check_settings

        checks.register(check_fonts)
        checks.register(check_settings)
