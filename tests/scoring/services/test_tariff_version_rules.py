"""Versions are compared by the rules the engine reads from them, not by their raw JSON.

A version published before a setting existed stores no key for it; the engine gives the
setting its default. Such a version must still count as "the same rules": saving the
unchanged tariff publishes nothing, and a game record played under those rules finds it.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from scoring import games, services
from scoring.engine import boston, preferans
from scoring.models import BostonTariff, PreferansTariff
from scoring.selectors.tariffs import version_with_rules
from tests.factories import boston_table, member, pulka
from tests.scoring.admin.test_tariff_admin import PAYMENT, SOCHI, change_form, change_url, edit


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def published_before(version: Any, *missing: str) -> Any:
    """``version`` as if published before the settings ``missing`` existed (their
    values are the engine's defaults, so the rules are unchanged)."""
    version.rules = {k: v for k, v in version.rules.items() if k not in missing}
    version.save(update_fields=["rules"])
    return version


@pytest.mark.django_db
def test_an_old_used_version_is_kept_when_the_unchanged_tariff_is_saved():
    tariff = PreferansTariff.objects.get(name=SOCHI)
    pulka(tariff=SOCHI)  # the version is in use: a change would publish version 2
    old = published_before(tariff.current_version, "passout_same_dealer", "bombs")
    assert old.rules != tariff.to_rules().to_dict()  # what the raw comparison saw

    version = services.tariff_publish(tariff, by=None)

    assert version.pk == old.pk
    assert tariff.versions.count() == 1
    old.refresh_from_db()
    assert "bombs" not in old.rules  # a used version is never rewritten


@pytest.mark.django_db
def test_an_old_unused_version_is_not_rewritten_when_nothing_changed():
    tariff = PreferansTariff.objects.get(name=SOCHI)
    old = published_before(tariff.current_version, "dark_multiplier")

    services.tariff_publish(tariff, by=None)

    old.refresh_from_db()
    assert "dark_multiplier" not in old.rules
    assert old.created_by is None


@pytest.mark.django_db
def test_an_old_boston_version_is_kept_when_the_unchanged_tariff_is_saved():
    tariff = BostonTariff.objects.get(name=PAYMENT)
    boston_table()
    old = published_before(tariff.current_version, "card_pays_undertricks", "together_required")

    version = services.tariff_publish(tariff, by=None)

    assert version.pk == old.pk
    assert tariff.versions.count() == 1


@pytest.mark.django_db
def test_a_real_change_still_publishes_a_new_version():
    tariff = PreferansTariff.objects.get(name=SOCHI)
    pulka(tariff=SOCHI)
    published_before(tariff.current_version, "bombs")
    tariff.bombs = True

    version = services.tariff_publish(tariff, by=None)

    assert version.number == 2
    assert version.rules == tariff.to_rules().to_dict()


@pytest.mark.django_db
def test_saving_the_unchanged_tariff_in_the_admin_publishes_nothing(client: Client):
    client.force_login(member("Olga", organiser=True, is_staff=True))
    tariff = PreferansTariff.objects.get(name=SOCHI)
    pulka(tariff=SOCHI)
    published_before(tariff.current_version, "passout_amnesty")

    data = edit(change_form(client, tariff), {}) | {"_save": "Save"}
    response = client.post(change_url(tariff), data)

    assert response.status_code == 302
    assert tariff.versions.count() == 1


@pytest.mark.django_db
def test_a_game_record_finds_the_old_version_it_was_played_under():
    tariff = PreferansTariff.objects.get(name=SOCHI)
    old = published_before(tariff.current_version, "passout_same_dealer")
    rules = preferans.record.parse_rules("sochi")
    assert old.rules != rules.to_dict()

    assert version_with_rules(games.PREFERANS, rules) == old


@pytest.mark.django_db
def test_a_boston_record_finds_the_old_version_it_was_played_under():
    tariff = BostonTariff.objects.get(name=PAYMENT)
    old = published_before(tariff.current_version, "piccolissimo_tricks")
    rules = boston.record.parse_rules("payment-tariff")

    assert version_with_rules(games.BOSTON, rules) == old


@pytest.mark.django_db
def test_the_newest_matching_version_is_found():
    tariff = PreferansTariff.objects.get(name=SOCHI)
    copy = services.tariff_copy(tariff, name="Сочи, ещё раз", by=None)

    found = version_with_rules(games.PREFERANS, preferans.PreferansRules.preset("sochi"))

    assert found == copy.current_version


@pytest.mark.django_db
def test_rules_no_version_has_match_nothing():
    rules = preferans.PreferansRules.preset("sochi").with_overrides({"misere_penalty": 999})

    assert version_with_rules(games.PREFERANS, rules) is None


@pytest.mark.django_db
def test_a_version_the_engine_no_longer_reads_matches_nothing():
    tariff = PreferansTariff.objects.get(name=SOCHI)
    version = tariff.current_version
    version.rules = version.rules | {"a_setting_since_removed": 1}
    version.save(update_fields=["rules"])

    assert not version.has_rules(tariff.to_rules())
    assert version_with_rules(games.PREFERANS, tariff.to_rules()) is None
