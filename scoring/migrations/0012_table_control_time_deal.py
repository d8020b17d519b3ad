"""A table keeps when its control time was reached (preferans.md §13.12): the deals played
by then, ``None`` for every existing table; the history names marking and clearing it."""

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0011_count_concessions"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="control_time_deal",
            field=models.PositiveIntegerField(
                blank=True,
                null=True,
                validators=[django.core.validators.MaxValueValidator(100000)],
                verbose_name="control time reached after deal",
            ),
        ),
        migrations.AlterField(
            model_name="auditentry",
            name="action",
            field=models.CharField(
                choices=[
                    ("add", "deal added"),
                    ("edit", "deal edited"),
                    ("delete", "deal deleted"),
                    ("undo", "last deal undone"),
                    ("close", "table closed"),
                    ("reopen", "table reopened"),
                    ("import", "record imported"),
                    ("retariff", "moved to a new tariff version"),
                    ("mark", "control time marked: the last round"),
                    ("clock", "control time passed: the last round"),
                    ("unmark", "control time mark cleared"),
                ],
                max_length=10,
            ),
        ),
    ]
