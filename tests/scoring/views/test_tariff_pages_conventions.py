"""The tariff page says each §14 setting in words (preferans.md §14)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.scoring.views.test_tariff_pages_house_settings import page_text

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("overrides", "preset", "words"),
    [
        ({}, "sochi", "Fixed consolation per undertrick none: the consolation rate applies"),
        ({"consolation_fixed": 10}, "rostov", "Fixed consolation per undertrick 10"),
        ({}, "sochi", "Consolation on a failed misère, per trick none"),
        ({"misere_consolation": 10}, "sochi", "Consolation on a failed misère, per trick 10"),
        (
            {"passout_whists_tie": "split"},
            "rostov",
            "A tie for fewest pass-out tricks they share it",
        ),
        (
            {"passout_ladder_repeat": "cycle"},
            "sochi",
            "Past the last pass-out price the prices start again",
        ),
        (
            {"concede": True, "concede_ends_passouts": True},
            "sochi",
            "A conceded contract ends a series of pass-outs yes",
        ),
        (
            {"zero_bonus_when_closed": "mountain"},
            "sochi",
            "No-trick bonus with a closed pool off his own mountain",
        ),
        (
            {"consolation_by_passer": False},
            "sochi",
            "The passer consoles on a remise against one whister no",
        ),
        ({"duty_at_one": "none"}, "sochi", "nobody, even when the defence took no trick"),
        (
            {"overflow_floor": "shift_all"},
            "sochi",
            "Overflow off the mountain below zero: written on the others",
        ),
    ],
)
def test_a_setting_reads_as_words(client: Client, overrides, preset, words):
    assert words in page_text(client, overrides, preset)


def test_a_concession_setting_is_not_shown_while_conceding_is_off(client: Client):
    assert "A conceded contract ends a series" not in page_text(client, {})
