"""A table stored before preferans.md §13 keeps replaying: a correction that raises one
pool past the target and lowers another is written as entered (each pool entry with its
overflow), so the pulka stays open, the next deal is accepted and the table's pages show."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring import selectors, services
from scoring.models import DealRecord
from tests import factories

pytestmark = pytest.mark.django_db

STORED = [
    {"kind": "adjust", "reason": "carried over", "pool": {"Anna": 8, "Boris": 10, "Vera": 10}},
    {"kind": "adjust", "reason": "correction", "pool": {"Anna": 5, "Boris": -3}},
    {
        "kind": "game",
        "declarer": "Boris",
        "contract": "6S",
        "answers": {"Vera": "pass", "Anna": "pass"},
    },
]


def stored_table():
    table = factories.pulka(pool_target=10)
    for sequence, data in enumerate(STORED, start=1):
        DealRecord.objects.create(table=table, sequence=sequence, data=data)
    return table


def test_a_stored_correction_replays_with_the_same_completion(client):
    table = stored_table()

    state = selectors.replay(table)

    assert state.count == 3
    assert not state.game.complete
    result = state.game.result()
    assert result.pool == (10, 9, 10)  # Anna, Boris, Vera: as the first edition wrote it
    assert result.mountain == (-3, 0, 0)
    assert client.get(reverse("scoring:table_detail", args=[table.pk])).status_code == 200


def test_the_table_takes_the_next_deal():
    table = stored_table()
    deal = {
        "kind": "game",
        "declarer": "Vera",
        "contract": "6S",
        "answers": {"Anna": "pass", "Boris": "pass"},
    }

    services.deal_create(table, deal, by=None)

    # Vera's pool is full: of her 2 points 1 helps Boris to 10, 1 comes off her mountain.
    game = selectors.replay(table).game
    assert game.result().pool == (10, 10, 10)
    assert game.result().mountain == (-3, 0, -1)
    assert game.complete
