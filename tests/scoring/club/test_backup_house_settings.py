"""A club backup made before preferans.md §13 restores: its tariffs lack the new settings
(they take the engine's defaults) and store ``passout_zero_bonus`` as yes/no, read as the
choice it means (yes: ``price``, no: ``none``)."""

from __future__ import annotations

import pytest

from scoring.club.backup import club_export, club_import
from scoring.engine.preferans.rules import PreferansRules
from scoring.models import PreferansTariff

pytestmark = pytest.mark.django_db

SECOND_EDITION = (
    "settlement_pools",
    "duty_at_one",
    "duty_on_remise",
    "passout_series_ends_on",
    "passout_series_end_level",
    "help_to",
    "overflow_floor",
    "stalingrad",
    "concede",
    "concede_undertricks",
    "concede_consolation",
    "last_round",
)
SOCHI = "Сочи (Sochi)"
ROSTOV = "Ростов (Rostov)"


def first_edition_backup() -> dict:
    """This club's backup as the first edition wrote it."""
    document = club_export()
    for item in document["tariffs"]["preferans"]:
        fields = item["fields"]
        fields["passout_zero_bonus"] = fields["passout_zero_bonus"] == "price"
        for name in SECOND_EDITION:
            del fields[name]
        if item["fields"]["name"] == ROSTOV:
            fields["passout_zero_bonus"] = False
    return document


def test_a_first_edition_backup_restores_with_its_yes_no_read_as_a_choice():
    document = first_edition_backup()

    club_import(document)

    sochi = PreferansTariff.objects.get(name=SOCHI)
    rostov = PreferansTariff.objects.get(name=ROSTOV)
    assert (sochi.passout_zero_bonus, rostov.passout_zero_bonus) == ("price", "none")
    assert sochi.to_rules() == PreferansRules.preset("sochi")
    assert rostov.to_rules() == PreferansRules.preset("rostov").with_overrides(
        {"passout_zero_bonus": "none"}
    )
    # The versions keep their stored rules and still read as the presets.
    assert sochi.current_version.has_rules(PreferansRules.preset("sochi"))


def test_todays_backup_keeps_every_choice():
    tariff = PreferansTariff.objects.get(name=SOCHI)
    tariff.passout_zero_bonus = "mountain"
    tariff.help_to = "clockwise"
    tariff.save()
    document = club_export()

    club_import(document)

    restored = PreferansTariff.objects.get(name=SOCHI)
    assert (restored.passout_zero_bonus, restored.help_to) == ("mountain", "clockwise")
