from django.apps import AppConfig
from django.core import checks
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self) -> None:
        from scoring.share import check_fonts

        checks.register(check_fonts)
