"""Migrations 0007–0009 (preferans.md §13): a tariff stored before them keeps its rules;
its yes/no ``passout_zero_bonus`` becomes the choice it meant (yes: ``price``, no:
``none``), and the new settings take the engine's defaults."""

from __future__ import annotations

import pytest

from scoring.engine.preferans.rules import PreferansRules
from scoring.models import PreferansTariff
from tests.scoring.models.migrating import migrate

pytestmark = pytest.mark.slow  # every migration since 0006 run back and forth

BEFORE = [("scoring", "0006_table_record_digest")]


# Migrating back and forth rewrites tables, so it runs outside the test's transaction; the
# preset tariffs are restored afterwards (serialized_rollback). One test goes back and forth
# once for both directions: each trip over every migration since 0006 takes 4 s.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_bonus_goes_back_to_yes_no_and_forward_to_price_or_none():
    migrate()
    PreferansTariff.objects.create(name="one point", passout_zero_bonus="one")
    PreferansTariff.objects.create(name="price", passout_zero_bonus="price")

    try:
        executor = migrate(BEFORE)
        old = executor.loader.project_state(BEFORE).apps.get_model("scoring", "PreferansTariff")
        # Going back: «price» is a yes; «1 point» had no yes/no of its own, so it is a no.
        assert old.objects.get(name="price").passout_zero_bonus is True
        assert old.objects.get(name="one point").passout_zero_bonus is False
        # A tariff stored before 0007, to be carried forward.
        old.objects.create(name="bonus yes", passout_zero_bonus=True, consolation_rate=2)
        old.objects.create(name="bonus no", passout_zero_bonus=False)
    finally:
        migrate()  # never leave the database behind the models

    # Going forward: the stored yes/no becomes the choice it meant.
    yes = PreferansTariff.objects.get(name="bonus yes")
    no = PreferansTariff.objects.get(name="bonus no")
    assert (yes.passout_zero_bonus, no.passout_zero_bonus) == ("price", "none")
    assert yes.to_rules() == PreferansRules().with_overrides({"consolation_rate": 2})
    assert no.to_rules() == PreferansRules().with_overrides({"passout_zero_bonus": False})
    # The presets, stored by 0002 with yes, still play as the engine's presets.
    for preset, name in (("sochi", "Сочи (Sochi)"), ("rostov", "Ростов (Rostov)")):
        assert PreferansTariff.objects.get(name=name).to_rules() == PreferansRules.preset(preset)
