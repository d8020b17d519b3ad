"""The old yes/no column of ``passout_zero_bonus``, converted by 0008, goes."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0008_passout_zero_bonus_values"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="preferanstariff",
            name="passout_zero_bonus_yes_no",
        ),
    ]
