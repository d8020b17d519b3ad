"""The preset house tariffs, so a fresh database can open tables at once.

The numbers are copied here (preferans.md §11, boston.md §1–§2 and the cleaned
boston_tariff.json), not imported: a migration must give the same rows forever, whatever
the engine's defaults become. A test checks they still equal the engine's presets.
"""

from django.db import migrations

SOCHI = {
    "contract_values": [2, 4, 6, 8, 10, 10],
    "whist_obligations": [4, 2, 1, 1, 1],
    "whist_rate": 1,
    "remise_rate": 1,
    "consolation_rate": 1,
    "whister_penalty_rate": 1,
    "misere_penalty": 10,
    "lone_whist": "greedy",
    "consolation_by_dealer": True,
    "whister_duty": "responsible",
    "two_whister_duty": "personal",
    "ten_is_whisted": True,
    "half_whist_levels": [6, 7],
    "passout_mode": "mountain",
    "passout_whists": 5,
    "passout_ladder": [1, 2, 3],
    "passout_amnesty": False,
    "passout_zero_bonus": True,
    "passout_exit": [6],
    "misere_ends_passouts": True,
    "dealer_takes_widow_tricks": False,
    "passout_same_dealer": False,
    "dark_games": False,
    "dark_multiplier": 2,
    "bombs": False,
    "pool_weight": 10,
    "mountain_weight": 10,
    "help_whists_per_point": 10,
    "settlement_divisor": "players",
}
PREFERANS = {
    "Сочи (Sochi)": (
        "Сочинка: the most played variant; greedy whist, pass-outs 1, 2, 3.",
        SOCHI,
    ),
    "Ленинград (Leningrad)": (
        "Ленинградка: doubled whists and remises, gentleman's whist, pass-outs 2, 4, 6, "
        "exit on 7, pool point worth 20 whists.",
        SOCHI
        | {
            "whist_rate": 2,
            "remise_rate": 2,
            "consolation_rate": 2,
            "misere_penalty": 20,
            "lone_whist": "gentleman",
            "passout_ladder": [2, 4, 6],
            "passout_exit": [7],
            "pool_weight": 20,
            "help_whists_per_point": 20,
        },
    ),
    "Ростов (Rostov)": (
        "Ростов: pass-outs paid in whists, 5 per trick, by the player with fewest tricks.",
        SOCHI | {"passout_mode": "whists", "passout_whists": 5, "passout_ladder": [1]},
    ),
    "Классика (Classic)": (
        "Классика with dark games and bombs (seed 001): pass-outs 1, 2, 4 with exits 6, 7, 8, "
        "the dealer plays the widow and deals again after a pass-out.",
        SOCHI
        | {
            "passout_ladder": [1, 2, 4],
            "passout_exit": [6, 7, 8],
            "dealer_takes_widow_tricks": True,
            "passout_same_dealer": True,
            "dark_games": True,
            "dark_multiplier": 2,
            "bombs": True,
        },
    ),
}
PAYMENT_ROWS = [  # contract, required, base, rate, tricks counted when none is taken
    ("supported", 8, 2, 2, 13),
    ("unsupported", 5, 2, 2, 5),
    ("independence", 8, 16, 4, 13),
]
TRICK_ROWS = [  # row, unit, three honours, four honours, each overtrick
    ("5", 4, 3, 4, 1),
    ("6", 6, 4, 6, 2),
    ("7", 9, 6, 9, 3),
    ("8", 12, 8, 12, 4),
    ("9", 15, 10, 15, 5),
    ("10", 18, 12, 18, 6),
    ("11", 21, 14, 21, 7),
    ("12", 24, 16, 24, 8),
]
SPECIAL_ROWS = [
    ("slam-by-two", 50),
    ("small-misere", 16),
    ("piccolissimo", 24),
    ("grand-misere", 32),
    ("four-tour-misere", 40),
    ("small-open-misere", 48),
    ("grand-open-misere", 56),
    ("boston", 100),
    ("open-boston", 200),
]
BOSTON_TARIFF = {
    "slam_multiplier": 2,
    "major_multiplier": 2,
    "double_tour_multiplier": 2,
    "supported_payers": "pairs",
    "spades_multiplier": 1,
    "clubs_multiplier": 2,
    "diamonds_multiplier": 3,
    "hearts_multiplier": 4,
    "together_required": 8,
    "piccolissimo_tricks": 1,
    "card_pays_honours": True,
    "card_pays_overtricks": True,
    "card_pays_undertricks": True,
}
BOSTON = {
    "Бостон: тариф платежей (payment tariff)": (
        "payment-tariff",
        "The seed's «Тариф платежей»: supported ask, unsupported ask and independence, "
        "with the OCR faults corrected as docs/rules.md lists.",
    ),
    "Бостон: таблица стоимости (value card)": (
        "value-card",
        "The seed's contract value card: four suit columns, honours and overtricks.",
    ),
}


def preferans_fields(rules):
    fields = {k: v for k, v in rules.items() if k not in ("contract_values", "whist_obligations")}
    for level, value, obligation in zip(
        (6, 7, 8, 9, 10), rules["contract_values"], rules["whist_obligations"], strict=False
    ):
        fields[f"value_{level}"] = value
        fields[f"obligation_{level}"] = obligation
    fields["value_misere"] = rules["contract_values"][5]
    for name in ("half_whist_levels", "passout_ladder", "passout_exit"):
        fields[name] = ", ".join(str(n) for n in rules[name])
    return fields


def boston_rules(system):
    """The engine's settings (``BostonRules.to_dict()``) of a preset Boston tariff."""
    rules = {
        "system": system,
        "suit_order": ["spades", "clubs", "diamonds", "hearts"],
        "column_multipliers": [1, 2, 3, 4],
    }
    for contract, required, base, rate, none in PAYMENT_ROWS:
        rules |= {
            f"{contract}_required": required,
            f"{contract}_base": base,
            f"{contract}_rate": rate,
            f"{contract}_no_trick_count": none,
        }
    columns = ("spades_multiplier", "clubs_multiplier", "diamonds_multiplier", "hearts_multiplier")
    rules |= {k: v for k, v in BOSTON_TARIFF.items() if k not in columns}
    rules["contract_units"] = [r[1] for r in TRICK_ROWS]
    rules["three_honours_units"] = [r[2] for r in TRICK_ROWS]
    rules["four_honours_units"] = [r[3] for r in TRICK_ROWS]
    rules["overtrick_units"] = [r[4] for r in TRICK_ROWS]
    for row, unit in SPECIAL_ROWS:
        rules[f"{row.replace('-', '_')}_unit"] = unit
    return rules


def create_presets(apps, schema_editor):
    PreferansTariff = apps.get_model("scoring", "PreferansTariff")
    BostonTariff = apps.get_model("scoring", "BostonTariff")
    for name, (description, rules) in PREFERANS.items():
        tariff = PreferansTariff.objects.create(
            name=name, description=description, **preferans_fields(rules)
        )
        tariff.versions.create(number=1, rules=rules)
    for name, (system, description) in BOSTON.items():
        tariff = BostonTariff.objects.create(
            name=name, description=description, system=system, **BOSTON_TARIFF
        )
        for contract, required, base, rate, none in PAYMENT_ROWS:
            tariff.payment_rows.create(
                contract=contract, required=required, base=base, rate=rate, no_trick_count=none
            )
        for row, unit, three, four, over in TRICK_ROWS:
            tariff.card_rows.create(
                row=row, unit=unit, three_honours=three, four_honours=four, overtrick=over
            )
        for row, unit in SPECIAL_ROWS:
            tariff.card_rows.create(row=row, unit=unit)
        tariff.versions.create(number=1, rules=boston_rules(system))


def remove_presets(apps, schema_editor):
    for model in ("PreferansTariff", "BostonTariff"):
        apps.get_model("scoring", model).objects.filter(name__in=[*PREFERANS, *BOSTON]).delete()


class Migration(migrations.Migration):
    dependencies = [("scoring", "0001_initial")]

    operations = [migrations.RunPython(create_presets, remove_presets)]
