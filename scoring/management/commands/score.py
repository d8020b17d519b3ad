"""``manage.py score FILE``: score a game record without touching the database."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from scoring.engine.errors import RuleError
from scoring.engine.record import MAX_RECORD_BYTES, check_size, load, score_record

BAD_INPUT = 2


class Command(BaseCommand):
    help = "Score a game record (game-format.md) and print the result document as JSON."
    requires_system_checks = ()  # scoring needs neither the database nor checks
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the record's path, or - for standard input")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result = score_record(load(self._read(options["file"])))
        except RuleError as error:
            sys.stderr.write(f"score: {error}\n")
            sys.exit(BAD_INPUT)
        self.stdout.write(json.dumps(result, ensure_ascii=False, indent=1))

    @staticmethod
    def _read(name: str) -> str:
        """The record's text; one over the size limit is refused before it is read whole
        (``load`` measures what standard input gave)."""
        try:
            if name == "-":
                return sys.stdin.read(MAX_RECORD_BYTES + 1)
            path = Path(name)
            check_size(path.stat().st_size)
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            raise RuleError(f"cannot read {name}: {reason}") from None
