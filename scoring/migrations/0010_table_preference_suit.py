"""Boston's preference suit (boston.md §3), the suit turned at the first deal: a deal
given by its trump is major in it. Existing tables have none (``NULL``): their deals give
their class directly and score as before."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0009_remove_passout_zero_bonus_yes_no"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="preference_suit",
            field=models.CharField(
                blank=True,
                choices=[
                    ("spades", "spades"),
                    ("clubs", "clubs"),
                    ("diamonds", "diamonds"),
                    ("hearts", "hearts"),
                ],
                max_length=8,
                null=True,
                verbose_name="preference suit",
            ),
        ),
        migrations.AddConstraint(
            model_name="table",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("preference_suit__isnull", True),
                    models.Q(
                        ("game", "boston"),
                        ("preference_suit__in", ("spades", "clubs", "diamonds", "hearts")),
                    ),
                    _connector="OR",
                ),
                name="table_preference_suit_of_boston",
            ),
        ),
    ]
