"""A game record with a conceded contract (preferans.md §13.11) comes in by the table
import under a tariff that allows conceding, and its pages and export show it (the deal
form's concessions: tests/scoring/views/test_concede.py)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring import selectors, services
from scoring.engine.preferans.rules import PreferansRules
from tests import factories

pytestmark = pytest.mark.django_db

RULES = PreferansRules().with_overrides({"concede": True, "concede_consolation": True})
RECORD = {
    "format": "pulka/1",
    "game": "preferans",
    "rules": RULES.to_dict(),
    "players": ["Anna", "Boris", "Vera"],
    "pool_target": 10,
    "deals": [
        {"kind": "concede", "declarer": "Boris", "contract": "7S", "undertricks": 2},
        {"kind": "passout", "tricks": {"Anna": 4, "Boris": 4, "Vera": 2}},
    ],
}


def test_a_concession_is_imported_shown_and_exported(client):
    tariff = services.tariff_import(
        {"format": "house-tariff/1", "game": "preferans", "name": "Уход", "rules": RULES.to_dict()},
        by=None,
    )
    members = [factories.member(name) for name in ("Anna", "Boris", "Vera")]

    table = services.table_import(
        RECORD, version=tariff.current_version, members=members, by=members[0]
    )

    result = selectors.replay(table).game.result()
    assert result.mountain == (4, 8 + 4, 2)  # Boris: 2 × 4 for the concession, 4 × 1 pass-out
    assert result.whists[0][1] == result.whists[2][1] == 8  # consolation 2 × 4 each
    page = client.get(reverse("scoring:table_detail", args=[table.pk]))
    assert page.status_code == 200
    assert "Boris 7♠ — conceded, two down" in page.content.decode()
    exported = services.table_export(table)
    assert exported["deals"][0] == RECORD["deals"][0]
