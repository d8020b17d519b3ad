"""The tariff page says each §13 setting in words: a choice by its meaning, never a
yes/no (preferans.md §13)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from scoring import services
from scoring.engine.preferans.rules import PreferansRules

pytestmark = pytest.mark.django_db


def page_text(client: Client, overrides: dict, preset: str = "sochi") -> str:
    rules = PreferansRules.preset(preset).with_overrides(overrides)
    document = {"format": "house-tariff/1", "game": "preferans", "name": "x", "rules": {}}
    document["rules"] = rules.to_dict()
    tariff = services.tariff_import(document, by=None)
    response = client.get(reverse("scoring:preferans_tariff_detail", args=[tariff.pk]))
    assert response.status_code == 200
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.mark.parametrize(
    ("overrides", "preset", "words"),
    [
        ({}, "sochi", "A player who took no trick writes the price into his pool"),
        ({}, "rostov", "A player who took no trick writes 1 point into his pool"),
        ({"passout_zero_bonus": False}, "sochi", "A player who took no trick writes nothing"),
        ({"passout_zero_bonus": "one"}, "sochi", "took no trick writes 1 point into his pool"),
        (
            {"passout_zero_bonus": "mountain"},
            "sochi",
            "took no trick takes twice the price off his mountain",
        ),
        (
            {"two_whister_duty": "proportional"},
            "sochi",
            "the shortfall is shared in proportion to how far each is short of his half",
        ),
        (
            {"two_whister_duty": "personal_if_pair_short"},
            "sochi",
            "charged only when the pair together is short",
        ),
        (
            {"passout_series_ends_on": "made_game_from_level", "passout_series_end_level": 9},
            "sochi",
            "A series of pass-outs ends with only a made game of 9 or more",
        ),
        ({}, "sochi", "The declarer may give his contract up unplayed no"),
        (
            {"concede": True, "concede_undertricks": 2},
            "leningrad",
            "writes the undertricks × 2 V into his mountain (usually 2 undertricks)",
        ),
        ({"help_to": "clockwise"}, "sochi", "Help goes to the next open pool clockwise"),
        ({"settlement_pools": "ignored"}, "sochi", "Pools at settlement left out"),
        ({"stalingrad": True}, "sochi", "Stalingrad yes"),
    ],
)
def test_a_setting_reads_as_words(client: Client, overrides, preset, words):
    assert words in page_text(client, overrides, preset)
