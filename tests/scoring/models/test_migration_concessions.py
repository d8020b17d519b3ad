"""Migration 0011: the seats of pulkas finished before conceded contracts were counted get
the counts the engine gives today (a concession is declared and not made, and counted as
conceded), and going back gives the old counts again. The migration changes no column, so
its functions run here against today's models."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from scoring import services
from scoring.engine.preferans.rules import PreferansRules
from scoring.models import DealRecord, Seat
from tests import factories

pytestmark = pytest.mark.django_db

MIGRATION = importlib.import_module("scoring.migrations.0011_count_concessions")
RULES = PreferansRules().with_overrides({"concede": True})
VERA_7 = {"kind": "concede", "declarer": "Vera", "contract": "7S", "undertricks": 3}
ANNA_8 = {"kind": "concede", "declarer": "Anna", "contract": "8H", "undertricks": 1}
VERA_10 = {"kind": "concede", "declarer": "Vera", "contract": "10N", "undertricks": 1}
MADE_7 = {  # Vera's 7♥, both pass: made
    "kind": "game",
    "declarer": "Vera",
    "contract": "7H",
    "answers": {"Anna": "pass", "Boris": "pass"},
}
# Without consolation nobody writes whists, so the old counts of these deals are:
OLD = {"Anna": {}, "Boris": {}, "Vera": {"declared_7": 1, "made_7": 1}}
TODAY = {
    "Anna": {},
    "Boris": {},
    "Vera": {"declared_7": 2, "made_7": 1, "conceded_7": 1, "declared_10": 1, "conceded_10": 1},
}


def stats(table):
    return {seat.name: seat.stats for seat in Seat.objects.filter(table=table)}


@pytest.fixture
def finished_before():
    """A pulka finished with two concessions of Vera's, a made 7 and a concession of
    Anna's deleted, its seats holding the counts of before the migration."""
    services.tariff_import(
        {"format": "house-tariff/1", "game": "preferans", "name": "Уход", "rules": RULES.to_dict()},
        by=None,
    )
    members = [factories.member(name) for name in ("Anna", "Boris", "Vera")]
    table = factories.pulka(members, tariff="Уход", deals=[VERA_7, MADE_7, ANNA_8, VERA_10])
    anna_8 = DealRecord.objects.get(table=table, sequence=3)
    services.deal_delete(anna_8, by=members[0], reason="entered by mistake")
    services.table_finish(table, by=members[0])
    assert stats(table) == TODAY  # as the site counts now
    for seat in Seat.objects.filter(table=table):
        seat.stats = OLD[seat.name]
        seat.save()
    return table


def test_forwards_counts_the_concessions_of_finished_pulkas(finished_before):
    in_play = factories.pulka(
        [seat.member for seat in finished_before.seats.all()], tariff="Уход", deals=[VERA_7]
    )

    MIGRATION.forwards(apps, None)

    assert stats(finished_before) == TODAY
    assert stats(in_play) == {"Anna": {}, "Boris": {}, "Vera": {}}  # counted when it finishes


def test_backwards_gives_the_old_counts_again(finished_before):
    MIGRATION.forwards(apps, None)

    MIGRATION.backwards(apps, None)

    assert stats(finished_before) == OLD
