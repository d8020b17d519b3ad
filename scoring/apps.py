from django.apps import AppConfig
from django.core import checks
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_delete, post_save

        # Its signal receivers renew the database's epoch after migrate and flush, and
        # forget it at each request's start.
        import scoring.live.keys  # noqa: F401
        from scoring.models import BostonTariff, PreferansTariff, Season
        from scoring.pages.share import check_fonts
        from scoring.services import standings
        from scoring.telegram import check_settings

        checks.register(check_fonts)
        checks.register(check_settings)
        # What the standings totals and their cached pages follow besides the finishes
        # and reopens (scoring/services/standings.py).
        post_save.connect(standings.season_saved, sender=Season)
        post_delete.connect(standings.season_deleted, sender=Season)
        post_save.connect(standings.member_saved, sender=get_user_model())
        for tariff in (PreferansTariff, BostonTariff):  # its name, on profiles and seasons
            post_save.connect(standings.tariff_saved, sender=tariff)
