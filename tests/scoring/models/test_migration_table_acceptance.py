"""Migration 0027 (issue 35, item 4): every table that was there before counts in the
standings as it did — finished ones and ones in play alike are "counted" — so no existing
standing changes; only imports from then on await acceptance."""

from __future__ import annotations

import pytest

from scoring.models import Table
from tests.scoring.models.migrating import migrate

pytestmark = pytest.mark.slow  # the scoring migrations run back and forth

BEFORE = [("scoring", "0026_table_announced_revision")]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_every_table_there_before_counts():
    executor = migrate(BEFORE)
    try:
        old = executor.loader.project_state(BEFORE).apps
        version = old.get_model("scoring", "PreferansTariffVersion").objects.order_by("pk")[0]
        tables = old.get_model("scoring", "Table").objects
        finished = tables.create(game="preferans", preferans_version=version, status="finished")
        in_play = tables.create(game="preferans", preferans_version=version, status="open")
    finally:
        migrate()  # never leave the database behind the models

    standings = dict(Table.objects.values_list("pk", "standing"))
    assert standings == {finished.pk: Table.COUNTED, in_play.pk: Table.COUNTED}
