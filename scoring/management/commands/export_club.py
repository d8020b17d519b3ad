"""``manage.py export_club [FILE|-]``: the whole club as one JSON document (a backup)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.club.backup import club_export


class Command(BaseCommand):
    help = (
        "Write the whole club (members without passwords, groups, tariffs with every "
        "version, seasons, tables with seats, deals and history) as one JSON document; "
        "import_club restores it into an empty club."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "file", nargs="?", default="-", help="where to write it; - (the default) is stdout"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        document = club_export()
        text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
        name = options["file"]
        if name == "-":
            self.stdout.write(text, ending="")
            return
        try:
            Path(name).write_text(text, encoding="utf-8")
        except OSError as error:
            raise CommandError(f"cannot write {name}: {error.strerror}", returncode=2) from None
        counts = {key: len(document[key]) for key in ("members", "seasons", "tables")}
        tariffs = sum(len(items) for items in document["tariffs"].values())
        deals = sum(len(table["deals"]) for table in document["tables"])
        self.stdout.write(
            f"Exported {counts['members']} members, {tariffs} tariffs, {counts['seasons']} "
            f"seasons and {counts['tables']} tables ({deals} deals) to {name}."
        )
