"""``manage.py import_history FILE.csv [--dry-run]``: bring the club's paper history in
(a CSV of past results, ``services.history``), as an organiser does at /club/history/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.engine.history import check_size
from scoring.services.history import HistoryPlan, HistoryRefused, history_import, history_plan

BAD_INPUT = 2


class Command(BaseCommand):
    help = (
        "Import a CSV of past results (columns table, date, game, player, result and an "
        "optional money) as finished totals-only tables that count in the standings. Every "
        "refused row is listed with its line; nothing is written if any row is refused "
        "(exit status 2). --dry-run shows what would be created and writes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the CSV file's path")
        parser.add_argument(
            "--dry-run", action="store_true", help="show what would be created; write nothing"
        )
        parser.add_argument(
            "--by", metavar="USERNAME", help="the organiser the tables' history names"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        by = self._member(options["by"])
        try:
            check_size(path.stat().st_size)
            content = path.read_bytes()
            if options["dry_run"]:
                plan = history_plan(content=content)
                self._report(plan)
                if plan.refused:
                    raise CommandError(
                        f"{path}: {len(plan.refused)} rows refused; nothing would be imported",
                        returncode=BAD_INPUT,
                    )
                self.stdout.write("Dry run: nothing written.")
                return
            done = history_import(content=content, file_name=path.name, by=by)
        except OSError as error:
            raise CommandError(
                f"cannot read {path}: {error.strerror or error}", returncode=BAD_INPUT
            ) from None
        except HistoryRefused as refused:
            self._report(refused.plan)
            raise CommandError(
                f"{path}: {len(refused.plan.refused)} rows refused; nothing was imported",
                returncode=BAD_INPUT,
            ) from None
        except RuleError as error:
            raise CommandError(f"{path}: {error.message}", returncode=BAD_INPUT) from None
        self.stdout.write(f"Imported {done.tables} tables and {done.guests} new guests.")

    def _report(self, plan: HistoryPlan) -> None:
        for table in plan.tables:
            seats = ", ".join(f"{seat.name} {seat.result}" for seat in table.seats)
            self.stdout.write(
                f"table {table.source.label}: {table.source.played_on} {table.source.game}: {seats}"
            )
        if plan.new_guests:
            self.stdout.write("New guests: " + ", ".join(plan.new_guests))
        for refusal in plan.refused:
            self.stderr.write(f"line {refusal.line}: {refusal.error}")

    @staticmethod
    def _member(username: str | None) -> Member | None:
        if username is None:
            return None
        member = Member.objects.filter(username=username).first()
        if member is None:
            raise CommandError(f"no member has the username {username}", returncode=BAD_INPUT)
        return member
