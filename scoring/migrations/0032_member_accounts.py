"""The members' accounts: an append-only cash book (``AccountEntry``) and the club's table
money drawn from the accounts when an evening is closed (``Club.account_table_money``)."""

from decimal import Decimal

import django.core.validators
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0031_evenings_announced_ahead"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="club",
            name="account_table_money",
            field=models.DecimalField(
                decimal_places=2,
                default=Decimal("0"),
                help_text="Drawn from the account of each member checked in when an evening is closed, once; 0: none. The season's table money is collected at the door instead: set one of them, not both.",
                max_digits=9,
                validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                verbose_name="table money drawn from members' accounts",
            ),
        ),
        migrations.CreateModel(
            name="AccountEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "amount",
                    models.DecimalField(decimal_places=2, max_digits=12, verbose_name="amount"),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("top_up", "top-up"),
                            ("refund", "refund"),
                            ("table_money", "table money"),
                            ("shared_expense", "shared expense"),
                            ("guest", "paid for a guest"),
                            ("settlement", "settlement"),
                            ("correction", "correction"),
                        ],
                        max_length=20,
                        verbose_name="kind",
                    ),
                ),
                (
                    "recorded_at",
                    models.DateTimeField(
                        default=django.utils.timezone.now,
                        editable=False,
                        verbose_name="recorded at",
                    ),
                ),
                ("reason", models.CharField(blank=True, max_length=200, verbose_name="why")),
                (
                    "evening",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="account_entries",
                        to="scoring.evening",
                        verbose_name="evening",
                    ),
                ),
                (
                    "member",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="account_entries",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="member",
                    ),
                ),
                (
                    "recorded_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="recorded by",
                    ),
                ),
            ],
            options={
                "verbose_name": "account entry",
                "verbose_name_plural": "account entries",
                "ordering": ("recorded_at", "id"),
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("amount", 0), _negated=True),
                        name="account_entry_not_zero",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("amount__gt", 0),
                            models.Q(("kind", "top_up"), _negated=True),
                            _connector="OR",
                        ),
                        name="account_top_up_positive",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("amount__lt", 0),
                            models.Q(("kind__in", ("refund", "table_money")), _negated=True),
                            _connector="OR",
                        ),
                        name="account_charge_negative",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("kind", "table_money")),
                        fields=("evening", "member"),
                        name="account_table_money_once",
                    ),
                ],
            },
        ),
    ]
