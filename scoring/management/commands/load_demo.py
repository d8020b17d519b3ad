"""``manage.py load_demo``: fill an empty club with the demo club (``scoring/club/demo.py``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from scoring.club.demo import load_demo
from scoring.services.notifications import paused


class Command(BaseCommand):
    help = (
        "Create the demo club (members, finished tables, one pulka in play) on an empty "
        "club and print the demo passwords once; does nothing when members exist."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        # Its tables were not played tonight: nobody is e-mailed, nothing is posted.
        with paused():
            load_demo(stdout=self.stdout)
