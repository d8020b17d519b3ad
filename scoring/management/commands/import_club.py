"""``manage.py import_club FILE|-``: restore an ``export_club`` backup into an empty club."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.club.backup import BackupError, club_import

BAD_INPUT = 2


class Command(BaseCommand):
    help = (
        "Restore a backup written by export_club into an EMPTY club (a freshly migrated "
        "database), in one transaction: the preset tariffs are replaced by the backup's and "
        "the ratings are rebuilt. Members get no usable password."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the backup's path, or - for standard input")

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["file"]
        document = self._load(name)
        try:
            summary = club_import(document)
        except BackupError as error:
            raise CommandError(f"{name}: {_one_line(str(error))}", returncode=BAD_INPUT) from None
        counts = summary.counts
        self.stdout.write(
            f"Restored {_n(counts['members'], 'member')}, {_n(counts['tariffs'], 'tariff')} "
            f"({_n(counts['versions'], 'version')}; {summary.replaced_tariffs} preset tariffs "
            f"replaced), {_n(counts['seasons'], 'season')} and {_n(counts['tables'], 'table')} "
            f"({_n(counts['deals'], 'deal')}, {_n(counts['audit entries'], 'history entry')}), "
            f"{_n(counts['evenings'], 'evening')}, {_n(counts['guests'], 'guest')} and "
            f"{_n(counts['account entries'], 'account entry')}; "
            "ratings rebuilt (under DJANGO_TASKS=database: once the task worker has run)."
        )
        if summary.unknown_permissions:
            self.stdout.write(
                "Left out permissions this site does not have: "
                + ", ".join(sorted(summary.unknown_permissions))
            )
        if summary.refused_permissions:
            self.stdout.write(
                "Left out permissions beyond the Organisers' own (give them in the admin "
                "if they are meant): " + ", ".join(sorted(summary.refused_permissions))
            )
        self.stdout.write(
            "The backup holds no passwords: every restored member has an unusable one and "
            "cannot sign in until it is set. Set the administrators' first "
            "(python manage.py changepassword <username>), then set the others' in the "
            "admin (open the member, then “Set password”)."
        )

    @staticmethod
    def _load(name: str) -> Any:
        try:
            text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            raise CommandError(f"cannot read {name}: {reason}", returncode=BAD_INPUT) from None
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise CommandError(
                f"{name} is not valid JSON (line {error.lineno}, column {error.colno}: "
                f"{error.msg}); is it a file written by export_club?",
                returncode=BAD_INPUT,
            ) from None
        except RecursionError:
            raise CommandError(
                f"{name} is not a backup: its JSON is nested too deeply", returncode=BAD_INPUT
            ) from None
        except ValueError as error:  # e.g. an integer of thousands of digits
            raise CommandError(
                f"{name} is not a backup: its JSON cannot be read ({error})", returncode=BAD_INPUT
            ) from None


def _one_line(message: str) -> str:
    """The refusal as one line of standard error: PostgreSQL's messages add a ``DETAIL:``
    line (a repeated id), and a key of the document may hold a line break. Any other
    character a terminal would act on (an escape sequence in a quoted value) is written
    as its Python escape, ``\\x1b``."""
    text = " ".join(message.splitlines())
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def _n(count: int, noun: str) -> str:
    """``_n(1, "deal")`` → ``"1 deal"``; ``_n(2, "history entry")`` → ``"2 history entries"``."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun[:-1]}ies" if noun.endswith("y") else f"{count} {noun}s"
