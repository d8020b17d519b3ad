"""Every game is played under the exact tariff version it started with.

Editing a tariff no table has used updates its version in place; editing a used one
publishes a new version, and finished games keep their numbers forever. With games in
play, the organiser first sees what would change and chooses which games move.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from scoring import selectors
from scoring.engine.preferans.rules import PreferansRules
from scoring.models import AuditEntry, BostonTariff, PreferansTariff, Table
from tests.factories import boston_table, played, pulka
from tests.scoring.admin.test_tariff_admin import (
    PAYMENT,
    SOCHI,
    change_form,
    change_url,
    edit,
    form_data,
    row_field,
)

EXAMPLES = Path(__file__).parents[1] / "engine" / "examples"
SOCHI_DEALS = json.loads((EXAMPLES / "sochi-short-pulka.json").read_text())["deals"]
BOSTON_DEALS = [
    {"kind": "ask", "declarer": "Anna", "partner": "Vera", "suit": "minor", "tricks": 13},
    {"kind": "independence", "declarer": "Boris", "suit": "major", "tricks": 7},
    {"kind": "ask", "declarer": "Gleb", "suit": "minor", "tour": "double", "tricks": 6},
    {"kind": "ask", "declarer": "Vera", "partner": "Boris", "suit": "major", "tricks": 0},
]
CARD_DEALS = [
    {"kind": "card", "declarer": "Vera", "contract": "8", "column": "diamonds", "tricks": 9}
    | {"honours": 4},
    {"kind": "card", "declarer": "Anna", "contract": "5", "partner": "Gleb", "column": "spades"}
    | {"tricks": 7, "honours": 3},
    {"kind": "card", "declarer": "Boris", "contract": "small-misere", "column": "clubs"}
    | {"tricks": 1},
    {"kind": "card", "declarer": "Gleb", "contract": "piccolissimo", "column": "hearts"}
    | {"tricks": 1},
]
VALUE_CARD = "Бостон: таблица стоимости (value card)"

# A new value for every setting of preferans.md §11 (each differs from Sochi's).
EVERY_PREFERANS_SETTING = {
    "value_6": 3,
    "value_7": 5,
    "value_8": 7,
    "value_9": 9,
    "value_10": 11,
    "value_misere": 12,
    "obligation_6": 3,
    "obligation_7": 3,
    "obligation_8": 2,
    "obligation_9": 2,
    "obligation_10": 0,
    "whist_rate": "1.50",
    "remise_rate": "2",
    "consolation_rate": "0.50",
    "whister_penalty_rate": "3",
    "misere_penalty": 15,
    "lone_whist": "gentleman",
    "consolation_by_dealer": False,
    "whister_duty": "none",
    "two_whister_duty": "pair",
    "ten_is_whisted": False,
    "half_whist_levels": "6",
    "passout_mode": "whists",
    "passout_whists": 4,
    "passout_ladder": "2, 4",
    "passout_amnesty": True,
    "passout_zero_bonus": "none",
    "passout_exit": "6, 7",
    "misere_ends_passouts": False,
    "dealer_takes_widow_tricks": True,
    "passout_same_dealer": True,
    "dark_games": True,
    "dark_multiplier": 3,
    "bombs": True,
    "pool_weight": 20,
    "mountain_weight": 5,
    "help_whists_per_point": 15,
    "settlement_divisor": "players_minus_one",
}
EVERY_BOSTON_SETTING = {
    "slam_multiplier": 3,
    "major_multiplier": 3,
    "double_tour_multiplier": 4,
    "supported_payers": "each",
    "spades_multiplier": 2,
    "clubs_multiplier": 3,
    "diamonds_multiplier": 5,
    "hearts_multiplier": 7,
    "together_required": 9,
    "piccolissimo_tricks": 0,
    "card_pays_honours": False,
    "card_pays_overtricks": False,
    "card_pays_undertricks": False,
}


def save(client: Client, tariff: Any, changes: dict[str, Any]) -> Any:
    data = edit(change_form(client, tariff), changes) | {"_save": "Save"}
    return client.post(change_url(tariff), data)


# -- (a) an unused tariff is edited in place ----------------------------------------------


@pytest.mark.django_db
def test_editing_an_unused_tariff_updates_version_1_in_place(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    version = tariff.current_version

    response = save(client, tariff, {"whist_rate": "2"})

    assert response.status_code == 302
    assert tariff.versions.count() == 1
    version.refresh_from_db()
    assert version.number == 1
    assert version.to_rules().whist_rate == 2
    assert version.created_by == organiser


@pytest.mark.django_db
def test_saving_without_a_rules_change_keeps_the_version(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    played(pulka(tariff=SOCHI), SOCHI_DEALS[:2], finished=True)

    response = save(client, tariff, {"description": "only the words change"})

    assert response.status_code == 302
    assert tariff.versions.count() == 1


# -- (b) finished games keep their numbers, whatever the edit ----------------------------


@pytest.mark.django_db
def test_editing_every_preferans_setting_leaves_finished_games_unchanged(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    table = played(pulka(tariff=SOCHI), SOCHI_DEALS, finished=True)
    stored = table.result
    replayed = selectors.replay(table).document()
    old_rules = tariff.current_version.rules
    assert stored == replayed

    response = save(client, tariff, EVERY_PREFERANS_SETTING)

    assert response.status_code == 302, response.context["adminform"].form.errors
    tariff.refresh_from_db()
    new_rules = tariff.current_version.rules
    assert tariff.current_version.number == 2
    assert [name for name in old_rules if old_rules[name] == new_rules[name]] == []
    table = Table.objects.get(pk=table.pk)
    assert table.preferans_version.number == 1
    assert table.preferans_version.rules == old_rules
    assert table.result == stored
    assert selectors.replay(table).document() == stored
    # …and the new rules really would score this game differently.
    assert selectors.replay(table, rules=tariff.to_rules()).document() != stored


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "system", "other_system", "deals"),
    [
        (PAYMENT, "payment-tariff", "value-card", BOSTON_DEALS),
        (VALUE_CARD, "value-card", "payment-tariff", CARD_DEALS),
    ],
)
def test_editing_every_boston_setting_and_row_leaves_finished_games_unchanged(
    client, organiser, name, system, other_system, deals
):
    tariff = BostonTariff.objects.get(name=name)
    table = played(boston_table(system=system), deals, finished=True)
    stored = table.result
    assert selectors.replay(table).document() == stored
    old_rules = tariff.current_version.rules
    changes = EVERY_BOSTON_SETTING | {"system": other_system}
    data = edit(change_form(client, tariff), changes)
    for row in tariff.payment_rows.all():
        data[row_field(data, "payment_rows", row, "required")] = str(row.required + 1)
        data[row_field(data, "payment_rows", row, "base")] = str(row.base + 1)
        data[row_field(data, "payment_rows", row, "rate")] = str(row.rate + 1)
        data[row_field(data, "payment_rows", row, "no_trick_count")] = str(row.no_trick_count - 1)
    for row in tariff.card_rows.all():
        for field in ("unit", "three_honours", "four_honours", "overtrick"):
            if getattr(row, field) is not None:
                data[row_field(data, "card_rows", row, field)] = str(getattr(row, field) + 1)

    response = client.post(change_url(tariff), data | {"_save": "Save"})

    assert response.status_code == 302
    tariff.refresh_from_db()
    new_rules = tariff.current_version.rules
    assert tariff.current_version.number == 2
    unchanged = [name for name in old_rules if old_rules[name] == new_rules[name]]
    assert unchanged == ["suit_order"]  # the column order is not a tariff setting
    table = Table.objects.get(pk=table.pk)
    assert table.boston_version.number == 1
    assert table.boston_version.rules == old_rules
    assert table.result == stored
    assert selectors.replay(table).document() == stored
    # The edited rules would score this game differently (under its own system).
    edited = tariff.to_rules().with_overrides({"system": system})
    assert selectors.replay(table, rules=edited).document() != stored


@pytest.mark.django_db
def test_a_second_edit_of_an_unplayed_new_version_updates_it(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    played(pulka(tariff=SOCHI), SOCHI_DEALS[:2], finished=True)

    save(client, tariff, {"whist_rate": "2"})
    save(client, tariff, {"remise_rate": "2"})

    assert list(tariff.versions.values_list("number", flat=True)) == [2, 1]
    assert tariff.current_version.to_rules().remise_rate == 2
    assert tariff.current_version.to_rules().whist_rate == 2


# -- (c) games in play: a preview, and the organiser chooses -----------------------------


def preview(client: Client, tariff: Any, changes: dict[str, Any]) -> Any:
    response = save(client, tariff, changes)
    assert response.status_code == 200
    assert response.templates[0].name == "admin/scoring/tariff_change_preview.html"
    return response


@pytest.mark.django_db
def test_preview_lists_games_in_play_with_money_before_and_after(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    table = played(pulka(tariff=SOCHI, price=Decimal("0.50")), SOCHI_DEALS)
    before = selectors.replay(table).result.money
    edited = PreferansRules.preset("sochi").with_overrides({"whist_rate": 2})
    after = selectors.replay(table, rules=edited).result.money

    response = preview(client, tariff, {"whist_rate": "2"})

    html = response.content.decode()
    assert before != after
    for name, money_before, money_after in zip(
        ("Anna", "Boris", "Vera"), before, after, strict=True
    ):
        row = f'<tr><th scope="row">{name}</th><td>{money_before}</td><td>{money_after}</td>'
        assert row in html
    assert f'name="move_tables" value="{table.pk}"' in html
    assert "checked" not in html.split('id="tariff-preview-form"')[1]
    # The changed setting in words, not the engine's key.
    assert '<tr><th scope="row">Whist rate</th><td>1</td><td>2</td></tr>' in html
    assert "whist_rate</" not in html
    # Nothing is saved by the preview.
    assert tariff.versions.count() == 1
    assert PreferansTariff.objects.get(pk=tariff.pk).to_rules().whist_rate == 1


@pytest.mark.django_db
def test_confirmed_edit_moves_only_the_ticked_games(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    moved = played(pulka(tariff=SOCHI), SOCHI_DEALS[:3])
    stays = played(pulka(tariff=SOCHI), SOCHI_DEALS[:2])
    done = played(pulka(tariff=SOCHI), SOCHI_DEALS[:1], finished=True)
    response = preview(client, tariff, {"whist_rate": "2"})
    data = form_data(response.content.decode(), "tariff-preview-form")
    assert f'name="move_tables" value="{done.pk}"' not in response.content.decode()

    confirm = client.post(change_url(tariff), data | {"move_tables": [str(moved.pk)]})

    assert confirm.status_code == 302
    assert tariff.versions.count() == 2
    assert Table.objects.get(pk=moved.pk).preferans_version.number == 2
    assert Table.objects.get(pk=stays.pk).preferans_version.number == 1
    assert Table.objects.get(pk=done.pk).preferans_version.number == 1
    entry = AuditEntry.objects.get(table=moved, action=AuditEntry.RETARIFF)
    assert entry.actor == organiser
    assert entry.after == {"tariff": f"{SOCHI} v2"}
    assert not AuditEntry.objects.filter(table=stays, action=AuditEntry.RETARIFF).exists()
    assert selectors.replay(Table.objects.get(pk=moved.pk)).game.setup.rules.whist_rate == 2


@pytest.mark.django_db
def test_not_ticking_leaves_every_game_on_its_version(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    table = played(pulka(tariff=SOCHI), SOCHI_DEALS[:3])
    response = preview(client, tariff, {"whist_rate": "2"})
    data = form_data(response.content.decode(), "tariff-preview-form")

    confirm = client.post(change_url(tariff), data)

    assert confirm.status_code == 302
    assert tariff.versions.count() == 2
    assert PreferansTariff.objects.get(pk=tariff.pk).to_rules().whist_rate == 2
    assert Table.objects.get(pk=table.pk).preferans_version.number == 1
    assert not AuditEntry.objects.filter(action=AuditEntry.RETARIFF).exists()


@pytest.mark.django_db
def test_a_game_the_new_rules_reject_shows_why_and_cannot_move(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    half_whist = [d for d in SOCHI_DEALS if d.get("answers", {}).get("Vera") == "half"]
    table = played(pulka(tariff=SOCHI), half_whist)
    response = preview(client, tariff, {"half_whist_levels": "7"})
    html = response.content.decode()
    assert "not valid under the edited rules" in html
    assert f'value="{table.pk}" id="move-{table.pk}" disabled' in html
    data = form_data(html, "tariff-preview-form")

    confirm = client.post(change_url(tariff), data | {"move_tables": [str(table.pk)]})

    assert confirm.status_code == 302
    assert tariff.versions.count() == 2
    assert Table.objects.get(pk=table.pk).preferans_version.number == 1


@pytest.mark.django_db
def test_boston_preview_reads_the_edited_rows(client, organiser):
    tariff = BostonTariff.objects.get(name=PAYMENT)
    table = played(boston_table(system="payment-tariff"), BOSTON_DEALS[:1])
    row = tariff.payment_rows.get(contract="supported")
    data = change_form(client, tariff)
    data[row_field(data, "payment_rows", row, "base")] = "3"

    response = client.post(change_url(tariff), data | {"_save": "Save"})

    assert response.templates[0].name == "admin/scoring/tariff_change_preview.html"
    html = response.content.decode()
    # The supported slam: 2·base + 5·2·rate = 24 chips now, 26 with base 3 (pairs: each
    # winner is paid by one opponent).
    assert "<td>24.00</td><td>26.00</td><td>+2.00</td>" in html
    assert "supported ask (8 together): consolation" in html  # the row and term in words
    confirm = client.post(
        change_url(tariff),
        form_data(html, "tariff-preview-form") | {"move_tables": [str(table.pk)]},
    )
    assert confirm.status_code == 302
    assert Table.objects.get(pk=table.pk).boston_version.number == 2
    assert tariff.payment_rows.get(contract="supported").base == 3


@pytest.mark.django_db
def test_an_edit_without_a_rules_change_needs_no_preview(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    played(pulka(tariff=SOCHI), SOCHI_DEALS[:2])

    response = save(client, tariff, {"description": "no rule changes"})

    assert response.status_code == 302
    assert tariff.versions.count() == 1


@pytest.mark.django_db
def test_an_invalid_edit_shows_the_form_not_the_preview(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    played(pulka(tariff=SOCHI), SOCHI_DEALS[:2])

    response = save(client, tariff, {"obligation_6": 5})

    assert response.status_code == 200
    assert "obligation_6" in response.context["adminform"].form.errors
