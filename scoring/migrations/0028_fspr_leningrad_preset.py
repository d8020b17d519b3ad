"""The federation's preset, «ФСПР Ленинградская», as a house tariff like the other presets.

0002 seeded Sochi, Leningrad, Rostov and Classic; the engine's fifth preset
(``PreferansRules.preset("fspr_leningrad")``, docs/rules.md) could only be imported from
docs/tariffs/fspr-leningrad.json. Now a club picks it in the admin and when opening a table
as it picks the others. The settings are copied here, every one of them, not imported from
the engine: a migration must give the same row forever. A test checks they still equal the
engine's preset. The description is left empty, as 0018 left the other presets'.

A club that already imported the file has a tariff of this name: it is the club's own (it
may have been edited or played under), so it is kept and nothing is created. Going back
removes the tariff only while it is as seeded (one version, these rules), no table plays
under it and no season chose it.
"""

import importlib

from django.db import migrations

# The helper that turns engine settings into the tariff's columns, as 0002 seeded them.
PRESETS = importlib.import_module("scoring.migrations.0002_preset_tariffs")

NAME = "ФСПР Ленинградская (FSPR Leningrad)"
RULES = {
    "contract_values": [2, 4, 6, 8, 10, 10],
    "whist_obligations": [4, 2, 1, 1, 1],
    "whist_rate": 2,
    "remise_rate": 2,
    "consolation_rate": 2,
    "whister_penalty_rate": 1,
    "misere_penalty": 20,
    "lone_whist": "gentleman",
    "consolation_by_dealer": True,
    "whister_duty": "responsible",
    "two_whister_duty": "personal",
    "ten_is_whisted": True,
    "half_whist_levels": [6, 7],
    "passout_mode": "mountain",
    "passout_whists": 5,
    "passout_ladder": [2, 4, 6],
    "passout_amnesty": False,
    "passout_zero_bonus": "price",
    "passout_exit": [7],
    "misere_ends_passouts": True,
    "dealer_takes_widow_tricks": False,
    "passout_same_dealer": False,
    "dark_games": False,
    "dark_multiplier": 2,
    "bombs": False,
    "pool_weight": 20,
    "mountain_weight": 10,
    "help_whists_per_point": 20,
    "settlement_divisor": "players",
    "settlement_pools": "counted",
    "duty_at_one": "second",
    "duty_on_remise": True,
    "passout_series_ends_on": "whisted_made_game",
    "passout_series_end_level": 8,
    "help_to": "largest",
    "overflow_floor": "none",
    "stalingrad": False,
    "concede": False,
    "concede_undertricks": 3,
    "concede_consolation": False,
    "last_round": "finish_circle",
    "consolation_fixed": 0,
    "misere_consolation": 0,
    "passout_whists_tie": "each",
    "passout_ladder_repeat": "last",
    "concede_ends_passouts": False,
    "zero_bonus_when_closed": "help",
    "consolation_by_passer": True,
    "widow_premium": True,
}


def create_preset(apps, schema_editor):
    PreferansTariff = apps.get_model("scoring", "PreferansTariff")
    if PreferansTariff.objects.filter(name=NAME).exists():
        return  # imported from docs/tariffs/fspr-leningrad.json: the club's own, kept
    tariff = PreferansTariff.objects.create(name=NAME, **PRESETS.preferans_fields(RULES))
    tariff.versions.create(number=1, rules=RULES)


def remove_preset(apps, schema_editor):
    PreferansTariff = apps.get_model("scoring", "PreferansTariff")
    Version = apps.get_model("scoring", "PreferansTariffVersion")
    tariff = PreferansTariff.objects.filter(name=NAME).first()
    if tariff is None:
        return
    versions = Version.objects.filter(tariff_id=tariff.pk)
    if list(versions.values_list("number", "rules")) != [(1, RULES)]:
        return  # published anew, or the club's own import: the club's tariff now
    tables = apps.get_model("scoring", "Table").objects.filter(preferans_version__tariff=tariff.pk)
    seasons = apps.get_model("scoring", "Season").objects.filter(preferans_tariff=tariff.pk)
    if tables.exists() or seasons.exists():
        return  # a table plays under it or a season chose it: it stays
    # Nothing refers to them now (checked above), so they go without Django's collector,
    # whose look-ups of related rows fail on the models of a state rendered for going back
    # over several migrations at once ("Must be a PreferansTariff instance").
    alias = schema_editor.connection.alias
    versions._raw_delete(alias)
    PreferansTariff.objects.filter(pk=tariff.pk)._raw_delete(alias)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0027_table_acceptance")]

    operations = [migrations.RunPython(create_preset, remove_preset)]
