from django.apps import AppConfig
from django.core import checks


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Подсчёт очков"

    def ready(self) -> None:
        from scoring.share import check_fonts
        from scoring.telegram import check_settings

        checks.register(check_fonts)
        checks.register(check_settings)
