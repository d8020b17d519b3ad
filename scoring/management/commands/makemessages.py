"""Django's ``makemessages`` with ``--keyword``: the engine marks its message templates
with its own no-op ``N_`` (it imports no Django), and ``make messages`` passes
``--keyword=N_`` so that xgettext collects them into the catalogue."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser
from django.core.management.commands import makemessages


class Command(makemessages.Command):
    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--keyword",
            action="append",
            default=[],
            help="Another function name that marks a translatable string (xgettext's).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        keywords = [f"--keyword={name}" for name in options["keyword"]]
        self.xgettext_options = [*makemessages.Command.xgettext_options, *keywords]
        super().handle(*args, **options)
