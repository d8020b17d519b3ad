"""Running the scoring app's migrations back and forth in a migration's test."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets: list[tuple[str, str]] | None = None) -> MigrationExecutor:
    """Migrate the test database to ``targets``; by default to the app's newest migration,
    so that the database is never left behind the models."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    if targets is None:
        targets = executor.loader.graph.leaf_nodes("scoring")
    executor.migrate(targets)
    return executor
