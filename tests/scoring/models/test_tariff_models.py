"""House tariffs in the database: constraints, field validation and the preset migration."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from scoring.engine.boston import BostonRules
from scoring.engine.errors import RuleError
from scoring.engine.preferans import PreferansRules
from scoring.engine.record import score_record
from scoring.models import (
    BostonCardRow,
    BostonPaymentRow,
    BostonTariff,
    BostonTariffVersion,
    PreferansTariff,
    PreferansTariffVersion,
)

EXAMPLES = Path(__file__).parents[1] / "engine" / "examples"
RECORDS = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))
PREFERANS_PRESETS = {
    "sochi": "Сочи (Sochi)",
    "leningrad": "Ленинград (Leningrad)",
    "rostov": "Ростов (Rostov)",
    "classic": "Классика (Classic)",
    "fspr_leningrad": "ФСПР Ленинградская (FSPR Leningrad)",  # seeded by 0028
}
BOSTON_PRESETS = {
    "payment-tariff": "Бостон: тариф платежей (payment tariff)",
    "value-card": "Бостон: таблица стоимости (value card)",
}


def sochi() -> PreferansTariff:
    return PreferansTariff.objects.get(name=PREFERANS_PRESETS["sochi"])


def payment_tariff() -> BostonTariff:
    return BostonTariff.objects.get(name=BOSTON_PRESETS["payment-tariff"])


# -- database constraints: a bad row never reaches the table ------------------------------


def refused_by(constraint: str, update: Any) -> None:
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        update()
    assert constraint in str(error.value)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "constraint"),
    [
        ({"value_6": 0}, "preferans_values_positive"),
        ({"value_10": 0}, "preferans_values_positive"),
        ({"value_misere": 0}, "preferans_values_positive"),
        ({"obligation_6": 5}, "preferans_obligations_0_to_4"),
        ({"obligation_10": 5}, "preferans_obligations_0_to_4"),
        ({"whist_rate": Decimal(0)}, "preferans_rates_positive"),
        ({"remise_rate": Decimal(-1)}, "preferans_rates_positive"),
        ({"consolation_rate": Decimal(-1)}, "preferans_rates_positive"),
        ({"whister_penalty_rate": Decimal(0)}, "preferans_rates_positive"),
        ({"misere_penalty": 0}, "preferans_multipliers_positive"),
        ({"passout_whists": 0}, "preferans_multipliers_positive"),
        ({"dark_multiplier": 0}, "preferans_multipliers_positive"),
        ({"pool_weight": 0}, "preferans_multipliers_positive"),
        ({"mountain_weight": 0}, "preferans_multipliers_positive"),
        ({"help_whists_per_point": 0}, "preferans_multipliers_positive"),
        ({"passout_ladder": ""}, "preferans_ladders_not_empty"),
        ({"passout_exit": ""}, "preferans_ladders_not_empty"),
    ],
)
def test_preferans_check_constraints(changes, constraint):
    tariff = sochi()

    refused_by(constraint, lambda: PreferansTariff.objects.filter(pk=tariff.pk).update(**changes))

    assert sochi().to_rules() == PreferansRules.preset("sochi")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "constraint"),
    [
        ({"slam_multiplier": 0}, "boston_multipliers_positive"),
        ({"major_multiplier": 0}, "boston_multipliers_positive"),
        ({"double_tour_multiplier": 0}, "boston_multipliers_positive"),
        ({"spades_multiplier": 0}, "boston_multipliers_positive"),
        ({"hearts_multiplier": 0}, "boston_multipliers_positive"),
        ({"together_required": 5}, "boston_together_6_to_13"),
        ({"together_required": 14}, "boston_together_6_to_13"),
    ],
)
def test_boston_check_constraints(changes, constraint):
    tariff = payment_tariff()

    refused_by(constraint, lambda: BostonTariff.objects.filter(pk=tariff.pk).update(**changes))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "constraint"),
    [
        ({"base": 0}, "boston_payment_row_positive"),
        ({"rate": 0}, "boston_payment_row_positive"),
        ({"required": 0}, "boston_payment_row_positive"),
        ({"required": 14}, "boston_payment_row_positive"),
        ({"no_trick_count": 0}, "boston_payment_row_positive"),
        ({"no_trick_count": 14}, "boston_payment_row_positive"),
    ],
)
def test_boston_payment_row_check_constraints(changes, constraint):
    row = payment_tariff().payment_rows.get(contract="supported")

    refused_by(constraint, lambda: BostonPaymentRow.objects.filter(pk=row.pk).update(**changes))


@pytest.mark.django_db
def test_boston_card_row_unit_must_be_positive():
    row = payment_tariff().card_rows.get(row="7")

    refused_by(
        "boston_card_unit_positive",
        lambda: BostonCardRow.objects.filter(pk=row.pk).update(unit=0),
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "create",
    [
        lambda: payment_tariff().payment_rows.create(
            contract="supported", required=8, base=2, rate=2, no_trick_count=13
        ),
        lambda: payment_tariff().card_rows.create(row="boston", unit=100),
        lambda: sochi().versions.create(number=1, rules={}),
        lambda: payment_tariff().versions.create(number=1, rules={}),
        lambda: PreferansTariff.objects.create(name=sochi().name),
    ],
    ids=["payment-row", "card-row", "preferans-version", "boston-version", "tariff-name"],
)
def test_each_thing_exists_once(create):
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


# -- full_clean: the message lands on the field -------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"obligation_6": 5}, "obligation_6", "4"),
        ({"value_8": 0}, "value_8", "1"),
        ({"value_misere": -1}, "value_misere", ""),
        ({"passout_ladder": ""}, "passout_ladder", ""),
        ({"passout_exit": "6, 11"}, "passout_exit", "must be a contract level from 6 to 10"),
        ({"whist_rate": Decimal(0)}, "whist_rate", "0.01"),
        ({"whister_penalty_rate": Decimal(0)}, "whister_penalty_rate", ""),
        ({"half_whist_levels": "5, 6"}, "half_whist_levels", "every level must be from 6 to 10"),
        ({"misere_penalty": 1001}, "misere_penalty", "at most 1000"),
    ],
)
def test_preferans_full_clean_names_the_field(changes, field, message):
    tariff = sochi()
    for name, value in changes.items():
        setattr(tariff, name, value)

    with pytest.raises(ValidationError) as error:
        tariff.full_clean()

    assert field in error.value.message_dict
    assert message in " ".join(error.value.message_dict[field])


@pytest.mark.django_db
def test_engine_messages_are_in_the_field_for_the_engine_setting():
    tariff = sochi()
    tariff.obligation_7 = 7

    with pytest.raises(ValidationError) as error:
        tariff.full_clean()

    # The validator marks the field itself; the engine's check of the whole row of
    # obligations lands on its first field.
    assert "obligation_7" in error.value.message_dict
    assert "from 0 to 4" in " ".join(error.value.message_dict["obligation_6"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"slam_multiplier": 2_000_000}, "slam_multiplier", "must be 1–1000000"),
        ({"together_required": 5}, "together_required", "6"),
        ({"piccolissimo_tricks": 2}, "piccolissimo_tricks", "1"),
        ({"clubs_multiplier": 0}, "clubs_multiplier", "1"),
    ],
)
def test_boston_full_clean_names_the_field(changes, field, message):
    tariff = payment_tariff()
    for name, value in changes.items():
        setattr(tariff, name, value)

    with pytest.raises(ValidationError) as error:
        tariff.full_clean()

    assert message in " ".join(error.value.message_dict[field])


@pytest.mark.django_db
def test_a_valid_tariff_passes_full_clean():
    sochi().full_clean()
    payment_tariff().full_clean()


# -- the presets, as the data migration left them -----------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(("preset", "name"), PREFERANS_PRESETS.items())
def test_preferans_preset_from_the_migration_equals_the_engine_preset(preset, name):
    tariff = PreferansTariff.objects.get(name=name)

    assert tariff.to_rules() == PreferansRules.preset(preset)
    assert tariff.current_version.number == 1
    assert tariff.current_version.to_rules() == PreferansRules.preset(preset)
    assert tariff.current_version.has_rules(PreferansRules.preset(preset))
    assert PreferansTariff.fields_from_rules(tariff.to_rules())["value_6"] == tariff.value_6
    tariff.full_clean()


@pytest.mark.django_db
@pytest.mark.parametrize(("preset", "name"), BOSTON_PRESETS.items())
def test_boston_preset_from_the_migration_equals_the_engine_preset(preset, name):
    tariff = BostonTariff.objects.get(name=name)

    assert tariff.to_rules() == BostonRules.preset(preset)
    assert tariff.current_version.number == 1
    assert tariff.current_version.to_rules() == BostonRules.preset(preset)
    assert tariff.current_version.has_rules(BostonRules.preset(preset))
    assert tariff.payment_rows.count() == 3
    assert tariff.card_rows.count() == 17
    tariff.full_clean()


@pytest.mark.django_db
def test_a_fresh_database_has_exactly_the_seven_presets():
    assert set(PreferansTariff.objects.values_list("name", flat=True)) == set(
        PREFERANS_PRESETS.values()
    )
    assert set(BostonTariff.objects.values_list("name", flat=True)) == set(BOSTON_PRESETS.values())
    assert PreferansTariffVersion.objects.count() == 5
    assert BostonTariffVersion.objects.count() == 2


def rules_from_the_database(preset: str, game: str) -> dict[str, Any]:
    """A record's ``rules``: the preset name plus every setting of the database tariff."""
    if game == "preferans":
        tariff: Any = PreferansTariff.objects.get(name=PREFERANS_PRESETS[preset])
    else:
        tariff = BostonTariff.objects.get(name=BOSTON_PRESETS[preset])
    return {"preset": preset, **tariff.to_rules().to_dict()}


@pytest.mark.django_db
@pytest.mark.parametrize("record", RECORDS, ids=lambda p: p.stem)
def test_shared_examples_score_the_same_under_the_database_tariffs(record):
    data = json.loads(record.read_text())
    expected = json.loads(record.with_suffix(".expected.json").read_text())
    assert isinstance(data["rules"], str)  # every example names a preset
    data["rules"] = rules_from_the_database(data["rules"], data["game"])

    if expected == {"invalid": True}:
        with pytest.raises(RuleError):
            score_record(data)
    else:
        assert score_record(data) == expected
