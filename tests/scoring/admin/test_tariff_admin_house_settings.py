"""The organisers' editor with the settings of preferans.md §13: every choice is offered
with its words, a choice saves as the engine reads it, and consolation on a concession
without conceding is refused on its field."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from scoring.engine.preferans.rules import PreferansRules
from scoring.models import PreferansTariff
from tests.factories import member
from tests.scoring.admin.test_tariff_admin import SOCHI, change_url, post_change

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def organiser(client: Client) -> Any:
    user = member("Olga", organiser=True, is_staff=True)
    client.force_login(user)
    return user


def test_the_pass_out_bonus_is_a_choice_with_its_words(client, organiser):
    html = client.get(change_url(PreferansTariff.objects.get(name=SOCHI))).content.decode()

    assert '<select name="passout_zero_bonus"' in html
    assert "twice the price off his mountain" in html
    assert '<select name="duty_at_one"' in html
    assert "Conceding a contract" in html


# The form's values (True/False tick or untick a box) and the rules they mean.
CHANGES = {
    "passout_zero_bonus": ("mountain", "mountain"),
    "consolation_rate": ("0", 0),
    "two_whister_duty": ("proportional", "proportional"),
    "duty_on_remise": (False, False),
    "stalingrad": (True, True),
    "concede": (True, True),
    "concede_consolation": (True, True),
    "concede_undertricks": ("2", 2),
    "passout_series_ends_on": ("made_game_from_level", "made_game_from_level"),
    "passout_series_end_level": ("9", 9),
    "help_to": ("none", "none"),
    "overflow_floor": ("zero", "zero"),
    "settlement_pools": ("ignored", "ignored"),
    "last_round": ("one_more_circle", "one_more_circle"),
}


def test_the_new_settings_save_as_the_engine_reads_them(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)

    response = post_change(client, tariff, {name: form for name, (form, _) in CHANGES.items()})

    assert response.status_code == 302
    expected = PreferansRules().with_overrides({name: rule for name, (_, rule) in CHANGES.items()})
    tariff.refresh_from_db()
    assert tariff.to_rules() == expected
    assert tariff.current_version.to_rules() == expected


def test_consolation_on_a_concession_needs_conceding(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)

    response = post_change(client, tariff, {"concede_consolation": True})

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "nothing to console" in " ".join(errors["concede_consolation"])
    tariff.refresh_from_db()
    assert tariff.to_rules() == PreferansRules.preset("sochi")
