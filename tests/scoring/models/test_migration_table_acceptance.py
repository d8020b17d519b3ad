"""Migration 0027 (issue 35, item 4): every table that was there before counts in the
standings as it did — finished ones and ones in play alike are "counted" — so no existing
standing changes; only imports from then on await acceptance."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from scoring.models import Table

pytestmark = pytest.mark.slow  # the scoring migrations run back and forth

BEFORE = [("scoring", "0026_table_announced_revision")]


def migrate(targets: list[tuple[str, str]] | None = None) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    if targets is None:
        targets = executor.loader.graph.leaf_nodes("scoring")
    executor.migrate(targets)
    return executor


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
