"""Migration 0028: the federation's preset seeded as a house tariff, and taken back.

Going forward it creates «ФСПР Ленинградская (FSPR Leningrad)» with version 1, unless the
club already has a tariff of that name (imported from docs/tariffs/fspr-leningrad.json):
that one is the club's and is kept as it is. Going back it removes the tariff only while
it is as seeded and no table plays under it. That the seeded tariff equals the engine's
preset is checked with the other presets (test_tariff_models.py).
"""

from __future__ import annotations

import datetime
import importlib

import pytest

from scoring.engine.preferans.rules import PreferansRules
from scoring.models import PreferansTariff, PreferansTariffVersion, Season
from tests import factories
from tests.scoring.models.migrating import migrate

pytestmark = pytest.mark.slow  # the app's last migration run back and forth

MIGRATION = importlib.import_module("scoring.migrations.0028_fspr_leningrad_preset")
NAME = "ФСПР Ленинградская (FSPR Leningrad)"
BEFORE = [("scoring", "0027_table_acceptance")]


def test_the_name_and_the_rules_are_the_engines_preset() -> None:
    assert MIGRATION.NAME == NAME
    assert PreferansRules.from_dict(MIGRATION.RULES) == PreferansRules.preset("fspr_leningrad")
    assert PreferansRules.preset("fspr_leningrad").to_dict() == MIGRATION.RULES  # every one


# Migrating back and forth rewrites tables, so it runs outside the test's transaction; the
# preset tariffs are restored afterwards (serialized_rollback).
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_back_removes_the_seeded_tariff_and_forward_keeps_a_clubs_own() -> None:
    migrate()
    assert PreferansTariff.objects.get(name=NAME).versions.count() == 1

    try:
        executor = migrate(BEFORE)
        old_apps = executor.loader.project_state(BEFORE).apps
        old = old_apps.get_model("scoring", "PreferansTariff")
        # Back: the seeded tariff and its version are gone; the four of 0002 stay.
        assert not old.objects.filter(name=NAME).exists()
        assert old.objects.count() == 4
        assert old_apps.get_model("scoring", "PreferansTariffVersion").objects.count() == 4
        # The club imports the file before 0028 and edits it: a 6 worth 3.
        own = old.objects.create(name=NAME, value_6=3, widow_premium=True)
        own.versions.create(number=1, rules={"contract_values": [3, 4, 6, 8, 10, 10]})
    finally:
        migrate()  # never leave the database behind the models

    # Forward: the club's own tariff is kept as it was, nothing is added beside it.
    tariff = PreferansTariff.objects.get(name=NAME)
    assert tariff.value_6 == 3
    assert list(tariff.versions.values_list("rules", flat=True)) == [
        {"contract_values": [3, 4, 6, 8, 10, 10]}
    ]
    assert PreferansTariff.objects.count() == 5
    assert PreferansTariffVersion.objects.count() == 5

    try:
        migrate(BEFORE)
        # Back again: not as seeded (its version has other rules), so it stays.
        assert PreferansTariff.objects.filter(name=NAME, value_6=3).exists()
    finally:
        migrate()


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@pytest.mark.parametrize("used_by", ["table", "season"])
def test_back_keeps_the_seeded_tariff_a_table_or_a_season_uses(used_by: str) -> None:
    migrate()
    seeded = PreferansTariff.objects.get(name=NAME)
    version = seeded.versions.get()
    if used_by == "table":
        assert factories.pulka(tariff=NAME).preferans_version == version
    else:
        Season.objects.create(
            name="Весна",
            starts_on=datetime.date(2026, 3, 1),
            ends_on=datetime.date(2026, 5, 31),
            preferans_tariff=seeded,
        )

    try:
        migrate(BEFORE)
        # Still there, with its one version (and the table or the season that uses it).
        assert list(PreferansTariffVersion.objects.filter(tariff__name=NAME)) == [version]
        assert Season.objects.filter(preferans_tariff=seeded).count() == (used_by == "season")
    finally:
        migrate()

    # Forward again: still the one seeded tariff, with its one version.
    seeded = PreferansTariff.objects.get(name=NAME)
    assert seeded.versions.count() == 1
    assert seeded.to_rules() == PreferansRules.preset("fspr_leningrad")
