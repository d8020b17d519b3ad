"""``manage.py send_reminders``: the day-before reminders of tomorrow's evenings
(docs/operations.md, "Reminders"; docs/evenings.md, "Reminders and messages"). Safe to run
as often as a timer likes (every 15 minutes): a reminder sent is never sent again, and a
member who answers later in the day gets his at the next run."""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.services.notices import reminders_send


class Command(BaseCommand):
    help = (
        "Send the day-before reminders of tomorrow's evenings to the members who answered "
        "(and to those waiting for a seat), each once. Safe to run every 15 minutes."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--today",
            metavar="YYYY-MM-DD",
            help="take this day as today (the evenings of the day after it are reminded)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        today = None
        if options["today"]:
            try:
                today = datetime.date.fromisoformat(options["today"])
            except ValueError:
                raise CommandError(
                    f"--today: not a date YYYY-MM-DD: {options['today']!r}"
                ) from None
        sent = reminders_send(today=today)
        self.stdout.write(f"Enqueued {sent} reminder(s).")
