"""A finished table's game identity (SHA-256 of its canonical record), indexed, so that an
import of a game the club has already is refused (issue 19). Tables finished before this
migration have none until ``manage.py digest_tables`` fills them in."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0005_season_permissions"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="record_digest",
            field=models.CharField(
                blank=True,
                editable=False,
                max_length=64,
                null=True,
                verbose_name="record digest",
            ),
        ),
        migrations.AddIndex(
            model_name="table",
            index=models.Index(fields=["record_digest"], name="table_record_digest"),
        ),
    ]
