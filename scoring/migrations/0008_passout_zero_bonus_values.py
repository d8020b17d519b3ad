"""A stored yes/no of ``passout_zero_bonus`` as the choice it means (preferans.md §13.6):
yes is ``price`` (the price into the pool), no is ``none``.

Going back, only ``price`` is a yes: ``one`` and ``mountain`` had no yes/no of their own.
The mapping is copied here, not imported from the engine, so the migration never changes.
"""

from django.db import migrations

MEANING = {True: "price", False: "none"}


def forwards(apps, schema_editor):
    PreferansTariff = apps.get_model("scoring", "PreferansTariff")
    for old, new in MEANING.items():
        PreferansTariff.objects.filter(passout_zero_bonus_yes_no=old).update(passout_zero_bonus=new)


def backwards(apps, schema_editor):
    PreferansTariff = apps.get_model("scoring", "PreferansTariff")
    PreferansTariff.objects.update(passout_zero_bonus_yes_no=False)
    PreferansTariff.objects.filter(passout_zero_bonus="price").update(
        passout_zero_bonus_yes_no=True
    )


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0007_house_settings"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]
