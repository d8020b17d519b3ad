"""A game record under the settings of preferans.md §14 comes in by the table import
under a tariff with those settings, its deal log shows the new entries with their
arithmetic, and its export gives the same record back."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.urls import reverse

from scoring import selectors, services
from scoring.engine.errors import RuleError
from scoring.engine.preferans.rules import PreferansRules
from scoring.models import PreferansTariff
from scoring.services.imports import version_for
from tests import factories

pytestmark = pytest.mark.django_db

RULES = PreferansRules().with_overrides(
    {"misere_consolation": 10, "overflow_floor": "shift_all", "consolation_by_passer": False}
)
RECORD = {
    "format": "pulka/1",
    "game": "preferans",
    "rules": RULES.to_dict(),
    "players": ["Anna", "Boris", "Vera"],
    "pool_target": 2,
    "deals": [
        # Anna deals; Boris's misère fails with 2: mountain 2 × 10, Vera and Anna 2 × 10 on him.
        {"kind": "misere", "declarer": "Boris", "tricks": {"Boris": 2}},
        # Vera's 6S, passed: her pool closes at 2.
        {
            "kind": "game",
            "declarer": "Vera",
            "contract": "6S",
            "answers": {"Anna": "pass", "Boris": "pass"},
        },
        # Anna's misère made: 2 into her pool, 8 past it; no open pool but Boris's (0 → 2,
        # Anna writes 2 × 10 on him), 6 off her mountain of 0: on Boris's and Vera's.
        {"kind": "misere", "declarer": "Anna", "tricks": {"Anna": 0}},
    ],
}


def test_a_record_with_third_edition_settings_is_imported_shown_and_exported(client):
    tariff = services.tariff_import(
        {"format": "house-tariff/1", "game": "preferans", "name": "§14", "rules": RULES.to_dict()},
        by=None,
    )
    members = [factories.member(name) for name in ("Anna", "Boris", "Vera")]

    table = services.table_import(
        RECORD, version=tariff.current_version, members=members, by=members[0]
    )

    result = selectors.replay(table).game.result()
    assert result.pool == (2, 2, 2)
    assert result.mountain == (0, 20 + 6, 6)
    assert result.whists[0][1] == 20 + 20  # the consolation, then the help
    assert result.whists[2][1] == 20
    page = client.get(reverse("scoring:table_detail", args=[table.pk]))
    assert page.status_code == 200
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.content.decode()))
    assert "consolation on a failed misère" in text
    assert "2 × 10 = 20" in text
    assert "below zero, written on the others" in text
    assert services.table_export(table)["deals"] == RECORD["deals"]


def test_the_federations_preset_is_a_tariff_file_an_organiser_imports():
    """docs/tariffs/fspr-leningrad.json is the tariff migration 0028 seeds: imported next
    to the seeded one (the admin's tariff import calls the same service) it is refused by
    its name and adds nothing; a club that renamed the seeded tariff imports the file as
    the engine's preset, and a record that names the preset then finds it."""
    path = Path(__file__).parents[3] / "docs" / "tariffs" / "fspr-leningrad.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    seeded = PreferansTariff.objects.get(name=document["name"])
    assert seeded.to_rules() == PreferansRules.from_dict(document["rules"])

    with pytest.raises(RuleError) as refused:
        services.tariff_import(document, by=None)

    assert (refused.value.field, refused.value.message) == (
        "name",
        "a tariff with this name exists already",
    )
    assert PreferansTariff.objects.count() == 5  # the five presets, nothing added
    PreferansTariff.objects.filter(pk=seeded.pk).update(name="Наша ФСПР")

    tariff = services.tariff_import(document, by=None)

    assert tariff.name == "ФСПР Ленинградская (FSPR Leningrad)"
    assert tariff.to_rules() == PreferansRules.preset("fspr_leningrad")
    record = {
        "format": "pulka/1",
        "game": "preferans",
        "rules": "fspr_leningrad",
        "players": ["Anna", "Boris", "Vera"],
        "deals": [
            {
                "kind": "game",
                "declarer": "Anna",
                "contract": "7S",
                "answers": {"Boris": "whist", "Vera": "whist"},
                "tricks": {"Anna": 7, "Boris": 2, "Vera": 1},
                "fast_tricks": 2,
            }
        ],
    }
    members = [factories.member(name) for name in ("Anna", "Boris", "Vera")]
    table = services.table_import(
        record, version=version_for(record), members=members, by=members[0]
    )
    # 7♠ made: pool 4; Boris 2 × 8, Vera 1 × 8; the premium 2 × 8 = 16, half each: 8.
    result = selectors.replay(table).game.result()
    assert (result.whists[1][0], result.whists[2][0]) == (16 + 8, 8 + 8)
