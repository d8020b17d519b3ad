"""A club backup made before conceded contracts were counted in the statistics restores:
its seats' counts lack the concessions (preferans.md §13.11), and the restore stores
today's counts instead of calling the backup forged. Any other difference is still refused."""

from __future__ import annotations

import pytest

from scoring import services
from scoring.club.backup import BackupError, club_export, club_import
from scoring.engine.preferans.rules import PreferansRules
from scoring.models import Seat, Table
from tests import factories
from tests.scoring.club.test_backup import empty_the_club

pytestmark = pytest.mark.django_db

RULES = PreferansRules().with_overrides({"concede": True, "concede_consolation": True})
# Sochi 7♠ conceded three down: Vera's mountain 3 × 4; Anna and Boris console 12 each.
CONCESSION = {"kind": "concede", "declarer": "Vera", "contract": "7S", "undertricks": 3}
TODAY = {"declared_7": 1, "conceded_7": 1, "whists_received": 24}
BEFORE = {"whists_received": 24}
"""Vera's counts as the site stored them before concessions were counted."""


def backup_with_vera_counted(stats: dict[str, int]) -> dict:
    services.tariff_import(
        {"format": "house-tariff/1", "game": "preferans", "name": "Уход", "rules": RULES.to_dict()},
        by=None,
    )
    table = factories.pulka(tariff="Уход", deals=[CONCESSION], finished=True)
    assert Seat.objects.get(table=table, name="Vera").stats == TODAY
    document = club_export()
    (item,) = document["tables"]
    (vera,) = [seat for seat in item["seats"] if seat["name"] == "Vera"]
    vera["stats"] = stats
    empty_the_club()
    return document


def test_a_backup_without_the_concessions_counted_restores_with_todays_counts():
    document = backup_with_vera_counted(BEFORE)

    club_import(document)

    table = Table.objects.get()
    assert {s.name: s.stats for s in table.seats.all()} == {
        "Anna": {"whists_written": 12},
        "Boris": {"whists_written": 12},
        "Vera": TODAY,
    }


@pytest.mark.parametrize(
    "stats",
    [
        {"declared_7": 1, "whists_received": 24},  # neither the old counts nor today's
        {"declared_7": 2, "conceded_7": 1, "whists_received": 24},
        {},
    ],
)
def test_other_counts_are_still_refused_as_forged(stats):
    document = backup_with_vera_counted(stats)

    with pytest.raises(BackupError, match=r"tables\[0\]\.seats\[2\]\.stats: .* forged"):
        club_import(document)

    assert not Table.objects.exists()
