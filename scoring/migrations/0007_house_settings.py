"""The house settings of the second edition (preferans.md §13).

Each new setting is a column with the engine's default, so every tariff plays as before;
published versions are not rewritten (a version without a key reads the default).
Consolation may be 0 (§13.1). ``passout_zero_bonus`` turns from yes/no into a choice
(§13.6): the old column is kept aside as ``passout_zero_bonus_yes_no`` until 0008 has
converted it.
"""

from decimal import Decimal

import django.core.validators
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0006_table_record_digest"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # passout_zero_bonus becomes a choice (preferans.md §13.6): the yes/no column steps
        # aside, the choice takes its name, 0008 converts the stored values, 0009 drops the
        # old column (data changes and ALTER TABLE stay in separate transactions).
        migrations.RenameField(
            model_name="preferanstariff",
            old_name="passout_zero_bonus",
            new_name="passout_zero_bonus_yes_no",
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="passout_zero_bonus",
            field=models.CharField(
                choices=[
                    ("price", "the usual bonus into his pool"),
                    ("none", "nothing"),
                    ("one", "1 point into his pool"),
                    ("mountain", "twice the price off his mountain"),
                ],
                default="price",
                help_text="What a player who took no trick on a pass-out writes: the usual bonus (the price into his pool; in whist mode 1 point), nothing, 1 point into his pool, or twice the price off his mountain.",
                max_length=10,
            ),
        ),
        migrations.RemoveConstraint(
            model_name="preferanstariff",
            name="preferans_rates_positive",
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="concede",
            field=models.BooleanField(
                default=False,
                help_text="The declarer may give his contract up unplayed (уход без двух, без трёх): the undertricks go into his mountain as a remise.",
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="concede_consolation",
            field=models.BooleanField(
                default=False,
                help_text="The consoling players (the defenders and, if he consoles, the 4-player dealer) also write consolation on a conceded contract. Needs conceding allowed.",
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="concede_undertricks",
            field=models.PositiveSmallIntegerField(
                default=3,
                help_text="The undertricks of a concession when the scorer does not enter them (3: «без трёх»).",
                validators=[
                    django.core.validators.MinValueValidator(1),
                    django.core.validators.MaxValueValidator(10),
                ],
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="duty_at_one",
            field=models.CharField(
                choices=[
                    ("second", "the second whister, when the defence took no trick"),
                    ("second_own", "the second whister, when he took no trick himself"),
                    ("both", "both whisters, when the defence took no trick"),
                    ("each_own", "each whister who took no trick himself"),
                ],
                default="second",
                help_text="Two whisters on an 8, 9 or 10 (obligation one trick), with personal quotas: who writes one trick into his mountain. The second whister is the later of the two clockwise after the declarer. Not used when they owe it as a pair or share the shortfall in proportion.",
                max_length=12,
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="duty_on_remise",
            field=models.BooleanField(
                default=True,
                help_text="Whether a whister short of his duty writes mountain even when the declarer went down (no: the remise excuses the defence).",
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="help_to",
            field=models.CharField(
                choices=[
                    ("largest", "the largest open pool"),
                    ("clockwise", "the next open pool clockwise"),
                    ("none", "no help: off his own mountain"),
                ],
                default="largest",
                help_text="Where the points past a player's pool target go: into the largest open pool of an opponent, into the next open pool clockwise, or nowhere (they come off the player's own mountain at once).",
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="last_round",
            field=models.CharField(
                choices=[
                    ("finish_circle", "finish the circle"),
                    ("one_more_circle", "finish the circle and play one more"),
                ],
                default="finish_circle",
                help_text="After the control time: play on until the deal would come back to the first dealer, or one more full circle after that; then the pulka is complete.",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="overflow_floor",
            field=models.CharField(
                choices=[("none", "may go below zero"), ("zero", "stops at zero")],
                default="none",
                help_text="Points past the target that no open pool takes come off the player's own mountain: whether that may take the mountain below zero.",
                max_length=4,
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="passout_series_end_level",
            field=models.PositiveSmallIntegerField(
                default=8,
                help_text="With «only a made game from a set level up»: that level, the lowest contract that ends a series (a game both defenders passed counts as made).",
                validators=[
                    django.core.validators.MinValueValidator(6),
                    django.core.validators.MaxValueValidator(10),
                ],
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="passout_series_ends_on",
            field=models.CharField(
                choices=[
                    ("any_deal", "any game or misère"),
                    ("played_game", "any game but one both defenders passed, or a misère"),
                    ("whisted_made_game", "only a whisted game, made, with the defence's duty met"),
                    (
                        "made_game_from_level",
                        "only a made game from a set level up, or a made misère",
                    ),
                ],
                default="any_deal",
                help_text="Which deal ends a series of pass-outs, so that the price and the exit start again from the first step. Adjustments and conceded contracts never do.",
                max_length=24,
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="settlement_pools",
            field=models.CharField(
                choices=[("counted", "counted"), ("ignored", "left out")],
                default="counted",
                help_text="Whether the pools count at settlement, or only mountains and whists do (for clubs that settle pools only by closing them).",
                max_length=8,
            ),
        ),
        migrations.AddField(
            model_name="preferanstariff",
            name="stalingrad",
            field=models.BooleanField(
                default=False,
                help_text="Stalingrad: a 6♠ must be whisted by both defenders; a 6♠ entered with a pass or a half-whist is refused.",
            ),
        ),
        migrations.AlterField(
            model_name="preferanstariff",
            name="consolation_rate",
            field=models.DecimalField(
                decimal_places=2,
                default=Decimal("1"),
                help_text="Whists each consoling player writes per undertrick, × V (0: no consolation).",
                max_digits=6,
                validators=[
                    django.core.validators.MinValueValidator(Decimal("0")),
                    django.core.validators.MaxValueValidator(Decimal("100")),
                ],
            ),
        ),
        migrations.AlterField(
            model_name="preferanstariff",
            name="two_whister_duty",
            field=models.CharField(
                choices=[
                    ("personal", "personal quotas"),
                    ("pair", "as a pair"),
                    ("personal_if_pair_short", "personal quotas, only when the pair is short"),
                    ("proportional", "the pair's shortfall shared in proportion"),
                ],
                default="personal",
                help_text="Two whisters: each owes half the obligation (personal quotas); or they owe it as a pair and the one with fewer tricks pays the shortfall; or personal quotas charged only when the pair together is short; or the pair's shortfall shared in proportion to how far each is short of his half.",
                max_length=24,
            ),
        ),
        migrations.AddConstraint(
            model_name="preferanstariff",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("consolation_rate__gte", 0),
                    ("remise_rate__gt", 0),
                    ("whist_rate__gt", 0),
                    ("whister_penalty_rate__gt", 0),
                ),
                name="preferans_rates_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="preferanstariff",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("passout_series_end_level__gte", 6),
                    ("passout_series_end_level__lte", 10),
                    ("concede_undertricks__gte", 1),
                    ("concede_undertricks__lte", 10),
                ),
                name="preferans_house_levels",
            ),
        ),
        migrations.AddConstraint(
            model_name="preferanstariff",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("concede", True), ("concede_consolation", False), _connector="OR"
                ),
                name="preferans_concede_consolation_needs_concede",
            ),
        ),
    ]
