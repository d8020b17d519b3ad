"""``manage.py digest_tables``: give finished tables their game digest (docs/operations.md,
"Duplicate imports"), so that an import of one of them is refused."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from scoring.services import table_digests_fill


class Command(BaseCommand):
    help = (
        "Store the game digest of every finished table that has none (tables finished "
        "before digests began), so that importing the same game again is refused."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--all",
            action="store_true",
            help="recompute every finished table's digest, not only the missing ones",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        stored, broken = table_digests_fill(every=options["all"])
        self.stdout.write(f"Stored the digest of {stored} finished table(s).")
        if broken:
            tables = ", ".join(map(str, broken))
            self.stderr.write(f"These tables' deals no longer replay, left without: {tables}")
