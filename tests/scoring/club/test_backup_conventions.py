"""A club backup made before preferans.md §14 restores (its tariffs lack the new settings
and take the engine's defaults, so every preset reads as before), and today's backup keeps
every §14 value."""

from __future__ import annotations

import pytest

from scoring.club.backup import club_export, club_import
from scoring.engine.preferans.rules import PRESETS, PreferansRules
from scoring.models import PreferansTariff

pytestmark = pytest.mark.django_db

THIRD_EDITION = (
    "consolation_fixed",
    "misere_consolation",
    "passout_whists_tie",
    "passout_ladder_repeat",
    "concede_ends_passouts",
    "zero_bonus_when_closed",
    "consolation_by_passer",
)
SOCHI = "Сочи (Sochi)"


def test_a_second_edition_backup_restores_with_the_defaults():
    document = club_export()
    for item in document["tariffs"]["preferans"]:
        for name in THIRD_EDITION:
            del item["fields"][name]

    club_import(document)

    rules = {tariff.to_rules() for tariff in PreferansTariff.objects.all()}
    assert rules <= set(PRESETS.values())
    assert PreferansTariff.objects.get(name=SOCHI).to_rules() == PreferansRules.preset("sochi")


def test_todays_backup_keeps_every_third_edition_value():
    values = {
        "consolation_fixed": 10,
        "misere_consolation": 5,
        "passout_whists_tie": "split",
        "passout_ladder_repeat": "cycle",
        "concede": True,
        "concede_ends_passouts": True,
        "zero_bonus_when_closed": "mountain",
        "consolation_by_passer": False,
        "duty_at_one": "none",
        "overflow_floor": "shift_all",
    }
    tariff = PreferansTariff.objects.get(name=SOCHI)
    for name, value in values.items():
        setattr(tariff, name, value)
    tariff.save()
    document = club_export()

    club_import(document)

    restored = PreferansTariff.objects.get(name=SOCHI)
    assert restored.to_rules() == PreferansRules().with_overrides(values)
