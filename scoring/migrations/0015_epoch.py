"""The database's epoch (``scoring.models.Epoch``): one row, created here with a fresh
token; every later migrate, flush and restore renews it (``scoring.live.keys``)."""

import secrets

from django.db import migrations, models


def new_token():
    # Copied from scoring.models.epoch: a migration must not change later.
    return secrets.token_hex(8)


def create_epoch(apps, schema_editor):
    apps.get_model("scoring", "Epoch").objects.get_or_create(id=1, defaults={"token": new_token()})


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0014_evenings"),
    ]

    operations = [
        migrations.CreateModel(
            name="Epoch",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("token", models.CharField(max_length=32)),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(condition=models.Q(("id", 1)), name="epoch_is_one_row")
                ],
            },
        ),
        migrations.RunPython(create_epoch, migrations.RunPython.noop),
    ]
