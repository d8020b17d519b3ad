"""The organisers' editor with the settings of preferans.md §14: every choice offered in
words, every value saved as the engine reads it, the impossible combinations refused on
their field, and a change previewed on a game in play with its money worked by hand."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from django.test import Client

from scoring import selectors
from scoring.engine.preferans.rules import PreferansRules
from scoring.models import PreferansTariff
from tests.factories import member, played, pulka
from tests.scoring.admin.test_tariff_admin import SOCHI, change_url, post_change
from tests.scoring.services.test_tariff_versions import preview

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def organiser(client: Client) -> Any:
    user = member("Olga", organiser=True, is_staff=True)
    client.force_login(user)
    return user


def test_every_new_setting_is_offered_with_its_words(client, organiser):
    html = client.get(change_url(PreferansTariff.objects.get(name=SOCHI))).content.decode()

    for name in ("consolation_fixed", "misere_consolation"):
        assert f'name="{name}"' in html
    for name in ("passout_whists_tie", "passout_ladder_repeat", "zero_bonus_when_closed"):
        assert f'<select name="{name}"' in html
    for name in ("concede_ends_passouts", "consolation_by_passer"):
        assert f'<input type="checkbox" name="{name}"' in html
    assert "nobody, even when the defence took no trick" in html
    assert "below zero: written on the others&#x27; mountains" in html


# The form's values and the rules they mean (each differs from Sochi's).
CHANGES = {
    "consolation_fixed": ("10", 10),
    "misere_consolation": ("5", 5),
    "passout_whists_tie": ("split", "split"),
    "passout_ladder_repeat": ("cycle", "cycle"),
    "concede": (True, True),
    "concede_ends_passouts": (True, True),
    "zero_bonus_when_closed": ("mountain", "mountain"),
    "consolation_by_passer": (False, False),
    "duty_at_one": ("none", "none"),
    "overflow_floor": ("shift_all", "shift_all"),
}


def test_the_new_settings_save_as_the_engine_reads_them(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)

    response = post_change(client, tariff, {name: form for name, (form, _) in CHANGES.items()})

    assert response.status_code == 302
    expected = PreferansRules().with_overrides({name: rule for name, (_, rule) in CHANGES.items()})
    tariff.refresh_from_db()
    assert tariff.to_rules() == expected
    assert tariff.current_version.to_rules() == expected


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"concede_ends_passouts": True}, "concede_ends_passouts", "concede = no"),
        (
            {"consolation_rate": "0", "consolation_fixed": "10"},
            "consolation_fixed",
            "consolation rate 0",
        ),
        ({"misere_consolation": "1001"}, "misere_consolation", "1000"),
    ],
)
def test_an_impossible_combination_is_refused_on_its_field(
    client, organiser, changes, field, words
):
    tariff = PreferansTariff.objects.get(name=SOCHI)

    response = post_change(client, tariff, changes)

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert words in " ".join(errors[field])
    tariff.refresh_from_db()
    assert tariff.to_rules() == PreferansRules.preset("sochi")


def test_a_change_is_previewed_on_a_game_in_play(client, organiser):
    """Anna's misère fails with 2 tricks: mountain 2 × 10 = 20. Sochi: balances
    −10 × (20 − 20/3) = −400/3 for Anna, 200/3 for Boris and Vera. With a misère
    consolation of 10, Boris and Vera each write 2 × 10 = 20 on her: −400/3 − 40 = −520/3,
    200/3 + 20 = 260/3."""
    tariff = PreferansTariff.objects.get(name=SOCHI)
    table = played(
        pulka(tariff=SOCHI), [{"kind": "misere", "declarer": "Anna", "tricks": {"Anna": 2}}]
    )
    edited = PreferansRules.preset("sochi").with_overrides({"misere_consolation": 10})
    assert selectors.replay(table).result.balances == (
        Fraction(-400, 3),
        Fraction(200, 3),
        Fraction(200, 3),
    )
    assert selectors.replay(table, rules=edited).result.balances == (
        Fraction(-520, 3),
        Fraction(260, 3),
        Fraction(260, 3),
    )

    response = preview(client, tariff, {"misere_consolation": "10"})

    html = response.content.decode()
    assert f'name="move_tables" value="{table.pk}"' in html
    assert "Consolation on a failed misère, per trick</th>" in html
    assert PreferansTariff.objects.get(pk=tariff.pk).to_rules().misere_consolation == 0
